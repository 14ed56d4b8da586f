package org.gargamel.scheduler.sites;

import java.io.DataInput;
import java.io.DataOutput;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import org.gargamel.common.group.Channels;
import org.gargamel.common.group.RaftLog;
import org.gargamel.common.lifecycle.FatalException;
import org.gargamel.common.wire.MalformedMessageException;
import org.gargamel.common.wire.Message;
import org.gargamel.common.wire.ScheduleCall;
import org.gargamel.common.wire.WireCodec;
import org.jgroups.JChannel;
import org.jgroups.raft.StateMachine;

/**
 * A site scheduler's end of the schedule log (docs/multisite.md): a Raft log among the sites' schedulers
 * ({@link RaftLog}, over {@link Channels#scheduleLog}). Each site appends its update calls; every site is handed the
 * committed entries in the one log order, which is the agreed order. An entry committed is held by a majority of the
 * sites, so losing any minority of them loses no agreed order; a site cut off from the majority cannot append.
 *
 * <p>An append may be committed twice (its leader died before it answered) and a site's later append may overtake an
 * earlier one that was sent again: {@link SiteAgreement#read} drops the copies and holds early entries back.
 *
 * <p>The entries are handed over on jgroups-raft's thread, also when a restarted member replays its own log: the
 * reader must not block (a scheduler posts them to its event loop).
 */
public final class ScheduleLog implements AutoCloseable {
    private final RaftLog log;

    /**
     * @param site   this site's name (its member name in the log)
     * @param reader told of every committed entry, in log order
     */
    public ScheduleLog(String site, JChannel channel, Consumer<ScheduleCall> reader, RaftLog.Patience patience) {
        this.log = new RaftLog(site, "schedule log", channel, new Reader(site, reader), patience);
    }

    public void connect() throws Exception {
        log.connect(Channels.SCHEDULE_CLUSTER);
    }

    /** Appends {@code entry}; the future completes once a majority of the sites hold it ({@link RaftLog#append}). */
    public CompletableFuture<Void> append(ScheduleCall entry) {
        return log.append(WireCodec.encode(entry), entry.describe());
    }

    public boolean isLeader() {
        return log.isLeader();
    }

    @Override
    public void close() {
        log.close();
    }

    /** Decodes each committed entry and hands it over. Every member holds the same bytes, so a bad one is fatal. */
    private record Reader(String site, Consumer<ScheduleCall> reader) implements StateMachine {
        @Override
        public byte[] apply(byte[] data, int offset, int length, boolean serializeResponse) {
            Message entry;
            try {
                entry = WireCodec.decode(data, offset, length);
            } catch (MalformedMessageException e) {
                throw new FatalException(site + ": an entry of the schedule log is malformed: " + e.getMessage(), e);
            }
            if (!(entry instanceof ScheduleCall call)) {
                throw new FatalException(site + ": the schedule log holds " + entry.describe() + ", not a call");
            }
            reader.accept(call);
            return null;
        }

        /** Nothing: a schedule log is never snapshotted (its size limit is the write-set log's, 1 GiB). */
        @Override
        public void writeContentTo(DataOutput out) {}

        @Override
        public void readContentFrom(DataInput in) {
            throw new FatalException(site + ": the schedule log was truncated by a snapshot; a site scheduler cannot"
                    + " rebuild its graph from one yet (docs/multisite.md)");
        }
    }
}
