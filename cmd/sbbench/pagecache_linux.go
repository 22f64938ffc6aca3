package main

import (
	"os"

	"golang.org/x/sys/unix"
)

// loadAsFromDisk drops the executable's pages from the page cache (its
// own pages, no others), so that its first run reads it from disk as an
// installed binary's would be. A binary just written by the linker showed
// up to 1.5 MiB more RSS than the same bytes read back from disk, which
// would move the memory rows by the way it was built rather than by what
// it does.
func loadAsFromDisk(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := f.Sync(); err != nil { // dirty pages cannot be dropped
		return err
	}
	return unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED)
}
