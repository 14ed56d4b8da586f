package org.gargamel.launcher.profile;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * A process being profiled: its role, its pid, the event async-profiler samples it on, and its files in the output
 * directory ({@code ROLE.collapsed}, and {@code ROLE.profiler.log} where async-profiler writes its messages).
 */
record ProfileTarget(String role, long pid, String event, Path collapsed, Path log) {

    static ProfileTarget in(Path directory, String role, long pid, String event) {
        return new ProfileTarget(
                role, pid, event, directory.resolve(role + ".collapsed"), directory.resolve(role + ".profiler.log"));
    }

    ProfileTarget sampling(String otherEvent) {
        return new ProfileTarget(role, pid, otherEvent, collapsed, log);
    }

    /** {@code role (pid N)}, to begin a message with. */
    String name() {
        return role + " (pid " + pid + ")";
    }

    /** The errors and warnings async-profiler logged for this process, oldest first. */
    List<String> messages() {
        try {
            List<String> lines = Files.exists(log) ? Files.readAllLines(log) : List.of();
            return lines.stream()
                    .filter(line -> line.contains("[ERROR]") || line.contains("[WARN]"))
                    .map(String::strip)
                    .toList();
        } catch (IOException e) {
            return List.of("cannot read async-profiler's log " + log + ": " + e.getMessage());
        }
    }

    /** The last error or warning async-profiler logged for this process, or that there is none. */
    String lastMessage() {
        List<String> messages = messages();
        return messages.isEmpty() ? "async-profiler logged no error in " + log : messages.get(messages.size() - 1);
    }
}
