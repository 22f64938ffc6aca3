package engine_test

import (
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
