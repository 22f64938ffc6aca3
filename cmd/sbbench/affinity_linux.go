package main

import "golang.org/x/sys/unix"

// mayRunOn reports whether this process may run on the CPU numbered cpu
// (true when its affinity cannot be read).
func mayRunOn(cpu int) bool {
	var set unix.CPUSet
	if unix.SchedGetaffinity(0, &set) != nil {
		return true
	}
	return set.IsSet(cpu)
}
