package org.gargamel.frontend.session;

import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The sessions' cancel keys (BackendKeyData): a CancelRequest names a process id and a secret key, and cancels the
 * session with that id if the key matches, compared in constant time so that its timing tells nothing of the key.
 */
public final class CancelKeys {
    private final Map<Integer, Entry> sessions = new ConcurrentHashMap<>();

    private record Entry(Session session, int secretKey) {}

    /** A key pair for {@code session}: a process id no other live session has, and a random secret. */
    int[] register(Session session, SecureRandom random) {
        int secretKey = random.nextInt();
        while (true) {
            int processId = random.nextInt() & 0x7FFFFFFF;
            if (processId != 0 && sessions.putIfAbsent(processId, new Entry(session, secretKey)) == null) {
                return new int[] {processId, secretKey};
            }
        }
    }

    void unregister(int processId, Session session) {
        sessions.computeIfPresent(processId, (id, entry) -> entry.session() == session ? null : entry);
    }

    /** Cancels what the session {@code processId} runs, if {@code secretKey} is its key; true if it was. */
    boolean cancel(int processId, int secretKey) {
        Entry entry = sessions.get(processId);
        // Compared even for an unknown id (against a key no session has), so both take the same time.
        int expected = entry == null ? ~secretKey : entry.secretKey();
        boolean matches = MessageDigest.isEqual(bytes(expected), bytes(secretKey));
        if (entry == null || !matches) {
            return false;
        }
        entry.session().cancelRequested();
        return true;
    }

    private static byte[] bytes(int value) {
        return ByteBuffer.allocate(Integer.BYTES).putInt(value).array();
    }

    /** Sessions that can be cancelled now (for tests). */
    int size() {
        return sessions.size();
    }
}
