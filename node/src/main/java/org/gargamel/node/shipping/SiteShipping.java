package org.gargamel.node.shipping;

import java.io.DataInput;
import java.io.DataOutput;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.gargamel.common.group.RaftLog;
import org.gargamel.common.lifecycle.Futures;
import org.gargamel.common.wire.Message;
import org.gargamel.common.wire.Shipped;
import org.gargamel.node.writeset.LogAppender;
import org.gargamel.node.writeset.LogStateMachine;
import org.jgroups.raft.StateMachine;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Ships the other sites' write-sets into this site's write-set log (a write-set log per site, docs/multisite.md,
 * Site-local acknowledgement).
 *
 * <p>This node follows each other site's log as a learner ({@link Follower}: it receives the committed entries, but
 * neither votes nor counts towards that log's majority), and keeps the entries of that site's own (its write-sets and
 * ABANDON decisions, not what was shipped to it) that this site's log has not taken yet. While this node leads its
 * site's log it appends them there, each as a {@link Shipped} entry naming its place in the origin's log and the
 * previous one's, in the origin's order. Every node of the site takes them in its log's order ({@link
 * ShippedPositions}): a copy appended twice (a new leader ships again from what the log took) or one after a gap (an
 * append lost in a change of leader) is skipped everywhere alike, and the shipper goes back to what was taken.
 *
 * <p>So a site's entries reach every other site in their order, and a site's log holds everything its replicas apply:
 * a restart replays it as before. What a site acknowledged and had not shipped when all its nodes were lost is lost
 * with them; a site's nodes restarted from their disks ship it then.
 */
public final class SiteShipping implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(SiteShipping.class);
    /** Shipped entries appended and not yet committed, at most. */
    static final int IN_FLIGHT = 512;
    /** An append that left nothing taken for this long is presumed lost: shipping starts again from what was taken. */
    static final long STALL_NANOS = 3_000_000_000L;

    private final String node;
    private final LogAppender siteLog;
    private final BooleanSupplier leadsSiteLog;
    private final ShippedPositions positions;
    private final Map<String, Follower> followers = new HashMap<>();
    private final List<RaftLog> learnerLogs = new ArrayList<>();
    private final Object signal = new Object();
    private final AtomicInteger inFlight = new AtomicInteger();
    private volatile boolean closed;
    private Thread shipper;

    /**
     * @param siteLog      this site's write-set log
     * @param leadsSiteLog whether this node leads it now (only its leader ships, so a site appends each entry once)
     * @param positions    what this site's log took so far (the apply loop's)
     */
    public SiteShipping(String node, LogAppender siteLog, BooleanSupplier leadsSiteLog, ShippedPositions positions) {
        this.node = node;
        this.siteLog = siteLog;
        this.leadsSiteLog = leadsSiteLog;
        this.positions = positions;
    }

    /** The follower of {@code site}'s log, to hand to that log's learner channel before it connects. */
    public Follower follower(String site) {
        return followers.computeIfAbsent(site, Follower::new);
    }

    /** A learner log of another site, closed with this. */
    public void learning(RaftLog log) {
        learnerLogs.add(log);
    }

    /** Starts shipping (after this site's log has caught up, and the learner logs are connected). */
    public void start() {
        shipper = new Thread(this::ship, node + "-shipper");
        shipper.setDaemon(true);
        shipper.start();
    }

    /** Entries received from {@code site} and not yet taken by this site's log. */
    public int waiting(String site) {
        Follower follower = followers.get(site);
        return follower == null ? 0 : follower.pending.size();
    }

    private void ship() {
        Map<String, Long> sent = new HashMap<>();
        Map<String, Long> takenAt = new HashMap<>();
        Map<String, Long> lastTaken = new HashMap<>();
        while (!closed) {
            synchronized (signal) {
                try {
                    signal.wait(50);
                } catch (InterruptedException e) {
                    return;
                }
            }
            boolean leads = leadsSiteLog.getAsBoolean();
            for (Follower follower : followers.values()) {
                String site = follower.site;
                long taken = positions.through(site);
                follower.pending.headMap(taken, true).clear();
                long now = System.nanoTime();
                if (!Long.valueOf(taken).equals(lastTaken.put(site, taken))) {
                    takenAt.put(site, now);
                }
                long from = sent.getOrDefault(site, 0L);
                if (!leads || from < taken || (from > taken && now - takenAt.getOrDefault(site, now) > STALL_NANOS)) {
                    if (leads && from > taken) {
                        LOG.info(
                                "{}: shipping from site {} again after entry {} (entries up to {} were sent)",
                                node,
                                site,
                                taken,
                                from);
                    }
                    from = taken; // not the leader, or a new one, or its appends were lost: what the log took counts
                    takenAt.put(site, now);
                }
                if (leads) {
                    for (Shipped entry : follower.pending.tailMap(from, false).values()) {
                        if (inFlight.get() >= IN_FLIGHT) {
                            break;
                        }
                        append(entry);
                        from = entry.index();
                    }
                }
                sent.put(site, from);
            }
        }
    }

    private void append(Shipped entry) {
        inFlight.incrementAndGet();
        Futures.whenDone(siteLog.append(entry, "an entry shipped from site " + entry.origin()), (done, failure) -> {
            inFlight.decrementAndGet();
            if (failure != null && !closed) {
                // The stall check sends it again from what the log took, once nothing more is taken.
                LOG.warn("{}: {} was not appended: {}", node, entry.describe(), failure.toString());
            }
        });
    }

    @Override
    public void close() {
        closed = true;
        if (shipper != null) {
            shipper.interrupt();
        }
        for (RaftLog log : learnerLogs) {
            log.close();
        }
    }

    /**
     * This node as a learner of another site's write-set log: its committed entries come here in that log's order
     * (also those the log held before this node joined). The site's own write-sets and decisions wait to be shipped.
     */
    public final class Follower implements StateMachine {
        private final String site;
        private final ConcurrentSkipListMap<Long, Shipped> pending = new ConcurrentSkipListMap<>();
        private java.util.function.LongSupplier firstIndex = () -> 1;
        private long nextIndex = -1;
        private long previousShippable;

        Follower(String site) {
            this.site = site;
        }

        /** Where the learner log starts (1 unless a snapshot truncated it), asked at its first entry. */
        public void firstIndexFrom(java.util.function.LongSupplier first) {
            this.firstIndex = first;
        }

        @Override
        public byte[] apply(byte[] data, int offset, int length, boolean serializeResponse) {
            if (nextIndex < 0) {
                nextIndex = Math.max(1, firstIndex.getAsLong());
            }
            long index = nextIndex++;
            Message entry = LogStateMachine.decodeEntry(
                    data, offset, length, node + ": entry " + index + " of site " + site + "'s write-set log");
            if (Shipped.isShippable(entry)) {
                if (index > positions.through(site)) {
                    pending.put(index, new Shipped(site, previousShippable, index, entry));
                }
                previousShippable = index;
                synchronized (signal) {
                    signal.notifyAll();
                }
            }
            return null;
        }

        /** A learner's own snapshot (its log grew past the limit): where it stands. */
        @Override
        public void writeContentTo(DataOutput out) throws Exception {
            out.writeLong(nextIndex - 1);
        }

        /**
         * The origin's log was truncated before this learner received it (a snapshot, in the origin's format: it
         * starts with the index it covers). The entries before it can no longer be shipped from here.
         */
        @Override
        public void readContentFrom(DataInput in) throws Exception {
            long covered = in.readLong();
            if (covered > positions.through(site)) {
                LOG.error(
                        "{}: site {}'s write-set log was truncated at entry {}, but this site took its entries only"
                                + " up to {}: what lies between cannot be shipped here; rebuild this site's replicas from a"
                                + " replica of site {} (docs/node.md, Rebuild)",
                        node,
                        site,
                        covered,
                        positions.through(site),
                        site);
            }
            nextIndex = covered + 1;
            previousShippable = covered;
        }
    }
}
