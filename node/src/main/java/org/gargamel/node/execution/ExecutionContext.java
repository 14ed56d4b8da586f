package org.gargamel.node.execution;

import org.gargamel.common.config.Isolation;
import org.gargamel.node.NodeStatistics;
import org.gargamel.node.visibility.Visibility;
import org.gargamel.node.writeset.OwnTransactions;
import org.gargamel.node.writeset.WriteSetGroup;

/**
 * What every worker of a node shares: the node's name (for messages and write-sets), its isolation, the declared
 * argument types, the write-set group and the own transactions awaiting delivery, visibility, statistics, and how a
 * call ends ({@link CallCompletion}).
 */
public record ExecutionContext(
        String node,
        Isolation isolation,
        ArgumentTypes types,
        Visibility visibility,
        WriteSetGroup group,
        OwnTransactions own,
        NodeStatistics statistics,
        CallCompletion completion) {

    boolean si() {
        return isolation == Isolation.SI;
    }
}
