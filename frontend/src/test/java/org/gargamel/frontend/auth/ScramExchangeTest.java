package org.gargamel.frontend.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.ongres.scram.common.ScramFunctions;
import com.ongres.scram.common.ScramMechanism;
import com.ongres.scram.common.StringPreparation;
import java.security.SecureRandom;
import java.util.Base64;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The server's side of SCRAM-SHA-256 against a client computed here from RFC 5802's formulas. */
@Tag("unit")
class ScramExchangeTest {
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final ScramMechanism SHA256 = ScramMechanism.SCRAM_SHA_256;

    @Test
    void theRightPasswordPassesAndTheServerProvesItKnowsTheVerifier() throws Exception {
        ScramVerifier verifier = ScramVerifier.fromPassword("pencil", RANDOM);
        ScramExchange exchange = new ScramExchange(verifier, RANDOM);
        String clientFirstBare = "n=,r=rOprNGfwEbeRWgbNEkqO";
        String serverFirst = exchange.serverFirst("n,," + clientFirstBare);
        String nonce = serverFirst.substring(2, serverFirst.indexOf(','));
        assertTrue(nonce.startsWith("rOprNGfwEbeRWgbNEkqO"));
        String withoutProof = "c=biws,r=" + nonce;
        String authMessage = clientFirstBare + "," + serverFirst + "," + withoutProof;
        byte[] salted = ScramFunctions.saltedPassword(
                SHA256, StringPreparation.SASL_PREPARATION, "pencil".toCharArray(), verifier.salt(), 4096);
        byte[] clientKey = ScramFunctions.clientKey(SHA256, salted);
        byte[] signature =
                ScramFunctions.clientSignature(SHA256, ScramFunctions.storedKey(SHA256, clientKey), authMessage);
        String proof = Base64.getEncoder().encodeToString(ScramFunctions.clientProof(clientKey, signature));
        String serverFinal = exchange.serverFinal(withoutProof + ",p=" + proof, "app");
        byte[] expected = ScramFunctions.serverSignature(SHA256, ScramFunctions.serverKey(SHA256, salted), authMessage);
        assertEquals("v=" + Base64.getEncoder().encodeToString(expected), serverFinal);
    }

    @Test
    void aWrongProofAndAnUnknownUserFailAlike() throws Exception {
        for (ScramVerifier verifier : new ScramVerifier[] {ScramVerifier.fromPassword("pencil", RANDOM), null}) {
            ScramExchange exchange = new ScramExchange(verifier, RANDOM);
            String serverFirst = exchange.serverFirst("n,,n=,r=abc");
            String nonce = serverFirst.substring(2, serverFirst.indexOf(','));
            String proof = Base64.getEncoder().encodeToString(new byte[32]);
            AuthenticationException error = assertThrows(
                    AuthenticationException.class,
                    () -> exchange.serverFinal("c=biws,r=" + nonce + ",p=" + proof, "app"));
            assertEquals("28P01", error.sqlState());
            assertEquals("password authentication failed for user \"app\"", error.getMessage());
        }
    }

    @Test
    void postgresqlVerifiersAreRead() {
        ScramVerifier verifier =
                ScramVerifier.parse("SCRAM-SHA-256$4096:c2FsdHNhbHRzYWx0$bWFkZXVwa2V5bWFkZXVwa2V5bWFkZXVwa2V5MTIzNA==:"
                        + "b3RoZXJrZXlvdGhlcmtleW90aGVya2V5b3RoZXIxMjM=");
        assertEquals(4096, verifier.iterations());
        assertEquals("saltsaltsalt", new String(verifier.salt(), java.nio.charset.StandardCharsets.US_ASCII));
        assertThrows(IllegalArgumentException.class, () -> ScramVerifier.parse("md5abcdef"));
    }

    @Test
    void channelBindingAndMalformedMessagesAreRefused() {
        ScramExchange exchange = new ScramExchange(null, RANDOM);
        assertEquals(
                "28000",
                assertThrows(
                                AuthenticationException.class,
                                () -> exchange.serverFirst("p=tls-server-end-point,,n=,r=x"))
                        .sqlState());
        assertEquals(
                "08P01",
                assertThrows(AuthenticationException.class, () -> exchange.serverFirst("garbage"))
                        .sqlState());
    }
}
