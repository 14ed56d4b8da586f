package org.gargamel.scheduler.sites;

import java.util.Arrays;

/**
 * The property test's model of what a node does with one update call of a multi-site cluster (docs/multisite.md; the
 * node's own code is {@code node/.../execution/ScheduledExecution} with {@code Agreements}): the call may be dispatched before
 * the schedule log has placed it, so it runs against provisional back-dependencies and commits only once its site's
 * scheduler says where the log put it.
 *
 * <ul>
 *   <li>{@link #confirm}: the log placed it as it was dispatched. It commits when its run ends (at once if it has ended:
 *       the run <em>stalled</em> until then).
 *   <li>{@link #replace}: it collided; it must run after the agreed back-dependencies. Not started: it just waits for
 *       them (<em>cancelled</em>, no work lost). Running or run: its transaction is rolled back and it runs again
 *       (<em>killed</em>). Its place is final then: the second run commits without waiting for anything more.
 * </ul>
 *
 * A call dispatched after the log placed it (pessimistic agreement) starts placed. Not thread-safe: the node's
 * worker that owns the call drives it.
 */
final class ProvisionalCall {
    public enum State {
        /** Queued: waits for its back-dependencies to be visible. */
        WAITING,
        RUNNING,
        /** Run, its transaction open, its place not yet known. */
        STALLED,
        COMMITTED
    }

    /** What the node must do after an event. */
    public enum Step {
        NOTHING,
        /** Commit the run's transaction. */
        COMMIT,
        /** Keep the run's transaction open until the place is known. */
        STALL,
        /** The call has not started: it now waits for the new back-dependencies. */
        CANCELLED,
        /** Roll the run's transaction back (now, or as soon as the run returns) and queue the call again. */
        KILL
    }

    private final long txn;
    private long[] dependencies;
    private boolean placed;
    private boolean killedWhileRunning;
    private State state = State.WAITING;

    /**
     * @param dependencies what it waits for before it starts
     * @param placed       whether the log already placed it (then {@code dependencies} are the agreed ones)
     */
    public ProvisionalCall(long txn, long[] dependencies, boolean placed) {
        this.txn = txn;
        this.dependencies = dependencies.clone();
        this.placed = placed;
    }

    public long txn() {
        return txn;
    }

    public State state() {
        return state;
    }

    /** Whether the log has placed it (its dependencies are then final). */
    public boolean placed() {
        return placed;
    }

    /** What it waits for before it starts (the agreed back-dependencies once it is placed). */
    public long[] dependencies() {
        return dependencies.clone();
    }

    /** Its back-dependencies are visible: it runs. */
    public void start() {
        expect(State.WAITING, "start");
        state = State.RUNNING;
    }

    /** Its run ended with its transaction open: {@link Step#COMMIT}, {@link Step#STALL} or {@link Step#KILL}. */
    public Step ran() {
        expect(State.RUNNING, "end a run");
        if (killedWhileRunning) {
            killedWhileRunning = false;
            state = State.WAITING;
            return Step.KILL;
        }
        if (placed) {
            return Step.COMMIT;
        }
        state = State.STALLED;
        return Step.STALL;
    }

    /** Its run's transaction committed. */
    public void committed() {
        if (state != State.RUNNING && state != State.STALLED) {
            throw new IllegalStateException("transaction " + txn + " cannot commit while " + state);
        }
        state = State.COMMITTED;
    }

    /** The log placed it as it was dispatched: {@link Step#COMMIT} if its run waits for that, else nothing. */
    public Step confirm() {
        if (state == State.COMMITTED) {
            throw new IllegalStateException("transaction " + txn + " committed before the schedule log placed it");
        }
        placed = true;
        return state == State.STALLED ? Step.COMMIT : Step.NOTHING;
    }

    /**
     * It collided: it must run after {@code agreed}. {@link Step#CANCELLED} if it had not started; {@link Step#KILL} if
     * it had run (roll back now) or is running (the kill takes effect when {@link #ran} returns {@link Step#KILL}).
     */
    public Step replace(long[] agreed) {
        if (state == State.COMMITTED) {
            throw new IllegalStateException("transaction " + txn + " committed before the schedule log placed it");
        }
        if (placed) {
            throw new IllegalStateException(
                    "transaction " + txn + " is already placed " + Arrays.toString(dependencies));
        }
        placed = true;
        dependencies = agreed.clone();
        switch (state) {
            case WAITING -> {
                return Step.CANCELLED;
            }
            case RUNNING -> {
                killedWhileRunning = true;
                return Step.KILL;
            }
            default -> {
                state = State.WAITING;
                return Step.KILL;
            }
        }
    }

    private void expect(State expected, String what) {
        if (state != expected) {
            throw new IllegalStateException("transaction " + txn + " cannot " + what + " while " + state);
        }
    }
}
