package org.gargamel.node;

import org.gargamel.common.group.Channels;
import org.gargamel.common.group.GroupConfig;
import org.gargamel.common.group.LoopbackPorts;
import org.gargamel.common.group.RaftLog;
import org.gargamel.node.shipping.SiteShipping;

/**
 * A write-set log per site (docs/multisite.md, Site-local acknowledgement): this node joins every other site's log as
 * a learner, and ships its entries into this site's log while this node leads it ({@link SiteShipping}, which closes
 * the learners). Started after the catch-up, so that what this site's log took is known before anything is shipped
 * again.
 */
final class OtherSiteFollower {
    private final String name;
    private final NodeConfig config;
    private final RaftLog.Patience logPatience;

    OtherSiteFollower(String name, NodeConfig config, RaftLog.Patience logPatience) {
        this.name = name;
        this.config = config;
        this.logPatience = logPatience;
    }

    /** Connects a learner of each other site's log to {@code shipping}, then starts shipping. */
    void follow(SiteShipping shipping) throws Exception {
        for (String other : config.otherSites()) {
            SiteShipping.Follower follower = shipping.follower(other);
            RaftLog learner = new RaftLog(
                    name,
                    "write-set log of site " + other,
                    // Its own port: the configured one is this site's log's (TCPPING needs a fixed one).
                    Channels.writeSetLog(
                            learnerGroup(),
                            name,
                            config.learnerSettings(other),
                            config.siteName(),
                            config.writeSetLinks()),
                    follower,
                    logPatience);
            follower.firstIndexFrom(learner::firstIndex);
            shipping.learning(learner);
            learner.connect(SiteSettings.writeSetCluster(other));
        }
        shipping.start();
    }

    /** A learner channel's group settings: the write-set group's, on a free port of the same address. */
    private GroupConfig learnerGroup() {
        GroupConfig group = config.writeSetGroup();
        return group.transport() == GroupConfig.Transport.TCP
                ? group.withBindPort(LoopbackPorts.pickOn(group.bindAddress()))
                : group;
    }
}
