package org.gargamel.scheduler.sites;

/** The log-order agreement's results as its tests read them: a verdict per decision, a home call's entry and bet. */
final class LogOrderTerms {
    private LogOrderTerms() {}

    /** What a {@link Decision} of a {@link LogOrderAgreement} says of a call. */
    enum Verdict {
        REMOTE,
        CONFIRMED,
        COLLIDED,
        DISPATCH,
        ORPHANED;

        static Verdict of(Decision decision) {
            if (decision instanceof Decision.Remote) {
                return REMOTE;
            }
            if (decision instanceof Decision.Orphaned) {
                return ORPHANED;
            }
            if (decision instanceof Decision.Dispatch) {
                return DISPATCH;
            }
            if (decision instanceof Decision.Agreed agreed) {
                return agreed.collided() ? COLLIDED : CONFIRMED;
            }
            throw new AssertionError("a log-order agreement does not decide " + decision);
        }
    }

    /** A home call placed: its entry, and the provisional back-dependencies (null: pessimistic, it waits). */
    // ArrayRecordComponent: read, never written.
    record Placed(
            ScheduleEntry entry,
            @SuppressWarnings("ArrayRecordComponent") long[] dependencies) {
        boolean dispatchNow() {
            return dependencies != null;
        }

        static Placed of(Home home) {
            if (home instanceof Home.Provisional provisional) {
                return new Placed(provisional.entry(), provisional.dependencies());
            }
            if (home instanceof Home.Logged logged) {
                return new Placed(logged.entry(), null);
            }
            throw new AssertionError("a log-order agreement does not place a call so: " + home);
        }
    }
}
