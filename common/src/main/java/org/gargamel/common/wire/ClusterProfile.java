package org.gargamel.common.wire;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.gargamel.common.config.Isolation;
import org.gargamel.common.config.Mode;

/**
 * What the scheduler and every node of one cluster must share, sent by a node in each NODE_HELLO: a node that runs
 * another mode or isolation, classifies with other rules, or holds another schema would run calls the scheduler
 * placed for a different system, and the replicas would diverge without an error (docs/protocol.md, Membership).
 *
 * @param rulesDigest  a digest of the classifier rules' meaning (not of the file's text: comments and order do not
 *                     count)
 * @param schemaDigest a digest of the application schema's definition (tables, columns, keys and constraints,
 *                     functions, triggers; not the data); empty where the sender has no database (the scheduler)
 * @param replicas     the write-set log's members in the node's configuration, in order (a node's sequence slot is
 *                     its position in it: docs/node.md, Sequences); empty where the sender has none (the scheduler)
 */
public record ClusterProfile(
        Mode mode, Isolation isolation, String rulesDigest, String schemaDigest, List<String> replicas) {
    /** More replicas than any cluster has: a larger count on the wire is a malformed message. */
    private static final int MAX_REPLICAS = 1024;

    public ClusterProfile {
        if (mode == null || isolation == null || rulesDigest == null || schemaDigest == null || replicas == null) {
            throw new IllegalArgumentException(
                    "a cluster profile needs a mode, an isolation, both digests and the replicas");
        }
        replicas = List.copyOf(replicas);
    }

    /** A profile with no replica list (the scheduler's, and tests'). */
    public ClusterProfile(Mode mode, Isolation isolation, String rulesDigest, String schemaDigest) {
        this(mode, isolation, rulesDigest, schemaDigest, List.of());
    }

    /**
     * How {@code node}'s profile differs from this one (the scheduler's), one phrase per difference, e.g. {@code mode
     * round-robin (the scheduler runs gargamel)}; empty if they agree. The schema and the replica list are compared
     * with {@code reference}'s (the first node's, since the scheduler has neither), unless that is null.
     */
    public List<String> differences(ClusterProfile node, ClusterProfile reference, String referenceOwner) {
        List<String> differences = new ArrayList<>();
        if (node.mode != mode) {
            differences.add("mode " + node.mode + " (the scheduler runs " + mode + ")");
        }
        if (node.isolation != isolation) {
            differences.add("isolation " + node.isolation + " (the scheduler's is " + isolation + ")");
        }
        if (!node.rulesDigest.equals(rulesDigest)) {
            differences.add("rules digest " + node.rulesDigest + " (the scheduler's rules give " + rulesDigest
                    + ": the two rules files say different things)");
        }
        if (reference != null && !node.schemaDigest.equals(reference.schemaDigest)) {
            differences.add("schema digest " + node.schemaDigest + " (" + referenceOwner
                    + ", the first node to join, has " + reference.schemaDigest
                    + ": the databases' tables, keys, constraints, functions or triggers differ)");
        }
        if (reference != null && !node.replicas.equals(reference.replicas)) {
            differences.add("replicas " + node.replicas + " (" + referenceOwner + ", the first node to join, has "
                    + reference.replicas + ": every node must list the same replicas in the same order, which "
                    + "decide the write-set log's members and each node's sequence slot)");
        }
        return differences;
    }

    void write(DataOutput out) throws IOException {
        WireCodec.writeString(out, mode.configName());
        WireCodec.writeString(out, isolation.configName());
        WireCodec.writeString(out, rulesDigest);
        WireCodec.writeString(out, schemaDigest);
        out.writeInt(replicas.size());
        for (String replica : replicas) {
            WireCodec.writeString(out, replica);
        }
    }

    static ClusterProfile read(DataInput in) throws IOException {
        // An unknown mode or isolation throws IllegalArgumentException: WireCodec reports the message malformed.
        Mode mode = Mode.parse(WireCodec.readString(in));
        Isolation isolation = Isolation.parse(WireCodec.readString(in));
        String rulesDigest = WireCodec.readString(in);
        String schemaDigest = WireCodec.readString(in);
        int count = in.readInt();
        if (count < 0 || count > MAX_REPLICAS) {
            throw new MalformedMessageException("a cluster profile with " + count + " replicas");
        }
        List<String> replicas = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            replicas.add(WireCodec.readString(in));
        }
        return new ClusterProfile(mode, isolation, rulesDigest, schemaDigest, replicas);
    }

    @Override
    public String toString() {
        return "mode " + mode + ", isolation " + isolation + ", rules " + rulesDigest + ", schema " + schemaDigest
                + (replicas.isEmpty() ? "" : ", replicas " + replicas);
    }
}
