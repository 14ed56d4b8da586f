package org.gargamel.scheduler;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.gargamel.common.wire.ClusterProfile;
import org.gargamel.common.wire.NodeHello;
import org.jgroups.Address;
import org.jgroups.View;

/**
 * The nodes that said hello to this scheduler, by name with their address in the control group, and the cluster
 * profile every node must share: the first accepted node's schema digest and replica list, kept for this scheduler's
 * life (it has no database and no replica list to compare with), with the name of that node.
 *
 * <p>Single-threaded: owned by the scheduler's event loop.
 */
final class NodeRegistry {
    /** What every node must share with this scheduler; its schema digest is unused (no database here). */
    private final ClusterProfile profile;

    private final Map<String, Address> nodes = new HashMap<>();
    private ClusterProfile reference;
    private String referenceOwner;

    NodeRegistry(ClusterProfile profile) {
        this.profile = profile;
    }

    ClusterProfile profile() {
        return profile;
    }

    /** How {@code hello}'s profile differs from the cluster's (empty: it may join). */
    List<String> differences(NodeHello hello) {
        return profile.differences(hello.profile(), reference, referenceOwner);
    }

    /** The first accepted node's profile becomes the cluster's; whether {@code hello} was that first one. */
    boolean adoptReference(NodeHello hello) {
        if (reference != null) {
            return false;
        }
        reference = hello.profile();
        referenceOwner = hello.nodeName();
        return true;
    }

    ClusterProfile reference() {
        return reference;
    }

    /** The address of {@code node}, or null if it has not said hello (or left). */
    Address address(String node) {
        return nodes.get(node);
    }

    void put(String node, Address address) {
        nodes.put(node, address);
    }

    Address remove(String node) {
        return nodes.remove(node);
    }

    /** The nodes whose address is not in {@code view}. */
    List<String> outside(View view) {
        List<String> gone = new ArrayList<>();
        for (Map.Entry<String, Address> node : nodes.entrySet()) {
            if (!view.containsMember(node.getValue())) {
                gone.add(node.getKey());
            }
        }
        return gone;
    }

    boolean has(Address address) {
        return nodes.containsValue(address);
    }

    boolean isEmpty() {
        return nodes.isEmpty();
    }

    int size() {
        return nodes.size();
    }

    Set<String> names() {
        return nodes.keySet();
    }

    Collection<Address> addresses() {
        return nodes.values();
    }
}
