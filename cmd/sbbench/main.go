// Command sbbench is the project's load benchmark: it runs the signalbox
// proxy and server as real processes on loopback, drives them with the
// bounded load generator (internal/load) and prints a Markdown table of
// req/s, p50, p99 and RSS. Next to the proxy it measures a plain handler
// serving the same response bytes, and, when the npm clients are installed
// in test/compat, the reference @unleash/proxy against the same upstream;
// next to the server, a plain handler and, when installed in test/unleash,
// unleash-server on the same flags. Each row of ours is measured in turns
// with what it is compared with (see measureBeside).
//
// With taskset available, each server under test is pinned to CPU 0 and the
// load generator to the other CPUs, so figures are "per server core".
//
//	go run ./cmd/sbbench -sizes 60,500,5000 -d 5s
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"
)

func main() {
	sizes := flag.String("sizes", "60,500,5000", "flag counts to measure")
	dur := flag.Duration("d", 5*time.Second, "duration of each measurement (at most 2m)")
	conc := flag.Int("c", 16, "concurrent connections")
	windows := flag.Int("windows", 2, "measure each row this many times (1 to 5): a row shows its fastest window, its ratios to a plain handler and a reference the medians of the turns'")
	bin := flag.String("bin", "", "signalbox binary (default: build one)")
	noRef := flag.Bool("no-reference", false, "skip the reference proxy even when installed")
	plain := flag.String("serve-plain", "", "internal: serve this file as a plain handler on -addr")
	addr := flag.String("addr", "", "internal: listen address for -serve-plain")
	streams := flag.Int("streams", 0, "instead of the load tables: open this many streams on one server and measure memory, idle CPU and change latency")
	changes := flag.Int("changes", 50, "with -streams: changes to time")
	streamFlags := flag.Int("stream-flags", 60, "with -streams: flags on the server")
	profiles := flag.String("cpu-profiles", "", "write a CPU profile of every signalbox process to this directory (scripts/pgo.sh merges them into the build's profile)")
	payload := flag.String("payload", "generated", "the configuration served: generated (the benchmark's own) or mix (the realistic mix: internal/fixture.Mix, contexts userId=u/sessionId=s and a new userId each request)")
	flag.Parse()

	if *plain != "" {
		if err := servePlain(*plain, *addr); err != nil {
			fail(err)
		}
		return
	}
	pinLoadGenerator()
	if *dur <= 0 || *dur > 2*time.Minute {
		fail(fmt.Errorf("-d must be between 0 and 2m"))
	}
	if *windows < 1 || *windows > 5 {
		fail(fmt.Errorf("-windows must be between 1 and 5"))
	}
	var ns []int
	for _, s := range strings.Split(*sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n <= 0 || n > 20000 {
			fail(fmt.Errorf("bad size %q", s))
		}
		ns = append(ns, n)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	b, err := newBench(ctx, *bin, *dur, *conc, !*noRef)
	if err != nil {
		fail(err)
	}
	defer b.close()
	b.windows = *windows
	switch *payload {
	case "generated":
	case "mix":
		b.mix = true
	default:
		fail(fmt.Errorf("-payload is generated or mix, not %q", *payload))
	}
	if *profiles != "" {
		if b.profileDir, err = filepath.Abs(*profiles); err != nil {
			fail(err)
		}
		if err := os.MkdirAll(b.profileDir, 0o755); err != nil {
			fail(err)
		}
	}
	if *streams > 0 {
		if *streams > 15000 || *changes < 1 || *changes > 1000 || *streamFlags < 1 || *streamFlags > 20000 {
			fail(fmt.Errorf("-streams is at most 15000, -changes 1 to 1000 and -stream-flags 1 to 20000"))
		}
		res, err := b.runStreams(*streams, *changes, *streamFlags)
		if err != nil {
			fail(err)
		}
		res.report(os.Stdout)
		return
	}
	if err := b.run(ns); err != nil {
		fail(err)
	}
	b.report(os.Stdout)
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "sbbench:", err)
	os.Exit(1)
}

// pinLoadGenerator re-runs this process on the CPUs other than the servers'
// one, so that load generation does not steal the measured server's CPU.
// It goes by the process's affinity, not by having re-run it: a run
// started with SBBENCH_PINNED set by hand and no taskset once measured
// every server with the generator on its CPU.
func pinLoadGenerator() {
	if runtime.NumCPU() < 2 || !mayRunOn(serverCPUNumber) {
		return // off the servers' CPU already, or nowhere else to go
	}
	if os.Getenv("SBBENCH_PINNED") != "" {
		fail(fmt.Errorf("the load generator may still run on CPU %d, the servers' (taskset did not pin it)", serverCPUNumber))
	}
	taskset, err := exec.LookPath("taskset")
	if err != nil {
		return
	}
	self, err := os.Executable()
	if err != nil {
		return
	}
	cmd := exec.Command(taskset, append([]string{"-c", fmt.Sprintf("1-%d", runtime.NumCPU()-1), self}, os.Args[1:]...)...)
	cmd.Env = append(os.Environ(), "SBBENCH_PINNED=1")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			os.Exit(ee.ExitCode())
		}
		fail(err)
	}
	os.Exit(0)
}
