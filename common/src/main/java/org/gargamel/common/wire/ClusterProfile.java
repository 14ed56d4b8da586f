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
 */
public record ClusterProfile(Mode mode, Isolation isolation, String rulesDigest, String schemaDigest) {
    public ClusterProfile {
        if (mode == null || isolation == null || rulesDigest == null || schemaDigest == null) {
            throw new IllegalArgumentException("a cluster profile needs a mode, an isolation and both digests");
        }
    }

    /**
     * How {@code node}'s profile differs from this one (the scheduler's), one phrase per difference, e.g. {@code mode
     * round-robin (the scheduler runs gargamel)}; empty if they agree. The schema is compared with {@code
     * referenceSchema} (the first node's, since the scheduler has no database), unless that is null.
     */
    public List<String> differences(ClusterProfile node, String referenceSchema, String referenceOwner) {
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
        if (referenceSchema != null && !node.schemaDigest.equals(referenceSchema)) {
            differences.add("schema digest " + node.schemaDigest + " (" + referenceOwner
                    + ", the first node to join, has " + referenceSchema
                    + ": the databases' tables, keys, constraints, functions or triggers differ)");
        }
        return differences;
    }

    void write(DataOutput out) throws IOException {
        WireCodec.writeString(out, mode.configName());
        WireCodec.writeString(out, isolation.configName());
        WireCodec.writeString(out, rulesDigest);
        WireCodec.writeString(out, schemaDigest);
    }

    static ClusterProfile read(DataInput in) throws IOException {
        // An unknown mode or isolation throws IllegalArgumentException: WireCodec reports the message malformed.
        return new ClusterProfile(
                Mode.parse(WireCodec.readString(in)),
                Isolation.parse(WireCodec.readString(in)),
                WireCodec.readString(in),
                WireCodec.readString(in));
    }

    @Override
    public String toString() {
        return "mode " + mode + ", isolation " + isolation + ", rules " + rulesDigest + ", schema " + schemaDigest;
    }
}
