// Package sqlstore implements store.Store on database/sql for SQLite
// (modernc.org/sqlite, pure Go) and PostgreSQL (pgx). One set of queries
// serves both; dialect.go holds the few differences and errors.go adapts
// both drivers' errors to apierr kinds. Migrations are embedded from
// store/migrations and applied by Open.
package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/signalbox/signalbox/store"
)

var _ store.Store = (*Store)(nil)

// Store is a store.Store backed by SQLite or PostgreSQL.
type Store struct {
	d *dialect
	// db serves View and Revision.
	db *sql.DB
	// wdb serves Update: for SQLite a pool of one connection, for
	// PostgreSQL the same pool as db.
	wdb *sql.DB
	// writer admits one Update of this process at a time, before it takes
	// a connection: waiting writers then hold no connection that Views
	// need. The dialect's write lock still orders writers across processes.
	writer chan struct{}
	// notify announces committed revisions to other processes
	// (PostgreSQL only; see notify.go).
	notify notifier
	// where names the database in errors, without a password.
	where string
}

func newStore(d *dialect, db, wdb *sql.DB, where string) *Store {
	return &Store{d: d, db: db, wdb: wdb, writer: make(chan struct{}, 1), where: where}
}

// Dialect returns "sqlite" or "postgres".
func (s *Store) Dialect() string { return s.d.name }

// View implements store.Store. Errors of the database itself are
// *store.DatabaseError (see classified), as for every method of Store.
func (s *Store) View(ctx context.Context, fn func(store.Reader) error) error {
	return s.classified(s.view(ctx, fn))
}

func (s *Store) view(ctx context.Context, fn func(store.Reader) error) error {
	sqlTx, err := s.db.BeginTx(ctx, s.d.readTx)
	if err != nil {
		return fmt.Errorf("sqlstore: begin read: %w", err)
	}
	// A read transaction has nothing to commit; rolling back also covers a
	// panic in fn.
	defer sqlTx.Rollback()
	return fn(&tx{d: s.d, tx: sqlTx})
}

// Update implements store.Store.
func (s *Store) Update(ctx context.Context, fn func(store.Tx) error) error {
	return s.classified(s.update(ctx, fn))
}

func (s *Store) update(ctx context.Context, fn func(store.Tx) error) error {
	select {
	case s.writer <- struct{}{}:
		defer func() { <-s.writer }()
	case <-ctx.Done():
		return ctx.Err()
	}
	sqlTx, err := s.wdb.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("sqlstore: begin write: %w", err)
	}
	done := false
	defer func() {
		if !done {
			sqlTx.Rollback()
		}
	}()
	if s.d.writeLock != "" {
		if _, err := sqlTx.ExecContext(ctx, s.d.writeLock); err != nil {
			return fmt.Errorf("sqlstore: taking the write lock: %w", err)
		}
	}
	t := &tx{d: s.d, tx: sqlTx}
	if err := fn(t); err != nil {
		return err
	}
	if t.dirty && t.events == 0 {
		return store.ErrUnaudited
	}
	if err := s.notify.announce(ctx, sqlTx, t.lastEvent); err != nil {
		return err
	}
	done = true
	if err := sqlTx.Commit(); err != nil {
		return fmt.Errorf("sqlstore: commit: %w", err)
	}
	return nil
}

// Revision implements store.Store.
func (s *Store) Revision(ctx context.Context) (int64, error) {
	var rev int64
	if err := s.db.QueryRowContext(ctx, revisionQuery).Scan(&rev); err != nil {
		return 0, s.classified(fmt.Errorf("sqlstore: revision: %w", err))
	}
	return rev, nil
}

// Kind names the database the store runs on: "sqlite" or "postgres".
func (s *Store) Kind() string { return s.d.name }

// Close implements store.Store. For SQLite it first checkpoints the WAL
// (after the readers are closed), so that after a clean stop the database
// file alone holds every change, even while another process has the
// database open (SQLite checkpoints by itself only when the last
// connection closes).
func (s *Store) Close() error {
	err := s.db.Close()
	if s.wdb != s.db {
		err = errors.Join(err, s.checkpoint(), s.wdb.Close())
	}
	return err
}
