// Package privfile writes and reads files holding secrets so that no other
// local user can read them, plant them or swap them: each is created
// exclusively with mode 0600 before any byte is written, in a folder only
// the current user can write, and read only when the current user owns it
// and no one else can write it or its folder.
package privfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// ErrNotPrivate is wrapped by every refusal of a file or folder that
// another user could have written.
var ErrNotPrivate = errors.New("not private to this user")

// EnsureDir creates dir (and its missing parents) with mode 0700 when it
// is missing, then checks that only the current user can write it.
func EnsureDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	return CheckDir(dir)
}

// CheckDir reports, wrapping ErrNotPrivate, a dir that is not a folder
// owned by the current user or that its group or others can write.
func CheckDir(dir string) error {
	fi, err := os.Stat(dir)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s is not a folder", dir)
	}
	return checkInfo(dir, "folder", fi)
}

func checkInfo(name, what string, fi fs.FileInfo) error {
	if !ownedByMe(fi) {
		return fmt.Errorf("%s %s belongs to another user: %w", what, name, ErrNotPrivate)
	}
	if modeChecks && fi.Mode().Perm()&0o022 != 0 {
		return fmt.Errorf("%s %s can be written by other users (mode %v): %w", what, name, fi.Mode().Perm(), ErrNotPrivate)
	}
	return nil
}

// WriteFile replaces path with data: written to a new file of a random
// name beside it, created exclusively with mode 0600, then renamed over
// path, so that a reader never sees half a file. The folder is created
// 0700 when missing and must be private (see CheckDir).
func WriteFile(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := EnsureDir(dir); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	err = f.Chmod(0o600)
	if err == nil {
		_, err = f.Write(data)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		_ = os.Remove(tmp)
		return err
	}
	return nil
}

// ReadFile reads path when it is a regular file the current user owns,
// that no one else can write, in a folder no one else can write; it
// refuses, wrapping ErrNotPrivate, any other. A missing file is the
// error of os.Open (fs.ErrNotExist).
func ReadFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// The file opened is the one checked: its name could be swapped
	// between a check by name and the open.
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file: %w", path, ErrNotPrivate)
	}
	if err := checkInfo(path, "file", fi); err != nil {
		return nil, err
	}
	if err := CheckDir(filepath.Dir(path)); err != nil {
		return nil, err
	}
	return io.ReadAll(f)
}

// CreateExclusive creates path for writing with mode 0600 whatever the
// umask; it fails when path exists (fs.ErrExist), so nothing already
// there, a planted file or a link, is ever written through.
func CreateExclusive(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, err
	}
	if err := f.Chmod(0o600); err != nil {
		f.Close()
		_ = os.Remove(path)
		return nil, err
	}
	return f, nil
}
