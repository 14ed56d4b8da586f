package org.gargamel.classifier;

/**
 * A change a call really made that the write keys its rule predicts do not cover (docs/classifier.md, Rules checked
 * against what procedures write): the rule is unsound for this data.
 *
 * @param procedure the call's procedure
 * @param rule      where the rule stands and what it says: the write of that table closest to the change (its row
 *                  matched but not the column, or the table matched but not the row), else the procedure's entry, e.g.
 *                  {@code accounts.yaml:20 (update account key [id] columns [audits])}
 * @param table     the changed table
 * @param row       the changed row's primary key, e.g. {@code account(id=3)}
 * @param column    the changed column not covered; {@code *} for an inserted or deleted row (every column)
 * @param operation what the call did to the row: {@code insert}, {@code update} or {@code delete}
 */
public record UnsoundWrite(String procedure, String rule, String table, String row, String column, String operation) {

    /** e.g. {@code deposit wrote account(id=3) column balance, which its rule accounts.yaml:20 (...) does not declare}. */
    public String describe() {
        String what = column.equals("*") ? operation + " of " + row : row + " column " + column;
        return procedure + " wrote " + what + " (" + operation + "), which its rule " + rule + " does not declare";
    }
}
