package org.gargamel.tpcc.check;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import org.gargamel.common.convergence.CheckException;
import org.gargamel.common.convergence.DatabaseNames;
import org.gargamel.common.jdbc.JdbcConnections;

/**
 * Every New-Order the terminals were told committed, with the order id its procedure returned: after the run, each of
 * them must exist on every replica (no acknowledged transaction lost), and the districts must have handed out no more
 * order ids than were acknowledged, plus those whose outcome a terminal never learnt (no call ran twice). Thread-safe:
 * the terminals record into one ledger.
 */
public final class NewOrderLedger {
    private record Order(int warehouse, int district, int id) {}

    private final ConcurrentLinkedQueue<Order> acknowledged = new ConcurrentLinkedQueue<>();
    private final AtomicLong acknowledgedCount = new AtomicLong();
    private final AtomicLong unknown = new AtomicLong();
    private final AtomicLong withoutOrderId = new AtomicLong();

    /** A New-Order of {@code district} of {@code warehouse} committed with order id {@code orderId}. */
    public void acknowledged(int warehouse, int district, int orderId) {
        acknowledged.add(new Order(warehouse, district, orderId));
        acknowledgedCount.incrementAndGet();
    }

    /** A New-Order acknowledged without an order id in its result: counted, but its presence cannot be checked. */
    public void acknowledgedWithoutOrderId() {
        acknowledgedCount.incrementAndGet();
        withoutOrderId.incrementAndGet();
    }

    /** A New-Order whose outcome the terminal never learnt (it may or may not have committed). */
    public void unknownOutcome() {
        unknown.incrementAndGet();
    }

    public long acknowledgedCount() {
        return acknowledgedCount.get();
    }

    /** The sum of the districts' next order ids on {@code jdbcUrl}: orders created since = its growth. */
    public static long nextOrderIds(String jdbcUrl) {
        try (Connection connection = JdbcConnections.connect(jdbcUrl);
                Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery("SELECT coalesce(sum(d_next_o_id), 0) FROM district")) {
            rows.next();
            return rows.getLong(1);
        } catch (SQLException e) {
            throw new CheckException("cannot read the districts' next order ids: " + e.getMessage(), e);
        }
    }

    /** What the ledger found on the replicas. */
    public record Report(long acknowledged, long missing, List<String> missingExamples, long created, long unknown) {
        /** Orders created beyond the acknowledged ones and those of unknown outcome: calls that ran twice. */
        public long duplicates() {
            return Math.max(0, created - acknowledged - unknown);
        }

        public boolean passed() {
            return missing == 0 && duplicates() == 0;
        }

        public String render() {
            StringBuilder text = new StringBuilder();
            text.append(String.format(
                    "ledger: %,d acknowledged New-Order(s), %s; %,d order(s) created (%,d of unknown outcome, %,d "
                            + "duplicate(s))%n",
                    acknowledged,
                    missing == 0 ? "every one on every replica" : missing + " MISSING from some replica",
                    created,
                    unknown,
                    duplicates()));
            for (String example : missingExamples) {
                text.append("  missing: ").append(example).append(System.lineSeparator());
            }
            return text.toString();
        }
    }

    /**
     * Checks the ledger against every replica: {@code nextOrderIdsBefore} is {@link #nextOrderIds} on the first replica
     * before the run.
     */
    public Report check(List<String> jdbcUrls, long nextOrderIdsBefore) {
        List<Order> orders = new ArrayList<>(acknowledged);
        Integer[] warehouses = new Integer[orders.size()];
        Integer[] districts = new Integer[orders.size()];
        Integer[] ids = new Integer[orders.size()];
        for (int i = 0; i < orders.size(); i++) {
            warehouses[i] = orders.get(i).warehouse();
            districts[i] = orders.get(i).district();
            ids[i] = orders.get(i).id();
        }
        java.util.Set<String> missing = new java.util.TreeSet<>();
        for (int replica = 0; replica < jdbcUrls.size(); replica++) {
            String url = jdbcUrls.get(replica);
            try (Connection connection = JdbcConnections.connect(url);
                    PreparedStatement query = connection.prepareStatement(
                            "SELECT l.w, l.d, l.o FROM unnest(?::int[], ?::int[], ?::int[]) AS l(w, d, o) "
                                    + "WHERE NOT EXISTS (SELECT 1 FROM orders "
                                    + "WHERE o_w_id = l.w AND o_d_id = l.d AND o_id = l.o)")) {
                Array w = connection.createArrayOf("integer", warehouses);
                Array d = connection.createArrayOf("integer", districts);
                Array o = connection.createArrayOf("integer", ids);
                query.setArray(1, w);
                query.setArray(2, d);
                query.setArray(3, o);
                try (ResultSet rows = query.executeQuery()) {
                    while (rows.next()) {
                        missing.add("order " + rows.getInt(3) + " of district " + rows.getInt(2) + " of warehouse "
                                + rows.getInt(1));
                    }
                }
            } catch (SQLException e) {
                throw new CheckException(
                        "cannot check the acknowledged New-Orders on " + DatabaseNames.of(replica, url) + ": "
                                + e.getMessage(),
                        e);
            }
        }
        long created = nextOrderIds(jdbcUrls.get(0)) - nextOrderIdsBefore;
        return new Report(
                orders.size() + withoutOrderId.get(),
                missing.size(),
                missing.stream().limit(ConditionResult.MAX_EXAMPLES).toList(),
                created,
                unknown.get());
    }
}
