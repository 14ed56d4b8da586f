package org.gargamel.node.transfer;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.gargamel.node.capture.WriteSetCapture;

/**
 * Recreates one schema's definition, read from a peer's catalogue, in an empty database (docs/node.md, Rebuild): what
 * pg_dump would write for an ordinary application schema, without pg_dump. Read from the peer inside the snapshot that
 * the data copy reads from, and executed here inside the transaction that receives the data, so the schema, the data
 * and the log position arrive together or not at all (PostgreSQL's DDL is transactional).
 *
 * <p>Two phases around the data: {@link Plan#beforeData} holds types (enum, composite, domain), sequences, functions
 * and procedures, tables (columns with their type, collation, identity, generation and NOT NULL), views, column and
 * domain defaults, domain constraints, sequence ownership and CHECK constraints; {@link Plan#afterData} holds primary
 * keys, unique and exclusion constraints, foreign keys, other indexes, triggers (not Gargamel's capture) and the
 * refresh of materialized views, as a restore does, so the rows are not indexed one by one. Functions whose signature
 * or SQL-standard body needs a relation come after the tables, interleaved with the views in the peer's creation
 * order. Every name is qualified (the catalogue is read with {@code search_path} set to {@code pg_catalog}).
 *
 * <p>Not reproduced: objects of an extension (the extension must be installed here already), owners, grants,
 * comments, row-level security, rules, statistics objects, partitioned, inherited and foreign tables, range and base
 * types, aggregates (a schema holding one of the last is refused, naming it). {@link #verify} then reads the copy back:
 * the same definitions, and the same {@link SchemaDigest}, as the peer, or the whole copy is rolled back.
 */
public final class SchemaCopy {
    /** The statements that recreate a schema, before and after its data. */
    public record Plan(List<String> beforeData, List<String> afterData) {
        public int size() {
            return beforeData.size() + afterData.size();
        }
    }

    /** {@code AND} the object in {@code column} (of catalogue {@code catalogue}) belongs to no extension. */
    private static String notInExtension(String catalogue, String column) {
        return " AND NOT EXISTS (SELECT 1 FROM pg_depend e WHERE e.classid = '" + catalogue
                + "'::regclass AND e.objid = " + column + " AND e.deptype = 'e') ";
    }

    private static final String UNSUPPORTED =
            """
            SELECT format('%s %I.%I', what, nspname, name) FROM (
            SELECT CASE c.relkind WHEN 'p' THEN 'the partitioned table' WHEN 'f' THEN 'the foreign table'
                   ELSE 'the partition or inheriting table' END AS what, n.nspname, c.relname AS name
              FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
             WHERE n.nspname = ? AND (c.relkind IN ('p', 'f') OR c.relispartition
                   OR EXISTS (SELECT 1 FROM pg_inherits h WHERE h.inhrelid = c.oid))
            """ + notInExtension("pg_class", "c.oid") + """
            UNION ALL
            SELECT CASE t.typtype WHEN 'r' THEN 'the range type' ELSE 'the base type' END, n.nspname, t.typname
              FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace
             WHERE n.nspname = ? AND t.typtype IN ('b', 'r', 'p')
               AND NOT EXISTS (SELECT 1 FROM pg_type a WHERE a.typarray = t.oid)
            """ + notInExtension("pg_type", "t.oid") + """
            UNION ALL
            SELECT 'the aggregate or window function', n.nspname, p.proname
              FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
             WHERE n.nspname = ? AND p.prokind IN ('a', 'w')
            """
                    + notInExtension("pg_proc", "p.oid") + """
            UNION ALL
            SELECT 'the table with row-level security', n.nspname, c.relname
              FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
             WHERE n.nspname = ? AND c.relrowsecurity
            """ + notInExtension("pg_class", "c.oid") + """
            ) AS unsupported (what, nspname, name)
            ORDER BY 1
            """;

    /** Enum, composite and domain types, in creation order (kind, oid, statement). */
    private static final String TYPES = """
            SELECT t.typtype, t.oid, CASE t.typtype
                   WHEN 'e' THEN format('CREATE TYPE %I.%I AS ENUM (%s)', n.nspname, t.typname,
                        (SELECT string_agg(quote_literal(l.enumlabel), ', ' ORDER BY l.enumsortorder)
                           FROM pg_enum l WHERE l.enumtypid = t.oid))
                   WHEN 'c' THEN format('CREATE TYPE %I.%I AS (%s)', n.nspname, t.typname,
                        (SELECT string_agg(format('%I %s', a.attname, format_type(a.atttypid, a.atttypmod))
                                || CASE WHEN a.attcollation <> 0 AND a.attcollation <> at.typcollation
                                        THEN format(' COLLATE %I.%I', cn.nspname, co.collname) ELSE '' END,
                                ', ' ORDER BY a.attnum)
                           FROM pg_attribute a
                           JOIN pg_type at ON at.oid = a.atttypid
                           LEFT JOIN pg_collation co ON co.oid = a.attcollation
                           LEFT JOIN pg_namespace cn ON cn.oid = co.collnamespace
                          WHERE a.attrelid = t.typrelid AND a.attnum > 0 AND NOT a.attisdropped))
                   ELSE format('CREATE DOMAIN %I.%I AS %s', n.nspname, t.typname, format_type(t.typbasetype, t.typtypmod))
                        || CASE WHEN t.typcollation <> 0 AND t.typcollation <> bt.typcollation
                                THEN format(' COLLATE %I.%I', cn.nspname, co.collname) ELSE '' END
                   END
              FROM pg_type t
              JOIN pg_namespace n ON n.oid = t.typnamespace
              LEFT JOIN pg_type bt ON bt.oid = t.typbasetype
              LEFT JOIN pg_collation co ON co.oid = t.typcollation
              LEFT JOIN pg_namespace cn ON cn.oid = co.collnamespace
             WHERE n.nspname = ? AND (t.typtype IN ('e', 'd')
                   OR t.typtype = 'c' AND (SELECT r.relkind FROM pg_class r WHERE r.oid = t.typrelid) = 'c')
            """ + notInExtension("pg_type", "t.oid") + """
             ORDER BY CASE t.typtype WHEN 'e' THEN 0 WHEN 'd' THEN 1 ELSE 2 END, t.oid
            """;

    /** Sequences other than identity columns' (which their column creates). */
    private static final String SEQUENCES = """
            SELECT format('CREATE SEQUENCE %I.%I AS %s INCREMENT BY %s MINVALUE %s MAXVALUE %s START WITH %s CACHE %s %s',
                          n.nspname, c.relname, format_type(s.seqtypid, NULL), s.seqincrement, s.seqmin, s.seqmax,
                          s.seqstart, s.seqcache, CASE WHEN s.seqcycle THEN 'CYCLE' ELSE 'NO CYCLE' END)
              FROM pg_class c
              JOIN pg_namespace n ON n.oid = c.relnamespace
              JOIN pg_sequence s ON s.seqrelid = c.oid
             WHERE n.nspname = ? AND c.relkind = 'S'
               AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_class'::regclass AND d.objid = c.oid
                               AND d.deptype IN ('i', 'e'))
             ORDER BY c.relname
            """;

    /**
     * Functions and procedures (oid, whether they need a relation first, definition): a signature naming a table's or
     * view's row type, or a SQL-standard body reading a relation, needs it to exist.
     */
    private static final String FUNCTIONS = """
            SELECT p.oid, EXISTS (
                     SELECT 1 FROM pg_depend d
                      WHERE d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'n'
                        AND (d.refclassid = 'pg_class'::regclass
                             OR d.refclassid = 'pg_type'::regclass AND EXISTS (
                                SELECT 1 FROM pg_type ty JOIN pg_class r
                                    ON r.oid = ty.typrelid
                                    OR r.oid = (SELECT el.typrelid FROM pg_type el WHERE el.oid = ty.typelem)
                                 WHERE ty.oid = d.refobjid AND r.relkind <> 'c'))),
                   pg_get_functiondef(p.oid)
              FROM pg_proc p
              JOIN pg_namespace n ON n.oid = p.pronamespace
             WHERE n.nspname = ? AND p.prokind IN ('f', 'p')
            """ + notInExtension("pg_proc", "p.oid") + """
             ORDER BY p.oid
            """;

    /** Ordinary tables (oid, statement head, options). */
    private static final String TABLES = """
            SELECT c.oid, format('CREATE %sTABLE %I.%I', CASE c.relpersistence WHEN 'u' THEN 'UNLOGGED ' ELSE '' END,
                                 n.nspname, c.relname),
                   CASE WHEN c.reloptions IS NULL THEN '' ELSE ' WITH (' || array_to_string(c.reloptions, ', ') || ')' END
              FROM pg_class c
              JOIN pg_namespace n ON n.oid = c.relnamespace
             WHERE n.nspname = ? AND c.relkind = 'r'
            """ + notInExtension("pg_class", "c.oid") + """
             ORDER BY c.relname
            """;

    /** A table's columns, in their order (a binary COPY depends on it). */
    private static final String COLUMNS = """
            SELECT format('%I %s', a.attname, format_type(a.atttypid, a.atttypmod))
                   || CASE WHEN a.attcollation <> 0 AND a.attcollation <> ty.typcollation
                           THEN format(' COLLATE %I.%I', cn.nspname, co.collname) ELSE '' END
                   || CASE a.attgenerated
                           WHEN 's' THEN ' GENERATED ALWAYS AS (' || pg_get_expr(d.adbin, d.adrelid) || ') STORED'
                           WHEN 'v' THEN ' GENERATED ALWAYS AS (' || pg_get_expr(d.adbin, d.adrelid) || ') VIRTUAL'
                           ELSE '' END
                   || CASE WHEN a.attidentity IN ('a', 'd') THEN coalesce((
                        SELECT format(' GENERATED %s AS IDENTITY (SEQUENCE NAME %I.%I START WITH %s INCREMENT BY %s '
                                      || 'MINVALUE %s MAXVALUE %s CACHE %s %s)',
                                      CASE a.attidentity WHEN 'a' THEN 'ALWAYS' ELSE 'BY DEFAULT' END, sn.nspname,
                                      sc.relname, s.seqstart, s.seqincrement, s.seqmin, s.seqmax, s.seqcache,
                                      CASE WHEN s.seqcycle THEN 'CYCLE' ELSE 'NO CYCLE' END)
                          FROM pg_depend dep
                          JOIN pg_class sc ON sc.oid = dep.objid AND sc.relkind = 'S'
                          JOIN pg_namespace sn ON sn.oid = sc.relnamespace
                          JOIN pg_sequence s ON s.seqrelid = sc.oid
                         WHERE dep.classid = 'pg_class'::regclass AND dep.refclassid = 'pg_class'::regclass
                           AND dep.refobjid = a.attrelid AND dep.refobjsubid = a.attnum AND dep.deptype = 'i'), '')
                      ELSE '' END
                   || CASE WHEN a.attnotnull THEN ' NOT NULL' ELSE '' END
              FROM pg_attribute a
              JOIN pg_type ty ON ty.oid = a.atttypid
              LEFT JOIN pg_collation co ON co.oid = a.attcollation
              LEFT JOIN pg_namespace cn ON cn.oid = co.collnamespace
              LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
             WHERE a.attrelid = ? AND a.attnum > 0 AND NOT a.attisdropped
             ORDER BY a.attnum
            """;

    /** Views and materialized views (oid, statement). */
    private static final String VIEWS = """
            SELECT c.oid, format('CREATE %sVIEW %I.%I%s AS %s%s',
                                 CASE c.relkind WHEN 'm' THEN 'MATERIALIZED ' ELSE '' END, n.nspname, c.relname,
                                 CASE WHEN c.reloptions IS NULL THEN ''
                                      ELSE ' WITH (' || array_to_string(c.reloptions, ', ') || ')' END,
                                 rtrim(rtrim(pg_get_viewdef(c.oid)), ';'),
                                 CASE c.relkind WHEN 'm' THEN ' WITH NO DATA' ELSE '' END)
              FROM pg_class c
              JOIN pg_namespace n ON n.oid = c.relnamespace
             WHERE n.nspname = ? AND c.relkind IN ('v', 'm')
            """ + notInExtension("pg_class", "c.oid") + """
             ORDER BY c.oid
            """;

    /** Column defaults (not generated columns': their expression is part of the column). */
    private static final String DEFAULTS = """
            SELECT format('ALTER TABLE %I.%I ALTER COLUMN %I SET DEFAULT %s', n.nspname, c.relname, a.attname,
                          pg_get_expr(d.adbin, d.adrelid))
              FROM pg_attrdef d
              JOIN pg_class c ON c.oid = d.adrelid
              JOIN pg_namespace n ON n.oid = c.relnamespace
              JOIN pg_attribute a ON a.attrelid = d.adrelid AND a.attnum = d.adnum
             WHERE n.nspname = ? AND c.relkind = 'r' AND a.attgenerated = '' AND NOT a.attisdropped
            """ + notInExtension("pg_class", "c.oid") + """
             ORDER BY c.relname, a.attnum
            """;

    /** Domain defaults and constraints (NOT NULL of a server that keeps it outside pg_constraint too). */
    private static final String DOMAIN_CONSTRAINTS = """
            SELECT statement FROM (
            SELECT t.oid, 0 AS rank, format('ALTER DOMAIN %I.%I SET DEFAULT %s', n.nspname, t.typname,
                                           pg_get_expr(t.typdefaultbin, 0)) AS statement
              FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace
             WHERE n.nspname = ? AND t.typtype = 'd' AND t.typdefaultbin IS NOT NULL
            """ + notInExtension("pg_type", "t.oid") + """
            UNION ALL
            SELECT t.oid, 1, format('ALTER DOMAIN %I.%I SET NOT NULL', n.nspname, t.typname)
              FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace
             WHERE n.nspname = ? AND t.typtype = 'd' AND t.typnotnull
               AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.contypid = t.oid AND k.contype = 'n')
            """
            + notInExtension("pg_type", "t.oid") + """
            UNION ALL
            SELECT t.oid, 2, format('ALTER DOMAIN %I.%I ADD CONSTRAINT %I %s', n.nspname, t.typname, k.conname,
                                    pg_get_constraintdef(k.oid))
              FROM pg_constraint k
              JOIN pg_type t ON t.oid = k.contypid
              JOIN pg_namespace n ON n.oid = t.typnamespace
             WHERE n.nspname = ?
            """ + notInExtension("pg_type", "t.oid") + """
            ) AS domains (oid, rank, statement)
            ORDER BY oid, rank, statement COLLATE "C"
            """;

    /** Sequences owned by a column (serial, or OWNED BY). */
    private static final String OWNED_BY = """
            SELECT format('ALTER SEQUENCE %I.%I OWNED BY %I.%I.%I', n.nspname, s.relname, tn.nspname, t.relname,
                          a.attname)
              FROM pg_depend d
              JOIN pg_class s ON s.oid = d.objid AND s.relkind = 'S'
              JOIN pg_namespace n ON n.oid = s.relnamespace
              JOIN pg_class t ON t.oid = d.refobjid
              JOIN pg_namespace tn ON tn.oid = t.relnamespace
              JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = d.refobjsubid
             WHERE n.nspname = ? AND d.classid = 'pg_class'::regclass AND d.refclassid = 'pg_class'::regclass
               AND d.deptype = 'a'
             ORDER BY s.relname
            """;

    /** Table constraints (kind, statement); NOT NULL is part of the column, a constraint trigger is a trigger. */
    private static final String CONSTRAINTS = """
            SELECT k.contype, format('ALTER TABLE %I.%I ADD CONSTRAINT %I %s', n.nspname, c.relname, k.conname,
                                     pg_get_constraintdef(k.oid))
              FROM pg_constraint k
              JOIN pg_class c ON c.oid = k.conrelid
              JOIN pg_namespace n ON n.oid = c.relnamespace
             WHERE n.nspname = ? AND c.relkind = 'r' AND k.contype IN ('c', 'p', 'u', 'x', 'f')
            """ + notInExtension("pg_class", "c.oid") + """
             ORDER BY c.relname, k.conname
            """;

    /** Indexes that back no key, unique or exclusion constraint. */
    private static final String INDEXES = """
            SELECT pg_get_indexdef(i.indexrelid)
              FROM pg_index i
              JOIN pg_class ic ON ic.oid = i.indexrelid
              JOIN pg_class c ON c.oid = i.indrelid
              JOIN pg_namespace n ON n.oid = c.relnamespace
             WHERE n.nspname = ? AND c.relkind IN ('r', 'm')
               AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conrelid = i.indrelid
                               AND k.conindid = i.indexrelid AND k.contype IN ('p', 'u', 'x'))
            """ + notInExtension("pg_class", "c.oid") + """
             ORDER BY ic.relname
            """;

    /** User triggers (not internal, not Gargamel's capture), then those not simply enabled. */
    private static final String TRIGGERS = """
            SELECT pg_get_triggerdef(t.oid), t.tgenabled, format('ALTER TABLE %I.%I', n.nspname, c.relname),
                   quote_ident(t.tgname)
              FROM pg_trigger t
              JOIN pg_class c ON c.oid = t.tgrelid
              JOIN pg_namespace n ON n.oid = c.relnamespace
             WHERE n.nspname = ? AND NOT t.tgisinternal AND t.tgname <> ?
            """ + notInExtension("pg_class", "c.oid") + """
             ORDER BY c.relname, t.tgname
            """;

    private static final String POPULATED_MATERIALIZED_VIEWS = """
            SELECT format('REFRESH MATERIALIZED VIEW %I.%I', n.nspname, c.relname)
              FROM pg_class c
              JOIN pg_namespace n ON n.oid = c.relnamespace
             WHERE n.nspname = ? AND c.relkind = 'm' AND c.relispopulated
            """ + notInExtension("pg_class", "c.oid") + """
             ORDER BY c.oid
            """;

    private SchemaCopy() {}

    /**
     * Whether {@code schema} holds no table and no function (objects of extensions aside), or does not exist: the
     * database of a new replica.
     */
    public static boolean isEmpty(Connection connection, String schema) throws SQLException {
        try (PreparedStatement query = connection.prepareStatement("SELECT NOT EXISTS (SELECT 1 FROM pg_class c "
                + "JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = ? AND c.relkind IN ('r', 'p')"
                + notInExtension("pg_class", "c.oid") + ") AND NOT EXISTS (SELECT 1 FROM pg_proc p JOIN pg_namespace n "
                + "ON n.oid = p.pronamespace WHERE n.nspname = ?" + notInExtension("pg_proc", "p.oid") + ")")) {
            query.setString(1, schema);
            query.setString(2, schema);
            try (ResultSet rows = query.executeQuery()) {
                rows.next();
                return rows.getBoolean(1);
            }
        }
    }

    /**
     * Reads the definition of {@code schema} from {@code connection} (in the caller's transaction, a snapshot when it
     * is REPEATABLE READ). Fails, naming it, on the first object the copy cannot reproduce.
     */
    public static Plan read(Connection connection, String schema) throws SQLException {
        String searchPath = qualifyEverything(connection);
        try {
            List<String> unsupported = strings(connection, UNSUPPORTED, schema, schema, schema, schema);
            if (!unsupported.isEmpty()) {
                throw new SQLException("schema " + schema + " holds " + unsupported.get(0)
                        + ", which a schema copy does not reproduce (docs/node.md, Rebuild)");
            }
            List<String> before = new ArrayList<>();
            before.add("CREATE SCHEMA IF NOT EXISTS " + quote(connection, schema));
            before.addAll(strings(connection, TYPES, 3, schema));
            before.addAll(strings(connection, SEQUENCES, schema));
            // Functions needing no relation first (a table's generated column may call one), then the tables,
            // then the others and the views in the order the peer created them (each may use those before it).
            Map<Long, String> afterTables = new TreeMap<>();
            try (PreparedStatement query = connection.prepareStatement(FUNCTIONS)) {
                query.setString(1, schema);
                try (ResultSet rows = query.executeQuery()) {
                    while (rows.next()) {
                        if (rows.getBoolean(2)) {
                            afterTables.put(rows.getLong(1), rows.getString(3));
                        } else {
                            before.add(rows.getString(3));
                        }
                    }
                }
            }
            before.addAll(tables(connection, schema));
            try (PreparedStatement query = connection.prepareStatement(VIEWS)) {
                query.setString(1, schema);
                try (ResultSet rows = query.executeQuery()) {
                    while (rows.next()) {
                        afterTables.put(rows.getLong(1), rows.getString(2));
                    }
                }
            }
            before.addAll(afterTables.values());
            before.addAll(strings(connection, DEFAULTS, schema));
            before.addAll(strings(connection, DOMAIN_CONSTRAINTS, schema, schema, schema));
            before.addAll(strings(connection, OWNED_BY, schema));
            List<String> keys = new ArrayList<>();
            List<String> foreignKeys = new ArrayList<>();
            try (PreparedStatement query = connection.prepareStatement(CONSTRAINTS)) {
                query.setString(1, schema);
                try (ResultSet rows = query.executeQuery()) {
                    while (rows.next()) {
                        switch (rows.getString(1)) {
                            case "c" -> before.add(rows.getString(2));
                            case "f" -> foreignKeys.add(rows.getString(2));
                            default -> keys.add(rows.getString(2));
                        }
                    }
                }
            }
            List<String> after = new ArrayList<>(keys);
            after.addAll(foreignKeys);
            after.addAll(strings(connection, INDEXES, schema));
            after.addAll(triggers(connection, schema));
            after.addAll(strings(connection, POPULATED_MATERIALIZED_VIEWS, schema));
            return new Plan(List.copyOf(before), List.copyOf(after));
        } finally {
            restore(connection, searchPath);
        }
    }

    /** Runs {@code statements} on {@code local}, in its transaction (function bodies are checked when they run). */
    public static void execute(Connection local, List<String> statements) throws SQLException {
        String searchPath = qualifyEverything(local);
        try (Statement statement = local.createStatement()) {
            statement.execute("SET LOCAL check_function_bodies = off");
            for (String sql : statements) {
                try {
                    statement.execute(sql);
                } catch (SQLException e) {
                    throw new SQLException(
                            "cannot recreate the schema here: " + e.getMessage() + " (in: " + abbreviate(sql) + ")",
                            e.getSQLState(),
                            e);
                }
            }
        }
        restore(local, searchPath);
    }

    /**
     * Checks that {@code local} now holds what {@code peer} does: the definitions {@link #read} finds, and the
     * definitions of the {@link SchemaDigest}. Fails naming the first that differs.
     */
    public static void verify(Connection peer, Connection local, String schema, Plan expected) throws SQLException {
        Plan copied = read(local, schema);
        compare("definition", all(expected), all(copied));
        compare("digested definition", SchemaDigest.definitions(peer, schema), SchemaDigest.definitions(local, schema));
    }

    private static List<String> all(Plan plan) {
        List<String> all = new ArrayList<>(plan.beforeData());
        all.addAll(plan.afterData());
        Collections.sort(all);
        return all;
    }

    private static void compare(String what, List<String> peer, List<String> local) throws SQLException {
        List<String> missing = new ArrayList<>(peer);
        for (String definition : local) {
            missing.remove(definition);
        }
        List<String> extra = new ArrayList<>(local);
        for (String definition : peer) {
            extra.remove(definition);
        }
        if (!missing.isEmpty()) {
            throw new SQLException("the schema copy differs from the peer: " + what + " " + abbreviate(missing.get(0))
                    + " is not reproduced here" + (extra.isEmpty() ? "" : " (here: " + abbreviate(extra.get(0)) + ")"));
        }
        if (!extra.isEmpty()) {
            throw new SQLException("the schema copy differs from the peer: " + what + " " + abbreviate(extra.get(0))
                    + " is only here");
        }
    }

    private static List<String> tables(Connection connection, String schema) throws SQLException {
        List<String> statements = new ArrayList<>();
        try (PreparedStatement query = connection.prepareStatement(TABLES);
                PreparedStatement columns = connection.prepareStatement(COLUMNS)) {
            query.setString(1, schema);
            try (ResultSet tables = query.executeQuery()) {
                while (tables.next()) {
                    columns.setLong(1, tables.getLong(1));
                    List<String> definitions = new ArrayList<>();
                    try (ResultSet rows = columns.executeQuery()) {
                        while (rows.next()) {
                            definitions.add(rows.getString(1));
                        }
                    }
                    statements.add(
                            tables.getString(2) + " (" + String.join(", ", definitions) + ")" + tables.getString(3));
                }
            }
        }
        return statements;
    }

    private static List<String> triggers(Connection connection, String schema) throws SQLException {
        List<String> created = new ArrayList<>();
        List<String> enabled = new ArrayList<>();
        try (PreparedStatement query = connection.prepareStatement(TRIGGERS)) {
            query.setString(1, schema);
            query.setString(2, WriteSetCapture.TRIGGER);
            try (ResultSet rows = query.executeQuery()) {
                while (rows.next()) {
                    created.add(rows.getString(1));
                    String state = switch (rows.getString(2)) {
                        case "D" -> " DISABLE TRIGGER ";
                        case "R" -> " ENABLE REPLICA TRIGGER ";
                        case "A" -> " ENABLE ALWAYS TRIGGER ";
                        default -> null;
                    };
                    if (state != null) {
                        enabled.add(rows.getString(3) + state + rows.getString(4));
                    }
                }
            }
        }
        created.addAll(enabled);
        return created;
    }

    /** The statements in column {@code column} of {@code sql}, whose parameters are all {@code schema}. */
    private static List<String> strings(Connection connection, String sql, int column, String... parameters)
            throws SQLException {
        List<String> strings = new ArrayList<>();
        try (PreparedStatement query = connection.prepareStatement(sql)) {
            for (int i = 0; i < parameters.length; i++) {
                query.setString(i + 1, parameters[i]);
            }
            try (ResultSet rows = query.executeQuery()) {
                while (rows.next()) {
                    strings.add(rows.getString(column));
                }
            }
        }
        return strings;
    }

    private static List<String> strings(Connection connection, String sql, String... parameters) throws SQLException {
        return strings(connection, sql, 1, parameters);
    }

    /**
     * Sets {@code search_path} to {@code pg_catalog} for the transaction, so the catalogue renders every name of the
     * schema qualified; returns the setting to restore.
     */
    private static String qualifyEverything(Connection connection) throws SQLException {
        if (connection.getAutoCommit()) {
            throw new SQLException("a schema copy reads and writes inside a transaction: autocommit must be off");
        }
        try (Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery(
                        "SELECT current_setting('search_path'), " + "set_config('search_path', 'pg_catalog', true)")) {
            rows.next();
            return rows.getString(1);
        }
    }

    private static void restore(Connection connection, String searchPath) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement("SELECT set_config('search_path', ?, true)")) {
            statement.setString(1, searchPath);
            statement.execute();
        }
    }

    private static String quote(Connection connection, String identifier) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement("SELECT quote_ident(?)")) {
            statement.setString(1, identifier);
            try (ResultSet rows = statement.executeQuery()) {
                rows.next();
                return rows.getString(1);
            }
        }
    }

    private static String abbreviate(String sql) {
        String line = sql.strip().replaceAll("\\s+", " ");
        return line.length() <= 200 ? line : line.substring(0, 200) + "...";
    }
}
