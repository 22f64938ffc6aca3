package sqlstore

import (
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"syscall"

	"github.com/jackc/pgx/v5/pgconn"
	"modernc.org/sqlite"

	"github.com/signalbox/signalbox/internal/apierr"
	"github.com/signalbox/signalbox/store"
)

// constraint classifies a driver error, so that both drivers' errors are
// adapted in one place.
type constraint int

const (
	otherError constraint = iota
	uniqueViolation
	foreignKeyViolation
	badValue
)

// SQLite extended result codes (sqlite3.h).
const (
	sqliteConstraintCheck      = 275
	sqliteConstraintForeignKey = 787
	sqliteConstraintNotNull    = 1299
	sqliteConstraintPrimaryKey = 1555
	sqliteConstraintUnique     = 2067
)

func classify(err error) constraint {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch {
		case pe.Code == "23505":
			return uniqueViolation
		case pe.Code == "23503":
			return foreignKeyViolation
		case pe.Code == "23514", pe.Code == "23502", len(pe.Code) == 5 && pe.Code[:2] == "22":
			// Check and not-null violations, and class 22 (data exception):
			// a NUL byte in text, an out-of-range number.
			return badValue
		}
		return otherError
	}
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() {
		case sqliteConstraintUnique, sqliteConstraintPrimaryKey:
			return uniqueViolation
		case sqliteConstraintForeignKey:
			return foreignKeyViolation
		case sqliteConstraintCheck, sqliteConstraintNotNull:
			return badValue
		}
	}
	return otherError
}

// adapt turns a driver error about subject (such as `feature "x"`) into the
// apierr kind callers act on. onFK is what a foreign-key violation means for
// the statement: a missing referenced record on insert, a record still in
// use on delete; nil means a generic NotFound. Other errors are wrapped
// with the subject and stay internal.
func adapt(err error, subject string, onFK *apierr.Error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, sql.ErrNoRows):
		return apierr.Wrap(apierr.NotFound, err, "%s not found", subject)
	}
	switch classify(err) {
	case uniqueViolation:
		return apierr.Wrap(apierr.NameExists, err, "%s already exists", subject)
	case foreignKeyViolation:
		if onFK == nil {
			return apierr.Wrap(apierr.NotFound, err, "%s refers to a record that does not exist", subject)
		}
		e := *onFK
		e.Err = err
		return &e
	case badValue:
		return apierr.Wrap(apierr.BadData, err, "%s has a value the database does not accept", subject)
	}
	return fmt.Errorf("%s: %w", subject, err)
}

// missing is the NotFound error for subject.
func missing(subject string) error {
	return apierr.New(apierr.NotFound, "%s not found", subject)
}

// affected returns NotFound for subject when res changed no row.
func affected(res sql.Result, err error, subject string, onFK *apierr.Error) error {
	if err != nil {
		return adapt(err, subject, onFK)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return fmt.Errorf("%s: %w", subject, err)
	}
	if n == 0 {
		return missing(subject)
	}
	return nil
}

// writeConflict reports a PostgreSQL deadlock or serialization failure: the
// transaction was rolled back and may simply run again.
func writeConflict(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && (pe.Code == "40P01" || pe.Code == "40001")
}

// SQLite primary result codes (sqlite3.h) of database trouble.
const (
	sqliteIOErr = 10
	sqliteFull  = 13
)

// databaseTrouble tells errors of the database itself (store.ErrDiskFull,
// store.ErrUnavailable) from errors of a statement; nil for the latter.
func databaseTrouble(err error) error {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch {
		case pe.Code == "53100": // disk_full
			return store.ErrDiskFull
		case strings.HasPrefix(pe.Code, "08"), // connection_exception
			pe.Code == "57P01", pe.Code == "57P02", pe.Code == "57P03": // shutting down, crashed, starting
			return store.ErrUnavailable
		}
		return nil
	}
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() & 0xff {
		case sqliteFull:
			return store.ErrDiskFull
		case sqliteIOErr:
			// An I/O error is disk space only when the system said so.
			if errors.Is(err, syscall.ENOSPC) || strings.Contains(strings.ToLower(se.Error()), "no space left") {
				return store.ErrDiskFull
			}
		}
		return nil
	}
	if errors.Is(err, syscall.ENOSPC) {
		return store.ErrDiskFull
	}
	var ce *pgconn.ConnectError
	var ne net.Error
	var oe *net.OpError
	switch {
	case errors.As(err, &ce), errors.As(err, &oe), errors.As(err, &ne),
		errors.Is(err, driver.ErrBadConn), errors.Is(err, io.ErrUnexpectedEOF),
		errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET):
		return store.ErrUnavailable
	}
	var ue *unreachableError
	if errors.As(err, &ue) {
		return store.ErrUnavailable
	}
	return nil
}

// classified returns err as a *store.DatabaseError naming the database when
// it is database trouble, unchanged otherwise.
func (s *Store) classified(err error) error { return classifiedAt(s.where, err) }

// classifiedAt is classified for the database described by where, which
// starts with the engine's name ("PostgreSQL at …", "SQLite file …").
func classifiedAt(where string, err error) error {
	if err == nil {
		return nil
	}
	var de *store.DatabaseError
	if errors.As(err, &de) {
		return err
	}
	if kind := databaseTrouble(err); kind != nil {
		engine, _, _ := strings.Cut(where, " ")
		return &store.DatabaseError{Kind: kind, Engine: engine, Database: where, Err: err}
	}
	return err
}
