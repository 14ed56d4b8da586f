package org.gargamel.common.group;

import java.security.Key;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import org.jgroups.Message;
import org.jgroups.conf.ClassConfigurator;
import org.jgroups.protocols.EncryptHeader;
import org.jgroups.protocols.SYM_ENCRYPT;
import org.jgroups.util.Util;

/**
 * SYM_ENCRYPT with AES-GCM: JGroups' own cipher modes (AES, by default ECB) encrypt but do not authenticate, so a
 * forged or altered payload would be decrypted into garbage and handed up. With GCM a message whose tag does not verify
 * (wrong key, altered bytes) fails to decrypt and JGroups drops it. A fresh random 96-bit IV per message, as GCM
 * requires.
 */
@SuppressWarnings("unchecked") // javac flags SYM_ENCRYPT's own generic override, inherited here
public final class GcmSymEncrypt extends SYM_ENCRYPT {
    /** Its headers need an id of its own (JGroups' are below 1024; jgroups-raft's near 500 and 1024-1100). */
    static final short PROTOCOL_ID = 1850;

    static {
        if (ClassConfigurator.getProtocolId(GcmSymEncrypt.class) == 0) {
            ClassConfigurator.addProtocol(PROTOCOL_ID, GcmSymEncrypt.class);
        }
    }

    private static final int TAG_BITS = 128;
    private static final ThreadLocal<Cipher> CIPHERS = ThreadLocal.withInitial(() -> {
        try {
            return Cipher.getInstance("AES/GCM/NoPadding");
        } catch (java.security.GeneralSecurityException e) {
            throw new IllegalStateException("AES/GCM/NoPadding is missing from this JVM", e);
        }
    });

    public GcmSymEncrypt() {
        symAlgorithm("AES/GCM/NoPadding");
        symIvLength(12);
        secureRandom(ivSource());
    }

    /**
     * Where IVs come from: the JDK's DRBG (NIST SP 800-90A, seeded from the operating system), which draws in Java.
     * JGroups' default, {@code new SecureRandom()}, is NativePRNG on Linux: a lock and a read of /dev/urandom for every
     * message, 0.4-1.7% of each process's CPU (async-profiler, docs/costs.md).
     */
    private static SecureRandom ivSource() {
        try {
            return SecureRandom.getInstance("DRBG");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the DRBG SecureRandom is missing from this JVM", e);
        }
    }

    /**
     * As JGroups' own, except that a batch's messages (handed a pooled cipher, which JGroups initialises with its own
     * parameters) also go through {@link #code}: one key, one mode.
     */
    @Override
    protected Message _decrypt(Cipher cipher, Key key, Message message, EncryptHeader header) throws Exception {
        if (!message.hasPayload()) {
            return message;
        }
        byte[] decrypted = code(message.getArray(), message.getOffset(), message.getLength(), header.iv(), true);
        return header.needsDeserialization()
                ? Util.messageFromBuffer(decrypted, 0, decrypted.length)
                : message.setArray(decrypted, 0, decrypted.length);
    }

    @Override
    protected byte[] code(byte[] buffer, int offset, int length, byte[] iv, boolean decode) throws Exception {
        Cipher cipher = CIPHERS.get();
        cipher.init(
                decode ? Cipher.DECRYPT_MODE : Cipher.ENCRYPT_MODE, secretKey(), new GCMParameterSpec(TAG_BITS, iv));
        return cipher.doFinal(buffer, offset, length);
    }
}
