package org.gargamel.launcher.profile;

import java.nio.file.Path;

/** What profiling one process gave: its collapsed stacks, or why there are none. */
public sealed interface ProfileResult {
    String role();

    long pid();

    /** The process's collapsed stacks (with async-profiler's frame annotations) in {@code collapsed}. */
    record Written(String role, long pid, String event, Path collapsed) implements ProfileResult {}

    /** The process's profile could not be written (it exited, say); {@code reason} says why. */
    record Failed(String role, long pid, String reason) implements ProfileResult {}
}
