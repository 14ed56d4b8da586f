package org.gargamel.launcher.run;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.gargamel.tpcc.result.RunCpu;

/**
 * Reads how much CPU the machine and each role of a run (the terminals' process, the scheduler, the nodes, the front
 * end, the PostgreSQL servers) have spent so far, from Linux's {@code /proc}; two readings give a {@link RunCpu}.
 * Issue 17 and the simulator need it: the nodes measure their calls' own CPU, and this tells what the rest of the
 * machine spends around them (JGroups, the write-set log, the client, PostgreSQL's background work).
 *
 * <p>{@code /proc} counts in USER_HZ ticks, 100 a second on every Linux architecture Java runs on. A process's ticks
 * are its own ({@code utime + stime}); a PostgreSQL server's are its postmaster's, including the children it reaped
 * ({@code cutime + cstime}: a backend that ended in between still counts), plus those of its live processes. A process
 * that was restarted between the readings (a chaos run) makes them meaningless: such runs take none.
 */
public final class ProcessCpuMeter {
    private static final double TICKS_PER_SECOND = 100;

    /** One reading: CPU seconds so far by role, {@link RunCpu#HOST} included, and when. */
    public record Reading(long nanoTime, Map<String, Double> cpuSeconds) {}

    private final Map<String, List<Long>> processesByRole;
    private final Map<String, List<Long>> serversByRole;

    /**
     * {@code processesByRole}: pids whose own CPU counts for the role ({@code client} is this process, added here);
     * {@code serversByRole}: PostgreSQL postmasters, counted with every process of theirs.
     */
    public ProcessCpuMeter(Map<String, List<Long>> processesByRole, Map<String, List<Long>> serversByRole) {
        Map<String, List<Long>> processes = new LinkedHashMap<>();
        processes.put("client", List.of(ProcessHandle.current().pid()));
        processes.putAll(processesByRole);
        this.processesByRole = processes;
        this.serversByRole = serversByRole;
    }

    /** Whether this machine has {@code /proc} to read (Linux). */
    public static boolean available() {
        return Files.isReadable(Path.of("/proc/stat")) && Files.isReadable(Path.of("/proc/self/stat"));
    }

    public Reading read() {
        Map<String, Double> seconds = new LinkedHashMap<>();
        seconds.put(RunCpu.HOST, hostBusyTicks() / TICKS_PER_SECOND);
        processesByRole.forEach((role, pids) -> {
            long ticks = 0;
            for (long pid : pids) {
                ticks += ownTicks(pid);
            }
            seconds.put(role, ticks / TICKS_PER_SECOND);
        });
        serversByRole.forEach((role, postmasters) -> {
            long ticks = 0;
            for (long postmaster : postmasters) {
                ticks += serverTicks(postmaster);
            }
            seconds.put(role, ticks / TICKS_PER_SECOND);
        });
        return new Reading(System.nanoTime(), seconds);
    }

    /** What was spent between {@code from} and {@code to}, per call of the {@code calls} finished meanwhile. */
    public static RunCpu between(Reading from, Reading to, long calls) {
        Map<String, Double> spent = new LinkedHashMap<>();
        to.cpuSeconds()
                .forEach((role, seconds) ->
                        spent.put(role, seconds - from.cpuSeconds().getOrDefault(role, 0.0)));
        return RunCpu.of((to.nanoTime() - from.nanoTime()) / 1e9, spent, calls);
    }

    /** The machine's busy ticks: user, nice, system, irq and softirq (not idle, iowait, or a hypervisor's steal). */
    static long hostBusyTicks() {
        try {
            String[] cpu =
                    Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+", -1);
            return Long.parseLong(cpu[1])
                    + Long.parseLong(cpu[2])
                    + Long.parseLong(cpu[3])
                    + Long.parseLong(cpu[6])
                    + Long.parseLong(cpu[7]);
        } catch (IOException | RuntimeException e) {
            return 0;
        }
    }

    /** {@code utime + stime} of a live process; 0 if it is gone. */
    static long ownTicks(long pid) {
        long[] fields = statFields(pid);
        return fields == null ? 0 : fields[0] + fields[1];
    }

    private static long serverTicks(long postmaster) {
        long[] fields = statFields(postmaster);
        if (fields == null) {
            return 0;
        }
        long ticks = fields[0] + fields[1] + fields[2] + fields[3];
        for (ProcessHandle child :
                ProcessHandle.of(postmaster).map(p -> p.descendants().toList()).orElse(List.of())) {
            ticks += ownTicks(child.pid());
        }
        return ticks;
    }

    /** utime, stime, cutime, cstime of {@code /proc/PID/stat}, or null if the process is gone. */
    private static long[] statFields(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            // The command name (field 2) is in parentheses and may hold spaces: count fields after its last ')'.
            String[] after = stat.substring(stat.lastIndexOf(')') + 2).split(" ", -1);
            return new long[] {
                Long.parseLong(after[11]),
                Long.parseLong(after[12]),
                Long.parseLong(after[13]),
                Long.parseLong(after[14])
            };
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }
}
