package org.gargamel.common.wire;

/** A message that cannot be decoded: unknown type, truncated body, bad value tag. Names what is wrong. */
public final class MalformedMessageException extends RuntimeException {
    public MalformedMessageException(String message) {
        super(message);
    }

    public MalformedMessageException(String message, Throwable cause) {
        super(message, cause);
    }
}
