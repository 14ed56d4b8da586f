package org.gargamel.common.wire;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.time.LocalDateTime;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.gargamel.common.call.AdHocQuery;
import org.gargamel.common.call.ProcedureCall;
import org.gargamel.common.config.Isolation;
import org.gargamel.common.config.Mode;
import org.gargamel.common.wire.WriteSet.Operation;
import org.gargamel.common.wire.WriteSet.RowChange;
import org.jgroups.util.UUID;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("unit")
class WireCodecTest {
    private static final ProcedureCall PAYMENT = ProcedureCall.of(
            "payment",
            1,
            2,
            1,
            2,
            null,
            "BAR'BAR\"ABLE é",
            new BigDecimal("10.00"),
            LocalDateTime.of(2026, 1, 1, 10, 0, 0, 123_456_000));
    private static final ProcedureCall NEW_ORDER = ProcedureCall.of(
            "new_order",
            1,
            3,
            7,
            List.of(1, 2, 3),
            List.of(1, 1, 2),
            List.of(5, 5, 10),
            123_456_789_012L,
            new BigDecimal("-0.000001"));

    static final ClusterProfile PROFILE =
            new ClusterProfile(Mode.GARGAMEL, Isolation.PSI, "0123456789abcdef", "fedcba9876543210");

    static List<Message> oneOfEach() {
        return List.of(
                new SubmitCall(42, PAYMENT),
                new SubmitCall(43, NEW_ORDER, (7L << 32) | 9),
                CallOutcome.committed(42, 7, "(1,'x')"),
                CallOutcome.committedReadOnly(44, 8, "(3,'z')"),
                CallOutcome.userAborted(43, 8, "GA001", "invalid item number"),
                CallOutcome.rejected(44, -1, "unknown procedure 'pay'"),
                CallOutcome.committed(
                        45,
                        9,
                        new ResultRows(
                                List.of(new ResultRows.Column("o_id", 23), new ResultRows.Column("note", 25)),
                                List.of(List.of("3001", "x"), java.util.Arrays.asList("3002", null)))),
                CallOutcome.committed(46, 10, ResultRows.EMPTY),
                CallOutcome.committedReadOnly(
                        48, 12, new ResultRows(List.of(new ResultRows.Column("n", 20)), List.of(List.of("5")))),
                CallOutcome.userAborted(
                        47,
                        11,
                        "P0001",
                        "ERROR: no such item",
                        new CallOutcome.ErrorFields("no such item", "item 99 is unused", null)),
                CallOutcome.userAborted(
                        49,
                        13,
                        "42703",
                        "ERROR: column \"nope\" does not exist",
                        new CallOutcome.ErrorFields("column \"nope\" does not exist", null, "Perhaps x", 8)),
                new SubmitCall(
                        50,
                        ProcedureCall.adHoc(AdHocQuery.run(
                                "SELECT * FROM item WHERE id = $1 AND note = $2",
                                List.of(23, 0),
                                Arrays.asList("7", null))),
                        (7L << 32) | 9),
                new SubmitCall(51, ProcedureCall.adHoc(AdHocQuery.describe("SELECT $1::int", List.of()))),
                new SubmitCall(
                        52,
                        ProcedureCall.adHoc(AdHocQuery.run("TABLE item", List.of(), List.of()))
                                .asRole("app reader"),
                        3),
                new SubmitCall(53, PAYMENT.asRole("clerk")),
                new Execute(
                        14,
                        1,
                        true,
                        new long[] {9},
                        UUID.randomUUID(),
                        50,
                        ProcedureCall.adHoc(AdHocQuery.run("TABLE item", List.of(), List.of()))),
                new Execute(7, 2, false, new long[] {3, 5}, UUID.randomUUID(), 42, PAYMENT),
                new Execute(8, 1, false, new long[] {7}, UUID.randomUUID(), 43, PAYMENT, true),
                new Execute(10, 1, false, new long[] {7}, UUID.randomUUID(), 44, PAYMENT, false, true),
                new Execute(
                        11, 1, false, new long[] {7}, UUID.randomUUID(), 44, PAYMENT, false, true, Map.of("eu", 17L)),
                new Execute(9, 0, true, new long[0], UUID.randomUUID(), 45, ProcedureCall.of("stock_level", 1, 2, 15)),
                new NodeHello("node-1", 4, true, PROFILE),
                new NodeHello("node-2", 2, false, new ClusterProfile(Mode.ROUND_ROBIN, Isolation.SI, "r2", "")),
                new NodeHello(
                        "node-3",
                        4,
                        true,
                        new ClusterProfile(
                                Mode.GARGAMEL, Isolation.PSI, "r3", "s3", List.of("node-1", "node-2", "node-3"))),
                new NodeRefused("node-3", "its configuration differs from the cluster's: mode centralized"),
                new Progress("node-2", new long[] {1, 2, 3, Long.MAX_VALUE}),
                new Progress("node-2", new long[] {1}, 4242),
                new Progress("node-2", new long[0], 4242, 70_000),
                new WriteSet(
                        7,
                        "node-1",
                        "payment",
                        new long[] {3},
                        -1,
                        List.of(
                                new RowChange(
                                        "district",
                                        Operation.UPDATE,
                                        "{\"d_w_id\": 1, \"d_id\": 2, \"d_ytd\": 30010.00}"),
                                new RowChange("history", Operation.INSERT, "{\"h_data\": \"naïve 'quote'\"}"),
                                new RowChange("new_order", Operation.DELETE, "{\"no_w_id\": 1}"),
                                new RowChange(
                                        "warehouse",
                                        Operation.ADD,
                                        "{\"w_id\": 1, \"w_name\": \"x\", \"+w_ytd\": 10.50}"))),
                new WriteSet(8, "node-3", "new_order", new long[0], 17, List.of()),
                new WriteSet(9, "node-1", "payment", new long[] {8}, -1, new WriteSet.Order(77, 12, 11), List.of()),
                new WriteSet(9, "node-1", "payment", new long[] {8}, -1, new WriteSet.Order(77, 12, 11), List.of())
                        .withAppend(new WriteSet.Append(-5_000_000_000L, 42, 40)),
                new WriteSet(10, "node-2", "new_order", new long[0], -1, List.of())
                        .withOutcome(CallOutcome.userAborted(46, 10, "GA001", "invalid item number")),
                new DrainQuery(5),
                new ScheduleCall("eu-west", 3, 7L << 32 | 9, NEW_ORDER),
                new Agreement(7L << 32 | 9, true, new long[] {5, 6}),
                new SchedulePlacement("us-east", 7L << 32 | 9, new long[] {5L << 32 | 1, 6}),
                new SchedulePlacement("us-east", 7L << 32 | 9, new long[] {6}, 31),
                new SchedulePlacement("us-east", 7L << 32 | 9, new long[] {7L << 32 | 4}, 0, 7, 12),
                new Shipped("eu-west", 0, 5, new WriteSet(12, "node-1", "payment", new long[] {3}, -1, List.of())),
                new Shipped("eu-west", 5, 9, new Abandon("node-2", new long[] {13})),
                new VisibilityQuery(new long[] {7L << 32 | 9, 3}),
                new TakeOver(),
                new EpochClaim(org.jgroups.util.UUID.randomUUID()),
                new EpochClaim(org.jgroups.util.UUID.randomUUID(), "eu-west"),
                new EpochGranted("node-2", 4242),
                new EpochGranted("node-2", 4242, 17),
                new EpochGranted("node-2", 4242, EpochGranted.UNKNOWN),
                new Superseded("node-3", 4343),
                new WriteSet(11, "node-1", "payment", new long[0], -1, List.of())
                        .withOutcome(CallOutcome.committed(47, 11, "(2,'y')"), org.jgroups.util.UUID.randomUUID()),
                new DrainStatus(5, 12, 3),
                new Abandon("node-2", new long[] {11, 12, 40}),
                new LogMark("node-3", 424242L),
                new Settlement(
                        "node-1",
                        "node-2",
                        new long[] {12, 40},
                        List.of(CallOutcome.committed(42, 11, "(1,'x')")),
                        new long[] {41}));
    }

    @Test
    void everyMessageTypeSurvivesARoundTrip() {
        Set<MessageType> covered = EnumSet.noneOf(MessageType.class);
        for (Message message : oneOfEach()) {
            byte[] bytes = WireCodec.encode(message);
            assertEquals(message.type().tag(), bytes[0]);
            Message decoded = WireCodec.decode(bytes);
            assertEquals(message, decoded, message.type().toString());
            assertArrayEquals(bytes, WireCodec.encode(decoded), "re-encoding " + message.type());
            covered.add(message.type());
        }
        assertEquals(EnumSet.allOf(MessageType.class), covered, "a round trip for every message type");
    }

    @Test
    void argumentTypesAndValuesArePreservedExactly() {
        SubmitCall decoded = (SubmitCall) WireCodec.decode(WireCodec.encode(new SubmitCall(1, NEW_ORDER)));
        Object total = decoded.call().arguments().get(7);
        assertEquals(new BigDecimal("-0.000001"), total);
        assertEquals(6, ((BigDecimal) total).scale());
        assertEquals(Long.class, decoded.call().arguments().get(6).getClass());
        SubmitCall payment = (SubmitCall) WireCodec.decode(WireCodec.encode(new SubmitCall(1, PAYMENT)));
        assertEquals("BAR'BAR\"ABLE é", payment.call().arguments().get(5));
        assertEquals(
                LocalDateTime.of(2026, 1, 1, 10, 0, 0, 123_456_000),
                payment.call().arguments().get(7));
        assertEquals(new BigDecimal("10.00"), payment.call().arguments().get(6));
    }

    @Test
    void statusAndOperationCodesAreFixedInTheWireFormat() {
        // CALL_OUTCOME: the type tag, callId and txnId (8 bytes each), then the status code.
        Map<CallOutcome, Integer> outcomes = Map.of(
                CallOutcome.committed(1, 2, "r"),
                0,
                CallOutcome.userAborted(1, 2, "GA001", "m"),
                1,
                CallOutcome.rejected(1, 2, "r"),
                2);
        outcomes.forEach((outcome, code) -> assertEquals(
                code, (int) WireCodec.encode(outcome)[17], outcome.status().toString()));
        byte[] unknownStatus = WireCodec.encode(CallOutcome.committed(1, 2, "r"));
        unknownStatus[17] = 3;
        assertTrue(assertThrows(MalformedMessageException.class, () -> WireCodec.decode(unknownStatus))
                .getMessage()
                .contains("unknown status 3"));
        // WRITE_SET of origin "n", procedure "p", no dependencies, its order (three longs) and one change of table "t":
        // its operation at 64.
        Map<Operation, Integer> operations =
                Map.of(Operation.INSERT, 0, Operation.UPDATE, 1, Operation.DELETE, 2, Operation.ADD, 3);
        assertEquals(EnumSet.allOf(Operation.class), operations.keySet(), "a code for every operation");
        operations.forEach((operation, code) -> {
            byte[] bytes = WireCodec.encode(writeSetOf(operation));
            assertEquals(code, (int) bytes[64], operation.toString());
            assertEquals(writeSetOf(operation), WireCodec.decode(bytes));
        });
        byte[] unknownOperation = WireCodec.encode(writeSetOf(Operation.DELETE));
        unknownOperation[64] = 4;
        assertTrue(assertThrows(MalformedMessageException.class, () -> WireCodec.decode(unknownOperation))
                .getMessage()
                .contains("unknown row operation 4"));
    }

    private static WriteSet writeSetOf(Operation operation) {
        return new WriteSet(7, "n", "p", new long[0], -1, List.of(new RowChange("t", operation, "{}")));
    }

    @Test
    void malformedMessagesFailWithAReasonAndNeverExhaustMemory() {
        assertTrue(assertThrows(MalformedMessageException.class, () -> WireCodec.decode(new byte[0]))
                .getMessage()
                .contains("empty"));
        assertTrue(assertThrows(MalformedMessageException.class, () -> WireCodec.decode(new byte[] {99}))
                .getMessage()
                .contains("unknown message type tag 99"));
        byte[] full = WireCodec.encode(new SubmitCall(42, PAYMENT));
        MalformedMessageException truncated = assertThrows(
                MalformedMessageException.class, () -> WireCodec.decode(Arrays.copyOf(full, full.length - 3)));
        assertTrue(truncated.getMessage().contains("SUBMIT_CALL is truncated"), truncated.getMessage());
        byte[] negativeAfter = WireCodec.encode(new SubmitCall(42, PAYMENT, 5));
        negativeAfter[negativeAfter.length - Long.BYTES] = (byte) 0x80;
        assertTrue(assertThrows(MalformedMessageException.class, () -> WireCodec.decode(negativeAfter))
                .getMessage()
                .contains("negative session transaction"));
        byte[] trailing = Arrays.copyOf(full, full.length + 2);
        assertTrue(assertThrows(MalformedMessageException.class, () -> WireCodec.decode(trailing))
                .getMessage()
                .contains("trailing"));
        // A string length of 2^31-1 must be refused before any allocation.
        byte[] hostile = {MessageType.NODE_HELLO.tag(), 0x7f, (byte) 0xff, (byte) 0xff, (byte) 0xff};
        assertTrue(assertThrows(MalformedMessageException.class, () -> WireCodec.decode(hostile))
                .getMessage()
                .contains("out of range"));
        // A NODE_HELLO whose profile names no known mode: the node's name, workers, ready, then the mode's string.
        byte[] badMode = WireCodec.encode(new NodeHello("n", 1, true, PROFILE));
        badMode[15] = 'X'; // "gargamel" becomes "Xargamel"
        assertTrue(assertThrows(MalformedMessageException.class, () -> WireCodec.decode(badMode))
                .getMessage()
                .contains("unknown mode 'Xargamel'"));
        byte[] zeroSequence = WireCodec.encode(new ScheduleCall("s", 1, 2, PAYMENT));
        zeroSequence[1 + Integer.BYTES + 1 + Long.BYTES - 1] = 0; // the sequence's last byte: 1 becomes 0
        assertTrue(assertThrows(MalformedMessageException.class, () -> WireCodec.decode(zeroSequence))
                .getMessage()
                .contains("sequence starts at 1, got 0"));
        byte[] flags = WireCodec.encode(new Execute(8, 1, false, new long[0], UUID.randomUUID(), 43, PAYMENT, true));
        flags[1 + Long.BYTES + Integer.BYTES] = 3; // read-only and provisional
        assertTrue(assertThrows(MalformedMessageException.class, () -> WireCodec.decode(flags))
                .getMessage()
                .contains("never provisional"));
        flags[1 + Long.BYTES + Integer.BYTES] = 6; // provisional and behind a barrier
        assertTrue(assertThrows(MalformedMessageException.class, () -> WireCodec.decode(flags))
                .getMessage()
                .contains("only an update call placed for good"));
        flags[1 + Long.BYTES + Integer.BYTES] = 8;
        assertTrue(assertThrows(MalformedMessageException.class, () -> WireCodec.decode(flags))
                .getMessage()
                .contains("unknown flags 8"));
        byte[] placement = WireCodec.encode(new SchedulePlacement("s", 2, new long[] {1}));
        placement[1 + Integer.BYTES + 1 + Long.BYTES - 1] = 0; // the transaction id's last byte: 2 becomes 0
        assertTrue(assertThrows(MalformedMessageException.class, () -> WireCodec.decode(placement))
                .getMessage()
                .contains("transaction id must be positive, got 0"));
        byte[] lateGrant = WireCodec.encode(new EpochGranted("n", 5, 4));
        lateGrant[lateGrant.length - 1] = 9; // the predecessor's epoch 9, after the grant's own 5
        assertTrue(assertThrows(MalformedMessageException.class, () -> WireCodec.decode(lateGrant))
                .getMessage()
                .contains("predecessor epoch 9 is not before epoch 5"));
        byte[] grant = WireCodec.encode(new EpochGranted("n", 5, 4));
        assertEquals(
                new EpochGranted("n", 5, EpochGranted.NO_PREDECESSOR),
                WireCodec.decode(Arrays.copyOf(grant, grant.length - Long.BYTES)),
                "a grant without the optional last field has no predecessor");
        byte[] badValue = WireCodec.encode(new SubmitCall(1, ProcedureCall.of("f", 1)));
        badValue[badValue.length - 5 - Long.BYTES] = 77; // the argument's tag byte (the session's transaction follows)
        assertTrue(assertThrows(MalformedMessageException.class, () -> WireCodec.decode(badValue))
                .getMessage()
                .contains("unknown argument value tag 77"));
    }

    @Test
    void aShippedEntryIsAWriteSetOrADecisionInItsOriginsOrder() {
        WriteSet writeSet = new WriteSet(12, "node-1", "payment", new long[0], -1, List.of());
        assertTrue(assertThrows(IllegalArgumentException.class, () -> new Shipped("eu", 0, 5, new LogMark("n", 1)))
                .getMessage()
                .contains("only a write-set or an ABANDON decision is shipped between sites, got LOG_MARK"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> new Shipped("eu", 5, 5, writeSet))
                .getMessage()
                .contains("index 5 must come after the previous one's, 5"));
        byte[] bytes = WireCodec.encode(new Shipped("eu", 0, 5, writeSet));
        bytes[1 + Integer.BYTES + 2 + 2 * Long.BYTES - 1] = 0; // the index's last byte: 5 becomes 0
        assertTrue(assertThrows(MalformedMessageException.class, () -> WireCodec.decode(bytes))
                .getMessage()
                .contains("index 0 must come after"));
    }

    @Test
    void anAdHocQueryIsACallOfItsOwnKindWithAVersionedLayoutCheckedWhenRead() {
        ProcedureCall query = ProcedureCall.adHoc(AdHocQuery.run("SELECT 1", List.of(), List.of()));
        assertEquals(ProcedureCall.AD_HOC, query.procedure());
        byte[] good = WireCodec.encode(new SubmitCall(1, query));
        // type, call id, marker length and marker: then the layout version
        int versionAt = 1 + 8 + 4 + WireCodec.AD_HOC_MARKER.length();
        assertEquals(WireCodec.AD_HOC_VERSION, good[versionAt]);
        byte[] otherVersion = good.clone();
        otherVersion[versionAt] = 2;
        assertTrue(assertThrows(MalformedMessageException.class, () -> WireCodec.decode(otherVersion))
                .getMessage()
                .contains("layout version 2"));
        byte[] unknownKind = good.clone();
        unknownKind[versionAt + 1] = 9;
        assertTrue(assertThrows(MalformedMessageException.class, () -> WireCodec.decode(unknownKind))
                .getMessage()
                .contains("unknown kind 9"));
        // values without as many types: refused as the record refuses it
        byte[] mismatched = WireCodec.encode(
                new SubmitCall(1, ProcedureCall.adHoc(AdHocQuery.run("SELECT $1", List.of(25), Arrays.asList("x")))));
        int typeCountAt = versionAt + 2 + 4 + "SELECT $1".length();
        mismatched[typeCountAt + 3] = 0; // 0 types, and the type's 4 bytes read as the value count's
        assertThrows(MalformedMessageException.class, () -> WireCodec.decode(mismatched));
        // an ad-hoc query placed as an update transaction is refused by the node's decoder
        byte[] update = WireCodec.encode(new Execute(3, 0, true, new long[0], UUID.randomUUID(), 1, query));
        update[1 + 8 + 4] = 0; // readOnly
        assertTrue(assertThrows(MalformedMessageException.class, () -> WireCodec.decode(update))
                .getMessage()
                .contains("update transaction"));
        assertThrows(IllegalArgumentException.class, () -> AdHocQuery.run(" ", List.of(), List.of()));
        assertThrows(IllegalArgumentException.class, () -> AdHocQuery.run("SELECT $1", List.of(), List.of("1")));
    }

    @Test
    void aCallAsARoleCarriesTheRoleAndAMalformedRoleIsRefusedWhenRead() {
        ProcedureCall asClerk = PAYMENT.asRole("clerk");
        assertEquals(
                "clerk",
                ((SubmitCall) WireCodec.decode(WireCodec.encode(new SubmitCall(1, asClerk))))
                        .call()
                        .role());
        assertNull(((SubmitCall) WireCodec.decode(WireCodec.encode(new SubmitCall(1, PAYMENT))))
                .call()
                .role());
        assertNotEquals(PAYMENT, asClerk);
        // PostgreSQL would truncate a name past 63 bytes into another role's: refused when made and when read
        String long64 = "r".repeat(64);
        assertThrows(IllegalArgumentException.class, () -> PAYMENT.asRole(long64));
        assertThrows(IllegalArgumentException.class, () -> PAYMENT.asRole(""));
        byte[] encoded = WireCodec.encode(new SubmitCall(1, PAYMENT.asRole("r".repeat(63))));
        int roleAt = 1 + 8 + 4 + WireCodec.ROLE_MARKER.length() + 4;
        byte[] tooLong = new byte[encoded.length + 1];
        System.arraycopy(encoded, 0, tooLong, 0, roleAt);
        tooLong[roleAt - 1] = 64; // the role's length
        tooLong[roleAt] = 'r';
        System.arraycopy(encoded, roleAt, tooLong, roleAt + 1, encoded.length - roleAt);
        assertTrue(assertThrows(MalformedMessageException.class, () -> WireCodec.decode(tooLong))
                .getMessage()
                .contains("at most 63"));
    }
}
