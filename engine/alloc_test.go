// Allocation counts hold only without the race detector, under which
// sync.Pool drops what it is given at random (evaluating every flag
// borrows its scratch results from a pool).

//go:build !race

package engine_test

import (
	"slices"
	"testing"

	"github.com/signalbox/signalbox/engine"
	"github.com/signalbox/signalbox/internal/fixture"
)

// TestEvaluationDoesNotAllocate pins the hot-path promise: evaluating every
// flag of a realistic payload allocates nothing once the result slice has
// room. (Counts, not timings: deterministic on any machine.)
func TestEvaluationDoesNotAllocate(t *testing.T) {
	snap := engine.Compile(fixture.Features(500, 3), engine.Options{})
	for i := range 12 {
		wc := fixture.Context(i)
		ctx := engine.ContextFromWire(&wc)
		dst := make([]engine.Result, 0, snap.Len())
		if n := testing.AllocsPerRun(20, func() { dst = snap.EvaluateAll(&ctx, dst[:0]) }); n != 0 {
			t.Errorf("context %d: EvaluateAll allocated %.1f times per run", i, n)
		}
	}
}

// TestEvaluateEnabledGrowsOnce: a list without room gets one allocation.
func TestEvaluateEnabledGrowsOnce(t *testing.T) {
	snap := engine.Compile(fixture.Features(500, 3), engine.Options{})
	wc := fixture.Context(1)
	ctx := engine.ContextFromWire(&wc)
	want, _, _ := snap.EvaluateEnabled(&ctx, nil)
	// As many allocations as growing the list once (one, or more when
	// built with the race detector).
	grow := testing.AllocsPerRun(10, func() { resultSink = slices.Grow([]engine.Result(nil), snap.Len()) })
	if n := testing.AllocsPerRun(10, func() { resultSink, _, _ = snap.EvaluateEnabled(&ctx, nil) }); n != grow {
		t.Errorf("EvaluateEnabled into an empty list allocated %.1f times, growing it once %.1f", n, grow)
	}
	if got, _, _ := snap.EvaluateEnabled(&ctx, nil); !slices.Equal(got, want) {
		t.Errorf("%d results, want %d", len(got), len(want))
	}
}

var resultSink []engine.Result
