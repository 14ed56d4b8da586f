package org.gargamel.launcher.cluster;

import java.time.Duration;
import org.gargamel.common.client.GargamelClient;
import org.gargamel.tpcc.workload.CallExecutor;

/** Gargamel as a TPC-C run sees it: started here ({@link LocalGargamelCluster}) or already running elsewhere. */
public interface GargamelCluster extends AutoCloseable {
    /** An executor for one terminal. */
    CallExecutor executor();

    GargamelClient client();

    /** Called (once) if the cluster fails during the run. */
    void onFailure(Runnable listener);

    /** Why the cluster failed during the run, or null. */
    String failure();

    void awaitQuiescence(Duration timeout) throws InterruptedException;

    /** Ends the run's use of the cluster; returns what the nodes counted, if this side can know it. */
    ClusterStatistics stop();

    @Override
    void close();
}
