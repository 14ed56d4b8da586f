package org.gargamel.common.wire;

import java.io.DataOutput;
import java.io.IOException;

/**
 * A Gargamel wire message. Encoded by {@link WireCodec} as one type byte followed by the body each record
 * writes; compact binary, never Java serialization (DESIGN.md §6).
 */
public sealed interface Message
        permits SubmitCall, CallOutcome, Execute, NodeHello, Progress, WriteSet, DrainQuery, DrainStatus, Abandon {

    MessageType type();

    void writeBody(DataOutput out) throws IOException;
}
