package main

import (
	"context"
	"log/slog"
	"runtime/debug"
	"runtime/metrics"
	"time"

	"github.com/signalbox/signalbox/internal/memtrim"
)

// A proxy or Edge node's heap is its compiled configuration (a few MB at
// thousands of flags) and about a kilobyte of garbage per request. The
// garbage collector's target (GOGC, unless set) follows the heap's size:
// a heap grows by nodeGCHeadroom before it is collected; a smaller one by
// all of itself (Go's minimum heap of 4 MB then applies), and one over
// four times that by a quarter. A small configuration is then collected
// every few thousand requests rather than every few hundred (each of its
// requests cost about 1.5 µs of CPU more at 25%), and a large one keeps
// its heap close to its size: the RSS after sbbench's 5,000-flag load is
// the measure.
const (
	nodeGCHeadroom = 2 << 20
	// nodeStartGCPercent holds until the node is ready: decoding and
	// compiling the first configuration leaves the most garbage.
	nodeStartGCPercent = 25
	nodeMinGCPercent   = 25
	nodeMaxGCPercent   = 100
	// nodeGCRetune is how often the target follows the live heap, which
	// grows and shrinks with the configuration and the answer cache.
	nodeGCRetune = time.Minute
)

// nodeGCPercent is the target for a live heap of live bytes.
func nodeGCPercent(live uint64) int {
	if live == 0 {
		return nodeMaxGCPercent
	}
	return int(min(max(uint64(nodeGCHeadroom)*100/live, nodeMinGCPercent), nodeMaxGCPercent))
}

// settleNode waits until the node is ready, then gives back what starting
// took (giveBackStartup). With tuneGC it then sets the collector's target
// from the live heap, and keeps following it until ctx ends.
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
	if !tuneGC {
		return
	}
	percent := -1
	retune := time.NewTicker(nodeGCRetune)
	defer retune.Stop()
	for {
		if p := nodeGCPercent(liveHeap()); p != percent {
			debug.SetGCPercent(p)
			percent = p
		}
		select {
		case <-ctx.Done():
			return
		case <-retune.C:
		}
	}
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
