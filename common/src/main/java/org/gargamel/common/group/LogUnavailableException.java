package org.gargamel.common.group;

import org.gargamel.common.lifecycle.FatalException;

/**
 * A Raft log ({@link RaftLog}) could not commit an entry in time: no leader was elected, or no majority acknowledged it
 * (a partition, or most of the members down). A serving node stops on it; a node still catching up waits for the
 * majority to come back instead, since it answers nobody meanwhile (docs/node.md, Catch-up).
 */
public final class LogUnavailableException extends FatalException {
    LogUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
