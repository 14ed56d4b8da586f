package org.gargamel.frontend.session;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.gargamel.classifier.ClassifierRules;
import org.gargamel.classifier.ProcedureRule;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether a role may execute a procedure, asked before its call is placed (docs/frontend.md, Security), so that a call
 * PostgreSQL would refuse does not take a place in a chain first. The node is the authority: it runs every call after
 * {@code SET LOCAL ROLE}, so PostgreSQL refuses what the role may not do whatever this says. Two kinds: without a
 * catalogue replica every call goes on to the node ({@link #nodeDecides}); with one ({@link #fromCatalogue}), the
 * replica's {@code has_function_privilege} is asked off the event loops, an allowed answer is kept for
 * {@link #ALLOWED_FOR_MILLIS} (a revocation meanwhile is still enforced by the node), a refusal is asked again at the
 * next call (a GRANT is seen at once), and a question the replica cannot answer (an unknown role, no answer within
 * {@link #ANSWER_TIMEOUT_SECONDS}) lets the call go on, and is not kept.
 */
public interface ExecutePrivileges extends AutoCloseable {
    /** How long an allowed answer is kept. */
    long ALLOWED_FOR_MILLIS = 10_000;

    /** How long the catalogue replica may take to answer; without an answer the call goes on to the node. */
    int ANSWER_TIMEOUT_SECONDS = 5;

    /** Completes with false only if the catalogue says {@code role} may not execute {@code procedure}. */
    CompletableFuture<Boolean> mayExecute(String role, String procedure);

    @Override
    void close();

    /** Every call goes on to the node, whose PostgreSQL decides. */
    static ExecutePrivileges nodeDecides() {
        return new ExecutePrivileges() {
            private final CompletableFuture<Boolean> yes = CompletableFuture.completedFuture(true);

            @Override
            public CompletableFuture<Boolean> mayExecute(String role, String procedure) {
                return yes;
            }

            @Override
            public void close() {}
        };
    }

    /** Asks the replica at {@code catalogUrl} for the procedures of {@code rules}. */
    static ExecutePrivileges fromCatalogue(String catalogUrl, ClassifierRules rules) {
        return new CatalogueCheck(catalogUrl, rules);
    }

    /** The replica's answers, asked on a thread of its own with one connection, kept as the interface says. */
    final class CatalogueCheck implements ExecutePrivileges {
        private static final Logger LOG = LoggerFactory.getLogger(CatalogueCheck.class);
        private static final CompletableFuture<Boolean> YES = CompletableFuture.completedFuture(true);

        private final String url;
        private final Map<String, String> signatures = new ConcurrentHashMap<>();
        /** (role, procedure) allowed, until this System.nanoTime(). */
        private final Map<String, Long> allowedUntil = new ConcurrentHashMap<>();

        private final ExecutorService asker = Executors.newSingleThreadExecutor(task -> {
            Thread thread = new Thread(task, "frontend-privileges");
            thread.setDaemon(true);
            return thread;
        });
        /** Only the asker's thread uses it. */
        private Connection connection;
        /** Until then (System.nanoTime()) the replica is not asked: it did not answer a moment ago. */
        private volatile long unreachableUntil = System.nanoTime();

        CatalogueCheck(String url, ClassifierRules rules) {
            this.url = url;
            for (ProcedureRule rule : rules.procedures().values()) {
                StringBuilder signature = new StringBuilder(rule.name()).append('(');
                for (int i = 0; i < rule.parameters().size(); i++) {
                    signature
                            .append(i == 0 ? "" : ", ")
                            .append(rule.parameters().get(i).type().sqlName());
                }
                signatures.put(rule.name(), signature.append(')').toString());
            }
        }

        @Override
        public CompletableFuture<Boolean> mayExecute(String role, String procedure) {
            String key = role + '\0' + procedure;
            Long until = allowedUntil.get(key);
            if (until != null && until - System.nanoTime() > 0) {
                return YES;
            }
            String signature = signatures.get(procedure);
            if (signature == null) {
                return YES; // not a procedure of the rules: the call builder refuses it before this
            }
            if (unreachableUntil - System.nanoTime() > 0) {
                return YES; // the replica did not answer a moment ago: the node decides, nothing is queued
            }
            CompletableFuture<Boolean> answer = new CompletableFuture<>();
            try {
                asker.execute(() -> {
                    if (!answer.isDone()) { // a question that timed out meanwhile is not asked any more
                        answer.complete(ask(role, signature));
                    }
                });
            } catch (java.util.concurrent.RejectedExecutionException e) {
                return YES; // closing
            }
            return answer.completeOnTimeout(null, ANSWER_TIMEOUT_SECONDS, TimeUnit.SECONDS)
                    .thenApply(allowed -> {
                        if (allowed == null) {
                            unreachableUntil = System.nanoTime() + TimeUnit.SECONDS.toNanos(ANSWER_TIMEOUT_SECONDS);
                            return true; // no answer: the node's PostgreSQL decides, and nothing is kept
                        }
                        if (allowed) {
                            allowedUntil.put(
                                    key, System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ALLOWED_FOR_MILLIS));
                        }
                        return allowed;
                    });
        }

        /** The replica's answer, or null when it cannot say (an unknown role, the replica out of reach). */
        private Boolean ask(String role, String signature) {
            try {
                if (connection == null) {
                    java.util.Properties properties = new java.util.Properties();
                    properties.setProperty("connectTimeout", Integer.toString(ANSWER_TIMEOUT_SECONDS));
                    properties.setProperty("socketTimeout", Integer.toString(ANSWER_TIMEOUT_SECONDS));
                    properties.setProperty("ApplicationName", "gargamel frontend privileges");
                    connection = java.sql.DriverManager.getConnection(url, properties);
                }
                try (PreparedStatement statement = connection.prepareStatement(
                        "SELECT has_function_privilege(?, to_regprocedure(?), 'EXECUTE')")) {
                    statement.setString(1, role);
                    statement.setString(2, signature);
                    try (ResultSet rows = statement.executeQuery()) {
                        return (rows.next() && rows.getObject(1) != null) ? rows.getBoolean(1) : null;
                    }
                }
            } catch (SQLException e) {
                LOG.debug("the catalogue could not say whether {} may execute {}: {}", role, signature, e.getMessage());
                if (e.getSQLState() == null || e.getSQLState().startsWith("08")) {
                    closeConnection(); // broken: the next question connects again
                }
                return null;
            }
        }

        private void closeConnection() {
            if (connection != null) {
                try {
                    connection.close();
                } catch (SQLException ignored) {
                    // Broken, or closing anyway.
                }
                connection = null;
            }
        }

        @Override
        public void close() {
            asker.shutdownNow();
            try {
                if (!asker.awaitTermination(5, TimeUnit.SECONDS)) {
                    LOG.warn("the privileges thread did not stop within 5 s");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            closeConnection();
        }
    }
}
