//go:build unix

package sqlstore

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// The copy holds password hashes and other secrets: it is created for the
// user alone whatever the umask, and a copy that is an ordinary database
// still.
func TestBackupIsPrivate(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "signalbox.db")
	s, err := Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	addTagType(t, s, "in-the-copy")
	dst := filepath.Join(dir, "copy.db")
	old := syscall.Umask(0)
	err = BackupSQLite(t.Context(), path, dst)
	syscall.Umask(old)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(dst)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("the copy's mode is %v, want 0600", fi.Mode().Perm())
	}
	if !hasTagType(t, dst, "in-the-copy") {
		t.Error("the copy lacks the database's data")
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if e.Name() != "signalbox.db" && e.Name() != "copy.db" && e.Name() != "signalbox.db-wal" && e.Name() != "signalbox.db-shm" {
			t.Errorf("a stray file beside the copy: %s", e.Name())
		}
	}
}
