package org.gargamel.common.wire;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import org.jgroups.Address;
import org.jgroups.util.Util;

/**
 * node → write-set log: scheduler {@code claimant} takes over. Where the log commits the first copy of a claimant's
 * claim, that claimant becomes the one active scheduler at every node, and the entry's index is its epoch: the high
 * half of every transaction id it hands out, so no id is ever used twice. Nodes then drop the calls of earlier epochs
 * that have not started, and run no call of an earlier epoch again. A claimant that was superseded never becomes active
 * again. Two active schedulers at once cannot exist: only the log, held by a majority, decides.
 */
public record EpochClaim(Address claimant) implements Message {
    @Override
    public MessageType type() {
        return MessageType.EPOCH_CLAIM;
    }

    @Override
    public String describe() {
        return "EPOCH_CLAIM of " + claimant;
    }

    @Override
    public void writeBody(DataOutput out) throws IOException {
        Util.writeAddress(claimant, out);
    }

    static EpochClaim read(DataInput in) throws IOException {
        try {
            Address claimant = Util.readAddress(in);
            if (claimant == null) {
                throw new MalformedMessageException("EPOCH_CLAIM without a claimant");
            }
            return new EpochClaim(claimant);
        } catch (ClassNotFoundException e) {
            throw new MalformedMessageException("EPOCH_CLAIM: unreadable claimant address", e);
        }
    }
}
