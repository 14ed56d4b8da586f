package org.gargamel.scheduler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.gargamel.common.client.GargamelClient;
import org.gargamel.common.wire.EpochGranted;
import org.gargamel.common.wire.Superseded;
import org.jgroups.Address;
import org.jgroups.View;
import org.jgroups.util.NameCache;
import org.jgroups.util.UUID;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Take-over: the first grant decides the epoch, a grant of another epoch changes nothing, and the take-over is done
 * only once every granter still in the view, and every member that may be a node, has said hello.
 */
@Tag("unit")
class EpochClaimTest {
    private final Address self = named(GargamelClient.SCHEDULER_NAME);
    private final Address node1 = named("node-1");
    private final Address node2 = named("node-2");
    private final Address client = named(GargamelClient.CLIENT_NAME_PREFIX + "1");
    private final NodeRegistry nodes = new NodeRegistry(null);
    private final EpochClaim claim = new EpochClaim();

    @Test
    void theFirstGrantDecidesTheEpochAndAnotherEpochIsIgnored() {
        assertEquals(0, claim.epoch(), "not active yet");
        assertEquals(EpochClaim.Grant.ACTIVATED, claim.granted(node1, grant("node-1", 3), null));
        assertTrue(claim.active());
        assertEquals(3, claim.epoch());
        assertEquals(EpochClaim.Grant.IGNORED, claim.granted(node2, grant("node-2", 4), null));
        assertEquals(3, claim.epoch());
        assertEquals(EpochClaim.Grant.CONFIRMED, claim.granted(node2, grant("node-2", 3), null));
    }

    @Test
    void theTakeOverIsDoneOnlyOnceEveryGranterAndEveryOtherMemberHasSaidHello() {
        View view = View.create(self, 1, self, node1, node2, client);
        assertFalse(claim.becameDone(view, nodes, self), "not active");
        claim.granted(node1, grant("node-1", 1), view);
        assertFalse(claim.becameDone(view, nodes, self), "node-1 granted and has not said hello");
        nodes.put("node-1", node1);
        assertFalse(claim.becameDone(view, nodes, self), "node-2 may still run an earlier scheduler's calls");
        nodes.put("node-2", node2);
        assertTrue(claim.becameDone(view, nodes, self), "the client and this scheduler are not nodes");
        assertTrue(claim.done());
        assertFalse(claim.becameDone(view, nodes, self), "done once");
    }

    @Test
    void aGranterThatLeftTheViewIsNotWaitedFor() {
        View before = View.create(self, 1, self, node1, node2);
        claim.granted(node1, grant("node-1", 1), before);
        claim.granted(node2, grant("node-2", 1), before);
        nodes.put("node-1", node1);
        View after = View.create(self, 2, self, node1);
        assertTrue(claim.becameDone(after, nodes, self));
    }

    @Test
    void onlyALaterSchedulerSupersedesAnActiveOne() {
        assertTrue(claim.supersededBy(new Superseded("node-1", 1)), "not active: any notice");
        claim.granted(node1, grant("node-1", 5), null);
        assertFalse(claim.supersededBy(new Superseded("node-1", 5)));
        assertFalse(claim.supersededBy(new Superseded("node-1", 4)));
        assertTrue(claim.supersededBy(new Superseded("node-1", 6)));
    }

    private static EpochGranted grant(String node, long epoch) {
        return new EpochGranted(node, epoch);
    }

    private static Address named(String name) {
        Address address = UUID.randomUUID();
        NameCache.add(address, name);
        return address;
    }
}
