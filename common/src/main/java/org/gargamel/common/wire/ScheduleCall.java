package org.gargamel.common.wire;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import org.gargamel.common.call.ProcedureCall;

/**
 * site scheduler → schedule log (docs/multisite.md): an update call of {@code site}, the {@code sequence}-th that site
 * appended (from 1), with the transaction id it was given there. Every scheduler reads the log's entries in one order
 * and classifies each call with its own rules: that order is the agreed one.
 */
public record ScheduleCall(String site, long sequence, long txn, ProcedureCall call) implements Message {
    public ScheduleCall {
        if (site == null || site.isBlank()) {
            throw new IllegalArgumentException("a schedule entry needs its site's name");
        }
        if (sequence < 1) {
            throw new IllegalArgumentException("a schedule entry's sequence starts at 1, got " + sequence);
        }
        if (txn < 1) {
            throw new IllegalArgumentException("a schedule entry's transaction id must be positive, got " + txn);
        }
    }

    @Override
    public MessageType type() {
        return MessageType.SCHEDULE_CALL;
    }

    @Override
    public String describe() {
        return "SCHEDULE_CALL " + site + "#" + sequence + " transaction " + txn + " (" + call.procedure() + ")";
    }

    @Override
    public void writeBody(DataOutput out) throws IOException {
        WireCodec.writeString(out, site);
        out.writeLong(sequence);
        out.writeLong(txn);
        WireCodec.writeCall(out, call);
    }

    static ScheduleCall read(DataInput in) throws IOException {
        String site = WireCodec.readString(in);
        long sequence = in.readLong();
        long txn = in.readLong();
        return new ScheduleCall(site, sequence, txn, WireCodec.readCall(in));
    }
}
