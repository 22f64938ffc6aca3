package main

import (
	"testing"

	"github.com/signalbox/signalbox/internal/load"
)

func TestBetterWindow(t *testing.T) {
	window := func(rate float64, before, after int64) load.Result {
		return load.Result{RequestsPerSec: rate, Memory: &load.Memory{Before: load.MemorySample{RSS: before}, After: load.MemorySample{RSS: after}}}
	}
	tests := []struct {
		name          string
		windows       []load.Result
		rate          float64
		before, after int64
	}{
		{"one window", []load.Result{window(100, 1, 2)}, 100, 1, 2},
		{"the second faster", []load.Result{window(100, 1, 2), window(120, 3, 4)}, 120, 1, 4},
		{"the first faster", []load.Result{window(120, 1, 2), window(100, 3, 4)}, 120, 1, 4},
		{"the middle fastest", []load.Result{window(100, 1, 2), window(130, 3, 4), window(110, 5, 6)}, 130, 1, 6},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var best load.Result
			for i, w := range tt.windows {
				best = betterWindow(best, w, i == 0)
			}
			if best.RequestsPerSec != tt.rate || best.Memory.Before.RSS != tt.before || best.Memory.After.RSS != tt.after {
				t.Fatalf("rate %v, RSS before %d after %d; want %v, %d, %d", best.RequestsPerSec, best.Memory.Before.RSS, best.Memory.After.RSS, tt.rate, tt.before, tt.after)
			}
		})
	}
}
