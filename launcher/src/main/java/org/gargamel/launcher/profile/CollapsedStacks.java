package org.gargamel.launcher.profile;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A profile in the collapsed-stacks format (Brendan Gregg's, which async-profiler writes with {@code collapsed}): one
 * line per distinct stack, its frames from the thread's root to the leaf joined with ';', a space, then how many
 * samples had that stack.
 */
public record CollapsedStacks(List<Stack> stacks) {

    /** One distinct stack, root first, and its number of samples. */
    public record Stack(List<Frame> frames, long samples) {
        public Stack {
            frames = List.copyOf(frames);
            if (frames.isEmpty() || samples <= 0) {
                throw new IllegalArgumentException("a stack needs frames and a positive count");
            }
        }

        public Frame leaf() {
            return frames.get(frames.size() - 1);
        }
    }

    public CollapsedStacks {
        stacks = List.copyOf(stacks);
    }

    /** All the samples of every stack. */
    public long samples() {
        return stacks.stream().mapToLong(Stack::samples).sum();
    }

    public static CollapsedStacks read(Path file) throws IOException {
        return parse(Files.readAllLines(file), file.toString());
    }

    /**
     * The stacks of {@code lines}; blank lines are skipped. An error naming {@code source} and the line for a line
     * that is not {@code frame;frame;... count}.
     */
    public static CollapsedStacks parse(List<String> lines, String source) {
        List<Stack> stacks = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i).strip();
            if (line.isEmpty()) {
                continue;
            }
            int space = line.lastIndexOf(' ');
            long samples;
            try {
                samples = space > 0 ? Long.parseLong(line.substring(space + 1)) : -1;
            } catch (NumberFormatException e) {
                samples = -1;
            }
            if (samples <= 0) {
                throw new IllegalArgumentException(source + ", line " + (i + 1)
                        + ": not a collapsed stack ('frame;frame;... COUNT', COUNT a positive integer)");
            }
            List<Frame> frames = new ArrayList<>();
            for (String frame : line.substring(0, space).split(";", -1)) {
                if (!frame.isEmpty()) {
                    frames.add(Frame.parse(frame));
                }
            }
            if (frames.isEmpty()) {
                throw new IllegalArgumentException(source + ", line " + (i + 1) + ": a stack without frames");
            }
            stacks.add(new Stack(frames, samples));
        }
        return new CollapsedStacks(stacks);
    }
}
