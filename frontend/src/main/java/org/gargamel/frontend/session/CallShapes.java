package org.gargamel.frontend.session;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.gargamel.classifier.ClassifierRules;
import org.gargamel.classifier.Parameter;
import org.gargamel.classifier.ProcedureRule;
import org.gargamel.common.call.ProcedureCallBinder;
import org.gargamel.common.jdbc.JdbcConnections;
import org.gargamel.common.wire.ResultRows;
import org.postgresql.core.BaseConnection;
import org.postgresql.core.TypeInfo;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The columns each procedure returns, for a Describe of a prepared statement (which comes before any call ran): read
 * once from the catalogue of a replica when the front end starts (the statement the node runs, described without
 * running it), and learnt from every outcome a call brings back.
 */
public final class CallShapes {
    private static final Logger LOG = LoggerFactory.getLogger(CallShapes.class);

    private final Map<String, List<ResultRows.Column>> shapes = new ConcurrentHashMap<>();

    /** Describes every procedure of {@code rules} on the replica at {@code catalogUrl}; what fails is logged. */
    public void describeFrom(String catalogUrl, ClassifierRules rules) {
        try (Connection connection = JdbcConnections.connect(catalogUrl)) {
            TypeInfo types = connection.unwrap(BaseConnection.class).getTypeInfo();
            for (ProcedureRule rule : rules.procedures().values()) {
                StringBuilder sql = new StringBuilder(ProcedureCallBinder.sql(rule.name(), 0));
                sql.setLength(sql.length() - 1); // the ')'
                List<Parameter> parameters = rule.parameters();
                for (int i = 0; i < parameters.size(); i++) {
                    sql.append(i == 0 ? "" : ", ")
                            .append("?::")
                            .append(parameters.get(i).type().sqlName());
                }
                sql.append(')');
                try (PreparedStatement statement = connection.prepareStatement(sql.toString())) {
                    ResultSetMetaData metaData = statement.getMetaData();
                    List<ResultRows.Column> columns = new ArrayList<>();
                    for (int i = 1; metaData != null && i <= metaData.getColumnCount(); i++) {
                        columns.add(new ResultRows.Column(
                                metaData.getColumnLabel(i), types.getPGType(metaData.getColumnTypeName(i))));
                    }
                    shapes.put(rule.name(), List.copyOf(columns));
                } catch (SQLException e) {
                    LOG.warn("cannot describe {} on the catalogue replica: {}", rule.name(), e.getMessage());
                }
            }
        } catch (SQLException e) {
            LOG.warn(
                    "cannot read the catalogue (key catalog): {}; prepared calls are described once a call of each "
                            + "procedure has run",
                    e.getMessage());
        }
    }

    /** Records the columns an outcome of {@code procedure} came back with. */
    public void learn(String procedure, ResultRows rows) {
        if (rows != null) {
            shapes.putIfAbsent(procedure, rows.columns());
        }
    }

    /** The columns of {@code procedure}, or null if neither the catalogue nor a call told them yet. */
    public List<ResultRows.Column> columns(String procedure) {
        return shapes.get(procedure);
    }
}
