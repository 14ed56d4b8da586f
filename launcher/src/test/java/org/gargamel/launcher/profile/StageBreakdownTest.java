package org.gargamel.launcher.profile;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** A process's breakdown: stage shares, the kernel's share, self frames and the Java frames nearest the kernel. */
@Tag("unit")
class StageBreakdownTest {
    private static final CollapsedStacks PROFILE = CollapsedStacks.parse(
            List.of(
                    "java/lang/Thread.run_[j];org/gargamel/node/execution/Worker.run_[j];a/Sql.run_[j] 50",
                    "java/lang/Thread.run_[j];org/gargamel/node/execution/Worker.run_[j];"
                            + "sun/nio/ch/SocketDispatcher.write0_[j];__GI_write;tcp_sendmsg_[k] 20",
                    "java/lang/Thread.run_[j];org/gargamel/node/apply/ApplyLoop.run_[j];"
                            + "jdk/internal/misc/Unsafe.park_[j];futex_wait_[k] 10",
                    "",
                    "start_thread;CompileBroker::compiler_thread_loop;C2Compiler::compile_method 15",
                    "start_thread;VMThread::run;futex_wake_[k] 5"),
            "test");

    @Test
    void sharesOfStagesAreOfAllSamplesAndSumToOne() {
        StageBreakdown breakdown = StageBreakdown.of(PROFILE, 10);
        assertEquals(100, breakdown.samples());
        assertEquals(Stages.names(), List.copyOf(breakdown.stages().keySet()));
        assertEquals(0.70, breakdown.stages().get("worker (execute)"), 1e-9);
        assertEquals(0.10, breakdown.stages().get("apply loop"), 1e-9);
        assertEquals(0.15, breakdown.stages().get("JIT compiler"), 1e-9);
        assertEquals(0.05, breakdown.stages().get("GC"), 1e-9);
        assertEquals(0.0, breakdown.stages().get(Stages.OTHER), 1e-9);
        assertEquals(
                1.0,
                breakdown.stages().values().stream()
                        .mapToDouble(Double::doubleValue)
                        .sum(),
                1e-9);
    }

    @Test
    void theKernelsShareIsOfSamplesWhoseLeafIsAKernelFrame() {
        StageBreakdown breakdown = StageBreakdown.of(PROFILE, 10);
        assertEquals(0.35, breakdown.kernelShare(), 1e-9);
        assertEquals(
                List.of(
                        new StageBreakdown.FrameShare(
                                new Frame("sun/nio/ch/SocketDispatcher.write0", FrameKind.JAVA), 20, 0.20),
                        new StageBreakdown.FrameShare(
                                new Frame("jdk/internal/misc/Unsafe.park", FrameKind.JAVA), 10, 0.10),
                        new StageBreakdown.FrameShare(
                                new Frame(StageBreakdown.NO_JAVA_FRAME, FrameKind.NATIVE), 5, 0.05)),
                breakdown.kernelNearestJava());
    }

    @Test
    void selfFramesAreLeavesMostSamplesFirstCutAtTheTop() {
        StageBreakdown breakdown = StageBreakdown.of(PROFILE, 3);
        assertEquals(
                List.of(
                        new StageBreakdown.FrameShare(new Frame("a/Sql.run", FrameKind.JAVA), 50, 0.50),
                        new StageBreakdown.FrameShare(new Frame("tcp_sendmsg", FrameKind.KERNEL), 20, 0.20),
                        new StageBreakdown.FrameShare(
                                new Frame("C2Compiler::compile_method", FrameKind.NATIVE), 15, 0.15)),
                breakdown.topSelfFrames());
    }

    @Test
    void anEmptyProfileHasNoSharesRatherThanNaN() {
        StageBreakdown breakdown = StageBreakdown.of(CollapsedStacks.parse(List.of(), "empty"), 5);
        assertEquals(0, breakdown.samples());
        assertEquals(0.0, breakdown.kernelShare());
        assertEquals(0.0, breakdown.stages().get(Stages.OTHER));
    }
}
