package main

import (
	"testing"
	"time"

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

func TestInTurns(t *testing.T) {
	// window is a window of rate answers per second over one second,
	// with cpu microseconds of the process's CPU per answer (0: not
	// measured).
	window := func(rate float64, cpu int) load.Result {
		return load.Result{RequestsPerSec: rate, Requests: int64(rate), TargetCPU: time.Duration(cpu) * time.Microsecond * time.Duration(rate)}
	}
	tests := []struct {
		name  string
		turns []turn
		want  string
	}{
		{"no plain handler", nil, ""},
		{"one turn", []turn{{window(80, 25), window(100, 20)}}, "0.80 of plain (0.80 by CPU)"},
		{"one quiet plain window is outvoted", []turn{
			{window(90, 22), window(100, 20)},
			{window(88, 23), window(140, 14)},
			{window(85, 24), window(100, 20)},
		}, "0.85 of plain (0.83 by CPU), turns 0.63–0.90"},
		{"two turns: their mean", []turn{{window(80, 25), window(100, 20)}, {window(90, 20), window(100, 20)}}, "0.85 of plain (0.90 by CPU), turns 0.80–0.90"},
		{"CPU not measured in a turn", []turn{{window(80, 25), window(100, 20)}, {window(90, 0), window(100, 20)}}, "0.85 of plain, turns 0.80–0.90"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := inTurns(tt.turns, "plain"); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestTimesRef(t *testing.T) {
	ours := load.Result{RequestsPerSec: 42332, Requests: 42332, TargetCPU: 42332 * 22800 * time.Nanosecond}
	tests := []struct {
		name string
		ref  load.Result
		want string
	}{
		{"just under a goal of 20× keeps its decimal", load.Result{RequestsPerSec: 2154, Requests: 2154, TargetCPU: 2154 * 461 * time.Microsecond}, "19.7× Unleash (20.2× by CPU)"},
		{"no CPU measured", load.Result{RequestsPerSec: 2154}, "19.7× Unleash"},
		{"hundreds are whole", load.Result{RequestsPerSec: 20, Requests: 20, TargetCPU: 20 * 49500 * time.Microsecond}, "2117× Unleash (2171× by CPU)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := timesRef(ours, tt.ref, "Unleash"); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}
