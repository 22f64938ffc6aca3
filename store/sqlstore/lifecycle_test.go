package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/signalbox/signalbox/store"
)

// addTagType writes one audited change.
func addTagType(t *testing.T, s *Store, name string) {
	t.Helper()
	err := s.Update(t.Context(), func(tx store.Tx) error {
		if _, err := tx.CreateTagType(t.Context(), store.TagType{Name: name}); err != nil {
			return err
		}
		_, err := tx.AppendEvent(t.Context(), store.Event{Type: "tag-type-created", CreatedBy: "test"})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// hasTagType opens path on its own and reports whether the tag type is
// there.
func hasTagType(t *testing.T, path, name string) bool {
	t.Helper()
	s, err := Open(t.Context(), path)
	if err != nil {
		t.Fatalf("opening %s: %v", path, err)
	}
	defer s.Close()
	err = s.View(t.Context(), func(r store.Reader) error {
		_, err := r.GetTagType(t.Context(), name)
		return err
	})
	return err == nil
}

// TestBackupWhileOpen backs up a database a store has open, with its last
// change still in the WAL, as "signalbox backup" does next to a running
// server: the copy alone holds every change made before it.
func TestBackupWhileOpen(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "signalbox.db")
	s, err := Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	addTagType(t, s, "before-backup")
	if fi, err := os.Stat(path + "-wal"); err != nil || fi.Size() == 0 {
		t.Fatalf("the change should still be in the WAL: %v", err)
	}

	viaFile := filepath.Join(dir, "copy-file.db")
	if err := BackupSQLite(t.Context(), path, viaFile); err != nil {
		t.Fatal(err)
	}
	addTagType(t, s, "after-backup")

	for _, copyPath := range []string{viaFile} {
		// Only the copy's own file travels: no -wal next to it.
		if _, err := os.Stat(copyPath + "-wal"); err == nil {
			t.Errorf("%s has a -wal file", copyPath)
		}
		moved := filepath.Join(t.TempDir(), "signalbox.db")
		data, err := os.ReadFile(copyPath)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(moved, data, 0o600); err != nil {
			t.Fatal(err)
		}
		if !hasTagType(t, moved, "before-backup") {
			t.Errorf("%s lacks the change made before the backup", filepath.Base(copyPath))
		}
		if hasTagType(t, moved, "after-backup") {
			t.Errorf("%s has a change made after the backup", filepath.Base(copyPath))
		}
	}
}

func TestBackupErrors(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "signalbox.db")
	if err := BackupSQLite(t.Context(), path, filepath.Join(dir, "copy.db")); err == nil || !strings.Contains(err.Error(), "no SQLite database") {
		t.Errorf("missing database: %v", err)
	}
	if _, err := os.Stat(path); err == nil {
		t.Error("backing up a missing database created it")
	}
	s, err := Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	exists := filepath.Join(dir, "exists.db")
	if err := os.WriteFile(exists, []byte("keep me"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := BackupSQLite(t.Context(), path, exists); err == nil || !strings.Contains(err.Error(), "exists") {
		t.Errorf("backup over an existing file: %v", err)
	}
	if b, _ := os.ReadFile(exists); string(b) != "keep me" {
		t.Errorf("the existing file was changed: %q", b)
	}
	// A link planted at the destination is not followed.
	target := filepath.Join(dir, "target.db")
	link := filepath.Join(dir, "link.db")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if err := BackupSQLite(t.Context(), path, link); err == nil || !strings.Contains(err.Error(), "exists") {
		t.Errorf("backup through a planted link: %v", err)
	}
	if _, err := os.Stat(target); err == nil {
		t.Error("the backup was written through a planted link")
	}
	// A backup that fails leaves no file behind.
	if err := BackupSQLite(t.Context(), path, filepath.Join(dir, "missing-folder", "copy.db")); err == nil {
		t.Error("a backup into a missing folder succeeded")
	}
}

// TestCloseCheckpoints: after Close the database file alone holds every
// change, so copying just signalbox.db of a stopped server is a backup,
// even when another connection (a second instance, a shell) still has the
// database open and SQLite therefore does not checkpoint by itself.
func TestCloseCheckpoints(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "signalbox.db")
	s, err := Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	other, err := sql.Open("sqlite", sqliteDSN(path, false))
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if err := other.PingContext(t.Context()); err != nil {
		t.Fatal(err)
	}
	addTagType(t, s, "kept")
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(path + "-wal"); err == nil && fi.Size() > 0 {
		t.Errorf("the -wal file still holds %d bytes after Close", fi.Size())
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	alone := filepath.Join(t.TempDir(), "signalbox.db")
	if err := os.WriteFile(alone, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if !hasTagType(t, alone, "kept") {
		t.Error("the database file alone lacks the change")
	}
}

// closedPort returns a loopback port with nothing listening on it.
func closedPort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	return strconv.Itoa(port)
}

// TestOpenRetryingUnreachable: an unreachable PostgreSQL is tried again
// until the bound, each failed attempt is reported once, and the final
// error says how long it tried and shows no password.
func TestOpenRetryingUnreachable(t *testing.T) {
	url := "postgres://u:secret@127.0.0.1:" + closedPort(t) + "/flags"
	var attempts []int
	_, err := OpenRetrying(t.Context(), url, 1200*time.Millisecond, func(attempt int, pause time.Duration, err error) {
		attempts = append(attempts, attempt)
		if pause <= 0 || err == nil {
			t.Errorf("attempt %d: pause %s, err %v", attempt, pause, err)
		}
		if strings.Contains(err.Error(), "secret") {
			t.Errorf("attempt %d shows the password: %v", attempt, err)
		}
	})
	if err == nil {
		t.Fatal("opened an unreachable database")
	}
	if len(attempts) < 2 {
		t.Errorf("retried %d times, want at least 2", len(attempts))
	}
	for i, a := range attempts {
		if a != i+1 {
			t.Errorf("attempts %v are not numbered 1, 2, …", attempts)
			break
		}
	}
	msg := err.Error()
	if !strings.Contains(msg, "after "+strconv.Itoa(len(attempts)+1)+" attempts") || strings.Contains(msg, "secret") {
		t.Errorf("final error: %s", msg)
	}
	if strings.Count(msg, "cannot connect") != 1 || strings.Count(msg, "connection refused") != 1 || strings.Contains(msg, "\n") {
		t.Errorf("final error repeats itself or spans lines: %s", msg)
	}

	// Without a bound there is one attempt and no retry.
	calls := 0
	if _, err := OpenRetrying(t.Context(), url, 0, func(int, time.Duration, error) { calls++ }); err == nil || calls != 0 {
		t.Errorf("wait 0: err %v after %d retries", err, calls)
	}
	// A cancelled start gives up at once.
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := OpenRetrying(ctx, url, time.Minute, nil); err == nil || !errors.Is(err, context.Canceled) && !strings.Contains(err.Error(), "cannot connect") {
		t.Errorf("cancelled: %v", err)
	}
}

// TestOpenRetryingPermanent: errors that waiting cannot fix are not
// retried.
func TestOpenRetryingPermanent(t *testing.T) {
	calls := 0
	_, err := OpenRetrying(t.Context(), "postgres://u:secret@db:notaport/flags", time.Minute, func(int, time.Duration, error) { calls++ })
	if err == nil || calls != 0 {
		t.Errorf("bad URL: err %v after %d retries", err, calls)
	}
}

func TestDescribe(t *testing.T) {
	kind, where := Describe("postgres://u:secret@db:5432/flags?password=also&host=/run/pg")
	if kind != "postgres" || strings.Contains(where, "secret") || strings.Contains(where, "also") || !strings.Contains(where, "db:5432/flags") {
		t.Errorf("Describe(postgres) = %s %s", kind, where)
	}
	kind, where = Describe("data/signalbox.db")
	if kind != "sqlite" || !filepath.IsAbs(where) || !strings.HasSuffix(where, filepath.Join("data", "signalbox.db")) {
		t.Errorf("Describe(sqlite) = %s %s", kind, where)
	}
}
