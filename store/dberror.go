package store

import "errors"

// Failures of the database itself rather than of a request. Errors of
// Store methods match them with errors.Is; their *DatabaseError names the
// database.
var (
	// ErrUnavailable: the database does not answer (refused or lost
	// connection, server shutting down). Retrying later may succeed.
	ErrUnavailable = errors.New("the database is unreachable")
	// ErrDiskFull: the database refused a write for lack of disk space.
	// Reads still work; writes fail until space is freed.
	ErrDiskFull = errors.New("the database's disk is full")
)

// DatabaseError is an error of the database itself: errors.Is(err, Kind)
// holds for it, and Database names the database in words safe to show
// (no password).
type DatabaseError struct {
	// Kind is ErrUnavailable or ErrDiskFull.
	Kind error
	// Engine is "PostgreSQL" or "SQLite".
	Engine string
	// Database is, for example, `PostgreSQL at postgres://app@db:5432/flags`
	// or `SQLite file data/signalbox.db`.
	Database string
	// Err is the driver's error.
	Err error
}

func (e *DatabaseError) Error() string {
	return e.Kind.Error() + " (" + e.Database + "): " + e.Err.Error()
}

// Is makes errors.Is(err, ErrUnavailable) and errors.Is(err, ErrDiskFull)
// work.
func (e *DatabaseError) Is(target error) bool { return target == e.Kind }

func (e *DatabaseError) Unwrap() error { return e.Err }
