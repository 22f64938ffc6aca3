//go:build !linux

package main

// loadAsFromDisk does nothing where the page cache cannot be asked to drop
// one file's pages.
func loadAsFromDisk(string) error { return nil }
