package org.gargamel.scheduler.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.gargamel.common.call.ProcedureCall;
import org.gargamel.common.client.ClientOptions;
import org.gargamel.common.client.GargamelClient;
import org.gargamel.common.config.GroupSettings;
import org.gargamel.common.config.Isolation;
import org.gargamel.common.config.Mode;
import org.gargamel.common.group.GroupConfig;
import org.gargamel.common.group.LoopbackPorts;
import org.gargamel.common.wire.CallOutcome;
import org.gargamel.scheduler.SchedulerConfig;
import org.gargamel.scheduler.SchedulerServer;
import org.gargamel.scheduler.cluster.FakeNode;
import org.gargamel.tpcc.TpccRules;

/**
 * The end-to-end dispatch rate: a client submits the TPC-C mix (10 warehouses) through JGroups over TCP on
 * 127.0.0.1 to the scheduler, which dispatches to no-op fake nodes (3 × 4 workers) that answer the client and report
 * progress; all in this JVM. Counts outcomes per second over a measured interval after a warm-up, with a window
 * of calls in flight.
 */
public final class EndToEndRate {
    private static final int NODES = 3;
    private static final int WORKERS = 4;
    private static final int WINDOW = 4_000;

    private EndToEndRate() {}

    public static double measure(Duration warmup, Duration measured) throws Exception {
        List<String> hosts = new ArrayList<>();
        for (int i = 0; i <= NODES; i++) {
            hosts.add("127.0.0.1:" + LoopbackPorts.pick());
        }
        List<java.net.InetSocketAddress> initial = new ArrayList<>();
        for (String host : hosts) {
            initial.add(GroupConfig.parseHostPort(host));
        }
        FakeNode.Bus bus = new FakeNode.Bus();
        List<FakeNode> nodes = new ArrayList<>();
        try (SchedulerServer scheduler = new SchedulerServer(new SchedulerConfig(
                GroupSettings.tcp(hosts.get(0), hosts),
                Mode.GARGAMEL,
                Isolation.PSI,
                TpccRules.temporaryFile(),
                1_000_000))) {
            scheduler.start();
            try {
                for (int i = 1; i <= NODES; i++) {
                    nodes.add(new FakeNode(
                            "node-" + i,
                            WORKERS,
                            GroupConfig.tcp("127.0.0.1", initial.get(i).getPort(), initial),
                            bus));
                }
                try (GargamelClient client = GargamelClient.connect(
                        GroupConfig.tcp("127.0.0.1", 0, initial),
                        new ClientOptions(WINDOW, Duration.ofSeconds(60), Duration.ofSeconds(30)))) {
                    client.awaitNodes(NODES, Duration.ofSeconds(30));
                    List<ProcedureCall> calls = SchedulerBenchmark.tpccMix(new SplittableRandom(7), 1 << 16);
                    Semaphore window = new Semaphore(WINDOW);
                    AtomicLong done = new AtomicLong();
                    AtomicLong failed = new AtomicLong();
                    long start = System.nanoTime();
                    long measureFrom = start + warmup.toNanos();
                    long end = measureFrom + measured.toNanos();
                    long doneAtMeasureStart = -1;
                    int next = 0;
                    while (true) {
                        long now = System.nanoTime();
                        if (doneAtMeasureStart < 0 && now >= measureFrom) {
                            doneAtMeasureStart = done.get();
                        }
                        if (now >= end) {
                            break;
                        }
                        if (!window.tryAcquire(10, TimeUnit.MILLISECONDS)) {
                            continue;
                        }
                        // handle() sees the call's failure; exceptionally() only a failure of the handler itself.
                        client.submit(calls.get(next++ & ((1 << 16) - 1)))
                                .handle((outcome, failure) -> {
                                    try {
                                        if (failure != null || outcome.status() == CallOutcome.Status.REJECTED) {
                                            if (failed.incrementAndGet() == 1) {
                                                System.err.println("end-to-end: first failure: "
                                                        + (failure != null ? failure : outcome.message()));
                                            }
                                        }
                                        done.incrementAndGet();
                                    } finally {
                                        window.release();
                                    }
                                    return null;
                                })
                                .exceptionally(handlerFailure -> {
                                    System.err.println(
                                            "end-to-end: counting a call's outcome failed: " + handlerFailure);
                                    return null;
                                });
                    }
                    double rate = (done.get() - doneAtMeasureStart) / (measured.toNanos() / 1e9);
                    window.acquire(WINDOW);
                    if (failed.get() > 0) {
                        System.err.println("end-to-end: " + failed.get() + " call(s) failed or were rejected");
                    }
                    if (!bus.violations.isEmpty()) {
                        System.err.println("end-to-end: dependency violations: "
                                + bus.violations.subList(0, Math.min(5, bus.violations.size())));
                    }
                    return rate;
                }
            } finally {
                for (FakeNode node : nodes) {
                    node.close();
                }
            }
        }
    }

    public static void main(String[] args) throws Exception {
        double rate = measure(Duration.ofSeconds(5), Duration.ofSeconds(10));
        System.out.printf("end_to_end_calls_per_s=%.0f%n", rate);
    }
}
