package org.gargamel.common.wire;

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
 *
 * <p>With several sites (docs/multisite.md) every site has its own active scheduler: {@code site} names the claimant's
 * site, and a claim concerns only that site's nodes (null: a single-site cluster). It is written last and only when
 * set, so claims in logs written before sites existed read as they did.
 */
public record EpochClaim(Address claimant, String site) implements Message {
    /** A single-site claim. */
    public EpochClaim(Address claimant) {
        this(claimant, null);
    }

    @Override
    public MessageType type() {
        return MessageType.EPOCH_CLAIM;
    }

    @Override
    public String describe() {
        return "EPOCH_CLAIM of " + claimant + (site == null ? "" : " for site " + site);
    }

    @Override
    public void writeBody(DataOutput out) throws IOException {
        Util.writeAddress(claimant, out);
        if (site != null) {
            WireCodec.writeString(out, site);
        }
    }

    static EpochClaim read(java.io.DataInputStream in) throws IOException {
        try {
            Address claimant = Util.readAddress(in);
            if (claimant == null) {
                throw new MalformedMessageException("EPOCH_CLAIM without a claimant");
            }
            // The site is the optional last field: present if any byte is left (the codec reads from an array).
            String site = in.available() > 0 ? WireCodec.readString(in) : null;
            return new EpochClaim(claimant, site);
        } catch (ClassNotFoundException e) {
            throw new MalformedMessageException("EPOCH_CLAIM: unreadable claimant address", e);
        }
    }
}
