package org.gargamel.launcher.profile;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The stage of hand-written stacks, as async-profiler writes them (root first, annotated), by the first rule. */
@Tag("unit")
class StagesTest {
    private static final String THREAD =
            "java/lang/Thread.run_[j];java/util/concurrent/ThreadPoolExecutor$Worker.run_[j]";
    private static final String FUTEX_WAKE =
            "__lll_lock_wake;entry_SYSCALL_64_after_hwframe_[k];do_syscall_64_[k];__x64_sys_futex_[k];futex_wake_[k]";

    @Test
    void theJvmsOwnThreadsAreTheJitAndTheGc() {
        assertStage(
                "JIT compiler",
                "start_thread;thread_native_entry;Thread::call_run;JavaThread::thread_main_inner;"
                        + "CompileBroker::compiler_thread_loop;CompileBroker::invoke_compiler_on_method;"
                        + "C2Compiler::compile_method;Compile::Compile;PhaseIdealLoop::build_and_optimize");
        assertStage(
                "GC",
                "start_thread;thread_native_entry;Thread::call_run;VMThread::run;VMThread::inner_execute;"
                        + "VMThread::evaluate_operation;VM_GenCollectForAllocation::doit;GenCollectedHeap::do_collection;"
                        + "DefNewGeneration::collect");
        assertStage(
                "worker (execute)",
                THREAD + ";org/gargamel/node/execution/Worker.run_[j];org/postgresql/jdbc/PgStatement.execute_[j];"
                        + "java/util/Arrays.copyOf_[i]");
    }

    @Test
    void theNodesOwnThreadsComeBeforeTheTransportTheyUse() {
        String send = ";org/jgroups/blocks/cs/TcpConnection.send_[j];sun/nio/ch/SocketDispatcher.write0_[j];"
                + "__GI___writev;entry_SYSCALL_64_after_hwframe_[k];tcp_sendmsg_[k]";
        assertStage("worker (execute)", THREAD + ";org/gargamel/node/execution/Worker.run_[j]" + send);
        assertStage("apply loop", THREAD + ";org/gargamel/node/apply/ApplyLoop.run_[j]" + send);
        assertStage(
                "apply loop", THREAD + ";org/gargamel/node/apply/Delivery.deliver_[j];java/util/ArrayDeque.add_[i]");
        assertStage("progress reports", THREAD + ";org/gargamel/node/progress/ProgressReporter.run_[j]" + send);
        assertStage(
                "Raft (write-set log)",
                THREAD + ";org/jgroups/protocols/raft/RAFT.handleAppendEntriesRequest_[j]" + send);
        assertStage(
                "Raft (write-set log)",
                "org/jgroups/protocols/raft/internal/RaftEventLoop.run_[j];"
                        + "org/jgroups/protocols/raft/RAFT$$Lambda$512.0x00007f2a9c2b1e8.run_[j]");
        assertStage("TCP send", THREAD + send);
        assertStage(
                "TCP send",
                "java/lang/Thread.run_[j];org/jgroups/protocols/TransferQueueBundler.run_[j];"
                        + "org/jgroups/protocols/BaseBundler.sendBundledMessages_[j]");
        assertStage(
                "TCP receive",
                "java/lang/Thread.run_[j];org/jgroups/blocks/cs/TcpConnection$Receiver.run_[j];"
                        + "java/io/DataInputStream.readFully_[j];sun/nio/ch/SocketDispatcher.read0_[j];"
                        + "__GI_read;entry_SYSCALL_64_after_hwframe_[k];tcp_recvmsg_[k]");
    }

    @Test
    void jgroupsThreadsCountAsDeliveryUntilTheyAreIdle() {
        assertStage(
                "JGroups delivery threads",
                THREAD + ";org/jgroups/util/MaxOneThreadPerSender$Entry.run_[j];"
                        + "org/jgroups/protocols/UNICAST3.up_[j]");
        assertStage(
                "JGroups delivery threads",
                THREAD
                        + ";org/jgroups/util/TimeScheduler3$Task.run_[j];org/jgroups/protocols/FD_ALL3$HeartbeatSender.run_[j]");
        assertStage(
                "idle pool threads",
                "java/lang/Thread.run_[j];java/util/concurrent/ThreadPoolExecutor.getTask_[j];"
                        + "java/util/concurrent/SynchronousQueue.poll_[j];jdk/internal/misc/Unsafe.park_[j];"
                        + FUTEX_WAKE);
        assertStage(
                "idle pool threads",
                "java/lang/Thread.run_[j];java/util/concurrent/ThreadPoolExecutor.getTask_[j];"
                        + "java/util/concurrent/ScheduledThreadPoolExecutor$DelayedWorkQueue.take_[j];"
                        + "jdk/internal/misc/Unsafe.park_[j]");
    }

    @Test
    void theOtherProcessesHaveStagesOfTheirOwn() {
        assertStage(
                "scheduler loop",
                "java/lang/Thread.run_[j];org/gargamel/scheduler/core/SchedulerLoop.run_[j];"
                        + "java/util/HashMap.get_[i]");
        assertStage(
                "front end",
                "io/netty/util/concurrent/FastThreadLocalRunnable.run_[j];io/netty/channel/nio/NioEventLoop.run_[j]");
        assertStage(
                "client terminals",
                "java/lang/VirtualThread.run_[j];org/gargamel/tpcc/terminal/Terminal.run_[j];"
                        + "org/gargamel/tpcc/workload/NewOrder.execute_[j]");
        assertStage(Stages.OTHER, "java/lang/Thread.run_[j];com/example/Unknown.work_[j]");
        assertStage(Stages.OTHER, "[unknown];__GI___clone3;" + FUTEX_WAKE);
    }

    @Test
    void framesWithoutAnnotationsAreMatchedTheSameWay() {
        assertStage(
                "worker (execute)",
                "java/lang/Thread.run;org/gargamel/node/execution/Worker.run;org/postgresql/jdbc/PgStatement.execute");
    }

    @Test
    void everyRuleHasItsOwnStageAndOtherComesLast() {
        List<String> names = Stages.names();
        assertEquals(
                List.of(
                        "JIT compiler",
                        "GC",
                        "worker (execute)",
                        "apply loop",
                        "progress reports",
                        "Raft (write-set log)",
                        "TCP send",
                        "TCP receive",
                        "JGroups delivery threads",
                        "idle pool threads",
                        "scheduler loop",
                        "front end",
                        "client terminals",
                        Stages.OTHER),
                names);
        assertEquals(names.size(), names.stream().distinct().count());
    }

    private static void assertStage(String expected, String collapsedStack) {
        List<Frame> frames = new ArrayList<>();
        Arrays.stream(collapsedStack.split(";", -1)).map(Frame::parse).forEach(frames::add);
        assertEquals(expected, Stages.of(frames), collapsedStack);
    }
}
