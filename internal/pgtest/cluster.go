package pgtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// server is a PostgreSQL server the tests use: a cluster this package
// started (dir set) or an existing one from TEST_DATABASE_URL.
type server struct {
	// adminURL connects to the maintenance database as a superuser.
	adminURL string
	// dir holds the cluster's data directory, socket and log; empty for
	// an existing server, which is never stopped.
	dir    string
	pgCtl  string
	asUser string
	// pid is the postmaster's, read after start, as a last resort for stop.
	pid int
	// opts are the server options pg_ctl starts it with.
	opts string
}

// binGlob is where Debian and Ubuntu install the server binaries, which
// are not on PATH there by default. A variable for tests.
var binGlob = "/usr/lib/postgresql/*/bin"

// findBinaries returns the paths of initdb and pg_ctl.
func findBinaries() (initdb, pgCtl string, err error) {
	initdb, err1 := exec.LookPath("initdb")
	pgCtl, err2 := exec.LookPath("pg_ctl")
	if err1 == nil && err2 == nil {
		return initdb, pgCtl, nil
	}
	dirs, _ := filepath.Glob(binGlob)
	// Newest version last; a lexical sort is right until version 100.
	sort.Strings(dirs)
	for i := len(dirs) - 1; i >= 0; i-- {
		a, b := filepath.Join(dirs[i], "initdb"), filepath.Join(dirs[i], "pg_ctl")
		if isFile(a) && isFile(b) {
			return a, b, nil
		}
	}
	return "", "", errNoBinaries
}

func isFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}

// startCluster creates and starts a cluster in a new temporary directory.
func startCluster() (*server, error) {
	initdb, pgCtl, err := findBinaries()
	if err != nil {
		return nil, err
	}
	s := &server{pgCtl: pgCtl}
	if os.Geteuid() == 0 {
		// initdb refuses to run as root.
		if _, err := user.Lookup("postgres"); err != nil {
			return nil, fmt.Errorf("%w: running as root needs a postgres user to run them as", errNoBinaries)
		}
		s.asUser = "postgres"
	}
	reapStale()
	// Not t.TempDir: the socket path must stay under the ~107-byte limit
	// of Unix socket names, and a test name could push it over.
	dir, err := os.MkdirTemp("", "pgtest-")
	if err != nil {
		return nil, fmt.Errorf("pgtest: %w", err)
	}
	s.dir = dir
	// The postgres user writes the data directory, socket and log here.
	if err := os.Chmod(dir, 0o777); err != nil {
		s.cleanup()
		return nil, fmt.Errorf("pgtest: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "owner.pid"), []byte(strconv.Itoa(os.Getpid())), 0o644); err != nil {
		s.cleanup()
		return nil, fmt.Errorf("pgtest: %w", err)
	}
	data := filepath.Join(dir, "data")
	if out, err := s.run(initdb, "-D", data, "-U", "test", "--auth=trust", "-E", "UTF8", "--locale=C", "--no-sync"); err != nil {
		s.cleanup()
		return nil, fmt.Errorf("pgtest: initdb: %v\n%s", err, out)
	}
	// Durability is worthless for a throwaway cluster; speed is not.
	opts := fmt.Sprintf("-k '%s' -c listen_addresses='' -c fsync=off -c full_page_writes=off -c synchronous_commit=off -c max_connections=400", dir)
	s.opts = opts
	if err := s.start(); err != nil {
		s.stop()
		return nil, err
	}
	q := url.Values{"host": {dir}, "sslmode": {"disable"}}
	s.adminURL = "postgres://test@/postgres?" + q.Encode()
	return s, nil
}

// start starts the cluster's server, created by startCluster.
func (s *server) start() error {
	data := filepath.Join(s.dir, "data")
	logFile := filepath.Join(s.dir, "server.log")
	if out, err := s.run(s.pgCtl, "-D", data, "-l", logFile, "-w", "-t", "60", "-o", s.opts, "start"); err != nil {
		log, _ := os.ReadFile(logFile)
		return fmt.Errorf("pgtest: pg_ctl start: %v\n%s\n%s", err, out, log)
	}
	s.pid = readPID(data)
	return nil
}

// halt stops the cluster's server, ending its connections, and keeps its
// data for start. A fast stop, not an immediate one: with
// synchronous_commit off a crash could lose commits the test relies on.
func (s *server) halt() error {
	data := filepath.Join(s.dir, "data")
	if out, err := s.run(s.pgCtl, "-D", data, "-m", "fast", "-w", "-t", "30", "stop"); err != nil {
		return fmt.Errorf("pgtest: pg_ctl stop: %v\n%s", err, out)
	}
	return nil
}

// run runs a PostgreSQL binary, as the postgres user when we are root.
func (s *server) run(bin string, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var cmd *exec.Cmd
	if s.asUser != "" {
		cmd = exec.CommandContext(ctx, "runuser", append([]string{"-u", s.asUser, "--", bin}, args...)...)
	} else {
		cmd = exec.CommandContext(ctx, bin, args...)
	}
	// pg_ctl's server keeps running after pg_ctl exits; it must not hold
	// our output pipes open, so capture into a buffer, not a pipe reader.
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.Dir = os.TempDir()
	err := cmd.Run()
	return out.Bytes(), err
}

// stop stops a cluster this package started and removes its directory. An
// existing server (TEST_DATABASE_URL) is left alone.
func (s *server) stop() {
	if s.dir == "" {
		return
	}
	data := filepath.Join(s.dir, "data")
	if isFile(filepath.Join(data, "postmaster.pid")) {
		if out, err := s.run(s.pgCtl, "-D", data, "-m", "immediate", "-w", "-t", "30", "stop"); err != nil {
			fmt.Fprintf(os.Stderr, "pgtest: pg_ctl stop: %v\n%s", err, out)
			if s.pid > 0 {
				// Our own postmaster, by the PID it recorded.
				syscall.Kill(s.pid, syscall.SIGKILL)
			}
		}
	}
	s.cleanup()
}

func (s *server) cleanup() {
	if s.dir != "" {
		os.RemoveAll(s.dir)
	}
}

// readPID returns the postmaster PID from the first line of postmaster.pid.
func readPID(data string) int {
	b, err := os.ReadFile(filepath.Join(data, "postmaster.pid"))
	if err != nil {
		return 0
	}
	line, _, _ := strings.Cut(string(b), "\n")
	pid, _ := strconv.Atoi(strings.TrimSpace(line))
	return pid
}

// reapStale stops clusters left behind by test processes of this package
// that died without stopping them (killed, or timed out with SIGQUIT). Each
// cluster directory records its owner's PID; a cluster whose owner is gone
// is stopped and removed.
func reapStale() {
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), "pgtest-*"))
	for _, dir := range dirs {
		b, err := os.ReadFile(filepath.Join(dir, "owner.pid"))
		if err != nil {
			continue
		}
		owner, err := strconv.Atoi(strings.TrimSpace(string(b)))
		if err != nil || owner <= 0 || processAlive(owner) {
			continue
		}
		_, pgCtl, err := findBinaries()
		if err != nil {
			return
		}
		// pid stays 0: a PID from a dead run may belong to anyone by now,
		// so only pg_ctl, which checks, may stop it.
		stale := &server{dir: dir, pgCtl: pgCtl}
		if os.Geteuid() == 0 {
			stale.asUser = "postgres"
		}
		stale.stop()
	}
}

func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
