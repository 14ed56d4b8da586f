package org.gargamel.common.wire;

/** The one-byte tag in front of every encoded message. Tags are part of the wire format: never renumber. */
public enum MessageType {
    /** client → scheduler: a call to schedule. */
    SUBMIT_CALL(1, SubmitCall.class),
    /** node or scheduler → client: the one outcome of a call. */
    CALL_OUTCOME(2, CallOutcome.class),
    /** scheduler → node: run a call on one of the node's workers after its back-dependencies. */
    EXECUTE(3, Execute.class),
    /** node → scheduler: a node and its workers (sent on every view change). */
    NODE_HELLO(4, NodeHello.class),
    /** node → scheduler: transactions now visible at that node (executed there or write-set applied). */
    PROGRESS(5, Progress.class),
    /** node ↔ node, total order: what a transaction changed. */
    WRITE_SET(6, WriteSet.class),
    /** client → scheduler: how much is still in flight (used to wait for quiescence). */
    DRAIN_QUERY(7, DrainQuery.class),
    /** scheduler → client: the answer to a {@link #DRAIN_QUERY}. */
    DRAIN_STATUS(8, DrainStatus.class),
    /**
     * scheduler → nodes, then node ↔ node in total order: a departed node's unreported update transactions, done
     * with no effect unless their write-set came first.
     */
    ABANDON(9, Abandon.class),
    /** node → write-set log: a node's catch-up mark (it has applied everything before it once it applies it). */
    LOG_MARK(10, LogMark.class),
    /**
     * node → scheduler: how the write-set log settled an ABANDON: which of the departed node's transactions stand
     * (with their outcomes) and which had no effect (the scheduler runs those calls again elsewhere).
     */
    SETTLEMENT(11, Settlement.class),
    /** scheduler → node: the node is refused (its configuration differs from the scheduler's), and why. */
    NODE_REFUSED(12, NodeRefused.class),
    /** scheduler → all: the sender wants to become the active scheduler. */
    TAKE_OVER(13, TakeOver.class),
    /** node → write-set log: a scheduler's claim; its first copy in the log makes it active, its index the epoch. */
    EPOCH_CLAIM(14, EpochClaim.class),
    /** node → scheduler: the log made it active, with this epoch. */
    EPOCH_GRANTED(15, EpochGranted.class),
    /** node → scheduler: the log made another scheduler active after it; it is never active again. */
    SUPERSEDED(16, Superseded.class),
    /** site scheduler → schedule log: an update call of a site, in the order all sites agree on (docs/multisite.md). */
    SCHEDULE_CALL(17, ScheduleCall.class),
    /** site scheduler → node: where the schedule log placed a provisional call (confirmed, or collided: run after). */
    AGREEMENT(18, Agreement.class),
    /** site scheduler → node: which of these calls are visible there (a site scheduler's failover); answered by PROGRESS. */
    VISIBILITY_QUERY(19, VisibilityQuery.class),
    /**
     * site scheduler → schedule log: an owner site placed another site's spanning call after its own calls (site-owned
     * conflict classes, docs/multisite.md).
     */
    SCHEDULE_PLACEMENT(20, SchedulePlacement.class),
    /**
     * node → its site's write-set log: another site's write-set or decision, shipped (site-local acknowledgement,
     * docs/multisite.md).
     */
    SHIPPED(21, Shipped.class);

    private final byte tag;
    private final Class<? extends Message> messageClass;

    MessageType(int tag, Class<? extends Message> messageClass) {
        this.tag = (byte) tag;
        this.messageClass = messageClass;
    }

    public byte tag() {
        return tag;
    }

    /** The record a message of this type decodes to. */
    public Class<? extends Message> messageClass() {
        return messageClass;
    }

    public static MessageType ofTag(byte tag) {
        for (MessageType type : values()) {
            if (type.tag == tag) {
                return type;
            }
        }
        throw new MalformedMessageException("unknown message type tag " + tag);
    }
}
