package org.gargamel.scheduler.sites;

import java.io.DataInput;
import java.io.DataOutput;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.gargamel.common.group.Channels;
import org.gargamel.common.group.RaftLog;
import org.gargamel.common.lifecycle.FatalException;
import org.gargamel.common.wire.MalformedMessageException;
import org.gargamel.common.wire.Message;
import org.gargamel.common.wire.ScheduleCall;
import org.gargamel.common.wire.SchedulePlacement;
import org.gargamel.common.wire.WireCodec;
import org.jgroups.JChannel;
import org.jgroups.raft.StateMachine;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A site scheduler's end of the schedule log (docs/multisite.md): a Raft log among the sites' schedulers
 * ({@link RaftLog}, over {@link Channels#scheduleLog}). Each site appends its update calls; every site is handed the
 * committed entries in the one log order, which is the agreed order. An entry committed is held by a majority of the
 * sites, so losing any minority of them loses no agreed order; a site cut off from the majority cannot append.
 *
 * <p>An append may be committed twice (its leader died before it answered) and a site's later append may overtake an
 * earlier one that was sent again: {@link Agreement#read(ScheduleEntry)} drops the copies and holds early entries back.
 *
 * <p>The entries are handed over on jgroups-raft's thread, also when a restarted member replays its own log: the
 * reader must not block (a scheduler posts them to its event loop).
 */
public final class ScheduleLog implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ScheduleLog.class);
    /** Between a site's name and the epoch of the scheduler that joined as a new member: {@code eu~42}. */
    private static final char INCARNATION = '~';

    private final String site;
    private final String member;
    private final RaftLog log;

    /**
     * A site's member named after the site (the members the sites were configured with).
     *
     * @param site   this site's name (its member name in the log)
     * @param reader told of every committed entry, in log order
     */
    public ScheduleLog(String site, JChannel channel, Consumer<ScheduleCall> reader, RaftLog.Patience patience) {
        this(site, site, channel, reader, patience);
    }

    /**
     * @param member this member's Raft id: the site's name, or {@link #newMember} of it for one that joins the log
     */
    public ScheduleLog(
            String site, String member, JChannel channel, Consumer<ScheduleCall> reader, RaftLog.Patience patience) {
        this(site, member, channel, reader, null, patience);
    }

    /**
     * @param placements told of every owner's placement, in log order (site-owned conflict classes); null when the sites
     *     do not use them (a placement in the log is then fatal: the sites' configurations differ)
     */
    public ScheduleLog(
            String site,
            String member,
            JChannel channel,
            Consumer<ScheduleCall> reader,
            Consumer<SchedulePlacement> placements,
            RaftLog.Patience patience) {
        this.site = site;
        this.member = member;
        this.log = new RaftLog(member, "schedule log", channel, new Reader(site, reader, placements), patience);
    }

    /**
     * The Raft id of a new member for {@code site}, joined by its scheduler of {@code epoch}: never used before, so it
     * never voted or acknowledged anything it has forgotten.
     */
    public static String newMember(String site, long epoch) {
        return site + INCARNATION + epoch;
    }

    /** The site a member of the log serves: its id up to {@code ~}. */
    public static String siteOf(String member) {
        int end = member.indexOf(INCARNATION);
        return end < 0 ? member : member.substring(0, end);
    }

    /**
     * Makes this member, which joined as a learner ({@link org.gargamel.common.group.RaftSettings#joining}), its site's
     * one member of the log: removes every other member of the site (its predecessors, dead, or cut off and
     * superseded), then asks to be added, one change at a time as Raft requires. Each change is committed by a majority
     * of the members before it, which hold every committed entry, so nothing committed depends on this member's empty
     * log. Until its own addition is applied here, the members it sees may be behind the log's: it removes what it
     * sees, adds itself, and looks again once its addition comes back (everything before it has been applied then).
     * Tries again while {@code going} (no leader, no majority, a timeout); returns once done.
     */
    public void replacePredecessors(Duration attempt, BooleanSupplier going) throws InterruptedException {
        while (going.getAsBoolean()) {
            try {
                for (String other : log.members()) {
                    if (!other.equals(member) && siteOf(other).equals(site)) {
                        log.removeMember(other, attempt);
                        LOG.info(
                                "{}: removed {}, an earlier member of site {}, from the schedule log",
                                member,
                                other,
                                site);
                    }
                }
                if (!log.members().contains(member)) {
                    log.addMember(member, attempt);
                }
                long deadline = System.nanoTime() + attempt.toNanos();
                while (!log.members().contains(member) && System.nanoTime() < deadline) {
                    Thread.sleep(
                            20); // the addition is committed; this member applies it with the leader's next message
                }
                List<String> members = log.members();
                if (members.contains(member)
                        && members.stream()
                                .noneMatch(other ->
                                        !other.equals(member) && siteOf(other).equals(site))) {
                    LOG.info("{}: a member of the schedule log for site {}; the members are {}", member, site, members);
                    return;
                }
            } catch (InterruptedException e) {
                throw e;
            } catch (Exception e) {
                LOG.info(
                        "{}: the schedule log's membership did not change yet ({}); trying again",
                        member,
                        e.toString());
                Thread.sleep(Math.min(500, attempt.toMillis() / 4)); // an election, or the leader not known yet
            }
        }
    }

    /** The log's members as this member knows them. */
    public List<String> members() {
        return log.members();
    }

    public String member() {
        return member;
    }

    public void connect() throws Exception {
        log.connect(Channels.SCHEDULE_CLUSTER);
    }

    /** Appends {@code entry}; the future completes once a majority of the sites hold it ({@link RaftLog#append}). */
    public CompletableFuture<Void> append(ScheduleCall entry) {
        return log.append(WireCodec.encode(entry), entry.describe());
    }

    /** Appends an owner's placement of a spanning call (site-owned conflict classes), as {@link #append(ScheduleCall)}. */
    public CompletableFuture<Void> append(SchedulePlacement placement) {
        return log.append(WireCodec.encode(placement), placement.describe());
    }

    public boolean isLeader() {
        return log.isLeader();
    }

    @Override
    public void close() {
        log.close();
    }

    /** Decodes each committed entry and hands it over. Every member holds the same bytes, so a bad one is fatal. */
    private record Reader(String site, Consumer<ScheduleCall> reader, Consumer<SchedulePlacement> placements)
            implements StateMachine {
        @Override
        public byte[] apply(byte[] data, int offset, int length, boolean serializeResponse) {
            Message entry;
            try {
                entry = WireCodec.decode(data, offset, length);
            } catch (MalformedMessageException e) {
                throw new FatalException(site + ": an entry of the schedule log is malformed: " + e.getMessage(), e);
            }
            if (entry instanceof ScheduleCall call) {
                reader.accept(call);
            } else if (entry instanceof SchedulePlacement placement && placements != null) {
                placements.accept(placement);
            } else {
                throw new FatalException(site + ": the schedule log holds " + entry.describe() + ", which this site"
                        + " does not read ("
                        + (placements == null ? "it does not use site-owned classes" : "not a call")
                        + ")");
            }
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
