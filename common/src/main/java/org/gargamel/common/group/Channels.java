package org.gargamel.common.group;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.jgroups.JChannel;
import org.jgroups.protocols.FD_ALL3;
import org.jgroups.protocols.FD_SOCK2;
import org.jgroups.protocols.FRAG4;
import org.jgroups.protocols.MERGE3;
import org.jgroups.protocols.MFC;
import org.jgroups.protocols.SEQUENCER;
import org.jgroups.protocols.SHARED_LOOPBACK;
import org.jgroups.protocols.SHARED_LOOPBACK_PING;
import org.jgroups.protocols.TCP;
import org.jgroups.protocols.TCPPING;
import org.jgroups.protocols.TP;
import org.jgroups.protocols.UFC;
import org.jgroups.protocols.UNICAST3;
import org.jgroups.protocols.VERIFY_SUSPECT2;
import org.jgroups.protocols.pbcast.GMS;
import org.jgroups.protocols.pbcast.NAKACK2;
import org.jgroups.protocols.pbcast.STABLE;
import org.jgroups.protocols.raft.FileBasedLog;
import org.jgroups.protocols.raft.InMemoryLog;
import org.jgroups.protocols.raft.RAFT;
import org.jgroups.protocols.raft.REDIRECT;
import org.jgroups.stack.Protocol;

/**
 * Builds Gargamel's JGroups stacks in code, so no XML file or system property can silently change them.
 *
 * <p>Two groups exist (DESIGN.md §6): the control group {@value #CONTROL_CLUSTER} (scheduler, nodes and
 * clients; reliable FIFO unicasts through UNICAST3) and the write-set group {@value #WRITE_SET_CLUSTER}
 * (nodes only; total order through SEQUENCER over NAKACK2). Ordered messages are never sent OOB.
 */
public final class Channels {
    static {
        // Before any protocol exists: each takes its log when it is created.
        GuardedJGroupsLogs.install();
    }

    public static final String CONTROL_CLUSTER = "gargamel-control";
    public static final String WRITE_SET_CLUSTER = "gargamel-writesets";
    public static final String SCHEDULE_CLUSTER = "gargamel-schedule";
    static final long JOIN_TIMEOUT_MILLIS = 1000;
    /** Environment variable choosing the JGroups bundler of every channel this JVM creates (overrides the defaults). */
    public static final String BUNDLER_VARIABLE = "GARGAMEL_JGROUPS_BUNDLER";
    /** Sends on the caller's thread: clients and nodes. */
    static final String DIRECT_BUNDLER = "no-bundler";
    /** A bundler thread batches: the scheduler, the hub every call passes through. */
    static final String BATCHING_BUNDLER = "transfer-queue";

    static final List<String> BUNDLERS = List.of(DIRECT_BUNDLER, BATCHING_BUNDLER);

    private Channels() {}

    /**
     * The control group's cluster name: {@value #CONTROL_CLUSTER} in a single-site cluster ({@code site} null), else
     * one per site, {@code gargamel-control-<site>}: a site's scheduler, its nodes and its clients (docs/multisite.md).
     */
    public static String controlCluster(String site) {
        return site == null ? CONTROL_CLUSTER : CONTROL_CLUSTER + "-" + site;
    }

    /**
     * An unconnected channel for the control group, for a client or a node: set a receiver, then
     * {@code connect(CONTROL_CLUSTER)}.
     */
    public static JChannel control(GroupConfig config, String name) throws Exception {
        return create(config, name, false, bundlerType(DIRECT_BUNDLER));
    }

    /**
     * As {@link #control}, for a member {@code distance} away from every other one (one way; {@link DistantMember}):
     * a client of a site whose scheduler is elsewhere, on one machine. Zero: as {@link #control}.
     */
    public static JChannel control(GroupConfig config, String name, Duration distance) throws Exception {
        if (distance.isZero()) {
            return control(config, name);
        }
        return create(config, name, List.of(new DistantMember(distance)), List.of(), bundlerType(DIRECT_BUNDLER));
    }

    /** The scheduler's control channel: as {@link #control}, but batching its sends (see {@link #bundlerType}). */
    public static JChannel schedulerControl(GroupConfig config, String name) throws Exception {
        return create(config, name, false, bundlerType(BATCHING_BUNDLER));
    }

    /**
     * An unconnected channel for the write-set log (DESIGN.md §6): a Raft group of the nodes (jgroups-raft: ELECTION,
     * RAFT, REDIRECT over the usual stack). Entries are committed once a majority of {@code raft}'s members hold them
     * and are applied at every member in one order: a uniform total order, which JGroups' SEQUENCER alone is not. A
     * member that is not the leader hands its entries to the leader (REDIRECT). Wrap it in a
     * {@code org.jgroups.raft.RaftHandle} with the state machine before connecting.
     */
    public static JChannel writeSetLog(GroupConfig config, String name, RaftSettings raft) throws Exception {
        return raftLog(config, name, raft, List.of());
    }

    /**
     * As {@link #writeSetLog(GroupConfig, String, RaftSettings)}, for a node of {@code site} whose log spans sites on
     * one machine: {@code links} delays what comes from other sites' nodes ({@link SiteDelay}).
     */
    public static JChannel writeSetLog(
            GroupConfig config, String name, RaftSettings raft, String site, SiteDelay.Links links) throws Exception {
        JChannel channel =
                raftLog(config, name, raft, links.isEmpty() ? List.of() : List.of(new SiteDelay(site, links)));
        // With a log per site, every site's logs share the initial hosts: discovery meets the other sites' logs, and
        // their answers are dropped by design (docs/multisite.md), not logged as a misconfiguration each minute.
        channel.getProtocolStack().getTransport().logDiscardMsgs(false);
        return channel;
    }

    /**
     * An unconnected channel for the schedule log among the sites' schedulers (docs/multisite.md): a Raft group like
     * the write-set log's, each member named after its site. {@code links} delays what comes from other sites
     * ({@link SiteDelay}: wide-area sites on one machine); {@link SiteDelay.Links#NONE} for none.
     */
    public static JChannel scheduleLog(GroupConfig config, String site, RaftSettings raft, SiteDelay.Links links)
            throws Exception {
        List<Protocol> ordering = links.isEmpty() ? List.of() : List.of(new SiteDelay(site, links));
        return raftLog(config, site, raft, ordering);
    }

    private static JChannel raftLog(GroupConfig config, String name, RaftSettings raft, List<Protocol> ordering)
            throws Exception {
        RAFT consensus =
                new RAFT().members(raft.members()).raftId(raft.raftId()).logPrefix(name);
        if (raft.logDirectory() == null) {
            // jgroups-raft keeps in-memory logs by name for the life of the JVM: a fresh name per channel, so a member
            // started again (tests) starts from an empty log, as a restarted process would.
            consensus.logClass(InMemoryLog.class.getName()).logPrefix(name + "-" + UUID.randomUUID());
        } else {
            consensus
                    .logClass(FileBasedLog.class.getName())
                    .logDir(raft.logDirectory().toString());
        }
        consensus.logUseFsync(raft.fsync());
        // Followers learn that an entry is committed with the next AppendEntries, or at this interval when no entry
        // follows. An origin answers its client only when its own state machine meets the entry (so that an ABANDON
        // before it in the log can still stop the answer): at 100 ms that cost 15% of tpmC with 3 replicas, at 20 ms
        // nothing measurable (docs/protocol.md). (The option to send every commit at once, send_commits_immediately,
        // overflowed RAFT's queue at 1,300 entries/s.)
        consensus.resendInterval(RESEND_INTERVAL_MILLIS);
        // No snapshot until the log holds this many bytes: a snapshot truncates the log, and a replica that needs
        // entries older than the last snapshot can only be rebuilt by state transfer (docs/node.md).
        consensus.maxLogSize(MAX_LOG_BYTES);
        // On top, as jgroups-raft's own stacks have it: above FRAG4, so batches of entries are fragmented. The election
        // is ELECTION made safe for a member closed and opened again in one process (RejoinElection).
        return create(
                config,
                name,
                ordering,
                List.of(new RejoinElection(), consensus, new REDIRECT()),
                bundlerType(DIRECT_BUNDLER));
    }

    static final long RESEND_INTERVAL_MILLIS = 20;

    /** Bytes of log kept before a snapshot (1 GiB: hours of TPC-C on this kind of machine). */
    static final long MAX_LOG_BYTES = 1L << 30;

    private static JChannel create(GroupConfig config, String name, boolean totalOrder, String bundler)
            throws Exception {
        return create(config, name, totalOrder ? List.of(new SEQUENCER()) : List.of(), List.of(), bundler);
    }

    /** {@code ordering} goes right above GMS (SEQUENCER's place), {@code top} above FRAG4 (consensus). */
    private static JChannel create(
            GroupConfig config, String name, List<Protocol> ordering, List<Protocol> top, String bundler)
            throws Exception {
        List<Protocol> stack = new ArrayList<>();
        if (config.transport() == GroupConfig.Transport.IN_MEMORY) {
            stack.add(new SHARED_LOOPBACK());
            addEncryption(stack, config);
            stack.add(new SHARED_LOOPBACK_PING());
        } else {
            // A member cut off by a partition must not stall the others: connecting to it gives up after 500 ms, and
            // each connection sends from a queue of its own, so a multicast never waits on an unreachable member (a
            // partition test found heartbeats to the reachable members delayed until they suspected the sender).
            // A message dropped from a full queue is sent again by NAKACK2/UNICAST3.
            TP transport = new TCP()
                    .nonBlockingSends(true)
                    .maxSendQueue(10_000)
                    .setSockConnTimeout(500)
                    .setBindAddress(InetAddress.getByName(config.bindAddress()))
                    .setBindPort(config.bindPort());
            transport.setPortRange(0);
            transport.setBundlerType(bundler);
            stack.add(transport);
            // Right above the transport, so discovery is encrypted too: without the key a process cannot even learn
            // the members' addresses.
            addEncryption(stack, config);
            // return_entire_cache: a member that misses another's physical address (after a merge, say) learns it
            // from any initial host, instead of dropping every message to it ("no physical address").
            stack.add(new TCPPING()
                    .setInitialHosts(resolve(config.initialHosts()))
                    .setPortRange(0)
                    .returnEntireCache(true));
            stack.add(new MERGE3().setMinInterval(2000).setMaxInterval(5000));
            stack.add(new FD_SOCK2());
            stack.add(new FD_ALL3().setTimeout(8000).setInterval(2000));
            stack.add(new VERIFY_SUSPECT2().setTimeout(1000));
        }
        stack.add(new NAKACK2().useMcastXmit(false));
        stack.add(new UNICAST3());
        stack.add(new STABLE().setDesiredAverageGossip(5000).setMaxBytes(4_000_000));
        if (config.security() != null) {
            // Right below GMS, where AUTH checks JOIN and MERGE requests: encryption alone does not cover them, since
            // JGroups does not encrypt a message without a payload (a join request is all headers).
            stack.add(config.security().authentication());
        }
        // The first member of a group waits this long for discovery responses before it founds the group. A client
        // that misses the scheduler this way leaves and joins again (GargamelClient.connect).
        stack.add(new GMS().setJoinTimeout(JOIN_TIMEOUT_MILLIS).printLocalAddress(false));
        stack.addAll(ordering);
        stack.add(new UFC());
        stack.add(new MFC());
        stack.add(new FRAG4());
        stack.addAll(top);
        JChannel channel = new JChannel(stack);
        channel.setName(name);
        channel.setDiscardOwnMessages(false);
        return channel;
    }

    /**
     * The JGroups bundler: {@code roleDefault} unless {@value #BUNDLER_VARIABLE} names another. no-bundler sends on
     * the caller's thread; transfer-queue (JGroups' default) hands every message to a bundler thread, which batches.
     * On two shared cores, at the rates TPC-C terminals produce (a few thousand messages a second), the hand-off cost
     * clients and nodes more than batching saved: 1 replica, 4 warehouses, local PostgreSQL 15, 20,754 / 17,832 tpmC
     * with no-bundler everywhere against 15,144 with transfer-queue everywhere. The scheduler, which every call
     * crosses twice, gains from batching: with it alone on transfer-queue the dispatch benchmark ran at 35,809 /
     * 36,232 calls/s against 24,664 / 25,674, and TPC-C did not lose (23,349 / 17,430 against 19,680 / 18,315 tpmC).
     * docs/scheduler.md has the runs.
     */
    private static String bundlerType(String roleDefault) {
        return bundlerType(System.getenv(BUNDLER_VARIABLE), roleDefault);
    }

    static String bundlerType(String type, String roleDefault) {
        if (type == null || type.isBlank()) {
            return roleDefault;
        }
        if (!BUNDLERS.contains(type.trim())) {
            throw new IllegalArgumentException(BUNDLER_VARIABLE + "=" + type + ": expected one of " + BUNDLERS);
        }
        return type.trim();
    }

    private static void addEncryption(List<Protocol> stack, GroupConfig config) {
        if (config.security() != null) {
            stack.add(config.security().encryption());
        }
    }

    private static List<InetSocketAddress> resolve(List<InetSocketAddress> hosts) throws UnknownHostException {
        List<InetSocketAddress> resolved = new ArrayList<>(hosts.size());
        for (InetSocketAddress host : hosts) {
            InetAddress address = InetAddress.getByName(host.getHostString());
            resolved.add(new InetSocketAddress(address, host.getPort()));
        }
        return resolved;
    }
}
