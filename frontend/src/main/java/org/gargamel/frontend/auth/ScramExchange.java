package org.gargamel.frontend.auth;

import com.ongres.scram.common.ScramFunctions;
import com.ongres.scram.common.ScramMechanism;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;

/**
 * The server's side of one SCRAM-SHA-256 exchange (RFC 5802 §5, as PostgreSQL runs it: the user name comes from the
 * startup message, the client's {@code n=} is ignored; no channel binding yet). Built on com.ongres.scram, the library
 * pgjdbc uses for the client's side. A user without a verifier (unknown) goes through the same exchange with a mock
 * one and fails at the end, as PostgreSQL does, so a client cannot tell unknown users from wrong passwords.
 */
public final class ScramExchange {
    public static final String MECHANISM = "SCRAM-SHA-256";

    private final ScramVerifier verifier;
    private final boolean known;
    private final SecureRandom random;
    private String clientFirstBare;
    private String serverFirst;
    private String nonce;

    /** An exchange for a user; {@code verifier} null: unknown user, the exchange fails at the end. */
    public ScramExchange(ScramVerifier verifier, SecureRandom random) {
        this.known = verifier != null;
        this.verifier =
                verifier != null ? verifier : ScramVerifier.fromPassword(ScramFunctions.nonce(24, random), random);
        this.random = random;
    }

    /** The client's first message (SASLInitialResponse's data): returns the server's first message. */
    public String serverFirst(String clientFirst) throws AuthenticationException {
        // gs2-header ("n,," or "y,," or "p=...,"+authzid+","), then the bare message "n=user,r=nonce[,...]". Parsed
        // here: PostgreSQL clients send an empty user name (n=), which com.ongres.scram's parser refuses.
        if (clientFirst.startsWith("p=")) {
            throw new AuthenticationException(
                    "28000", "channel binding is not supported yet: use SCRAM-SHA-256 without channel binding");
        }
        if (!clientFirst.startsWith("n,") && !clientFirst.startsWith("y,")) {
            throw new AuthenticationException("08P01", "malformed SCRAM message: no GS2 header");
        }
        int bare = clientFirst.indexOf(',', 2);
        if (bare < 0) {
            throw new AuthenticationException("08P01", "malformed SCRAM message: no GS2 header");
        }
        clientFirstBare = clientFirst.substring(bare + 1);
        if (!clientFirstBare.startsWith("n=")) {
            throw new AuthenticationException("08P01", "malformed SCRAM message: no user name attribute");
        }
        String clientNonce = attribute(clientFirstBare, "r");
        if (clientNonce == null || clientNonce.isEmpty()) {
            throw new AuthenticationException("08P01", "malformed SCRAM message: no nonce");
        }
        nonce = clientNonce + ScramFunctions.nonce(18, random);
        serverFirst = "r=" + nonce + ",s=" + Base64.getEncoder().encodeToString(verifier.salt()) + ",i="
                + verifier.iterations();
        return serverFirst;
    }

    /**
     * The client's final message (SASLResponse's data): checks its proof and returns the server's final message; a
     * wrong proof (or an unknown user) is {@code 28P01}.
     */
    public String serverFinal(String clientFinal, String user) throws AuthenticationException {
        if (serverFirst == null) {
            throw new AuthenticationException("08P01", "SCRAM final message before the first one");
        }
        int proofAt = clientFinal.lastIndexOf(",p=");
        if (proofAt < 0) {
            throw new AuthenticationException("08P01", "malformed SCRAM final message: no proof");
        }
        String withoutProof = clientFinal.substring(0, proofAt);
        String receivedNonce = attribute(withoutProof, "r");
        if (!nonce.equals(receivedNonce)) {
            throw new AuthenticationException("08P01", "malformed SCRAM final message: the nonce does not match");
        }
        byte[] proof;
        try {
            proof = Base64.getDecoder().decode(clientFinal.substring(proofAt + 3));
        } catch (IllegalArgumentException e) {
            throw new AuthenticationException("08P01", "malformed SCRAM final message: the proof is not base64");
        }
        String authMessage = clientFirstBare + "," + serverFirst + "," + withoutProof;
        ScramMechanism mechanism = ScramMechanism.SCRAM_SHA_256;
        byte[] signature = ScramFunctions.clientSignature(mechanism, verifier.storedKey(), authMessage);
        if (proof.length != signature.length) {
            throw failed(user);
        }
        byte[] clientKey = new byte[proof.length];
        for (int i = 0; i < proof.length; i++) {
            clientKey[i] = (byte) (proof[i] ^ signature[i]);
        }
        boolean matches = MessageDigest.isEqual(ScramFunctions.hash(mechanism, clientKey), verifier.storedKey());
        if (!matches || !known) {
            throw failed(user);
        }
        return "v="
                + Base64.getEncoder()
                        .encodeToString(ScramFunctions.serverSignature(mechanism, verifier.serverKey(), authMessage));
    }

    private static AuthenticationException failed(String user) {
        return new AuthenticationException("28P01", "password authentication failed for user \"" + user + "\"");
    }

    private static String attribute(String message, String name) {
        for (String part : message.split(",", -1)) {
            if (part.startsWith(name + "=")) {
                return part.substring(name.length() + 1);
            }
        }
        return null;
    }

    /** The bytes of a SCRAM message as the protocol carries them. */
    public static byte[] bytes(String message) {
        return message.getBytes(StandardCharsets.UTF_8);
    }
}
