package org.gargamel.tpcc.workload;

import org.gargamel.common.call.ProcedureCall;

/** Runs calls for one terminal: directly on PostgreSQL ({@link DirectExecutor}) or through Gargamel (GargamelExecutor). */
public interface CallExecutor extends AutoCloseable {
    ExecutionOutcome execute(ProcedureCall call);

    @Override
    void close();
}
