package org.gargamel.frontend.auth;

import com.ongres.scram.common.ScramFunctions;
import com.ongres.scram.common.ScramMechanism;
import com.ongres.scram.common.StringPreparation;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the server keeps of a SCRAM-SHA-256 password (RFC 5802 §3, RFC 7677): salt, iteration count, StoredKey and
 * ServerKey; never the password. Written as PostgreSQL's pg_authid holds it, {@code
 * SCRAM-SHA-256$4096:salt$StoredKey:ServerKey}, so a verifier can be copied from a PostgreSQL server.
 */
@SuppressWarnings("ArrayRecordComponent") // the keys are compared by the exchange, never by equals(); never mutated
public record ScramVerifier(byte[] salt, int iterations, byte[] storedKey, byte[] serverKey) {
    private static final Pattern FORMAT =
            Pattern.compile("SCRAM-SHA-256\\$(\\d+):([A-Za-z0-9+/=]+)\\$([A-Za-z0-9+/=]+):([A-Za-z0-9+/=]+)");
    public static final int DEFAULT_ITERATIONS = 4096;

    /** A verifier of {@code password} with a fresh random salt. */
    public static ScramVerifier fromPassword(String password, SecureRandom random) {
        byte[] salt = ScramFunctions.salt(16, random);
        byte[] salted = ScramFunctions.saltedPassword(
                ScramMechanism.SCRAM_SHA_256,
                StringPreparation.SASL_PREPARATION,
                password.toCharArray(),
                salt,
                DEFAULT_ITERATIONS);
        return new ScramVerifier(
                salt,
                DEFAULT_ITERATIONS,
                ScramFunctions.storedKey(
                        ScramMechanism.SCRAM_SHA_256, ScramFunctions.clientKey(ScramMechanism.SCRAM_SHA_256, salted)),
                ScramFunctions.serverKey(ScramMechanism.SCRAM_SHA_256, salted));
    }

    /** Reads PostgreSQL's form; a malformed one is an IllegalArgumentException that does not quote it. */
    public static ScramVerifier parse(String text) {
        Matcher matcher = FORMAT.matcher(text.trim());
        if (!matcher.matches()) {
            throw new IllegalArgumentException(
                    "not a SCRAM-SHA-256 verifier (expected SCRAM-SHA-256$<iterations>:<salt>$<StoredKey>:<ServerKey>)");
        }
        Base64.Decoder base64 = Base64.getDecoder();
        return new ScramVerifier(
                base64.decode(matcher.group(2)),
                Integer.parseInt(matcher.group(1)),
                base64.decode(matcher.group(3)),
                base64.decode(matcher.group(4)));
    }

    @Override
    public String toString() {
        return "ScramVerifier[iterations=" + iterations + "]"; // keys stay out of logs
    }
}
