package org.gargamel.scheduler.sites;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.gargamel.classifier.WriteKey;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The one place agreements are made: every mode has its class, and each places a home call as its mode says. */
@Tag("unit")
class AgreementsTest {
    private static final List<WriteKey> ROW = List.of(LogOrderAgreementTest.key(1));
    private static final List<String> SITES = List.of("eu", "us");

    @Test
    void everyModeMapsToItsAgreement() {
        Map<AgreementMode, Class<? extends Agreement>> expected = new EnumMap<>(AgreementMode.class);
        expected.put(AgreementMode.OPTIMISTIC, LogOrderAgreement.class);
        expected.put(AgreementMode.PESSIMISTIC, LogOrderAgreement.class);
        expected.put(AgreementMode.OWNED, OwnedAgreement.class);
        expected.put(AgreementMode.ABORT_FREE, AbortFreeAgreement.class);
        assertEquals(Set.of(AgreementMode.values()), expected.keySet(), "a mode without an expected class");
        for (AgreementMode mode : AgreementMode.values()) {
            Agreement agreement = Agreements.of("eu", mode, key -> Set.of("eu"), SITES);
            assertInstanceOf(expected.get(mode), agreement, mode.toString());
            assertEquals("eu", agreement.site());
        }
    }

    /** What each mode means for a home call on this site's own row: the Home variant is the mode's contract. */
    @Test
    void eachAgreementPlacesAHomeCallAsItsModeSays() {
        Map<AgreementMode, Class<? extends Home>> expected = new EnumMap<>(AgreementMode.class);
        expected.put(AgreementMode.OPTIMISTIC, Home.Provisional.class);
        expected.put(AgreementMode.PESSIMISTIC, Home.Logged.class);
        expected.put(AgreementMode.OWNED, Home.Local.class);
        expected.put(AgreementMode.ABORT_FREE, Home.Announced.class);
        for (AgreementMode mode : AgreementMode.values()) {
            Agreement agreement = Agreements.of("eu", mode, key -> Set.of("eu"), SITES);
            assertInstanceOf(expected.get(mode), agreement.placeHome(1, ROW), mode.toString());
        }
    }

    @Test
    void aLogOrderAgreementIsOnlyOptimisticOrPessimistic() {
        assertThrows(IllegalArgumentException.class, () -> new LogOrderAgreement("eu", AgreementMode.OWNED));
        assertThrows(IllegalArgumentException.class, () -> new LogOrderAgreement("eu", AgreementMode.ABORT_FREE));
    }
}
