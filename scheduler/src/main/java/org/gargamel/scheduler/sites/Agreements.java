package org.gargamel.scheduler.sites;

import java.util.Collection;

/** The one place an {@link Agreement} is made: from the site settings' {@code agreement}. */
public final class Agreements {
    private Agreements() {}

    /** The agreement {@code settings} configure for its site. */
    public static Agreement of(SiteSettings settings) {
        return of(settings.name(), settings.agreement(), settings.ownership(), settings.sites());
    }

    /**
     * The agreement of {@code mode} for {@code site} among {@code sites}; {@code ownership} is read only by
     * {@link AgreementMode#OWNED}. Guarded by AgreementsTest: every mode maps to its class.
     */
    public static Agreement of(
            String site, AgreementMode mode, OwnedAgreement.Ownership ownership, Collection<String> sites) {
        return switch (mode) {
            case OPTIMISTIC -> LogOrderAgreement.optimistic(site);
            case PESSIMISTIC -> LogOrderAgreement.pessimistic(site);
            case OWNED -> new OwnedAgreement(site, ownership);
            case ABORT_FREE -> new AbortFreeAgreement(site, sites);
        };
    }
}
