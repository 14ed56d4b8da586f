package org.gargamel.common.group;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.security.MessageDigest;
import org.jgroups.Address;
import org.jgroups.Message;
import org.jgroups.auth.AuthToken;
import org.jgroups.util.Util;

/**
 * JGroups AUTH token proving that a member holds the cluster's secret without sending it: an HMAC-SHA256, keyed with the
 * authentication key of {@link ClusterSecurity}, of the sender's address and the time it was sent. The coordinator
 * checks it against the message's source and accepts it for {@link #MAX_AGE_MILLIS} either way (clock skew); a copy
 * replayed later, or for another address, fails. The token goes in a header, which JGroups does not encrypt; nothing in
 * it reveals the secret.
 */
public final class SharedSecretToken extends AuthToken {
    static final long MAX_AGE_MILLIS = 120_000;
    private static final int MAC_BYTES = 32;

    /** Null in a token read from the network: it carries a proof, not the key. */
    private final byte[] key;

    private long sentAtMillis;
    private byte[] mac = new byte[MAC_BYTES];

    /** For JGroups, which makes the received token with this constructor and {@link #readFrom}. */
    public SharedSecretToken() {
        this.key = null;
    }

    SharedSecretToken(byte[] key) {
        this.key = key.clone();
    }

    @Override
    public String getName() {
        return SharedSecretToken.class.getName();
    }

    @Override
    public int size() {
        return Long.BYTES + MAC_BYTES;
    }

    @Override
    public boolean authenticate(AuthToken token, Message message) {
        if (key == null || !(token instanceof SharedSecretToken received) || message.getSrc() == null) {
            return false;
        }
        if (received == this) {
            // This member's own merge request, looped back inside this process: the header carries this very token,
            // never serialized (no time, no proof), and a merge leader that refused it cancelled every merge.
            return true;
        }
        if (Math.abs(System.currentTimeMillis() - received.sentAtMillis) > MAX_AGE_MILLIS) {
            log.warn(
                    "join or merge of %s refused: its authentication is older than %d s (or its clock is off)",
                    message.getSrc(), MAX_AGE_MILLIS / 1000);
            return false;
        }
        boolean valid = MessageDigest.isEqual(proof(key, message.getSrc(), received.sentAtMillis), received.mac);
        if (!valid) {
            log.warn("join or merge of %s refused: it does not hold the cluster's secret", message.getSrc());
        }
        return valid;
    }

    @Override
    public void writeTo(DataOutput out) throws IOException {
        if (key == null || auth == null || auth.getAddress() == null) {
            // A received token is never sent again; one without a key or an address proves nothing.
            out.writeLong(0);
            out.write(new byte[MAC_BYTES]);
            return;
        }
        long now = System.currentTimeMillis();
        out.writeLong(now);
        out.write(proof(key, auth.getAddress(), now));
    }

    @Override
    public void readFrom(DataInput in) throws IOException {
        sentAtMillis = in.readLong();
        mac = new byte[MAC_BYTES];
        in.readFully(mac);
    }

    private static byte[] proof(byte[] key, Address address, long sentAtMillis) {
        try {
            return ClusterSecurity.hmac(
                    key,
                    "gargamel join".getBytes(java.nio.charset.StandardCharsets.UTF_8),
                    Util.streamableToByteBuffer(address),
                    ByteBuffer.allocate(Long.BYTES).putLong(sentAtMillis).array());
        } catch (IOException e) {
            throw new IllegalStateException("cannot serialize address " + address, e);
        }
    }

    @Override
    public String toString() {
        return "SharedSecretToken"; // never the key or a proof
    }
}
