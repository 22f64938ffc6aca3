package sqlstore

import (
	"database/sql"
	"strconv"
	"strings"

	"github.com/pressly/goose/v3"
)

// dialect is everything that differs between SQLite and PostgreSQL once the
// schema is in place. Queries are written once, in the common subset: `?`
// placeholders, ON CONFLICT upserts, RETURNING, TRUE/FALSE, and times and
// JSON passed from Go rather than computed in SQL.
type dialect struct {
	name string
	// migrations is the directory of store/migrations for this dialect.
	migrations string
	goose      goose.Dialect
	// dollar: placeholders are $1, $2… instead of ?.
	dollar bool
	// ilike is the case-insensitive LIKE operator.
	ilike string
	// writeLock is run first in every Update. For PostgreSQL it takes a
	// transaction-scoped advisory lock: Updates then run one at a time, so
	// event ids are allocated in commit order (Revision never skips back
	// over a late commit) and read-check-write sequences cannot race. SQLite
	// gets the same from its single write connection.
	writeLock string
	// readTx are the options of View transactions. PostgreSQL needs
	// REPEATABLE READ for one snapshot across statements; SQLite read
	// transactions are snapshots already.
	readTx *sql.TxOptions
	// constraintUses selects distinct (context name, flag, project) of
	// every strategy constraint; JSON functions differ by dialect.
	constraintUses string
	// strategyLimits selects the store.StrategyLimits in one row.
	strategyLimits string
}

var sqliteDialect = &dialect{
	name:       "sqlite",
	migrations: "sqlite",
	goose:      goose.DialectSQLite3,
	ilike:      "LIKE",
	readTx:     &sql.TxOptions{ReadOnly: true},
	constraintUses: `SELECT DISTINCT json_extract(c.value, '$.contextName'), s.feature_name, f.project_id
		FROM strategies s JOIN features f ON f.name = s.feature_name, json_each(s.constraints) c
		WHERE json_type(s.constraints) = 'array'`,
	strategyLimits: `SELECT
		COALESCE((SELECT MAX(n) FROM (SELECT COUNT(*) AS n FROM strategies GROUP BY feature_name, environment)), 0),
		COALESCE((SELECT MAX(json_array_length(constraints)) FROM strategies WHERE json_type(constraints) = 'array'), 0),
		COALESCE((SELECT MAX(json_array_length(c.value, '$.values'))
			FROM strategies s, json_each(s.constraints) c
			WHERE json_type(s.constraints) = 'array' AND json_type(c.value, '$.values') = 'array'), 0)`,
}

// writeLockKey is an arbitrary constant, distinct from goose's own lock id.
const writeLockKey = 7_340_926_512_214

var postgresDialect = &dialect{
	name:       "postgres",
	migrations: "postgres",
	goose:      goose.DialectPostgres,
	dollar:     true,
	ilike:      "ILIKE",
	writeLock:  "SELECT pg_advisory_xact_lock(" + strconv.FormatInt(writeLockKey, 10) + ")",
	readTx:     &sql.TxOptions{ReadOnly: true, Isolation: sql.LevelRepeatableRead},
	constraintUses: `SELECT DISTINCT c->>'contextName', s.feature_name, f.project_id
		FROM strategies s JOIN features f ON f.name = s.feature_name
		CROSS JOIN LATERAL jsonb_array_elements(CASE WHEN jsonb_typeof(s.constraints) = 'array' THEN s.constraints ELSE '[]'::jsonb END) c`,
	strategyLimits: `SELECT
		COALESCE((SELECT MAX(n) FROM (SELECT COUNT(*) AS n FROM strategies GROUP BY feature_name, environment) g), 0),
		COALESCE((SELECT MAX(jsonb_array_length(constraints)) FROM strategies WHERE jsonb_typeof(constraints) = 'array'), 0),
		COALESCE((SELECT MAX(jsonb_array_length(c->'values'))
			FROM strategies s
			CROSS JOIN LATERAL jsonb_array_elements(CASE WHEN jsonb_typeof(s.constraints) = 'array' THEN s.constraints ELSE '[]'::jsonb END) c
			WHERE jsonb_typeof(c->'values') = 'array'), 0)`,
}

// rebind turns ? placeholders into $n for PostgreSQL. Queries never contain
// a literal question mark, so no quoting rules are needed.
func (d *dialect) rebind(q string) string {
	if !d.dollar || !strings.Contains(q, "?") {
		return q
	}
	var b strings.Builder
	b.Grow(len(q) + 8)
	n := 0
	for i := 0; i < len(q); i++ {
		if q[i] == '?' {
			n++
			b.WriteByte('$')
			b.WriteString(strconv.Itoa(n))
			continue
		}
		b.WriteByte(q[i])
	}
	return b.String()
}
