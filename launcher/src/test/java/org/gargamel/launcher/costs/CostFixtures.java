package org.gargamel.launcher.costs;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/** Made-up figures of the bench's runs, whose derived figures the tests work out by hand. */
final class CostFixtures {
    private CostFixtures() {}

    /**
     * A run at {@code replicas}: client and scheduler {@code lessJit} each (0.01 more with the JIT), nodes {@code
     * nodes} (0.1 more), PostgreSQL {@code postgres}; the nodes executed 1000 calls and applied {@code applied}
     * write-sets.
     */
    static GargamelCosts run(int replicas, double javaRole, double nodes, double postgres, long applied) {
        Map<String, RoleCost> roles = new LinkedHashMap<>();
        roles.put("client", new RoleCost(javaRole + 0.01, 0.01, javaRole));
        roles.put("scheduler", new RoleCost(javaRole + 0.01, 0.01, javaRole));
        roles.put("nodes", new RoleCost(nodes + 0.1, 0.1, nodes));
        roles.put(GargamelCosts.POSTGRES, RoleCost.withoutJit(postgres));
        roles.put(
                GargamelCosts.ALL_JAVA,
                roles.get("client").plus(roles.get("scheduler")).plus(roles.get("nodes")));
        return new GargamelCosts(
                replicas,
                1000.0 * replicas,
                2000,
                30,
                roles,
                1000,
                applied,
                0.2,
                replicas == 1 ? null : 0.1,
                replicas == 1 ? null : 0.25,
                Path.of("out/gargamel-" + replicas + "/result.json"));
    }

    /** A native run: per call execute 0.76, decode 0.15, apply 0.27; per update transaction 0.8, 0.16, 0.3. */
    static NativeCosts nativeRun() {
        return new NativeCosts(
                "18.6",
                30,
                10_000,
                9_200,
                20_000,
                new NativeCosts.Figures(0.76, 0.15, 0.27),
                new NativeCosts.Figures(0.8, 0.16, 0.3),
                2.667,
                120,
                1,
                true,
                "out/native/result.json");
    }
}
