package org.gargamel.node;

import com.zaxxer.hikari.HikariConfig;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.gargamel.classifier.ClassifierRules;
import org.gargamel.classifier.validate.LiveValidator;
import org.gargamel.common.config.Secrets;
import org.gargamel.common.jdbc.Rollbacks;
import org.gargamel.common.wire.ClusterProfile;
import org.gargamel.node.access.ReadConnections;
import org.gargamel.node.access.RoleCheck;
import org.gargamel.node.capture.WriteSetCapture;
import org.gargamel.node.certify.PrimaryKeys;
import org.gargamel.node.execution.WorkerConnection;
import org.gargamel.node.sequence.SequenceSlots;
import org.gargamel.node.transfer.SchemaCopy;
import org.gargamel.node.transfer.SchemaDigest;
import org.gargamel.node.transfer.StateTransfer;
import org.gargamel.node.writeset.ReplicaState;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a node does to its own database before it joins anything (docs/node.md): takes a peer's schema and data into
 * an empty database or rebuilds a tainted replica from a peer (Rebuild), checks the rules against the live schema and
 * the served roles, installs write-set capture, and reads what the node shares with the others (primary keys, the
 * cluster profile, the commit-order draw); after the catch-up, aligns the sequences to this node's slot (Sequences).
 */
final class NodeBootstrap {
    private static final Logger LOG = LoggerFactory.getLogger(NodeBootstrap.class);

    /** What the bootstrap read from the prepared database, for the parts of the node that start next. */
    record Prepared(PrimaryKeys primaryKeys, ClusterProfile profile, long commitOrderDrawn) {}

    private final String name;
    private final NodeConfig config;

    NodeBootstrap(String name, NodeConfig config) {
        this.name = name;
        this.config = config;
    }

    /** The pool of this node's connections to its database. */
    HikariConfig poolConfig() {
        HikariConfig pool = new HikariConfig();
        pool.setJdbcUrl(config.database().jdbcUrl());
        if (config.database().user() != null) {
            pool.setUsername(config.database().user());
        }
        if (config.database().password() != null) {
            pool.setPassword(config.database().password());
        }
        pool.setPoolName(name);
        WorkerConnection.DRIVER_PROPERTIES.forEach(pool::addDataSourceProperty);
        // Named so that the next life of this node finds and ends them before it reads anything (EarlierSessions).
        pool.addDataSourceProperty("ApplicationName", EarlierSessions.applicationName(name));
        // The workers', the applier's (and the parallel appliers') and the database watch's, and one for the start-up's
        // own work (the sequences are aligned once the others are taken).
        pool.setMaximumPoolSize(config.workers()
                + 3
                + (config.appliesInParallel() ? config.apply().appliers() : 0));
        pool.setMinimumIdle(0);
        pool.setAutoCommit(false);
        if (config.log().durable()) {
            // Tashkent's point: the log unites ordering with durability, so PostgreSQL may flush its WAL in the
            // background, many commits per flush. What must survive a crash that the log cannot bring back (a taint
            // mark) commits with synchronous_commit on (docs/node.md, Durability).
            pool.setConnectionInitSql("SET synchronous_commit TO off");
        }
        pool.setConnectionTimeout(10_000);
        return pool;
    }

    /**
     * Prepares the database on {@code connection}, in this order: the sessions of an earlier life of this node ended
     * ({@link EarlierSessions}), a copy of a peer if it is empty, the rules checked
     * against it, write-set capture and the replica state installed, the served roles ({@code reads}, opened here)
     * checked, a rebuild from a peer if it is tainted; then reads the primary keys, the profile and the commit-order
     * draw.
     */
    Prepared prepare(Connection connection, ClassifierRules rules, Supplier<ReadConnections> reads)
            throws SQLException, InterruptedException {
        EarlierSessions.end(connection, name);
        boolean empty = SchemaCopy.isEmpty(connection, "public");
        connection.commit();
        if (empty) {
            takeSchemaAndData(connection);
        }
        new LiveValidator().validate(rules, connection);
        connection.commit();
        // Deltas are captured only where they are shipped (gargamel mode, PSI): elsewhere the trigger is as before.
        WriteSetCapture.install(connection, "public", config.usesIncrements() ? rules.incrementColumns() : Map.of());
        ReplicaState.install(connection);
        connection.commit();
        RoleCheck.check(name, connection, reads.get(), config.roles());
        connection.commit();
        String tainted = ReplicaState.tainted(connection);
        connection.commit();
        if (tainted != null) {
            rebuild(connection, tainted);
        }
        PrimaryKeys primaryKeys = PrimaryKeys.read(connection, "public");
        ClusterProfile profile = new ClusterProfile(
                config.mode(),
                config.isolation(),
                rules.digest(),
                SchemaDigest.of(connection, "public"),
                config.log().replicas());
        long commitOrderDrawn = ReplicaState.drawCommitOrder(connection);
        connection.commit();
        return new Prepared(primaryKeys, profile, commitOrderDrawn);
    }

    /**
     * Gives this node its own residue class of every sequence (docs/node.md, Sequences): stride = the number of
     * replicas, slot = this node's index among them. After the catch-up, just before the node joins the control group:
     * no call has run yet, a rebuild from a peer (which copies the peer's sequences, in the peer's class) is behind,
     * and the high-water mark counts every row the log brought back, including this node's own rows whose commit a
     * crash lost with the sequence's advance. The write-sets applied from now on carry other classes' values.
     */
    void alignSequences(DataSource dataSource) throws SQLException {
        int stride = config.log().replicas().size();
        int slot = config.log().replicas().indexOf(name);
        try (Connection connection = dataSource.getConnection()) {
            List<SequenceSlots.Alignment> alignments;
            try {
                alignments = SequenceSlots.align(connection, "public", stride, slot);
                connection.commit();
            } catch (SQLException | RuntimeException e) {
                Rollbacks.after(connection, e);
                throw e;
            }
            for (SequenceSlots.Alignment alignment : alignments) {
                if (alignment.outcome() == SequenceSlots.Outcome.EXHAUSTED) {
                    LOG.error("{}: {}", name, alignment.describe());
                } else {
                    LOG.info("{}: {}", name, alignment.describe());
                }
            }
        }
    }

    /**
     * This replica's database holds no table and no function in schema {@code public}: a new replica (or one that lost
     * its disk). It takes the schema and the data of a peer, at that peer's position in the write-set log, before
     * anything else (docs/node.md, Rebuild).
     */
    private void takeSchemaAndData(Connection connection) throws SQLException {
        if (config.database().peers().isEmpty()) {
            throw new IllegalStateException(name + ": the database holds no tables in schema public: load it "
                    + "(scripts/gargamel tpcc load) or name the other replicas' JDBC URLs under 'peers' to copy "
                    + "them from (docs/node.md, Rebuild)");
        }
        LOG.warn("{}: this replica's database is empty: taking schema and data from a peer", name);
        ReplicaState.install(connection); // the peer's position is written into it
        connection.commit();
        copyFromAPeer(connection, "its database is empty", true);
    }

    /**
     * This replica holds what the others do not ({@code reason}): it takes a copy of a peer, at that peer's position in
     * the write-set log, before it joins the log (docs/node.md, Rebuild). The first peer that can be copied is used.
     */
    private void rebuild(Connection connection, String reason) throws SQLException {
        if (config.database().peers().isEmpty()) {
            throw new IllegalStateException(name + " must be rebuilt before it serves (" + reason + "), and its "
                    + "configuration names no peers to copy: add the other replicas' JDBC URLs under 'peers' "
                    + "(docs/node.md, Rebuild)");
        }
        LOG.warn("{}: rebuilding this replica from a peer: {}", name, reason);
        copyFromAPeer(connection, reason, false);
    }

    /** Copies the first of the peers that can be copied (with the schema: into an empty database). */
    private void copyFromAPeer(Connection connection, String reason, boolean withSchema) throws SQLException {
        List<String> failures = new ArrayList<>();
        for (String peer : config.database().peers()) {
            try {
                StateTransfer.Copied copied = StateTransfer.copy(peer, connection, "public", withSchema);
                LOG.info("{}: rebuilt: {}", name, copied.describe());
                return;
            } catch (SQLException e) {
                failures.add(Secrets.maskUrl(peer) + ": " + e.getMessage());
            }
        }
        throw new IllegalStateException(
                name + " must be rebuilt before it serves (" + reason + "), and no peer could be copied: " + failures);
    }
}
