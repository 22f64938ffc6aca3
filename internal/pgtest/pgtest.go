// Package pgtest gives tests a throwaway PostgreSQL database.
//
// A package whose tests need PostgreSQL calls Main from TestMain, and each
// test calls NewDatabase for a fresh, empty database:
//
//	func TestMain(m *testing.M) { pgtest.Main(m) }
//
//	func TestSomething(t *testing.T) {
//		url := pgtest.NewDatabase(t) // postgres://…, dropped after the test
//	}
//
// The server is started on first use from the machine's initdb and pg_ctl
// (found on PATH or in the Debian location), in a temporary directory, on a
// Unix socket only, with fsync off; Main stops it when the tests end. As
// root, the binaries run as the postgres user through runuser, because
// initdb refuses to run as root.
//
// TEST_DATABASE_URL (a postgres:// URL with rights to create databases)
// points the tests at an existing server instead.
//
// Without PostgreSQL binaries tests are skipped, except when the CI
// environment variable is set: a skipped database test in CI would hide a
// broken setup, so it fails instead.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/signal"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// EnvURL names the variable that selects an existing server.
const EnvURL = "TEST_DATABASE_URL"

// errNoBinaries means PostgreSQL is not installed here.
var errNoBinaries = errors.New("pgtest: PostgreSQL binaries (initdb, pg_ctl) not found")

var (
	mainActive atomic.Bool
	mu         sync.Mutex
	shared     *server
	sharedErr  error
	dbCounter  atomic.Int64
)

// Main runs the tests of m and then stops the server that NewDatabase
// started, if any, and exits with the tests' status. Interrupting the tests
// (SIGINT, SIGTERM) stops the server too. Each of after runs once the
// tests are done, with the exit status so far, and returns the one to use.
func Main(m *testing.M, after ...func(code int) int) {
	mainActive.Store(true)
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	go func() {
		s := <-sig
		stopShared()
		fmt.Fprintf(os.Stderr, "pgtest: stopped PostgreSQL after %v\n", s)
		os.Exit(1)
	}()
	code := m.Run()
	for _, f := range after {
		code = f(code)
	}
	signal.Stop(sig)
	stopShared()
	os.Exit(code)
}

// NewDatabase creates an empty database for t and returns its URL. The
// database is dropped when t ends. Without Main in the package, each call
// starts (and stops) a server of its own, which is slower but still right.
func NewDatabase(t testing.TB) string {
	t.Helper()
	if !mainActive.Load() {
		return Start(t)
	}
	srv, err := sharedServer()
	if err != nil {
		skipOrFail(t, err)
	}
	return srv.createDatabase(t)
}

// Start starts a server for t alone, stopped when t ends, and returns the
// URL of an empty database on it. With TEST_DATABASE_URL set it creates the
// database there instead.
func Start(t testing.TB) string {
	t.Helper()
	srv, err := startServer()
	if err != nil {
		skipOrFail(t, err)
	}
	t.Cleanup(srv.stop)
	return srv.createDatabase(t)
}

// Stoppable is a server for one test alone that the test stops and starts
// again, to see what happens while the database is down. URL names an
// empty database on it.
type Stoppable struct {
	URL     string
	s       *server
	stopped bool
}

// StartStoppable starts a Stoppable, stopped for good when t ends. It
// starts a cluster of its own from the machine's binaries even when
// TEST_DATABASE_URL names a server: an existing server is never stopped.
func StartStoppable(t testing.TB) *Stoppable {
	t.Helper()
	srv, err := startCluster()
	if err != nil {
		skipOrFail(t, err)
	}
	t.Cleanup(srv.stop)
	c := &Stoppable{s: srv, URL: srv.createDatabase(t)}
	// Up again before the database is dropped.
	t.Cleanup(func() {
		if c.stopped {
			c.Start(t)
		}
	})
	return c
}

// Stop stops the server: open connections break and new ones are refused
// until Start.
func (c *Stoppable) Stop(t testing.TB) {
	t.Helper()
	if err := c.s.halt(); err != nil {
		t.Fatal(err)
	}
	c.stopped = true
}

// Start starts the server again, with the data it had.
func (c *Stoppable) Start(t testing.TB) {
	t.Helper()
	if err := c.s.start(); err != nil {
		t.Fatal(err)
	}
	c.stopped = false
}

func sharedServer() (*server, error) {
	mu.Lock()
	defer mu.Unlock()
	if shared == nil && sharedErr == nil {
		shared, sharedErr = startServer()
	}
	return shared, sharedErr
}

func stopShared() {
	mu.Lock()
	defer mu.Unlock()
	if shared != nil {
		shared.stop()
		shared = nil
	}
}

func skipOrFail(t testing.TB, err error) {
	t.Helper()
	if errors.Is(err, errNoBinaries) && os.Getenv("CI") == "" {
		t.Skipf("%v; install PostgreSQL or set %s", err, EnvURL)
	}
	if errors.Is(err, errNoBinaries) {
		t.Fatalf("%v, and CI is set: database tests must not be skipped in CI", err)
	}
	t.Fatal(err)
}

func startServer() (*server, error) {
	if u := os.Getenv(EnvURL); u != "" {
		return &server{adminURL: u}, nil
	}
	return startCluster()
}

// createDatabase creates a uniquely named database and registers its drop.
func (s *server) createDatabase(t testing.TB) string {
	t.Helper()
	suffix := make([]byte, 4)
	rand.Read(suffix)
	// Unique across concurrent test processes sharing one server.
	name := fmt.Sprintf("pgtest_%d_%d_%s", os.Getpid(), dbCounter.Add(1), hex.EncodeToString(suffix))
	if err := s.admin(fmt.Sprintf("CREATE DATABASE %s", pgx.Identifier{name}.Sanitize())); err != nil {
		t.Fatalf("pgtest: creating database: %v", err)
	}
	t.Cleanup(func() {
		// FORCE ends connections a test left open.
		if err := s.admin(fmt.Sprintf("DROP DATABASE IF EXISTS %s WITH (FORCE)", pgx.Identifier{name}.Sanitize())); err != nil {
			t.Errorf("pgtest: dropping database %s: %v", name, err)
		}
	})
	u, err := url.Parse(s.adminURL)
	if err != nil {
		t.Fatalf("pgtest: %s is not a URL: %v", EnvURL, err)
	}
	u.Path = "/" + name
	return u.String()
}

// admin runs one statement on the server's maintenance database.
func (s *server) admin(stmt string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, s.adminURL)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, stmt)
	return err
}
