package org.gargamel.scheduler.sites;

/** How a site's scheduler runs its home calls against the schedule log (docs/multisite.md). */
public enum AgreementMode {
    /**
     * Dispatch at once against what the site knows; the call commits only once the log confirms its place, and runs
     * again after the calls the log put before it if it collided (thesis ch. 4, Alg 2).
     */
    OPTIMISTIC,
    /** Dispatch only once the log has placed the call: no collision, but every call waits for the agreement first. */
    PESSIMISTIC,
    /**
     * Site-owned conflict classes ({@link OwnedAgreement}): a call on its own site's rows alone is placed there and
     * commits without waiting for the log; a call that may write another site's rows goes through the log, ordered by
     * every owner, and runs once each has placed it.
     */
    OWNED,
    /**
     * Abort-free (Janus-style, {@link AbortFreeAgreement}): every site places every update call in the order
     * calls reach it, and the log carries their placements; a call runs once every site's is in, its dependency cycles
     * ordered deterministically. A collision costs a wait, never a kill.
     */
    ABORT_FREE
}
