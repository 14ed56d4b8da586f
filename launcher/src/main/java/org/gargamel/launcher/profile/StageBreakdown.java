package org.gargamel.launcher.profile;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Where one process's samples went: the share of each stage ({@link Stages}), the share whose leaf frame is in the
 * kernel, the frames most samples ended in (self time), and, for the samples that ended in the kernel, the Java frame
 * nearest the leaf (which Java code made the system call or was interrupted).
 *
 * @param samples all the samples
 * @param stages every stage of {@link Stages#names()}, in order, and its share of the samples (0 to 1)
 * @param kernelShare the share of the samples whose leaf frame is a kernel frame
 * @param topSelfFrames the leaf frames with the most samples, most first
 * @param kernelNearestJava for the samples with a kernel leaf, the nearest Java frame with the most samples, most
 *     first; {@value #NO_JAVA_FRAME} for stacks without one (the JVM's own threads); shares are of all samples
 */
public record StageBreakdown(
        long samples,
        Map<String, Double> stages,
        double kernelShare,
        List<FrameShare> topSelfFrames,
        List<FrameShare> kernelNearestJava) {

    /** How {@link #kernelNearestJava} names the samples whose stack has no Java frame. */
    public static final String NO_JAVA_FRAME = "(no Java frame)";

    /** A frame and its samples, and their share of all the process's samples. */
    public record FrameShare(Frame frame, long samples, double share) {}

    public StageBreakdown {
        stages = Collections.unmodifiableMap(new LinkedHashMap<>(stages));
        topSelfFrames = List.copyOf(topSelfFrames);
        kernelNearestJava = List.copyOf(kernelNearestJava);
    }

    /** The breakdown of {@code profile}, with at most {@code top} frames in each list. */
    public static StageBreakdown of(CollapsedStacks profile, int top) {
        Map<String, Long> byStage = new LinkedHashMap<>();
        Stages.names().forEach(stage -> byStage.put(stage, 0L));
        Map<Frame, Long> bySelf = new HashMap<>();
        Map<Frame, Long> byNearestJava = new HashMap<>();
        long kernel = 0;
        for (CollapsedStacks.Stack stack : profile.stacks()) {
            byStage.merge(Stages.of(stack.frames()), stack.samples(), Long::sum);
            bySelf.merge(stack.leaf(), stack.samples(), Long::sum);
            if (stack.leaf().kind() == FrameKind.KERNEL) {
                kernel += stack.samples();
                byNearestJava.merge(nearestJava(stack.frames()), stack.samples(), Long::sum);
            }
        }
        long samples = profile.samples();
        Map<String, Double> stages = new LinkedHashMap<>();
        byStage.forEach((stage, count) -> stages.put(stage, share(count, samples)));
        return new StageBreakdown(
                samples, stages, share(kernel, samples), top(bySelf, samples, top), top(byNearestJava, samples, top));
    }

    private static Frame nearestJava(List<Frame> frames) {
        for (int i = frames.size() - 1; i >= 0; i--) {
            if (frames.get(i).kind() == FrameKind.JAVA) {
                return frames.get(i);
            }
        }
        return new Frame(NO_JAVA_FRAME, FrameKind.NATIVE);
    }

    private static List<FrameShare> top(Map<Frame, Long> counts, long samples, int top) {
        List<FrameShare> shares = new ArrayList<>();
        counts.forEach((frame, count) -> shares.add(new FrameShare(frame, count, share(count, samples))));
        shares.sort(Comparator.comparingLong(FrameShare::samples)
                .reversed()
                .thenComparing(share -> share.frame().name()));
        return List.copyOf(shares.subList(0, Math.min(top, shares.size())));
    }

    private static double share(long count, long samples) {
        return samples == 0 ? 0 : (double) count / samples;
    }
}
