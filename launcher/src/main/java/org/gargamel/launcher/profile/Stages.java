package org.gargamel.launcher.profile;

import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Which stage of Gargamel a sampled stack belongs to: the first rule, in order, whose pattern is found in the stack's
 * frame names (annotations stripped, root first) joined with ';'; {@link #OTHER} when none is.
 *
 * <p>The table was worked out by hand on the profiles of a scheduler, three nodes and a TPC-C client under load
 * (issue 40, 2026-11-29). The order matters: the JIT and the GC first, because their threads' stacks name nothing
 * else; the worker and the apply loop before the transport, so that a worker sending a message counts as the worker;
 * the idle pool threads after everything that runs on a pool thread. Add a rule here, in its place, when a profile's
 * {@code other} grows.
 */
public final class Stages {
    /** The stage of a stack that no rule matches. */
    public static final String OTHER = "other";

    /** A stage and the pattern (a {@link Pattern}, found anywhere in the joined stack) that puts a stack in it. */
    public record Rule(String stage, Pattern pattern) {
        static Rule of(String stage, String regex) {
            return new Rule(stage, Pattern.compile(regex));
        }
    }

    private static final List<Rule> RULES = List.of(
            Rule.of("JIT compiler", "CompileBroker::"),
            Rule.of("GC", "GCTaskThread|VMThread|G1|ConcurrentGCThread|WorkerThread::run|DefNew|Generation::"),
            Rule.of("worker (execute)", "org/gargamel/node/execution/Worker\\.run"),
            Rule.of("apply loop", "org/gargamel/node/apply/ApplyLoop\\.run|org/gargamel/node/apply/Delivery"),
            Rule.of("progress reports", "ProgressReporter"),
            Rule.of("Raft (write-set log)", "raft/RAFT|RAFT\\$\\$Lambda"),
            Rule.of("TCP send", "TcpConnectionNonBlocking\\.run|TcpConnection\\.send|TransferQueueBundler|BaseBundler"),
            Rule.of("TCP receive", "TcpConnection\\$Receiver"),
            Rule.of(
                    "JGroups delivery threads",
                    "MaxOneThreadPerSender|SubmitToThreadPool|TimeScheduler3|jgroups/util/Runner"),
            Rule.of(
                    "idle pool threads",
                    "SynchronousQueue\\.poll|LinkedBlockingQueue\\.take|ScheduledThreadPoolExecutor\\$DelayedWorkQueue\\.take"),
            Rule.of("scheduler loop", "org/gargamel/scheduler/"),
            Rule.of("front end", "org/gargamel/frontend/|io/netty/"),
            Rule.of("client terminals", "org/gargamel/tpcc/"));

    private static final List<String> NAMES =
            Stream.concat(RULES.stream().map(Rule::stage), Stream.of(OTHER)).toList();

    private Stages() {}

    /** Every stage in the table's order, {@link #OTHER} last. */
    public static List<String> names() {
        return NAMES;
    }

    public static List<Rule> rules() {
        return RULES;
    }

    /** The stage of a stack, root first. */
    public static String of(List<Frame> frames) {
        String joined = frames.stream().map(Frame::name).collect(Collectors.joining(";"));
        for (Rule rule : RULES) {
            if (rule.pattern().matcher(joined).find()) {
                return rule.stage();
            }
        }
        return OTHER;
    }
}
