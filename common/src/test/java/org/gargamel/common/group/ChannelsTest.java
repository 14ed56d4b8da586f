package org.gargamel.common.group;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.gargamel.common.wire.NodeHello;
import org.gargamel.common.wire.WireCodec;
import org.jgroups.BytesMessage;
import org.jgroups.JChannel;
import org.jgroups.Message;
import org.jgroups.Receiver;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** Gargamel's stacks with several members in one JVM (TCP on loopback), and their settings' errors. */
@Tag("cluster")
class ChannelsTest {

    @Test
    void totalOrderOverTcpOnLoopbackDeliversTheSameSequenceEverywhere() throws Exception {
        int[] ports = {LoopbackPorts.pick(), LoopbackPorts.pick(), LoopbackPorts.pick()};
        List<InetSocketAddress> hosts = new ArrayList<>();
        for (int port : ports) {
            hosts.add(InetSocketAddress.createUnresolved("127.0.0.1", port));
        }
        int perSender = 200;
        List<JChannel> channels = new ArrayList<>();
        List<List<String>> delivered = new ArrayList<>();
        CountDownLatch all = new CountDownLatch(3 * 3 * perSender);
        try {
            for (int i = 0; i < 3; i++) {
                JChannel channel = Channels.writeSets(GroupConfig.tcp("127.0.0.1", ports[i], hosts), "node-" + i);
                List<String> log = Collections.synchronizedList(new ArrayList<>());
                delivered.add(log);
                channel.setReceiver(new Receiver() {
                    @Override
                    public void receive(Message message) {
                        log.add(((NodeHello)
                                        WireCodec.decode(message.getArray(), message.getOffset(), message.getLength()))
                                .nodeName());
                        all.countDown();
                    }
                });
                channel.connect(Channels.WRITE_SET_CLUSTER);
                channels.add(channel);
            }
            for (int i = 0; i < 3; i++) {
                waitForViewSize(channels.get(i), 3);
            }
            List<Thread> senders = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                JChannel channel = channels.get(i);
                int sender = i;
                Thread thread = new Thread(() -> {
                    try {
                        for (int n = 0; n < perSender; n++) {
                            channel.send(new BytesMessage(null, WireCodec.encode(new NodeHello(sender + ":" + n, 1))));
                        }
                    } catch (Exception e) {
                        throw new RuntimeException(e);
                    }
                });
                thread.start();
                senders.add(thread);
            }
            for (Thread thread : senders) {
                thread.join();
            }
            assertEquals(true, all.await(30, TimeUnit.SECONDS), "every message delivered at every member");
            assertEquals(delivered.get(0), delivered.get(1));
            assertEquals(delivered.get(0), delivered.get(2));
            // FIFO per sender inside the total order.
            for (int sender = 0; sender < 3; sender++) {
                int expected = 0;
                for (String entry : delivered.get(0)) {
                    if (entry.startsWith(sender + ":")) {
                        assertEquals(sender + ":" + expected++, entry);
                    }
                }
                assertEquals(perSender, expected);
            }
        } finally {
            for (JChannel channel : channels) {
                channel.close();
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
