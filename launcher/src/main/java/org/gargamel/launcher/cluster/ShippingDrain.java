package org.gargamel.launcher.cluster;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;

/**
 * With a write-set log per site (docs/multisite.md, Site-local acknowledgement) a run is quiet at every scheduler
 * before every site has applied what the others shipped: this waits, after the schedulers are quiet, until every
 * replica shows the same TPC-C state, and says how long the shipping took to drain. The signature covers what each
 * TPC-C update changes (a district's next order id and year-to-date, a warehouse's year-to-date, the new orders left,
 * the history rows), per warehouse and district, so two replicas each missing a different site's write-set differ too.
 * The full checks after the run judge the replicas; this only decides when to run them.
 */
final class ShippingDrain {
    private static final String SIGNATURE = "SELECT (SELECT string_agg(w_id || ':' || w_ytd, ',' ORDER BY w_id) FROM"
            + " warehouse) || '|' || (SELECT string_agg(d_w_id || '.' || d_id || ':' || d_next_o_id || ':' || d_ytd,"
            + " ',' ORDER BY d_w_id, d_id) FROM district) || '|' || (SELECT count(*) FROM new_order) || '|' || (SELECT"
            + " count(*) FROM history)";

    private ShippingDrain() {}

    /** Blocks until every replica's signature is the same; how long that took (the timeout if it never was). */
    static Duration await(List<String> jdbcUrls, Duration timeout) throws InterruptedException {
        long started = System.nanoTime();
        long deadline = started + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            List<String> signatures = new ArrayList<>();
            try {
                for (String url : jdbcUrls) {
                    signatures.add(signature(url));
                }
            } catch (SQLException e) {
                throw new IllegalStateException("cannot read a replica's state: " + e.getMessage(), e);
            }
            if (new HashSet<>(signatures).size() == 1) {
                return Duration.ofNanos(System.nanoTime() - started);
            }
            Thread.sleep(100);
        }
        return timeout;
    }

    private static String signature(String url) throws SQLException {
        try (Connection connection = DriverManager.getConnection(url);
                Statement statement = connection.createStatement();
                ResultSet row = statement.executeQuery(SIGNATURE)) {
            row.next();
            return row.getString(1);
        }
    }
}
