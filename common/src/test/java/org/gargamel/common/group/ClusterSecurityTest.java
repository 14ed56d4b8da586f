package org.gargamel.common.group;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.DataInput;
import java.io.DataOutput;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.gargamel.common.config.ClusterSecuritySettings;
import org.gargamel.common.config.ConfigException;
import org.gargamel.common.testing.Await;
import org.jgroups.Address;
import org.jgroups.BytesMessage;
import org.jgroups.Event;
import org.jgroups.JChannel;
import org.jgroups.Message;
import org.jgroups.PhysicalAddress;
import org.jgroups.Receiver;
import org.jgroups.protocols.raft.RaftLeaderException;
import org.jgroups.raft.RaftHandle;
import org.jgroups.raft.StateMachine;
import org.jgroups.stack.Protocol;
import org.jgroups.stack.ProtocolStack;
import org.jgroups.util.MessageBatch;
import org.jgroups.util.Tuple;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The groups' security with real channels over TCP on loopback (docs/protocol.md, Cluster security): members that hold
 * the cluster's secret join and talk; a process with another secret or none cannot join, and what it sends a member
 * straight to its address never reaches that member's receiver.
 */
@Tag("cluster")
class ClusterSecurityTest {
    private static final ClusterSecurity RIGHT =
            ClusterSecurity.fromSecret("the right secret, 32 bytes long!".getBytes(StandardCharsets.UTF_8), "test");
    private static final ClusterSecurity WRONG =
            ClusterSecurity.fromSecret("another secret, also long enough".getBytes(StandardCharsets.UTF_8), "test");

    @TempDir
    Path directory;

    /** Keeps what a member's receiver is handed. */
    private static final class Inbox implements Receiver {
        final List<String> received = Collections.synchronizedList(new ArrayList<>());

        @Override
        public void receive(Message message) {
            received.add(
                    new String(message.getArray(), message.getOffset(), message.getLength(), StandardCharsets.UTF_8));
        }
    }

    @Test
    void onlyMembersHoldingTheSecretJoinTheControlGroupAndReachAMember() throws Exception {
        int[] ports = {LoopbackPorts.pick(), LoopbackPorts.pick()};
        List<InetSocketAddress> hosts = List.of(
                InetSocketAddress.createUnresolved("127.0.0.1", ports[0]),
                InetSocketAddress.createUnresolved("127.0.0.1", ports[1]));
        List<JChannel> channels = new ArrayList<>();
        try {
            Inbox inbox = new Inbox();
            JChannel first = control(RIGHT, ports[0], hosts, "first", channels);
            first.setReceiver(inbox);
            first.connect(Channels.CONTROL_CLUSTER);
            JChannel second = control(RIGHT, ports[1], hosts, "second", channels);
            second.connect(Channels.CONTROL_CLUSTER);
            Await.until(
                    "the two members holding the secret in one view",
                    Duration.ofSeconds(20),
                    () -> first.getView().size() == 2);
            second.send(new BytesMessage(first.getAddress(), "from a member".getBytes(StandardCharsets.UTF_8)));
            Await.until(
                    "a member's message delivered",
                    Duration.ofSeconds(10),
                    () -> inbox.received.contains("from a member"));

            for (ClusterSecurity intruderSecurity : new ClusterSecurity[] {WRONG, null}) {
                String name = intruderSecurity == null ? "no-secret" : "wrong-secret";
                JChannel intruder = control(intruderSecurity, LoopbackPorts.pick(), hosts, name, channels);
                // Discovery is encrypted and JOIN is authenticated: it founds a group of its own. connect() returns
                // once the join was answered or given up, and a coordinator installs a joiner's view at its members
                // before it answers the joiner: so, connected alone, the intruder is in no member's view either.
                intruder.connect(Channels.CONTROL_CLUSTER);
                assertEquals(1, intruder.getView().size(), name + ": " + intruder.getView());
                assertEquals(2, first.getView().size(), name + " must not be in " + first.getView());
                // Told the member's address by hand, it sends straight to it: the member drops the message.
                Handled handled = Handled.insertInto(first, intruder.getAddress());
                PhysicalAddress physical =
                        (PhysicalAddress) first.down(new Event(Event.GET_PHYSICAL_ADDRESS, first.getAddress()));
                intruder.down(new Event(Event.ADD_PHYSICAL_ADDRESS, new Tuple<>(first.getAddress(), physical)));
                for (int i = 0; i < 5; i++) {
                    intruder.send(new BytesMessage(
                            first.getAddress(), ("injected by " + name).getBytes(StandardCharsets.UTF_8)));
                }
                second.send(new BytesMessage(first.getAddress(), ("after " + name).getBytes(StandardCharsets.UTF_8)));
                Await.until(
                        "the member's next message delivered",
                        Duration.ofSeconds(10),
                        () -> inbox.received.contains("after " + name));
                // The fence: the member's stack has handled (delivered or dropped) all five injected messages.
                Await.until(
                        "the injected messages handled by the member's stack",
                        Duration.ofSeconds(10),
                        () -> handled.count.get() >= 5,
                        handled.count::get);
                assertFalse(
                        inbox.received.stream().anyMatch(text -> text.startsWith("injected")),
                        name + " reached a member: " + inbox.received);
                intruder.close();
                first.getProtocolStack().removeProtocol(handled);
            }

            JChannel third = control(RIGHT, LoopbackPorts.pick(), hosts, "third", channels);
            third.connect(Channels.CONTROL_CLUSTER);
            Await.until(
                    "a third member holding the secret joins",
                    Duration.ofSeconds(20),
                    () -> first.getView().size() == 3);
            third.send(new BytesMessage(first.getAddress(), "from the third".getBytes(StandardCharsets.UTF_8)));
            Await.until(
                    "its message delivered", Duration.ofSeconds(10), () -> inbox.received.contains("from the third"));
        } finally {
            for (JChannel channel : channels) {
                channel.close();
            }
        }
    }

    /**
     * Right above a member's transport: counts the messages from one sender that the stack above has handled, each
     * counted once the stack returned from it (delivered to the receiver, or dropped on the way).
     */
    private static final class Handled extends Protocol {
        final AtomicInteger count = new AtomicInteger();
        private final Address from;

        private Handled(Address from) {
            this.from = from;
        }

        static Handled insertInto(JChannel member, Address from) throws Exception {
            Handled handled = new Handled(from);
            handled.init(); // the member's stack was initialised already: a protocol inserted now must be too
            ProtocolStack stack = member.getProtocolStack();
            stack.insertProtocol(
                    handled, ProtocolStack.Position.ABOVE, stack.getTransport().getClass());
            return handled;
        }

        @Override
        public Object up(Message message) {
            boolean counted = from.equals(message.getSrc());
            Object result = up_prot.up(message);
            if (counted) {
                count.incrementAndGet();
            }
            return result;
        }

        @Override
        public void up(MessageBatch batch) {
            int counted = from.equals(batch.sender()) ? batch.size() : 0;
            up_prot.up(batch);
            count.addAndGet(counted);
        }
    }

    /** A member of the write-set log that records what it applies. */
    private static final class Recorder implements StateMachine {
        final List<String> applied = Collections.synchronizedList(new ArrayList<>());

        @Override
        public byte[] apply(byte[] data, int offset, int length, boolean serializeResponse) {
            applied.add(new String(data, offset, length, StandardCharsets.UTF_8));
            return null;
        }

        @Override
        public void readContentFrom(DataInput in) {}

        @Override
        public void writeContentTo(DataOutput out) {}
    }

    /**
     * The write-set log: two replicas of three holding the secret commit entries; the third, with another secret, is
     * never in their view, applies nothing of theirs, and cannot get an entry of its own into their log.
     */
    @Test
    void aReplicaWithoutTheSecretNeitherJoinsTheWriteSetLogNorAppendsToIt() throws Exception {
        int[] ports = {LoopbackPorts.pick(), LoopbackPorts.pick(), LoopbackPorts.pick()};
        List<InetSocketAddress> hosts = new ArrayList<>();
        for (int port : ports) {
            hosts.add(InetSocketAddress.createUnresolved("127.0.0.1", port));
        }
        List<String> members = List.of("node-0", "node-1", "node-2");
        List<JChannel> channels = new ArrayList<>();
        List<RaftHandle> handles = new ArrayList<>();
        List<Recorder> recorders = new ArrayList<>();
        try {
            for (int i = 0; i < 3; i++) {
                JChannel channel = Channels.writeSetLog(
                        GroupConfig.tcp("127.0.0.1", ports[i], hosts).withSecurity(i < 2 ? RIGHT : WRONG),
                        members.get(i),
                        new RaftSettings(members.get(i), members, null, false));
                Recorder recorder = new Recorder();
                handles.add(new RaftHandle(channel, recorder));
                recorders.add(recorder);
                channels.add(channel);
            }
            for (JChannel channel : channels) {
                channel.connect(Channels.WRITE_SET_CLUSTER);
            }
            Await.until(
                    "a leader among the two holding the secret",
                    Duration.ofSeconds(30),
                    () -> handles.get(0).isLeader() || handles.get(1).isLeader());
            RaftHandle leader = handles.get(0).isLeader() ? handles.get(0) : handles.get(1);
            for (int i = 0; i < 5; i++) {
                byte[] entry = ("entry " + i).getBytes(StandardCharsets.UTF_8);
                leader.setAsync(entry, 0, entry.length).get(20, TimeUnit.SECONDS);
            }
            Await.until(
                    "the entries applied at both members",
                    Duration.ofSeconds(20),
                    () -> recorders.get(0).applied.size() == 5
                            && recorders.get(1).applied.size() == 5);
            byte[] forged = "forged".getBytes(StandardCharsets.UTF_8);
            // The outsider never learns a leader; asked to append, it refuses at once or never completes.
            try {
                handles.get(2).setAsync(forged, 0, forged.length).get(3, TimeUnit.SECONDS);
            } catch (RaftLeaderException
                    | java.util.concurrent.TimeoutException
                    | java.util.concurrent.ExecutionException e) {
                // expected
            }
            // The fence: one more entry through the leader, applied at both members. The log applies in order, so an
            // entry forged into it before this one would have been applied before it.
            byte[] last = "entry 5".getBytes(StandardCharsets.UTF_8);
            leader.setAsync(last, 0, last.length).get(20, TimeUnit.SECONDS);
            Await.until(
                    "the last entry applied at both members",
                    Duration.ofSeconds(20),
                    () -> recorders.get(0).applied.size() >= 6
                            && recorders.get(1).applied.size() >= 6);
            assertEquals(
                    1,
                    channels.get(2).getView().size(),
                    channels.get(2).getView().toString());
            assertEquals(
                    2,
                    channels.get(0).getView().size(),
                    channels.get(0).getView().toString());
            assertTrue(recorders.get(2).applied.isEmpty(), "the outsider applied " + recorders.get(2).applied);
            List<String> expected = List.of("entry 0", "entry 1", "entry 2", "entry 3", "entry 4", "entry 5");
            assertEquals(expected, recorders.get(0).applied);
            assertEquals(expected, recorders.get(1).applied);
        } finally {
            for (JChannel channel : channels) {
                channel.close();
            }
        }
    }

    /**
     * A merge leader sends its MERGE_REQ to itself too; JGroups loops it back inside the process with this very token in
     * its header, never serialized. Refusing it (no time, no proof) cancelled every merge once a member's group had to
     * merge: ChaosIT's nodes never formed the write-set log's majority. A token received from the network is still
     * checked: one that carries no proof (zero time and MAC) is refused.
     */
    @Test
    void aMembersOwnLoopedBackMergeRequestIsAcceptedAndAReceivedCopyWithoutProofIsNot() throws Exception {
        byte[] key = "a-secret-of-thirty-two-bytes-or-more".getBytes(StandardCharsets.UTF_8);
        SharedSecretToken own = new SharedSecretToken(key);
        Message looped = new org.jgroups.BytesMessage().setSrc(org.jgroups.util.Util.createRandomAddress("node-2"));
        assertTrue(own.authenticate(own, looped), "the member's own request, looped back");

        SharedSecretToken unproven = new SharedSecretToken();
        unproven.readFrom(new java.io.DataInputStream(new java.io.ByteArrayInputStream(new byte[unproven.size()])));
        assertFalse(own.authenticate(unproven, looped), "a received token without a proof");
    }

    /** IVs come from the JDK's DRBG, which draws in Java, not from NativePRNG's locked read of /dev/urandom. */
    @Test
    void ivsComeFromTheDrbgAndAreFreshEachTime() {
        GcmSymEncrypt encrypt = new GcmSymEncrypt();
        assertEquals("DRBG", encrypt.secureRandom().getAlgorithm());
        byte[] first = new byte[12];
        byte[] second = new byte[12];
        encrypt.secureRandom().nextBytes(first);
        encrypt.secureRandom().nextBytes(second);
        assertFalse(java.util.Arrays.equals(first, second), "two IVs drawn in a row differ");
    }

    @Test
    void noSecretReachesAMessageOrToString() throws Exception {
        String secret = "do-not-print-me-0123456789abcdef";
        Path file = directory.resolve("cluster.secret");
        Files.writeString(file, secret + "\n");
        ClusterSecurity security = new ClusterSecuritySettings(file.toString()).load();
        GroupConfig config = GroupConfig.inMemory().withSecurity(security);
        assertFalse(security.toString().contains(secret), security.toString());
        assertFalse(config.toString().contains(secret), config.toString());
        assertFalse(new SharedSecretToken(secret.getBytes(StandardCharsets.UTF_8))
                .toString()
                .contains(secret));

        Path tooShort = directory.resolve("short.secret");
        Files.writeString(tooShort, "short-secret\n");
        ConfigException refused =
                assertThrows(ConfigException.class, () -> new ClusterSecuritySettings(tooShort.toString()).load());
        assertTrue(refused.getMessage().contains("clusterSecurity.secretFile"), refused.getMessage());
        assertFalse(refused.getMessage().contains("short-secret"), refused.getMessage());
        ConfigException missing = assertThrows(
                ConfigException.class,
                () -> new ClusterSecuritySettings(directory.resolve("none").toString()).load());
        assertTrue(missing.getMessage().contains("cannot read"), missing.getMessage());

        Path generated = ClusterSecurity.writeNewSecret(directory.resolve("fresh.secret"));
        assertTrue(Files.readString(generated).strip().length() >= 40, "32 random bytes in base64");
        assertEquals(
                "rw-------",
                java.nio.file.attribute.PosixFilePermissions.toString(Files.getPosixFilePermissions(generated)));
    }

    private static JChannel control(
            ClusterSecurity security, int port, List<InetSocketAddress> hosts, String name, List<JChannel> channels)
            throws Exception {
        JChannel channel =
                Channels.control(GroupConfig.tcp("127.0.0.1", port, hosts).withSecurity(security), name);
        channels.add(channel);
        return channel;
    }
}
