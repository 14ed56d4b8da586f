package org.gargamel.frontend.session;

import java.util.List;
import org.gargamel.common.wire.ResultRows;
import org.gargamel.frontend.sql.SqlStatement;

/** A statement prepared by Parse: its text, what it is, and the parameter types the client gave (0: not given). */
record Prepared(String sql, SqlStatement statement, List<Integer> parameterTypes, int parameterCount) {
    /** An ad-hoc statement as a replica described it without running it: its parameters' types and its columns. */
    record Described(List<Integer> parameterTypes, List<ResultRows.Column> columns) {}
}
