package org.gargamel.node.transfer;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import org.gargamel.node.capture.WriteSetCapture;

/**
 * A digest of an application schema's definition, the same at every replica that holds the same schema: tables and
 * their columns (type, nullability, default), constraints (keys, uniques, checks, foreign keys), unique indexes,
 * functions and procedures (signature, result, volatility and body) and triggers other than Gargamel's own capture.
 * Not the data, and not what differs between healthy replicas (sequence positions, plain indexes, statistics). A node
 * sends it in its NODE_HELLO; the scheduler refuses a node whose schema differs from the first node's
 * (docs/protocol.md, Membership).
 */
public final class SchemaDigest {
    /** One line per definition, in a canonical order; names and catalogue renderings only, never OIDs. */
    private static final String DEFINITIONS = """
            SELECT definition FROM (
            SELECT 'column ' || c.relname || '.' || a.attname || ' ' || format_type(a.atttypid, a.atttypmod)
                   || CASE WHEN a.attnotnull THEN ' not null' ELSE '' END
                   || coalesce(' default ' || pg_get_expr(d.adbin, d.adrelid), '')
              FROM pg_class c
              JOIN pg_namespace n ON n.oid = c.relnamespace
              JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
              LEFT JOIN pg_attrdef d ON d.adrelid = c.oid AND d.adnum = a.attnum
             WHERE n.nspname = ? AND c.relkind IN ('r', 'p')
            UNION ALL
            SELECT 'constraint ' || c.relname || ' ' || pg_get_constraintdef(k.oid)
              FROM pg_constraint k
              JOIN pg_class c ON c.oid = k.conrelid
              JOIN pg_namespace n ON n.oid = c.relnamespace
             WHERE n.nspname = ?
            UNION ALL
            SELECT 'unique index ' || regexp_replace(pg_get_indexdef(i.indexrelid), '^CREATE UNIQUE INDEX \\S+ ', '')
              FROM pg_index i
              JOIN pg_class c ON c.oid = i.indrelid
              JOIN pg_namespace n ON n.oid = c.relnamespace
             WHERE n.nspname = ? AND i.indisunique
            UNION ALL
            SELECT CASE p.prokind WHEN 'p' THEN 'procedure ' ELSE 'function ' END || p.proname || '('
                   || pg_get_function_identity_arguments(p.oid) || ') '
                   || coalesce(pg_get_function_result(p.oid), '') || ' ' || p.provolatile::text || ' ' || md5(p.prosrc)
              FROM pg_proc p
              JOIN pg_namespace n ON n.oid = p.pronamespace
             WHERE n.nspname = ?
            UNION ALL
            SELECT 'trigger ' || regexp_replace(pg_get_triggerdef(t.oid), '^CREATE (CONSTRAINT )?TRIGGER ', '')
              FROM pg_trigger t
              JOIN pg_class c ON c.oid = t.tgrelid
              JOIN pg_namespace n ON n.oid = c.relnamespace
             WHERE n.nspname = ? AND NOT t.tgisinternal AND t.tgname <> ?
            ) AS definitions (definition)
            ORDER BY definition COLLATE "C"
            """;

    private SchemaDigest() {}

    /** The digest of {@code schema} as {@code connection} sees it (16 hex digits). */
    public static String of(Connection connection, String schema) throws SQLException {
        MessageDigest sha;
        try {
            sha = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has SHA-256", e);
        }
        for (String definition : definitions(connection, schema)) {
            sha.update(definition.getBytes(StandardCharsets.UTF_8));
            sha.update((byte) '\n');
        }
        return HexFormat.of().formatHex(sha.digest(), 0, 8);
    }

    /** The definitions the digest is made of, one line each, in their canonical order. */
    public static List<String> definitions(Connection connection, String schema) throws SQLException {
        List<String> definitions = new ArrayList<>();
        try (PreparedStatement statement = connection.prepareStatement(DEFINITIONS)) {
            for (int i = 1; i <= 5; i++) {
                statement.setString(i, schema);
            }
            statement.setString(6, WriteSetCapture.TRIGGER);
            try (ResultSet rows = statement.executeQuery()) {
                while (rows.next()) {
                    definitions.add(rows.getString(1));
                }
            }
        }
        return definitions;
    }
}
