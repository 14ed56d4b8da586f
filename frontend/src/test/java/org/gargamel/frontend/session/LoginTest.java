package org.gargamel.frontend.session;

import static org.gargamel.frontend.session.EmbeddedSession.PASSWORD;
import static org.gargamel.frontend.session.EmbeddedSession.USER;
import static org.gargamel.frontend.session.EmbeddedSession.VERIFIER;
import static org.gargamel.frontend.session.EmbeddedSession.saslInitial;
import static org.gargamel.frontend.session.EmbeddedSession.saslResponse;
import static org.gargamel.frontend.session.EmbeddedSession.startup;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.ongres.scram.common.ScramFunctions;
import com.ongres.scram.common.ScramMechanism;
import com.ongres.scram.common.StringPreparation;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import org.gargamel.common.wire.CallOutcome;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The stages before a session takes queries, in an embedded channel: SSLRequest without TLS ('N'), CancelRequest (closed
 * without an answer), trust, and SCRAM-SHA-256 with the right and a wrong password.
 */
@Tag("unit")
class LoginTest {
    private static final ScramMechanism SHA256 = ScramMechanism.SCRAM_SHA_256;

    private static EmbeddedSession scram() {
        return new EmbeddedSession(false, new ClientLimits(0, 60, 0), call -> CallOutcome.rejected(1, 1, "none"));
    }

    @Test
    void withoutTlsAnSslRequestIsAnsweredNAndTrustLogsIn() {
        try (EmbeddedSession session =
                new EmbeddedSession(true, new ClientLimits(0, 60, 0), call -> CallOutcome.rejected(1, 1, "none"))) {
            session.send(EmbeddedSession::sslRequest);
            assertArrayEquals(new byte[] {'N'}, session.rawAnswers());
            assertEquals(List.of("R0", "Z I"), session.exchange(out -> startup(out, USER)));
        }
    }

    @Test
    void aCancelRequestClosesItsConnectionWithoutAnAnswer() {
        try (EmbeddedSession session = scram()) {
            session.send(out -> EmbeddedSession.cancelRequest(out, 42, 7));
            assertArrayEquals(new byte[0], session.rawAnswers());
            assertFalse(session.channel.isOpen());
        }
    }

    @Test
    void scramWithTheRightPasswordLogsInAndAWrongOneIsFatal() throws Exception {
        for (String password : new String[] {PASSWORD, "wrong"}) {
            try (EmbeddedSession session = scram()) {
                assertEquals(List.of("R10"), session.exchange(out -> startup(out, USER)));
                String clientFirstBare = "n=,r=rOprNGfwEbeRWgbNEkqO";
                session.send(out -> saslInitial(out, "SCRAM-SHA-256", "n,," + clientFirstBare));
                List<EmbeddedSession.Message> first = session.answers();
                assertEquals(List.of("R11"), EmbeddedSession.briefs(first));
                byte[] body = first.get(0).body();
                String serverFirst = new String(Arrays.copyOfRange(body, 4, body.length), StandardCharsets.UTF_8);
                String nonce = serverFirst.substring(2, serverFirst.indexOf(','));
                String withoutProof = "c=biws,r=" + nonce;
                String authMessage = clientFirstBare + "," + serverFirst + "," + withoutProof;
                byte[] salted = ScramFunctions.saltedPassword(
                        SHA256, StringPreparation.SASL_PREPARATION, password.toCharArray(), VERIFIER.salt(), 4096);
                byte[] clientKey = ScramFunctions.clientKey(SHA256, salted);
                byte[] signature = ScramFunctions.clientSignature(
                        SHA256, ScramFunctions.storedKey(SHA256, clientKey), authMessage);
                String proof = Base64.getEncoder().encodeToString(ScramFunctions.clientProof(clientKey, signature));
                List<String> last = session.exchange(out -> saslResponse(out, withoutProof + ",p=" + proof));
                if (password.equals(PASSWORD)) {
                    assertEquals(List.of("R12", "R0", "Z I"), last);
                    assertTrue(session.channel.isOpen());
                } else {
                    assertEquals(List.of("E 28P01"), last);
                    assertFalse(session.channel.isOpen(), "a failed login closes its connection");
                }
            }
        }
    }
}
