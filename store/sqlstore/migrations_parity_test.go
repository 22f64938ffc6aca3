package sqlstore_test

import (
	"database/sql"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"
	_ "modernc.org/sqlite"

	"github.com/signalbox/signalbox/internal/pgtest"
	"github.com/signalbox/signalbox/store/migrations"
	"github.com/signalbox/signalbox/store/sqlstore"
)

// The two migration trees describe one schema: the same files, and after
// migrating, the same tables with the same columns (their types mapped to
// a few kinds), nullability, primary keys, indexes and foreign keys. A migration added
// to one tree only, or a column typed differently, fails here rather than
// on the other database in production.
func TestMigrationTreesMatch(t *testing.T) {
	names := func(dir string) []string {
		var out []string
		entries, err := fs.ReadDir(migrations.FS, dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			out = append(out, e.Name())
		}
		return out
	}
	if diff := cmp.Diff(names("sqlite"), names("postgres")); diff != "" {
		t.Errorf("migration files (-sqlite +postgres):\n%s", diff)
	}

	file := filepath.Join(t.TempDir(), "signalbox.db")
	lite, err := sqlstore.Open(t.Context(), file)
	if err != nil {
		t.Fatal(err)
	}
	lite.Close()
	url := pgtest.NewDatabase(t)
	pg, err := sqlstore.Open(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	pg.Close()

	fromSQLite := sqliteSchema(t, file)
	fromPostgres := postgresSchema(t, url)
	if diff := cmp.Diff(fromSQLite, fromPostgres); diff != "" {
		t.Errorf("schema after migrating (-sqlite +postgres):\n%s", diff)
	}
	fks := 0
	for _, l := range fromSQLite {
		if strings.HasPrefix(l, "foreign key ") {
			fks++
		}
	}
	if len(fromSQLite) < 200 || fks < 30 {
		t.Errorf("only %d schema lines, %d foreign keys read", len(fromSQLite), fks)
	}
}

// kinds maps declared column types to what the store relies on.
func kind(declared string) string {
	d := strings.ToLower(declared)
	switch {
	case strings.Contains(d, "int") || d == "serial" || d == "bigserial":
		return "integer"
	case strings.Contains(d, "bool"):
		return "boolean"
	case strings.Contains(d, "timestamp") || d == "datetime":
		return "time"
	case d == "bytea" || d == "blob":
		return "bytes"
	case strings.Contains(d, "double") || d == "real" || strings.Contains(d, "numeric"):
		return "real"
	default: // text, varchar, json, jsonb
		return "text"
	}
}

// sqliteSchema lists "table.column kind null|not-null[ pk]" and
// "index table(columns)" lines.
func sqliteSchema(t *testing.T, file string) []string {
	db, err := sql.Open("sqlite", file)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var out []string
	tables := queryStrings(t, db, `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name <> 'goose_db_version'`)
	for _, tbl := range tables {
		rows, err := db.Query(fmt.Sprintf(`SELECT name, type, "notnull", pk FROM pragma_table_info('%s')`, tbl))
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var name, typ string
			var notNull, pk int
			if err := rows.Scan(&name, &typ, &notNull, &pk); err != nil {
				t.Fatal(err)
			}
			out = append(out, columnLine(tbl, name, kind(typ), notNull == 1 || pk > 0, pk > 0))
		}
		rows.Close()
		for _, idx := range queryStrings(t, db, fmt.Sprintf(`SELECT name FROM pragma_index_list('%s') WHERE origin <> 'pk'`, tbl)) {
			cols := queryStrings(t, db, fmt.Sprintf(`SELECT name FROM pragma_index_info('%s') ORDER BY seqno`, idx))
			unique := queryStrings(t, db, fmt.Sprintf(`SELECT "unique" FROM pragma_index_list('%s') WHERE name = '%s'`, tbl, idx))
			out = append(out, indexLine(tbl, cols, len(unique) == 1 && unique[0] == "1"))
		}
		fks, err := db.Query(fmt.Sprintf(`SELECT "from", "table" FROM pragma_foreign_key_list('%s')`, tbl))
		if err != nil {
			t.Fatal(err)
		}
		for fks.Next() {
			var col, ref string
			if err := fks.Scan(&col, &ref); err != nil {
				t.Fatal(err)
			}
			out = append(out, fmt.Sprintf("foreign key %s.%s -> %s", tbl, col, ref))
		}
		fks.Close()
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func postgresSchema(t *testing.T, url string) []string {
	conn, err := pgx.Connect(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(t.Context())
	var out []string
	rows, err := conn.Query(t.Context(), `
		SELECT c.table_name, c.column_name, c.data_type, c.is_nullable = 'NO',
		       EXISTS (SELECT 1 FROM information_schema.table_constraints tc
		               JOIN information_schema.key_column_usage k ON k.constraint_name = tc.constraint_name AND k.table_name = tc.table_name
		               WHERE tc.constraint_type = 'PRIMARY KEY' AND tc.table_name = c.table_name AND k.column_name = c.column_name)
		FROM information_schema.columns c
		WHERE c.table_schema = current_schema() AND c.table_name <> 'goose_db_version'`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var tbl, col, typ string
		var notNull, pk bool
		if err := rows.Scan(&tbl, &col, &typ, &notNull, &pk); err != nil {
			t.Fatal(err)
		}
		out = append(out, columnLine(tbl, col, kind(typ), notNull, pk))
	}
	rows.Close()
	rows, err = conn.Query(t.Context(), `
		SELECT t.relname, ix.indisunique, array_agg(COALESCE(a.attname, '(expression)') ORDER BY k.n)
		FROM pg_index ix
		JOIN pg_class i ON i.oid = ix.indexrelid
		JOIN pg_class t ON t.oid = ix.indrelid
		JOIN pg_namespace ns ON ns.oid = t.relnamespace
		CROSS JOIN LATERAL unnest(ix.indkey) WITH ORDINALITY AS k(attnum, n)
		LEFT JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum AND k.attnum <> 0
		WHERE ns.nspname = current_schema() AND NOT ix.indisprimary AND t.relname <> 'goose_db_version'
		GROUP BY i.relname, t.relname, ix.indisunique`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var tbl string
		var unique bool
		var cols []string
		if err := rows.Scan(&tbl, &unique, &cols); err != nil {
			t.Fatal(err)
		}
		out = append(out, indexLine(tbl, cols, unique))
	}
	rows.Close()
	rows, err = conn.Query(t.Context(), `
		SELECT tc.table_name, kcu.column_name, ccu.table_name
		FROM information_schema.table_constraints tc
		JOIN information_schema.key_column_usage kcu ON kcu.constraint_name = tc.constraint_name AND kcu.table_schema = tc.table_schema
		JOIN information_schema.constraint_column_usage ccu ON ccu.constraint_name = tc.constraint_name AND ccu.table_schema = tc.table_schema
		WHERE tc.constraint_type = 'FOREIGN KEY' AND tc.table_schema = current_schema()`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var tbl, col, ref string
		if err := rows.Scan(&tbl, &col, &ref); err != nil {
			t.Fatal(err)
		}
		out = append(out, fmt.Sprintf("foreign key %s.%s -> %s", tbl, col, ref))
	}
	rows.Close()
	slices.Sort(out)
	return slices.Compact(out)
}

func columnLine(table, column, kind string, notNull, pk bool) string {
	s := fmt.Sprintf("%s.%s %s", table, column, kind)
	if notNull {
		s += " not-null"
	}
	if pk {
		s += " pk"
	}
	return s
}

func indexLine(table string, cols []string, unique bool) string {
	if unique {
		return fmt.Sprintf("unique index %s(%s)", table, strings.Join(cols, ","))
	}
	return fmt.Sprintf("index %s(%s)", table, strings.Join(cols, ","))
}

func queryStrings(t *testing.T, db *sql.DB, q string) []string {
	t.Helper()
	rows, err := db.Query(q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s sql.NullString
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		if !s.Valid {
			s.String = "(expression)"
		}
		out = append(out, s.String)
	}
	return out
}
