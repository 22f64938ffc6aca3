package main

import (
	"fmt"
	"os"
	"runtime/pprof"
)

// cpuProfileEnv names a file to write a CPU profile of the whole run to
// (runtime/pprof's format, read by "go tool pprof"): where a node spends
// its CPU under real traffic, and the input of the build's default.pgo
// (see scripts/pgo.sh).
const cpuProfileEnv = "SIGNALBOX_CPU_PROFILE"

// startCPUProfile starts profiling into the file getenv names, when it
// names one; stop ends the profile and closes the file.
func startCPUProfile(getenv func(string) string) (stop func() error, err error) {
	path := getenv(cpuProfileEnv)
	if path == "" {
		return func() error { return nil }, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", cpuProfileEnv, err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", cpuProfileEnv, err)
	}
	return func() error {
		pprof.StopCPUProfile()
		return f.Close()
	}, nil
}
