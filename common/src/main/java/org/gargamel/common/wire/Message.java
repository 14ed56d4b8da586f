package org.gargamel.common.wire;

import java.io.DataOutput;
import java.io.IOException;

/**
 * A Gargamel wire message. Encoded by {@link WireCodec} as one type byte followed by the body each record
 * writes; compact binary, never Java serialization (DESIGN.md §6).
 */
public sealed interface Message
        permits SubmitCall,
                CallOutcome,
                Execute,
                NodeHello,
                NodeRefused,
                TakeOver,
                EpochClaim,
                EpochGranted,
                Superseded,
                Progress,
                VisibilityQuery,
                SchedulePlacement,
                Shipped,
                WriteSet,
                DrainQuery,
                DrainStatus,
                Abandon,
                LogMark,
                Settlement,
                ScheduleCall,
                Agreement {

    MessageType type();

    /**
     * The message in one short phrase for log lines and errors: its type and the ids it carries (call, transaction,
     * node), never the call's arguments, e.g. {@code SUBMIT_CALL call 42 (payment)}.
     */
    String describe();

    void writeBody(DataOutput out) throws IOException;
}
