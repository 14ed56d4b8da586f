package org.gargamel.launcher.profile;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Processes being profiled ({@link ProcessProfiler#start}), until {@link #stop()}. */
public final class ProfileSession {
    private final Path library;
    private final List<ProfileTarget> targets;
    private final List<String> notes;
    private Map<String, ProfileResult> results;

    ProfileSession(Path library, List<ProfileTarget> targets, List<String> notes) {
        this.library = library;
        this.targets = List.copyOf(targets);
        this.notes = List.copyOf(notes);
    }

    /** What the user should know about how the processes are sampled (a fall-back to event=itimer). */
    public List<String> notes() {
        return notes;
    }

    /**
     * Stops the profiler in every process, which writes its {@code ROLE.collapsed}; per role, the file or why there
     * is none. A process that cannot be stopped does not keep the others from being stopped. Stopping again returns
     * the same results.
     */
    public synchronized Map<String, ProfileResult> stop() {
        if (results == null) {
            Map<String, ProfileResult> stopped = new LinkedHashMap<>();
            for (ProfileTarget target : targets) {
                stopped.put(target.role(), stop(target));
            }
            results = Collections.unmodifiableMap(stopped);
        }
        return results;
    }

    private ProfileResult stop(ProfileTarget target) {
        String options = "stop,file=" + target.collapsed() + ",collapsed,ann,log=" + target.log();
        try {
            if (!JvmAgent.load(target.pid(), library, options)) {
                return new ProfileResult.Failed(target.role(), target.pid(), target.lastMessage());
            }
        } catch (ProfilerException e) {
            return new ProfileResult.Failed(target.role(), target.pid(), e.getMessage());
        }
        if (!Files.isRegularFile(target.collapsed())) {
            return new ProfileResult.Failed(
                    target.role(),
                    target.pid(),
                    "async-profiler wrote no " + target.collapsed() + ": " + target.lastMessage());
        }
        try {
            Files.deleteIfExists(target.log()); // nothing went wrong: nothing to read in it
        } catch (IOException e) {
            // left behind in the output directory, harmless
        }
        return new ProfileResult.Written(target.role(), target.pid(), target.event(), target.collapsed());
    }
}
