package org.gargamel.bank.workload;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;

/**
 * Drives the bank's terminals, one thread each (named bank-terminal-N, owned and joined here), for the settings'
 * duration or until {@link #stop()}; returns what they saw, merged. Each terminal sends through its own sender (through
 * Gargamel: its own client session, so that it reads its own writes, as an application's connection would).
 */
public final class BankWorkload {
    private final WorkloadSettings settings;
    private final IntFunction<CallSender> senders;
    private volatile long deadlineNanos;
    private volatile boolean stopped;
    private double measuredSeconds;

    /** {@code senders}: terminal number (1-based) to the sender its calls go through. */
    public BankWorkload(WorkloadSettings settings, IntFunction<CallSender> senders) {
        this.settings = settings;
        this.senders = senders;
    }

    /** Runs the terminals to the end; the calls in flight at the deadline complete and count. */
    public RunRecord run() throws InterruptedException {
        List<BankTerminal> terminals = new ArrayList<>();
        List<Thread> threads = new ArrayList<>();
        long start = System.nanoTime();
        deadlineNanos = start + settings.duration().toNanos();
        for (int i = 0; i < settings.terminals(); i++) {
            BankTerminal terminal = new BankTerminal(i + 1, settings, senders.apply(i + 1), this::running);
            terminals.add(terminal);
            Thread thread = new Thread(terminal, "bank-terminal-" + (i + 1));
            threads.add(thread);
            thread.start();
        }
        try {
            for (Thread thread : threads) {
                thread.join();
            }
        } catch (InterruptedException e) {
            stopped = true;
            for (Thread thread : threads) {
                thread.interrupt();
                thread.join(TimeUnit.SECONDS.toMillis(10));
            }
            throw e;
        }
        measuredSeconds = (System.nanoTime() - start) / 1e9;
        RunRecord merged = new RunRecord();
        terminals.forEach(terminal -> merged.merge(terminal.record()));
        return merged;
    }

    /** Ends the run early (the cluster failed, Ctrl-C): each terminal stops after its current call. */
    public void stop() {
        stopped = true;
    }

    /** From the first terminal's start to the last one's end. */
    public double measuredSeconds() {
        return measuredSeconds;
    }

    private boolean running() {
        return !stopped && System.nanoTime() < deadlineNanos;
    }
}
