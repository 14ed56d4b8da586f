package org.gargamel.launcher.run;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
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
 *
 * <p>Of each Java role (every role but the servers) the meter also reads what its JIT compiler threads spent
 * ({@link CompilerThreads}), which is part of the role's CPU: what the role would spend once compiled is the difference;
 * and how often its threads switched ({@link ContextSwitches}): the hand-offs behind that CPU.
 */
public final class ProcessCpuMeter {
    /**
     * One reading, and when: CPU seconds so far by role, {@link RunCpu#HOST} included; and by Java role, the ticks of
     * each of its processes' compiler threads and the context switches of each of its threads, by thread id.
     */
    public record Reading(
            long nanoTime,
            Map<String, Double> cpuSeconds,
            Map<String, Map<Long, Long>> compilerTicksByRole,
            Map<String, Map<Long, Long>> switchesByRole) {}

    private final Map<String, List<Long>> processesByRole;
    private final Map<String, List<Long>> serversByRole;
    private final CompilerThreads compilerThreads = CompilerThreads.ofThisMachine();
    private final ContextSwitches contextSwitches = ContextSwitches.ofThisMachine();

    /**
     * {@code processesByRole}: pids whose own CPU counts for the role ({@code client} is this process, added here),
     * each a JVM; {@code serversByRole}: PostgreSQL postmasters, counted with every process of theirs.
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
        Map<String, Map<Long, Long>> compilers = new LinkedHashMap<>();
        Map<String, Map<Long, Long>> switches = new LinkedHashMap<>();
        seconds.put(RunCpu.HOST, hostBusyTicks() / ProcStat.TICKS_PER_SECOND);
        processesByRole.forEach((role, pids) -> {
            long ticks = 0;
            Map<Long, Long> compilerTicks = new LinkedHashMap<>();
            Map<Long, Long> threadSwitches = new LinkedHashMap<>();
            for (long pid : pids) {
                ticks += ownTicks(pid);
                compilerTicks.putAll(compilerThreads.ticksByThread(pid));
                threadSwitches.putAll(contextSwitches.byThread(pid));
            }
            seconds.put(role, ticks / ProcStat.TICKS_PER_SECOND);
            compilers.put(role, compilerTicks);
            switches.put(role, threadSwitches);
        });
        serversByRole.forEach((role, postmasters) -> {
            long ticks = 0;
            for (long postmaster : postmasters) {
                ticks += serverTicks(postmaster);
            }
            seconds.put(role, ticks / ProcStat.TICKS_PER_SECOND);
        });
        return new Reading(System.nanoTime(), seconds, compilers, switches);
    }

    /**
     * What was spent between {@code from} and {@code to}, per call of the {@code calls} finished meanwhile; of the Java
     * roles, their compiler threads' share and their context switches too.
     */
    public static RunCpu between(Reading from, Reading to, long calls) {
        Map<String, Double> spent = new LinkedHashMap<>();
        to.cpuSeconds()
                .forEach((role, seconds) ->
                        spent.put(role, seconds - from.cpuSeconds().getOrDefault(role, 0.0)));
        Map<String, Double> compiling = new LinkedHashMap<>();
        to.compilerTicksByRole()
                .forEach((role, threads) -> compiling.put(
                        role,
                        ThreadCounters.spent(from.compilerTicksByRole().getOrDefault(role, Map.of()), threads)
                                / ProcStat.TICKS_PER_SECOND));
        Map<String, Long> switched = new LinkedHashMap<>();
        to.switchesByRole()
                .forEach((role, threads) -> switched.put(
                        role, ThreadCounters.spent(from.switchesByRole().getOrDefault(role, Map.of()), threads)));
        return RunCpu.of((to.nanoTime() - from.nanoTime()) / 1e9, spent, compiling, switched, calls);
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
    public static long ownTicks(long pid) {
        return ProcStat.read(statFile(pid)).map(ProcStat::ownTicks).orElse(0L);
    }

    /**
     * A PostgreSQL server's ticks: its postmaster's own and its reaped children's, and every live descendant's own; 0
     * if it is gone.
     *
     * <p>A backend that ends while it is read (a run's connections closing as its interval ends) could be missed: not
     * yet in the postmaster's {@code cutime} when that is read, and gone when the descendants are. So the postmaster is
     * read before and after its descendants, and again until no child was reaped in between (a child that ended but is
     * not reaped yet is a zombie, whose ticks {@code /proc} still shows).
     */
    public static long serverTicks(long postmaster) {
        for (int attempt = 0; ; attempt++) {
            Optional<ProcStat> before = ProcStat.read(statFile(postmaster));
            if (before.isEmpty()) {
                return 0;
            }
            long descendants = 0;
            for (ProcessHandle child : ProcessHandle.of(postmaster)
                    .map(p -> p.descendants().toList())
                    .orElse(List.of())) {
                descendants += ownTicks(child.pid());
            }
            Optional<ProcStat> after = ProcStat.read(statFile(postmaster));
            if (after.isEmpty()) {
                return 0;
            }
            long reapedBefore = before.get().cutime() + before.get().cstime();
            long reaped = after.get().cutime() + after.get().cstime();
            // Bounded: under a storm of short connections, the last reading is at most a few children off.
            if (reaped == reapedBefore || attempt == 9) {
                return after.get().ownTicks() + reaped + descendants;
            }
        }
    }

    private static Path statFile(long pid) {
        return Path.of("/proc", Long.toString(pid), "stat");
    }
}
