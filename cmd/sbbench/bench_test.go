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
	window := func(rate float64, cpu float64) load.Result {
		return load.Result{RequestsPerSec: rate, Requests: int64(rate), TargetCPU: time.Duration(cpu * float64(time.Microsecond) * rate)}
	}
	// turn is a window of ours and the companion's after it.
	turn1 := func(ours, other load.Result) turn { return turn{ours: ours, beside: []load.Result{other}} }
	plain := &companion{label: "plain"}
	unleash := &companion{label: "Unleash", ref: true}
	tests := []struct {
		name  string
		c     *companion
		turns []turn
		want  string
	}{
		{"no turns", plain, nil, ""},
		{"one turn", plain, []turn{turn1(window(80, 25), window(100, 20))}, "0.80 of plain (0.80 by CPU)"},
		{"one quiet plain window is outvoted", plain, []turn{
			turn1(window(90, 22), window(100, 20)),
			turn1(window(88, 23), window(140, 14)),
			turn1(window(85, 24), window(100, 20)),
		}, "0.85 of plain (0.83 by CPU), turns 0.63–0.90"},
		{"two turns: their mean", plain, []turn{turn1(window(80, 25), window(100, 20)), turn1(window(90, 20), window(100, 20))}, "0.85 of plain (0.90 by CPU), turns 0.80–0.90"},
		{"CPU not measured in a turn", plain, []turn{turn1(window(80, 25), window(100, 20)), turn1(window(90, 0), window(100, 20))}, "0.85 of plain, turns 0.80–0.90"},
		{"a reference: times, a decimal just under a goal of 20×", unleash, []turn{turn1(window(42332, 22.8), window(2154, 461))}, "19.7× Unleash (20.2× by CPU)"},
		{"a reference's one quiet window is outvoted", unleash, []turn{
			turn1(window(44000, 22), window(2000, 500)),
			turn1(window(43000, 23), window(3000, 330)),
			turn1(window(45000, 22), window(2100, 480)),
		}, "21.4× Unleash (21.8× by CPU), turns 14.3–22.0×"},
		{"hundreds are whole", unleash, []turn{turn1(window(42332, 22.8), window(20, 49500)), turn1(window(42332, 22.8), window(21, 47000))}, "2066× Unleash (2116× by CPU), turns 2016–2117×"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := inTurns(tt.turns, 0, tt.c); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestInTurnsSecondCompanion(t *testing.T) {
	// Each companion's note takes its own windows of the turns.
	w := func(rate float64) load.Result { return load.Result{RequestsPerSec: rate} }
	turns := []turn{{ours: w(100), beside: []load.Result{w(125), w(5)}}}
	if got, want := inTurns(turns, 1, &companion{label: "Unleash", ref: true}), "20.0× Unleash"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got, want := inTurns(turns, 0, &companion{label: "plain"}), "0.80 of plain"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
