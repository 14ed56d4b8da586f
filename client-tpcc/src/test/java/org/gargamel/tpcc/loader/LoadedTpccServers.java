package org.gargamel.tpcc.loader;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import org.gargamel.provisioning.PostgresCluster;
import org.gargamel.tpcc.schema.LoadInfo;

/**
 * Two embedded servers loaded once per test JVM with one warehouse and the same seed, shared by the
 * integration tests so the load is paid once. Server {@link #SCRATCH} is for tests that change data
 * (the procedures); server {@link #PRISTINE} is only read. The table checksums of both are taken right
 * after the load, before any test can change anything. The servers stop when the JVM exits.
 */
public final class LoadedTpccServers {
    public static final int SCRATCH = 0;
    public static final int PRISTINE = 1;
    public static final long SEED = 20260101L;

    private static LoadedTpccServers instance;

    private final PostgresCluster cluster;
    private final LoadInfo loadInfo;
    private final List<Map<String, String>> checksumsAfterLoad;
    private final double loadSeconds;

    private LoadedTpccServers(
            PostgresCluster cluster,
            LoadInfo loadInfo,
            List<Map<String, String>> checksumsAfterLoad,
            double loadSeconds) {
        this.cluster = cluster;
        this.loadInfo = loadInfo;
        this.checksumsAfterLoad = checksumsAfterLoad;
        this.loadSeconds = loadSeconds;
    }

    public static synchronized LoadedTpccServers get() throws SQLException {
        if (instance == null) {
            PostgresCluster cluster = PostgresCluster.embedded(2);
            long start = System.nanoTime();
            LoadInfo info = new TpccLoader(new LoadOptions(1, SEED, 3), LoadProgress.toStandardError())
                    .load(cluster.jdbcUrls());
            double seconds = (System.nanoTime() - start) / 1e9;
            System.out.printf("loaded 1 warehouse into 2 databases in %.1f s%n", seconds);
            try (Connection scratch = cluster.connect(SCRATCH);
                    Connection pristine = cluster.connect(PRISTINE)) {
                instance = new LoadedTpccServers(
                        cluster, info, List.of(TableChecksums.of(scratch), TableChecksums.of(pristine)), seconds);
            }
        }
        return instance;
    }

    public PostgresCluster cluster() {
        return cluster;
    }

    public LoadInfo loadInfo() {
        return loadInfo;
    }

    public Map<String, String> checksumsAfterLoad(int server) {
        return checksumsAfterLoad.get(server);
    }

    public double loadSeconds() {
        return loadSeconds;
    }

    public Connection connect(int server) throws SQLException {
        return cluster.connect(server);
    }

    public String jdbcUrl(int server) {
        return cluster.jdbcUrl(server);
    }
}
