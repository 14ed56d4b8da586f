package org.gargamel.launcher.run;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * The fields of a Linux {@code /proc/PID/stat} or {@code /proc/PID/task/TID/stat} line that CPU accounting needs: the
 * command or thread name ({@code comm}, at most 15 characters) and the CPU ticks (USER_HZ, 100 a second) spent in user
 * and kernel mode by the process or thread itself ({@code utime}, {@code stime}) and by its children that ended and
 * were waited for ({@code cutime}, {@code cstime}).
 */
public record ProcStat(String comm, long utime, long stime, long cutime, long cstime) {
    /** Ticks a second in every {@code /proc} count, on every Linux architecture Java runs on. */
    public static final double TICKS_PER_SECOND = 100;

    /** Its own ticks: {@code utime + stime}. */
    public long ownTicks() {
        return utime + stime;
    }

    /**
     * Parses one stat line. The name (field 2) is in parentheses and may hold spaces and parentheses itself, so the
     * fields are counted after its last ')'.
     */
    public static ProcStat parse(String line) {
        int open = line.indexOf('(');
        int close = line.lastIndexOf(')');
        if (open < 0 || close < open) {
            throw new IllegalArgumentException("not a /proc stat line: " + line);
        }
        String[] after = line.substring(close + 2).trim().split(" ", -1);
        return new ProcStat(
                line.substring(open + 1, close),
                Long.parseLong(after[11]),
                Long.parseLong(after[12]),
                Long.parseLong(after[13]),
                Long.parseLong(after[14]));
    }

    /** The stat file {@code file}, or empty if its process or thread is gone (or it cannot be read). */
    public static Optional<ProcStat> read(Path file) {
        try {
            return Optional.of(parse(Files.readString(file)));
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }
}
