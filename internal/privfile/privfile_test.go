//go:build unix

package privfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

func TestWriteFileCreatesAPrivateFolderAndFile(t *testing.T) {
	old := syscall.Umask(0)
	defer syscall.Umask(old)
	dir := filepath.Join(t.TempDir(), "state", "signalbox")
	path := filepath.Join(dir, "secrets.json")
	if err := WriteFile(path, []byte(`{"a":1}`)); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]fs.FileMode{dir: 0o700, path: 0o600} {
		fi, err := os.Stat(name)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != want {
			t.Errorf("%s: mode %v, want %v", name, fi.Mode().Perm(), want)
		}
	}
	if err := WriteFile(path, []byte(`{"a":2}`)); err != nil {
		t.Fatal(err)
	}
	b, err := ReadFile(path)
	if err != nil || string(b) != `{"a":2}` {
		t.Errorf("ReadFile = %q, %v", b, err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("temporary files left behind: %v", entries)
	}
}

// A file planted under any name the writer might use is never written
// through: the temporary name is random and created exclusively.
func TestWriteFileIgnoresPlantedFiles(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "secrets.json")
	planted := path + ".tmp"
	if err := os.WriteFile(planted, nil, 0o666); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(path, []byte("secret")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(planted); len(b) != 0 {
		t.Errorf("the planted file got %q", b)
	}
	f, err := CreateExclusive(planted)
	if !errors.Is(err, fs.ErrExist) {
		t.Errorf("CreateExclusive over an existing file: %v, want fs.ErrExist", err)
		f.Close()
	}
}

func TestCreateExclusiveIsPrivateWhateverTheUmask(t *testing.T) {
	old := syscall.Umask(0)
	defer syscall.Umask(old)
	path := filepath.Join(t.TempDir(), "backup.json")
	f, err := CreateExclusive(path)
	if err != nil {
		t.Fatal(err)
	}
	fi, _ := f.Stat()
	f.Close()
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", fi.Mode().Perm())
	}
}

func TestRefusesWhatOthersCouldHaveWritten(t *testing.T) {
	write := func(t *testing.T, dirMode, fileMode fs.FileMode) string {
		dir := filepath.Join(t.TempDir(), "d")
		if err := os.Mkdir(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, "f.json")
		if err := os.WriteFile(path, []byte("{}"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(path, fileMode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(dir, dirMode); err != nil {
			t.Fatal(err)
		}
		return path
	}
	for _, tt := range []struct {
		name              string
		dirMode, fileMode fs.FileMode
		ok                bool
	}{
		{"private", 0o700, 0o600, true},
		{"readable by others", 0o755, 0o644, true},
		{"group-writable file", 0o700, 0o620, false},
		{"world-writable file", 0o700, 0o602, false},
		{"group-writable folder", 0o770, 0o600, false},
		{"world-writable folder", 0o777 | fs.ModeSticky, 0o600, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := write(t, tt.dirMode, tt.fileMode)
			_, err := ReadFile(path)
			if tt.ok && err != nil || !tt.ok && !errors.Is(err, ErrNotPrivate) {
				t.Errorf("ReadFile: %v", err)
			}
			werr := WriteFile(path, []byte("{}"))
			dirPrivate := tt.dirMode&0o022 == 0
			if dirPrivate && werr != nil || !dirPrivate && !errors.Is(werr, ErrNotPrivate) {
				t.Errorf("WriteFile: %v", werr)
			}
		})
	}
	t.Run("another user's file", func(t *testing.T) {
		path := write(t, 0o700, 0o600)
		if err := os.Chown(path, 65534, 65534); err != nil {
			if os.Getenv("CI") != "" {
				t.Fatalf("cannot give a file away, and CI (root) must: %v", err)
			}
			t.Skipf("cannot give a file away here (this fails under CI): %v", err)
		}
		if _, err := ReadFile(path); !errors.Is(err, ErrNotPrivate) {
			t.Errorf("ReadFile: %v, want a refusal", err)
		}
	})
	t.Run("missing", func(t *testing.T) {
		if _, err := ReadFile(filepath.Join(t.TempDir(), "none")); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("ReadFile: %v, want fs.ErrNotExist", err)
		}
	})
}
