package main

import (
	"context"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"
	"time"
)

func TestGCTargetPercent(t *testing.T) {
	tests := []struct {
		name    string
		target  gcTarget
		live    uint64
		percent int
	}{
		{"node, unknown: Go's own default", nodeGC, 0, 100},
		{"node, small heaps never past Go's default", nodeGC, 1 << 20, 100},
		{"node, the headroom is the heap", nodeGC, 2 << 20, 100},
		{"node, 2 MiB of 3", nodeGC, 3 << 20, 66},
		{"node, the headroom is half the heap", nodeGC, 4 << 20, 50},
		{"node, a quarter", nodeGC, 8 << 20, 25},
		{"node, large heaps grow by a quarter at most", nodeGC, 160 << 20, 25},
		{"node, no overflow", nodeGC, 1<<64 - 1, 25},
		{"server, unknown: Go's own default", serverGC, 0, 100},
		{"server, tiny heaps grow eightfold at most", serverGC, 512 << 10, 800},
		{"server, 8 MiB on 2", serverGC, 2 << 20, 400},
		{"server, 8 MiB on 5", serverGC, 5 << 20, 160},
		{"server, the headroom is the heap", serverGC, 8 << 20, 100},
		{"server, large heaps grow by all of themselves", serverGC, 160 << 20, 100},
		{"server, no overflow", serverGC, 1<<64 - 1, 100},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.target.percent(tt.live); got != tt.percent {
				t.Errorf("percent(%d) = %d, want %d", tt.live, got, tt.percent)
			}
		})
	}
}

// TestFollowHeap: the collector's target is set again after every
// collection, and no longer once the context ends.
func TestFollowHeap(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	target := gcTarget{headroom: 1 << 50, minPercent: 10, maxPercent: 345}
	runtime.GC() // so that the live heap is known
	followHeap(ctx, target)
	if got := gogc(); got != 345 {
		t.Fatalf("GOGC %d at once, want 345", got)
	}
	// Changed behind its back, the target is back after a collection.
	debug.SetGCPercent(77)
	waitGOGC(t, 345)
	cancel()
	runtime.GC() // the cleanup armed before the cancel sees it
	debug.SetGCPercent(77)
	for range 3 {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	if got := gogc(); got != 77 {
		t.Errorf("GOGC %d after the context ended, want 77 (left alone)", got)
	}
}

// waitGOGC collects until GOGC is want, for up to 5 seconds: cleanups run
// after the collection, on a goroutine of their own.
func waitGOGC(t *testing.T, want int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for gogc() != want {
		if time.Now().After(deadline) {
			t.Fatalf("GOGC %d, want %d", gogc(), want)
		}
		runtime.GC()
		time.Sleep(5 * time.Millisecond)
	}
}

func gogc() int {
	s := []metrics.Sample{{Name: "/gc/gogc:percent"}}
	metrics.Read(s)
	return int(s[0].Value.Uint64())
}
