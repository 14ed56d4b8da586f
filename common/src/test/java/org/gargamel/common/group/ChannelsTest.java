package org.gargamel.common.group;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.DataInput;
import java.io.DataOutput;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.gargamel.common.config.Isolation;
import org.gargamel.common.config.Mode;
import org.gargamel.common.testing.Await;
import org.gargamel.common.wire.ClusterProfile;
import org.gargamel.common.wire.NodeHello;
import org.gargamel.common.wire.WireCodec;
import org.jgroups.JChannel;
import org.jgroups.protocols.raft.RaftLeaderException;
import org.jgroups.raft.RaftHandle;
import org.jgroups.raft.StateMachine;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** Gargamel's stacks with several members in one JVM (TCP on loopback), and their settings' errors. */
@Tag("cluster")
class ChannelsTest {
    private static final ClusterProfile PROFILE =
            new ClusterProfile(Mode.GARGAMEL, Isolation.PSI, "rules-digest", "schema-digest");

    /** A member of the write-set log that records the entries it applies. */
    private static final class Recorder implements StateMachine {
        final List<String> applied = Collections.synchronizedList(new ArrayList<>());

        @Override
        public byte[] apply(byte[] data, int offset, int length, boolean serializeResponse) {
            applied.add(((NodeHello) WireCodec.decode(data, offset, length)).nodeName());
            return null;
        }

        @Override
        public void readContentFrom(DataInput in) {}

        @Override
        public void writeContentTo(DataOutput out) {}
    }

    /**
     * The write-set log (Raft over TCP on loopback): entries appended concurrently by three members are applied in one
     * order everywhere, FIFO per member; with one member gone the two others still commit (a majority); with two gone
     * the last one commits nothing; what was committed before is still there.
     */
    @Test
    void theWriteSetLogCommitsOnAMajorityInOneOrderEverywhere() throws Exception {
        int[] ports = {LoopbackPorts.pick(), LoopbackPorts.pick(), LoopbackPorts.pick()};
        List<InetSocketAddress> hosts = new ArrayList<>();
        for (int port : ports) {
            hosts.add(InetSocketAddress.createUnresolved("127.0.0.1", port));
        }
        List<String> members = List.of("node-0", "node-1", "node-2");
        List<JChannel> channels = new ArrayList<>();
        List<RaftHandle> handles = new ArrayList<>();
        List<Recorder> recorders = new ArrayList<>();
        int perSender = 100;
        try {
            for (int i = 0; i < 3; i++) {
                JChannel channel = Channels.writeSetLog(
                        GroupConfig.tcp("127.0.0.1", ports[i], hosts),
                        members.get(i),
                        new RaftSettings(members.get(i), members, null, false));
                Recorder recorder = new Recorder();
                handles.add(new RaftHandle(channel, recorder));
                recorders.add(recorder);
                channels.add(channel);
            }
            List<Thread> starts = new ArrayList<>();
            for (JChannel channel : channels) {
                Thread start = new Thread(() -> {
                    try {
                        channel.connect(Channels.WRITE_SET_CLUSTER);
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                });
                start.start();
                starts.add(start);
            }
            for (Thread start : starts) {
                start.join();
            }
            Await.until(
                    "a leader", Duration.ofSeconds(20), () -> handles.stream().anyMatch(RaftHandle::isLeader));
            List<CompletableFuture<Void>> senders = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                RaftHandle handle = handles.get(i);
                int sender = i;
                senders.add(CompletableFuture.runAsync(() -> {
                    for (int n = 0; n < perSender; n++) {
                        byte[] entry = WireCodec.encode(new NodeHello(sender + ":" + n, 1, true, PROFILE));
                        try {
                            appendWhenLeaderKnown(handle, entry).get(20, TimeUnit.SECONDS);
                        } catch (Exception e) {
                            throw new IllegalStateException(e);
                        }
                    }
                }));
            }
            for (CompletableFuture<Void> sender : senders) {
                sender.get(60, TimeUnit.SECONDS);
            }
            Await.until(
                    "every entry applied everywhere",
                    Duration.ofSeconds(20),
                    () -> recorders.stream().allMatch(r -> r.applied.size() == 3 * perSender),
                    () -> recorders.stream().map(r -> r.applied.size()).toList());
            assertEquals(recorders.get(0).applied, recorders.get(1).applied);
            assertEquals(recorders.get(0).applied, recorders.get(2).applied);
            for (int sender = 0; sender < 3; sender++) {
                int expected = 0;
                for (String entry : recorders.get(0).applied) {
                    if (entry.startsWith(sender + ":")) {
                        assertEquals(sender + ":" + expected++, entry, "FIFO per member");
                    }
                }
                assertEquals(perSender, expected);
            }

            // One member gone, the leader included if it was: the two others elect one and still commit.
            int gone = indexOfLeader(handles);
            org.jgroups.Address goneLeader = handles.get(gone).leader();
            channels.get(gone).close();
            int survivor = (gone + 1) % 3;
            // An append handed to a leader that is gone is never completed nor failed (WriteSetLog sends it again; a
            // second copy would count twice here): append once the survivor follows a new leader.
            Await.until(
                    "the survivors elect a new leader",
                    Duration.ofSeconds(20),
                    () -> handles.get(survivor).leader() != null
                            && !handles.get(survivor).leader().equals(goneLeader));
            byte[] entry = WireCodec.encode(new NodeHello("after-one-left", 1, true, PROFILE));
            appendWhenLeaderKnown(handles.get(survivor), entry).get(20, TimeUnit.SECONDS);
            Await.until(
                    "the entry applied at both survivors",
                    Duration.ofSeconds(20),
                    () -> recorders.get(survivor).applied.contains("after-one-left")
                            && recorders.get((gone + 2) % 3).applied.contains("after-one-left"));

            // Two gone: the last one alone is no majority and commits nothing.
            channels.get((gone + 2) % 3).close();
            byte[] lonely = WireCodec.encode(new NodeHello("alone", 1, true, PROFILE));
            CompletableFuture<Void> alone = CompletableFuture.runAsync(() -> {
                try {
                    appendWhenLeaderKnown(handles.get(survivor), lonely).get();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            assertThrows(Exception.class, () -> alone.get(5, TimeUnit.SECONDS), "a minority commits nothing");
            assertEquals(false, recorders.get(survivor).applied.contains("alone"));
            assertEquals(3 * perSender + 1, recorders.get(survivor).applied.size(), "what was committed stays");
        } finally {
            for (JChannel channel : channels) {
                channel.close();
            }
        }
    }

    private static int indexOfLeader(List<RaftHandle> handles) {
        for (int i = 0; i < handles.size(); i++) {
            if (handles.get(i).isLeader()) {
                return i;
            }
        }
        throw new AssertionError("no leader");
    }

    /** Appends, retrying while an election is under way (nothing is sent then). */
    private static CompletableFuture<byte[]> appendWhenLeaderKnown(RaftHandle handle, byte[] entry) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (true) {
            try {
                return handle.setAsync(entry, 0, entry.length);
            } catch (RaftLeaderException e) {
                if (System.nanoTime() > deadline) {
                    throw e;
                }
                Thread.sleep(20);
            }
        }
    }

    @Test
    void badHostPortIsNamed() {
        assertEquals(
                "'localhost' is not host:port",
                assertThrows(IllegalArgumentException.class, () -> GroupConfig.parseHostPort("localhost"))
                        .getMessage());
        assertEquals(
                "port of 'h:x' is not a number",
                assertThrows(IllegalArgumentException.class, () -> GroupConfig.parseHostPort("h:x"))
                        .getMessage());
        assertEquals(7800, GroupConfig.parseHostPort("127.0.0.1:7800").getPort());
    }

    static void waitForViewSize(JChannel channel, int size) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (channel.getView().size() < size) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError(channel.getName() + " sees " + channel.getView() + ", expected " + size);
            }
            Thread.sleep(20);
        }
    }

    @Test
    void bundlerComesFromTheEnvironmentAndAnUnknownOneIsNamedInTheError() {
        assertEquals("no-bundler", Channels.bundlerType(null, "no-bundler"));
        assertEquals("transfer-queue", Channels.bundlerType(" ", "transfer-queue"));
        assertEquals("transfer-queue", Channels.bundlerType("transfer-queue", "no-bundler"));
        assertEquals("no-bundler", Channels.bundlerType("no-bundler", "transfer-queue"));
        IllegalArgumentException error =
                assertThrows(IllegalArgumentException.class, () -> Channels.bundlerType("turbo", "no-bundler"));
        assertEquals(
                "GARGAMEL_JGROUPS_BUNDLER=turbo: expected one of [no-bundler, transfer-queue]", error.getMessage());
    }
}
