//go:build !linux

package main

// mayRunOn reports whether this process may run on the CPU numbered cpu:
// always, where affinities are not read.
func mayRunOn(int) bool { return true }
