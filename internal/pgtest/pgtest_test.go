package pgtest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/jackc/pgx/v5"
)

func TestMain(m *testing.M) { Main(m) }

func TestNewDatabase(t *testing.T) {
	a, b := NewDatabase(t), NewDatabase(t)
	if a == b {
		t.Fatalf("two tests got the same database %s", a)
	}
	for _, u := range []string{a, b} {
		conn, err := pgx.Connect(t.Context(), u)
		if err != nil {
			t.Fatal(err)
		}
		// Each database starts empty and is ours to change.
		if _, err := conn.Exec(t.Context(), "CREATE TABLE t (id int)"); err != nil {
			t.Error(err)
		}
		conn.Close(t.Context())
	}
}

// fakeT records how skipOrFail ends a test without ending this one.
type fakeT struct {
	testing.TB
	ended string
}

type stop struct{}

func (f *fakeT) Helper() {}
func (f *fakeT) Skipf(format string, args ...any) {
	f.ended = "skip: " + fmt.Sprintf(format, args...)
	panic(stop{})
}
func (f *fakeT) Fatalf(format string, args ...any) {
	f.ended = "fatal: " + fmt.Sprintf(format, args...)
	panic(stop{})
}
func (f *fakeT) Fatal(args ...any) {
	f.ended = "fatal: " + fmt.Sprint(args...)
	panic(stop{})
}

func outcome(t *testing.T, err error) string {
	f := &fakeT{TB: t}
	func() {
		defer func() {
			if r := recover(); r != nil {
				if _, ok := r.(stop); !ok {
					panic(r)
				}
			}
		}()
		skipOrFail(f, err)
	}()
	return f.ended[:5]
}

func TestMissingBinariesSkipOnlyOutsideCI(t *testing.T) {
	tests := []struct {
		ci   string
		err  error
		want string
	}{
		{"", errNoBinaries, "skip:"},
		{"true", errNoBinaries, "fatal"},
		{"1", fmt.Errorf("wrapped: %w", errNoBinaries), "fatal"},
		{"", fmt.Errorf("pg_ctl start: exit status 1"), "fatal"},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("CI=%q/%v", tt.ci, tt.err), func(t *testing.T) {
			t.Setenv("CI", tt.ci)
			if got := outcome(t, tt.err); got != tt.want {
				t.Errorf("outcome %q, want %q", got, tt.want)
			}
		})
	}
}

func TestExternalServer(t *testing.T) {
	// Use the shared server as if it were an existing one: databases are
	// created and dropped on it, and it is never stopped.
	srv, err := sharedServer()
	if err != nil {
		skipOrFail(t, err)
	}
	t.Setenv(EnvURL, srv.adminURL)
	var name string
	t.Run("inner", func(t *testing.T) {
		u := Start(t)
		conn, err := pgx.Connect(t.Context(), u)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(t.Context())
		if err := conn.QueryRow(t.Context(), "SELECT current_database()").Scan(&name); err != nil {
			t.Fatal(err)
		}
	})
	var n int
	if err := srv.queryInt("SELECT count(*) FROM pg_database WHERE datname = $1", name, &n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Errorf("database %s was not dropped", name)
	}
	if err := srv.admin("SELECT 1"); err != nil {
		t.Errorf("external server stopped: %v", err)
	}
}

func (s *server) queryInt(q, arg string, dst *int) error {
	conn, err := pgx.Connect(context.Background(), s.adminURL)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	return conn.QueryRow(context.Background(), q, arg).Scan(dst)
}

func TestFindBinariesMissing(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	old := binGlob
	binGlob = filepath.Join(t.TempDir(), "*", "bin")
	defer func() { binGlob = old }()
	if _, _, err := findBinaries(); !errors.Is(err, errNoBinaries) {
		t.Errorf("findBinaries without PostgreSQL = %v, want errNoBinaries", err)
	}
}

func TestReapStaleRemovesDeadOwnersClusters(t *testing.T) {
	// A process that has exited: its PID is free (or reused much later).
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal("running true(1):", err)
	}
	dir, err := os.MkdirTemp("", "pgtest-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if err := os.WriteFile(filepath.Join(dir, "owner.pid"), []byte(strconv.Itoa(cmd.Process.Pid)), 0o644); err != nil {
		t.Fatal(err)
	}
	mine, err := os.MkdirTemp("", "pgtest-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(mine)
	if err := os.WriteFile(filepath.Join(mine, "owner.pid"), []byte(strconv.Itoa(os.Getpid())), 0o644); err != nil {
		t.Fatal(err)
	}
	reapStale()
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("cluster of a dead owner kept: %v", err)
	}
	if _, err := os.Stat(mine); err != nil {
		t.Errorf("cluster of a live owner removed: %v", err)
	}
}
