//go:build !linux

package memtrim

// DropExecutablePages does nothing where the process's mappings cannot be
// read.
func DropExecutablePages() (int64, error) { return 0, nil }
