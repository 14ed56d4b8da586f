package org.gargamel.launcher.chaos;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;

/**
 * One injected fault, as result.json's {@code faults} lists it.
 *
 * @param at               seconds after the terminals started
 * @param kind             {@code node}: the node process was killed with SIGKILL; {@code postgres}: every process of
 *                         the node's PostgreSQL server was; {@code partition}: the node's network link was cut (for
 *                         the downtime after the scheduler went on without it) and healed
 * @param target           the node killed, or whose PostgreSQL was, e.g. {@code node-2}
 * @param recoveredAfterMs from the kill until the scheduler had taken the node out and served calls without it (kind
 *                         scheduler: until a scheduler, the standby or the restarted one, served every node again)
 * @param rejoinedAfterMs  from the kill until the restarted node had caught up and joined again (kind scheduler: until
 *                         the killed scheduler was back, standing by or active; kind partition: from the cut until the
 *                         node served again after the heal)
 * @param error            why the fault's recovery failed, else null
 */
@JsonPropertyOrder({"at", "kind", "target", "pid", "recoveredAfterMs", "rejoinedAfterMs", "error"})
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Fault(
        double at, String kind, String target, long pid, Long recoveredAfterMs, Long rejoinedAfterMs, String error) {}
