package sqlstore

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/signalbox/signalbox/store"
)

func TestParseURL(t *testing.T) {
	tests := []struct {
		in      string
		dialect string
		target  string
		wantErr string
	}{
		{in: "", dialect: "sqlite", target: DefaultSQLitePath},
		{in: "data/flags.db", dialect: "sqlite", target: "data/flags.db"},
		{in: "/var/lib/signalbox/flags.db", dialect: "sqlite", target: "/var/lib/signalbox/flags.db"},
		{in: "sqlite:flags.db", dialect: "sqlite", target: "flags.db"},
		{in: "sqlite://flags.db", dialect: "sqlite", target: "flags.db"},
		{in: "sqlite:///abs/flags.db", dialect: "sqlite", target: "/abs/flags.db"},
		{in: "SQLite:flags.db", dialect: "sqlite", target: "flags.db"},
		{in: "postgres://u:p@db:5432/flags", dialect: "postgres", target: "postgres://u:p@db:5432/flags"},
		{in: "postgresql://db/flags?sslmode=require", dialect: "postgres", target: "postgresql://db/flags?sslmode=require"},
		{in: "sqlite:", wantErr: "names no SQLite file"},
		{in: "mysql://db/flags", wantErr: `unsupported database URL scheme "mysql"`},
		{in: "host=db dbname=flags", wantErr: "postgres:// URL form"},
		{in: ":memory:", wantErr: "in-memory"},
		{in: "sqlite:file::memory:?cache=shared", wantErr: "in-memory"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			d, target, err := parseURL(tt.in)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d.name != tt.dialect || target != tt.target {
				t.Errorf("got (%s, %q), want (%s, %q)", d.name, target, tt.dialect, tt.target)
			}
		})
	}
}

func TestRebind(t *testing.T) {
	q := `SELECT a FROM t WHERE b = ? AND c IN (?, ?)`
	if got := sqliteDialect.rebind(q); got != q {
		t.Errorf("sqlite rebind changed the query: %s", got)
	}
	if got, want := postgresDialect.rebind(q), `SELECT a FROM t WHERE b = $1 AND c IN ($2, $3)`; got != want {
		t.Errorf("postgres rebind = %s, want %s", got, want)
	}
}

func TestSQLiteDSNEscapesPath(t *testing.T) {
	dsn := sqliteDSN("dir/we?ird#name%.db", true)
	if !strings.HasPrefix(dsn, "file:dir/we%3fird%23name%25.db?") {
		t.Errorf("dsn = %s", dsn)
	}
	// A file whose name needs escaping opens and is created where asked.
	dir := t.TempDir()
	path := filepath.Join(dir, "sub dir", "a?b#c%d.db")
	s, err := Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	if _, err := os.Stat(path); err != nil {
		t.Errorf("database not created at %s: %v", path, err)
	}
}

func TestOpenErrors(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	blocker := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(blocker, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, url, want string
	}{
		{"bad postgres URL", "postgres://u:secret@db:notaport/flags", "invalid PostgreSQL URL"},
		{"unreachable postgres", "postgres://u:secret@/flags?host=" + filepath.Join(t.TempDir(), "no-socket-here"), "cannot connect to PostgreSQL"},
		{"parent is a file", "sqlite:" + filepath.Join(blocker, "x.db"), "creating the directory"},
		{"unsupported scheme", "redis://localhost", "unsupported database URL scheme"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Open(ctx, tt.url)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Open(%q) = %v, want an error containing %q", tt.url, err, tt.want)
			}
			if strings.Contains(err.Error(), "secret") {
				t.Errorf("error shows the password: %v", err)
			}
		})
	}
}

func TestReopenKeepsData(t *testing.T) {
	path := filepath.Join(t.TempDir(), "flags.db")
	for i := 0; i < 2; i++ {
		s, err := Open(t.Context(), path)
		if err != nil {
			t.Fatalf("open %d: %v", i, err)
		}
		if s.Dialect() != "sqlite" {
			t.Errorf("Dialect() = %q", s.Dialect())
		}
		if i == 0 {
			err = s.Update(t.Context(), func(tx store.Tx) error {
				if _, err := tx.CreateTagType(t.Context(), store.TagType{Name: "kept"}); err != nil {
					return err
				}
				_, err := tx.AppendEvent(t.Context(), store.Event{Type: "tag-type-created", CreatedBy: "test"})
				return err
			})
		} else {
			err = s.View(t.Context(), func(r store.Reader) error {
				_, err := r.GetTagType(t.Context(), "kept")
				return err
			})
		}
		if err != nil {
			t.Errorf("open %d: %v", i, err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
}
