package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// DefaultSQLitePath is the database file used when Open gets an empty URL.
const DefaultSQLitePath = "data/signalbox.db"

// connectTimeout bounds the first connection when ctx has no deadline, so
// that a wrong host fails start-up with a message instead of hanging.
const connectTimeout = 15 * time.Second

// Open opens the database named by dbURL, applies pending migrations and
// returns the store. dbURL is one of:
//
//   - "" for DefaultSQLitePath;
//   - "sqlite:PATH", "sqlite://PATH" or a bare file path for SQLite (the
//     parent directory is created);
//   - "postgres://…" or "postgresql://…" for PostgreSQL (pgx URL syntax).
func Open(ctx context.Context, dbURL string) (*Store, error) {
	d, target, err := parseURL(dbURL)
	if err != nil {
		return nil, err
	}
	var s *Store
	if d == postgresDialect {
		s, err = openPostgres(ctx, target)
	} else {
		s, err = openSQLite(ctx, target)
	}
	if err != nil {
		return nil, err
	}
	if err := migrate(ctx, s.wdb, d); err != nil {
		s.Close()
		return nil, s.classified(err)
	}
	return s, nil
}

// parseURL picks the dialect and returns the SQLite path or the PostgreSQL
// URL.
func parseURL(raw string) (*dialect, string, error) {
	lower := strings.ToLower(raw)
	switch {
	case raw == "":
		return sqliteDialect, DefaultSQLitePath, nil
	case strings.HasPrefix(lower, "postgres://"), strings.HasPrefix(lower, "postgresql://"):
		return postgresDialect, raw, nil
	case strings.HasPrefix(lower, "sqlite:"):
		path := strings.TrimPrefix(raw[len("sqlite:"):], "//")
		if path == "" {
			return nil, "", fmt.Errorf("sqlstore: database URL %q names no SQLite file", raw)
		}
		return checkSQLitePath(path)
	case strings.Contains(raw, "://"):
		scheme, _, _ := strings.Cut(raw, "://")
		return nil, "", fmt.Errorf("sqlstore: unsupported database URL scheme %q: use postgres://, postgresql://, sqlite: or a file path", scheme)
	case strings.Contains(lower, "dbname=") || strings.HasPrefix(lower, "host="):
		return nil, "", fmt.Errorf("sqlstore: database URL looks like a PostgreSQL keyword/value string; use the postgres:// URL form")
	}
	return checkSQLitePath(raw)
}

func checkSQLitePath(path string) (*dialect, string, error) {
	if path == ":memory:" || strings.HasPrefix(path, "file::memory:") || strings.Contains(path, "mode=memory") {
		// Reads and writes use separate connections, which would each see
		// their own empty in-memory database.
		return nil, "", fmt.Errorf("sqlstore: in-memory SQLite is not supported; use a file in a temporary directory")
	}
	return sqliteDialect, path, nil
}

// sqliteDSN builds a modernc DSN. The path is escaped as a URI path because
// SQLite opens it as a URI. Pragmas are applied to every new connection:
// foreign keys are off by default in SQLite, and busy_timeout makes other
// processes' locks wait instead of fail.
func sqliteDSN(path string, write bool) string {
	esc := strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23").Replace(filepath.ToSlash(path))
	q := "_pragma=busy_timeout(10000)&_pragma=foreign_keys(1)&_time_format=sqlite"
	if write {
		// IMMEDIATE takes the write lock at BEGIN, so a transaction never
		// fails half-way upgrading a read lock; WAL lets readers run
		// alongside the writer.
		q += "&_pragma=journal_mode(WAL)&_txlock=immediate"
	} else {
		q += "&_pragma=query_only(1)"
	}
	return "file:" + esc + "?" + q
}

func openSQLite(ctx context.Context, path string) (*Store, error) {
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o750); err != nil {
			return nil, fmt.Errorf("sqlstore: creating the directory of SQLite database %s: %w", path, err)
		}
	}
	// One write connection serialises writers inside this process, so they
	// queue in database/sql (honouring ctx) instead of meeting SQLITE_BUSY.
	wdb, err := sql.Open("sqlite", sqliteDSN(path, true))
	if err != nil {
		return nil, fmt.Errorf("sqlstore: opening SQLite database %s: %w", path, err)
	}
	wdb.SetMaxOpenConns(1)
	// The write connection goes first: it switches the file to WAL mode.
	if err := wdb.PingContext(ctx); err != nil {
		wdb.Close()
		return nil, classifiedAt("SQLite file "+path, fmt.Errorf("sqlstore: opening SQLite database %s: %w", path, err))
	}
	rdb, err := sql.Open("sqlite", sqliteDSN(path, false))
	if err != nil {
		wdb.Close()
		return nil, fmt.Errorf("sqlstore: opening SQLite database %s: %w", path, err)
	}
	n := max(4, runtime.GOMAXPROCS(0))
	rdb.SetMaxOpenConns(n)
	rdb.SetMaxIdleConns(n)
	return newStore(sqliteDialect, rdb, wdb, "SQLite file "+path), nil
}

func openPostgres(ctx context.Context, dbURL string) (*Store, error) {
	cfg, err := pgx.ParseConfig(dbURL)
	if err != nil {
		// pgx's message already hides the password.
		return nil, fmt.Errorf("sqlstore: invalid PostgreSQL URL: %w", err)
	}
	where := describePostgres(dbURL)
	db := stdlib.OpenDB(*cfg)
	db.SetMaxOpenConns(20)
	db.SetMaxIdleConns(10)
	db.SetConnMaxIdleTime(5 * time.Minute)
	pctx := ctx
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		pctx, cancel = context.WithTimeout(ctx, connectTimeout)
		defer cancel()
	}
	if err := db.PingContext(pctx); err != nil {
		db.Close()
		return nil, &unreachableError{where: where, err: conciseError{err}}
	}
	s := newStore(postgresDialect, db, db, "PostgreSQL at "+where)
	s.notify.config = cfg
	return s, nil
}

// describePostgres names the server and database of a URL without its
// password, for error messages.
func describePostgres(dbURL string) string {
	u, err := url.Parse(dbURL)
	if err != nil {
		return "the configured URL"
	}
	if u.User != nil {
		u.User = url.User(u.User.Username())
	}
	// The query may carry a password too; keep only the socket directory.
	q := url.Values{}
	if h := u.Query().Get("host"); h != "" {
		q.Set("host", h)
	}
	u.RawQuery = q.Encode()
	return u.String()
}
