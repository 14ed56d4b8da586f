package org.gargamel.bank.workload;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Drives the bank's terminals, one thread each (named bank-terminal-N, owned and joined here), for the settings'
 * duration or until {@link #stop()}; returns what they saw, merged.
 */
public final class BankWorkload {
    private final WorkloadSettings settings;
    private final CallSender sender;
    private volatile long deadlineNanos;
    private volatile boolean stopped;
    private double measuredSeconds;

    public BankWorkload(WorkloadSettings settings, CallSender sender) {
        this.settings = settings;
        this.sender = sender;
    }

    /** Runs the terminals to the end; the calls in flight at the deadline complete and count. */
    public RunRecord run() throws InterruptedException {
        List<BankTerminal> terminals = new ArrayList<>();
        List<Thread> threads = new ArrayList<>();
        long start = System.nanoTime();
        deadlineNanos = start + settings.duration().toNanos();
        for (int i = 0; i < settings.terminals(); i++) {
            BankTerminal terminal = new BankTerminal(i + 1, settings, sender, this::running);
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
