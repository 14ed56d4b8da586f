package org.gargamel.common.group;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.Base64;
import javax.crypto.Mac;
import javax.crypto.SecretKey;
import javax.crypto.spec.SecretKeySpec;
import org.jgroups.protocols.AUTH;
import org.jgroups.protocols.SYM_ENCRYPT;

/**
 * The cluster's shared secret (docs/protocol.md, Cluster security): every member of the control group and of the
 * nodes' write-set log holds it. Two keys are derived from it, one to encrypt and authenticate every message with a
 * payload (AES-256-GCM, {@link GcmSymEncrypt}), one to prove a member knows it when it joins or merges
 * ({@link SharedSecretToken} under JGroups' AUTH). The secret and the keys never reach a log line, an error message or
 * {@link #toString}.
 */
public final class ClusterSecurity {
    /** Fewer bytes than this in a secret file is a mistake (an empty file, a placeholder), not a secret. */
    public static final int MIN_SECRET_BYTES = 16;

    private final String source;
    private final SecretKey encryptionKey;
    private final byte[] authenticationKey;

    private ClusterSecurity(String source, SecretKey encryptionKey, byte[] authenticationKey) {
        this.source = source;
        this.encryptionKey = encryptionKey;
        this.authenticationKey = authenticationKey;
    }

    /**
     * The security of the secret in {@code file}: its bytes, surrounding white space ignored (so that {@code openssl
     * rand -base64 32 > cluster.secret} and an editor's final newline both work).
     */
    public static ClusterSecurity fromSecretFile(Path file) throws IOException {
        byte[] secret = new String(Files.readAllBytes(file), StandardCharsets.UTF_8)
                .strip()
                .getBytes(StandardCharsets.UTF_8);
        if (secret.length < MIN_SECRET_BYTES) {
            throw new IllegalArgumentException("the cluster secret in " + file + " has " + secret.length
                    + " byte(s); at least " + MIN_SECRET_BYTES + " are needed (openssl rand -base64 32 makes one)");
        }
        return fromSecret(secret, file.toString());
    }

    /** The security of {@code secret}; {@code source} says where it came from in messages (never the secret). */
    public static ClusterSecurity fromSecret(byte[] secret, String source) {
        return new ClusterSecurity(
                source,
                new SecretKeySpec(derive(secret, "gargamel cluster encryption v1"), "AES"),
                derive(secret, "gargamel cluster authentication v1"));
    }

    /** Writes a fresh random secret (32 bytes, base64) to {@code file}, readable by its owner only where possible. */
    public static Path writeNewSecret(Path file) throws IOException {
        byte[] secret = new byte[32];
        new SecureRandom().nextBytes(secret);
        Files.deleteIfExists(file);
        try {
            Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        } catch (UnsupportedOperationException e) {
            Files.createFile(file); // not a POSIX file system
        }
        Files.writeString(file, Base64.getEncoder().encodeToString(secret) + "\n", StandardOpenOption.WRITE);
        return file;
    }

    /** HMAC-SHA256(secret, label): one independent key per use. */
    private static byte[] derive(byte[] secret, String label) {
        return hmac(secret, label.getBytes(StandardCharsets.UTF_8));
    }

    static byte[] hmac(byte[] key, byte[]... parts) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            for (byte[] part : parts) {
                mac.update(part);
            }
            return mac.doFinal();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is missing from this JVM", e);
        }
    }

    /** Encrypts and authenticates every message with a payload: goes right above the transport. */
    SYM_ENCRYPT encryption() {
        GcmSymEncrypt encrypt = new GcmSymEncrypt();
        encrypt.setSecretKey(encryptionKey);
        return encrypt;
    }

    /** Lets in only members that prove they hold the secret, at join and merge: goes right below GMS. */
    AUTH authentication() {
        AUTH auth = new AUTH();
        SharedSecretToken token = new SharedSecretToken(authenticationKey);
        token.setAuth(auth); // setAuthToken does not: the token signs with its member's address
        return auth.setAuthToken(token);
    }

    @Override
    public String toString() {
        return "ClusterSecurity[secret from " + source + "]";
    }
}
