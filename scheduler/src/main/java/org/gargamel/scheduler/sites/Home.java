package org.gargamel.scheduler.sites;

/** What an {@link Agreement} gives for a home update call it places: where it goes, and when it may run. */
public sealed interface Home {
    /** Site-owned classes: every key is this site's; dispatch it now after {@code dependencies}, for good. */
    // ArrayRecordComponent: handed to the node as is, never written.
    record Local(@SuppressWarnings("ArrayRecordComponent") long[] dependencies) implements Home {}

    /** Optimistic: append {@code entry}, and dispatch it now after {@code dependencies}; it commits once agreed. */
    // ArrayRecordComponent: handed to the node as is, never written.
    record Provisional(
            ScheduleEntry entry,
            @SuppressWarnings("ArrayRecordComponent") long[] dependencies) implements Home {}

    /** Pessimistic: append {@code entry}; it is dispatched once the log placed it. */
    record Logged(ScheduleEntry entry) implements Home {}

    /** Site-owned classes: it may write another site's rows; append {@code entry}; dispatched once every owner placed it. */
    record Spanning(ScheduleEntry entry) implements Home {}

    /**
     * Abort-free: append {@code entry}, then this site's {@code own} placement of it; dispatched once every site
     * placed it.
     */
    record Announced(ScheduleEntry entry, SitePlacement own) implements Home {}
}
