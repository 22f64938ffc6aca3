package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/signalbox/signalbox/internal/privfile"
)

// Describe names the database a URL opens, for start-up logs: the kind
// ("sqlite" or "postgres") and the file or the server and database, never a
// password. An unusable URL is described as such; Open reports why.
func Describe(dbURL string) (kind, where string) {
	d, target, err := parseURL(dbURL)
	if err != nil {
		return "unknown", "an invalid database URL"
	}
	if d == postgresDialect {
		return d.name, describePostgres(target)
	}
	if abs, err := filepath.Abs(target); err == nil {
		target = abs
	}
	return d.name, target
}

// unreachableError is a PostgreSQL server that could not be reached: worth
// another attempt, unlike a bad URL, a refused password or a failed
// migration.
type unreachableError struct {
	where string
	err   error
}

func (e *unreachableError) Error() string {
	return fmt.Sprintf("sqlstore: cannot connect to PostgreSQL at %s: %v", e.where, e.err)
}

func (e *unreachableError) Unwrap() error { return e.err }

// conciseError is a connection error told once: pgx tries a server again
// without TLS (sslmode=prefer) and for each address of a host, and lists
// every try on its own line, so one refused connection reads as several.
type conciseError struct{ err error }

func (e conciseError) Error() string {
	lines := strings.Split(e.err.Error(), "\n")
	seen := make(map[string]bool, len(lines))
	kept := lines[:0]
	for _, l := range lines {
		l = strings.TrimSpace(l)
		if l != "" && !seen[l] {
			seen[l] = true
			kept = append(kept, l)
		}
	}
	return strings.Join(kept, " ")
}

func (e conciseError) Unwrap() error { return e.err }

// retryable reports whether a failed connection may succeed later: the
// network did not answer, or the server answered that it is starting up or
// full. Any other answer of the server (wrong password, no such database)
// will not change by waiting.
func retryable(err error) bool {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch pe.Code {
		case "57P03", // cannot_connect_now: starting up or shutting down
			"53300": // too_many_connections
			return true
		}
		return false
	}
	return true
}

// Backoff between attempts of OpenRetrying.
const (
	firstRetryDelay = 500 * time.Millisecond
	maxRetryDelay   = 5 * time.Second
)

// OpenRetrying is Open that keeps trying an unreachable PostgreSQL server
// until wait has passed since the first attempt, with a growing pause
// between attempts; wait 0 tries once. Before each pause it calls onRetry
// (when not nil) with the attempt that failed, the pause and the cause.
// Other errors, and SQLite, fail at once.
func OpenRetrying(ctx context.Context, dbURL string, wait time.Duration, onRetry func(attempt int, pause time.Duration, err error)) (*Store, error) {
	deadline := time.Now().Add(wait)
	delay := firstRetryDelay
	for attempt := 1; ; attempt++ {
		s, err := Open(ctx, dbURL)
		var ue *unreachableError
		if err == nil || !errors.As(err, &ue) || !retryable(ue.err) {
			return s, err
		}
		left := time.Until(deadline)
		if left <= 0 || ctx.Err() != nil {
			if attempt == 1 {
				return nil, err
			}
			return nil, fmt.Errorf("sqlstore: cannot connect to PostgreSQL at %s after %d attempts in %s: %w",
				ue.where, attempt, wait, ue.err)
		}
		pause := min(delay, left)
		if onRetry != nil {
			onRetry(attempt, pause, ue.err)
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("sqlstore: gave up connecting to PostgreSQL at %s: %w", ue.where, ctx.Err())
		case <-time.After(pause):
		}
		delay = min(2*delay, maxRetryDelay)
	}
}

// BackupSQLite writes a consistent copy of the SQLite database at path to
// the new file dst, created 0600, with VACUUM INTO: one read transaction, so the copy is
// a snapshot even while a server writes to the database, and it includes
// what the -wal file holds. The copy is a single self-contained file (not
// in WAL mode) and is checked before BackupSQLite returns. The database is
// opened read-only and not migrated.
func BackupSQLite(ctx context.Context, path, dst string) error {
	if _, err := os.Stat(path); err != nil {
		return fmt.Errorf("sqlstore: no SQLite database at %s: %w", path, err)
	}
	// The copy holds password hashes and other secrets: its file is
	// created here, empty, for this user only (0600 whatever the umask)
	// and exclusively, so that nothing already at dst (a file or a link
	// another user planted) is ever written through; VACUUM INTO then
	// fills the empty file.
	f, err := privfile.CreateExclusive(dst)
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("sqlstore: %s exists; the backup must go to a new file", dst)
	}
	if err != nil {
		return fmt.Errorf("sqlstore: creating the backup file: %w", err)
	}
	if err := f.Close(); err != nil {
		_ = os.Remove(dst)
		return fmt.Errorf("sqlstore: creating the backup file: %w", err)
	}
	if err := vacuumInto(ctx, path, dst); err != nil {
		_ = os.Remove(dst)
		return err
	}
	return checkCopy(ctx, dst)
}

func vacuumInto(ctx context.Context, path, dst string) error {
	db, err := sql.Open("sqlite", backupDSN(path))
	if err != nil {
		return fmt.Errorf("sqlstore: opening SQLite database %s: %w", path, err)
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, "VACUUM INTO ?", dst); err != nil {
		return fmt.Errorf("sqlstore: copying %s to %s: %w", path, dst, err)
	}
	return nil
}

// backupDSN opens the database read-only (mode=ro) but, unlike the
// store's readers, without query_only, which refuses VACUUM INTO.
func backupDSN(path string) string {
	dsn := sqliteDSN(path, false)
	return strings.Replace(dsn, "_pragma=query_only(1)", "mode=ro", 1)
}

// checkCopy runs SQLite's quick integrity check on a finished backup.
func checkCopy(ctx context.Context, path string) error {
	db, err := sql.Open("sqlite", sqliteDSN(path, false))
	if err != nil {
		return err
	}
	defer db.Close()
	var res string
	if err := db.QueryRowContext(ctx, "PRAGMA quick_check").Scan(&res); err != nil {
		return fmt.Errorf("sqlstore: checking the backup %s: %w", path, err)
	}
	if res != "ok" {
		return fmt.Errorf("sqlstore: the backup %s failed its integrity check: %s", path, res)
	}
	return nil
}

// checkpoint moves everything in SQLite's -wal file into the database file
// and empties the -wal file, so that the database file alone holds the
// data once the store is closed.
func (s *Store) checkpoint() error {
	if s.d == postgresDialect {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	// A busy result (another process still reading) is no error: that
	// process's connections checkpoint when they close.
	var busy, logFrames, checkpointed int
	if err := s.wdb.QueryRowContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)").Scan(&busy, &logFrames, &checkpointed); err != nil {
		return fmt.Errorf("sqlstore: checkpointing the WAL: %w", err)
	}
	return nil
}
