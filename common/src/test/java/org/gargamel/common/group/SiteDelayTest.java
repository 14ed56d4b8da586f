package org.gargamel.common.group;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.gargamel.common.testing.Await;
import org.jgroups.BytesMessage;
import org.jgroups.JChannel;
import org.jgroups.Message;
import org.jgroups.Receiver;
import org.jgroups.protocols.SHARED_LOOPBACK;
import org.jgroups.protocols.SHARED_LOOPBACK_PING;
import org.jgroups.protocols.UNICAST3;
import org.jgroups.protocols.pbcast.GMS;
import org.jgroups.protocols.pbcast.NAKACK2;
import org.jgroups.protocols.pbcast.STABLE;
import org.jgroups.util.NameCache;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Wide-area links on one machine: a1 and a2 are one site, b1 another, 300 ms apart. What b1 sends reaches the members
 * of site a no sooner than 300 ms later and in its order; what a2 sends a1 is not held; b1's own multicast reaches b1
 * at once.
 */
@Tag("cluster")
class SiteDelayTest {
    private static final Duration LINK = Duration.ofMillis(300);
    private static final Map<String, String> SITE_OF = Map.of("a1", "a", "a2", "a", "b1", "b");

    private record Arrival(String from, int sequence, long sentNanos, long arrivedNanos) {}

    private final List<JChannel> channels = new ArrayList<>();
    private final Map<String, List<Arrival>> arrivals =
            Map.of("a1", new ArrayList<>(), "a2", new ArrayList<>(), "b1", new ArrayList<>(), "far", new ArrayList<>());

    @AfterEach
    void close() {
        channels.forEach(JChannel::close);
    }

    @Test
    void messagesFromAnotherSiteArriveOneLinkDelayLaterAndInOrder() throws Exception {
        JChannel a1 = member("a1");
        JChannel a2 = member("a2");
        JChannel b1 = member("b1");
        Await.until(
                "one view of three", Duration.ofSeconds(20), () -> a1.getView().size() == 3);
        for (int i = 0; i < 50; i++) {
            b1.send(message(a1.getAddress(), i));
            a2.send(message(a1.getAddress(), i));
        }
        b1.send(message(null, 1000)); // a multicast: to every member, b1 too
        Await.until(
                "a1 to receive 101 messages",
                Duration.ofSeconds(20),
                () -> received("a1").size() == 101);
        Await.until(
                "a2 and b1 to receive the multicast",
                Duration.ofSeconds(20),
                () -> received("a2").size() == 1 && received("b1").size() == 1);

        List<Integer> fromB = new ArrayList<>();
        for (Arrival arrival : received("a1")) {
            long heldMillis = (arrival.arrivedNanos() - arrival.sentNanos()) / 1_000_000;
            if (arrival.from().equals("b1")) {
                if (arrival.sequence() < 1000) {
                    fromB.add(arrival.sequence()); // JGroups orders a sender's unicasts, and apart its multicasts
                }
                assertTrue(heldMillis >= LINK.toMillis(), "from b1 after " + heldMillis + " ms");
            } else {
                assertTrue(heldMillis < LINK.toMillis(), "from a2, in the same site, after " + heldMillis + " ms");
            }
        }
        List<Integer> expected = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            expected.add(i);
        }
        assertEquals(expected, fromB, "b1's messages in the order it sent them");
        Arrival atA2 = received("a2").get(0);
        assertTrue((atA2.arrivedNanos() - atA2.sentNanos()) / 1_000_000 >= LINK.toMillis(), "the multicast at a2");
        Arrival atB1 = received("b1").get(0);
        assertTrue((atB1.arrivedNanos() - atB1.sentNanos()) / 1_000_000 < LINK.toMillis(), "b1's own multicast");
    }

    /**
     * A member far from the others ({@link DistantMember}, for a remote site's client of one scheduler): what it sends
     * and what it receives are each held one delay, in their order, so a round trip costs two.
     */
    @Test
    void aDistantMembersMessagesAreHeldBothWaysAndKeepTheirOrder() throws Exception {
        JChannel a1 = member("a1", new SiteDelay("a", SiteDelay.Links.NONE));
        JChannel far = member("far", new DistantMember(LINK));
        Await.until(
                "one view of two", Duration.ofSeconds(20), () -> a1.getView().size() == 2);
        for (int i = 0; i < 30; i++) {
            far.send(message(a1.getAddress(), i));
            a1.send(message(far.getAddress(), i));
        }
        Await.until(
                "30 messages each way",
                Duration.ofSeconds(20),
                () -> received("a1").size() == 30 && received("far").size() == 30);
        for (String member : List.of("a1", "far")) {
            List<Integer> sequences = new ArrayList<>();
            for (Arrival arrival : received(member)) {
                long heldMillis = (arrival.arrivedNanos() - arrival.sentNanos()) / 1_000_000;
                assertTrue(heldMillis >= LINK.toMillis(), "at " + member + " after " + heldMillis + " ms");
                assertTrue(heldMillis < 2 * LINK.toMillis(), "at " + member + ", held twice: " + heldMillis + " ms");
                sequences.add(arrival.sequence());
            }
            assertEquals(java.util.stream.IntStream.range(0, 30).boxed().toList(), sequences, "in order at " + member);
        }
    }

    private JChannel member(String name) throws Exception {
        return member(name, new SiteDelay(SITE_OF.get(name), SiteDelay.Links.uniform(SITE_OF, LINK)));
    }

    private JChannel member(String name, org.jgroups.stack.Protocol delay) throws Exception {
        JChannel channel = new JChannel(
                new SHARED_LOOPBACK(),
                new SHARED_LOOPBACK_PING(),
                new NAKACK2(),
                new UNICAST3(),
                new STABLE(),
                new GMS().setJoinTimeout(500),
                delay);
        channel.setName(name);
        channel.setReceiver(new Receiver() {
            @Override
            public void receive(Message message) {
                ByteBuffer body = ByteBuffer.wrap(message.getArray(), message.getOffset(), message.getLength());
                int sequence = body.getInt();
                long sent = body.getLong();
                synchronized (arrivals) {
                    arrivals.get(name)
                            .add(new Arrival(NameCache.get(message.getSrc()), sequence, sent, System.nanoTime()));
                }
            }
        });
        channel.connect("site-delay-test");
        channels.add(channel);
        return channel;
    }

    private List<Arrival> received(String member) {
        synchronized (arrivals) {
            return List.copyOf(arrivals.get(member));
        }
    }

    private static Message message(org.jgroups.Address to, int sequence) {
        return new BytesMessage(
                to,
                ByteBuffer.allocate(12)
                        .putInt(sequence)
                        .putLong(System.nanoTime())
                        .array());
    }
}
