package main

import (
	"context"
	"log/slog"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"time"

	"github.com/signalbox/signalbox/internal/memtrim"
)

// gcTarget is how far a heap may grow before the garbage collector runs:
// by headroom bytes, but by no less than minPercent of itself and by no
// more than maxPercent (GOGC's unit).
type gcTarget struct {
	headroom               uint64
	minPercent, maxPercent int
}

var (
	// A proxy or Edge node's heap is its compiled configuration (a few MB
	// at thousands of flags) and about a kilobyte of garbage per request.
	// A small heap grows by all of itself (Go's minimum heap of 4 MB then
	// applies), one over four times the headroom by a quarter. A small
	// configuration is then collected every few thousand requests rather
	// than every few hundred (each of its requests cost about 1.5 µs of
	// CPU more at 25%), and a large one keeps its heap close to its size:
	// the RSS after sbbench's 5,000-flag load is the measure.
	nodeGC = gcTarget{headroom: 2 << 20, minPercent: 25, maxPercent: 100}
	// The server's heap at a few hundred flags is a few MB, and each SDK
	// poll leaves about a kilobyte of garbage: with Go's default the
	// collector ran every two thousand polls, and a poll answered from the
	// cache cost 2.3 µs of CPU more (29 µs in all at 60 flags) than with
	// 8 MiB to grow into. (Go's minimum heap, 4 MB at 100%, grows with the
	// target: RSS at 60 flags is 10 MiB more.) A heap larger than the
	// headroom grows by all of itself, as by default: collecting a large
	// configuration more often would cost its answers more than the
	// memory it saves.
	serverGC = gcTarget{headroom: 8 << 20, minPercent: 100, maxPercent: 800}
)

// nodeStartGCPercent holds until a node is ready: decoding and compiling
// the first configuration leaves the most garbage.
const nodeStartGCPercent = 25

// percent is the target for a live heap of live bytes; 0 (not known yet)
// gets Go's default, 100, within the bounds.
func (g gcTarget) percent(live uint64) int {
	p := uint64(100)
	if live > 0 {
		p = g.headroom * 100 / live
	}
	return int(min(max(p, uint64(g.minPercent)), uint64(g.maxPercent)))
}

// settleNode waits until the node is ready, then gives back what starting
// took (giveBackStartup). With tuneGC the collector's target then follows
// the live heap (followHeap) until ctx ends.
func settleNode(ctx context.Context, ready func() bool, tuneGC bool, log *slog.Logger) {
	poll := time.NewTicker(200 * time.Millisecond)
	defer poll.Stop()
	for !ready() {
		select {
		case <-ctx.Done():
			return
		case <-poll.C:
		}
	}
	giveBackStartup(log)
	if tuneGC {
		followHeap(ctx, nodeGC)
	}
}

// followHeap sets the collector's target from the live heap now and after
// every collection until ctx ends: the heap grows and shrinks with the
// configuration and the answer caches.
func followHeap(ctx context.Context, g gcTarget) {
	tune := func() { debug.SetGCPercent(g.percent(liveHeap())) }
	tune()
	afterEachGC(ctx, tune)
}

// afterEachGC calls f after every garbage collection until ctx ends. f runs
// as the cleanup of an object that is garbage as soon as it is made, and
// then makes the next one.
func afterEachGC(ctx context.Context, f func()) {
	// 16 bytes: smaller objects without pointers may share one allocation,
	// and their cleanups need not run.
	type sentinel [16]byte
	var arm func()
	arm = func() {
		runtime.AddCleanup(new(sentinel), func(struct{}) {
			if ctx.Err() == nil {
				f()
				arm()
			}
		}, struct{}{})
	}
	arm()
}

// giveBackStartup returns what starting took once a process is ready to
// serve: the garbage of reading the first configuration (returned to the
// operating system at once, not over minutes), and the executable's pages
// that only start-up touched (see memtrim).
func giveBackStartup(log *slog.Logger) {
	debug.FreeOSMemory()
	if dropped, err := memtrim.DropExecutablePages(); err != nil {
		log.Debug("start-up pages kept", "err", err)
	} else {
		log.Debug("start-up pages dropped", "bytes", dropped)
	}
}

// liveHeap is the heap the last collection found live, 0 when unknown.
func liveHeap() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}
