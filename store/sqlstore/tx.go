package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/signalbox/signalbox/store"
)

var _ store.Tx = (*tx)(nil)

// tx implements store.Tx on one database transaction. It also serves View,
// where the database itself rejects writes.
type tx struct {
	d  *dialect
	tx *sql.Tx
	// dirty is set by every successful audited write, events counts
	// AppendEvent calls; Update checks them before it commits.
	dirty  bool
	events int
	// lastEvent is the id of the newest event appended, which is the
	// revision once the transaction commits.
	lastEvent int64
}

func (t *tx) exec(ctx context.Context, q string, args ...any) (sql.Result, error) {
	return t.tx.ExecContext(ctx, t.d.rebind(q), args...)
}

func (t *tx) query(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	return t.tx.QueryContext(ctx, t.d.rebind(q), args...)
}

func (t *tx) queryRow(ctx context.Context, q string, args ...any) *sql.Row {
	return t.tx.QueryRowContext(ctx, t.d.rebind(q), args...)
}

// now is the time stored for zero CreatedAt and similar fields.
func (t *tx) now() time.Time { return utc(time.Now()) }

// write runs an audited write: on success the transaction must also get an
// event before it commits.
func (t *tx) write(ctx context.Context, fn func() error) error {
	if err := t.guard(ctx, fn); err != nil {
		return err
	}
	t.dirty = true
	return nil
}

// guard runs fn inside a savepoint, so that a failing store method changes
// nothing even when it ran several statements, and leaves the transaction
// usable: PostgreSQL would otherwise refuse every later statement.
func (t *tx) guard(ctx context.Context, fn func() error) error {
	if _, err := t.tx.ExecContext(ctx, "SAVEPOINT store_write"); err != nil {
		return err
	}
	if err := fn(); err != nil {
		if _, rbErr := t.tx.ExecContext(ctx, "ROLLBACK TO SAVEPOINT store_write"); rbErr != nil {
			return errors.Join(err, rbErr)
		}
		return err
	}
	_, err := t.tx.ExecContext(ctx, "RELEASE SAVEPOINT store_write")
	return err
}

// scanner is a *sql.Row or *sql.Rows.
type scanner interface{ Scan(dest ...any) error }

// collect scans every row of a query with scan.
func collect[T any](rows *sql.Rows, err error, scan func(scanner) (T, error)) ([]T, error) {
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []T{}
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}
