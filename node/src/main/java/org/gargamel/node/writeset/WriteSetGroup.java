package org.gargamel.node.writeset;

import org.gargamel.common.lifecycle.FatalException;
import org.gargamel.common.wire.Abandon;
import org.gargamel.common.wire.Message;
import org.gargamel.common.wire.MessageEndpoint;
import org.gargamel.common.wire.WireCodec;
import org.gargamel.common.wire.WriteSet;
import org.jgroups.BytesMessage;
import org.jgroups.JChannel;

/**
 * This node's end of the write-set group (DESIGN.md §6): hands write-sets and ABANDON decisions to the total-order
 * broadcast. What the group delivers reaches the apply loop through the node's {@link MessageEndpoint}.
 *
 * <p>A send that fails may or may not have left this node: another replica may apply a write-set this node then
 * believes was never sent. So a failed send is a {@link FatalException}, never something to retry or ignore.
 */
public final class WriteSetGroup {
    private final String node;
    private final JChannel channel;

    public WriteSetGroup(String node, JChannel channel) {
        this.node = node;
        this.channel = channel;
    }

    /** Broadcasts a write-set (its encoding is checked first: a message that cannot be encoded is never sent). */
    public void broadcast(WriteSet writeSet) {
        send(writeSet, "the write-set of transaction " + writeSet.txnId() + " (" + writeSet.procedure() + ")");
    }

    /** Broadcasts the decision to settle a departed node's transactions, on the scheduler's behalf. */
    public void broadcast(Abandon decision) {
        send(
                decision,
                "the decision to settle " + decision.transactions().length + " transaction(s) of " + decision.origin());
    }

    private void send(Message message, String what) {
        byte[] encoded = WireCodec.encode(message);
        try {
            channel.send(new BytesMessage(null, encoded));
        } catch (Exception e) {
            throw new FatalException(
                    node + " cannot broadcast " + what + " (it may or may not have reached the other " + "replicas): "
                            + e,
                    e);
        }
    }
}
