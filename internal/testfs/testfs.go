// Package testfs gives tests filesystems with properties the machine's own
// lack: a small one that fills up. Tests only.
package testfs

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// Tiny mounts a tmpfs of size bytes on a new folder and unmounts it when t
// ends. Mounting needs root: without it the test is skipped, or fails
// when CI is set, since CI runs as root and must run it.
func Tiny(t testing.TB, size string) string {
	t.Helper()
	if os.Geteuid() != 0 {
		if os.Getenv("CI") != "" {
			t.Fatal("mounting a small filesystem needs root, and CI is set: this test must run in CI")
		}
		t.Skip("mounting a small filesystem needs root (this fails under CI)")
	}
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size="+size); err != nil {
		t.Fatalf("mounting a %s tmpfs: %v", size, err)
	}
	t.Cleanup(func() {
		if err := syscall.Unmount(dir, 0); err != nil {
			t.Errorf("unmounting the tmpfs: %v", err)
		}
	})
	return dir
}

// Fill writes a file into dir until its filesystem has no space left.
func Fill(t testing.TB, dir string) {
	t.Helper()
	f, err := os.Create(filepath.Join(dir, "filler"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	block := make([]byte, 4096)
	for {
		if _, err := f.Write(block); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatalf("filling the disk: %v", err)
			}
			return
		}
	}
}
