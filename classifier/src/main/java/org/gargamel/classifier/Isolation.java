package org.gargamel.classifier;

import java.util.Locale;

/**
 * Conflict granularity (DESIGN.md §3). PSI: two writes conflict when they may touch the same row and share
 * a column, so New-Order (d_next_o_id) and Payment (d_ytd) of one district do not. SI: any two writes of
 * the same row conflict, because SI replicas commit in one total order and a node could otherwise wait on
 * a row lock held by a transaction that commits later in that order.
 */
public enum Isolation {
    SI, PSI;

    public static Isolation parse(String text) {
        try {
            return valueOf(text.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("unknown isolation '" + text + "' (expected si or psi)", e);
        }
    }
}
