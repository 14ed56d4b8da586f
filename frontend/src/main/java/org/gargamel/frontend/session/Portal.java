package org.gargamel.frontend.session;

import java.util.List;
import org.gargamel.common.call.ProcedureCall;
import org.gargamel.common.wire.CallOutcome;

/**
 * A portal made by Bind: the statement, the call built from its parameters (for a call or an ad-hoc read), the result
 * formats, and, once its call ran (at Describe or Execute), the outcome and how many of its rows were sent.
 */
final class Portal {
    final Prepared prepared;
    final ProcedureCall call;
    final List<Short> resultFormats;
    CallOutcome outcome;
    /** Rows already sent (Execute with a row limit). */
    int sent;

    Portal(Prepared prepared, ProcedureCall call, List<Short> resultFormats) {
        this.prepared = prepared;
        this.call = call;
        this.resultFormats = resultFormats;
    }
}
