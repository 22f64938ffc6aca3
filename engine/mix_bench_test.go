package engine_test

import (
	"fmt"
	"testing"

	"github.com/signalbox/signalbox/engine"
	"github.com/signalbox/signalbox/internal/fixture"
)

// BenchmarkEvaluateMix evaluates every flag of the realistic mix (the load
// benchmark's -payload mix) for a new user each time, as a new context's
// answer does, and then each kind of flag of the mix alone (500 flags of
// that kind), so that the cost per flag can be read kind by kind.
func BenchmarkEvaluateMix(b *testing.B) {
	users := make([]engine.Context, 1024)
	for i := range users {
		wc := fixture.MixContext(i)
		users[i] = engine.ContextFromWire(&wc)
	}
	// some: whether at least one flag must be on for a new user (kinds that
	// match only listed users or an absent property are off for all).
	run := func(b *testing.B, snap *engine.Snapshot, n int, some bool) {
		b.ReportAllocs()
		on, i := 0, 0
		cpu0 := processCPU()
		for b.Loop() {
			snap.EvaluateEach(&users[i&1023], func(r *engine.Result) {
				if r.Enabled {
					on++
				}
			})
			i++
		}
		if some && on == 0 {
			b.Fatal("no flag was on")
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/flag")
		b.ReportMetric(float64(processCPU()-cpu0)/float64(b.N)/float64(n), "cpu-ns/flag")
	}
	for _, n := range []int{500, 5000} {
		snap := engine.Compile(fixture.Mix(n), engine.Options{})
		b.Run(fmt.Sprint(n), func(b *testing.B) { run(b, snap, n, true) })
	}
	for k, kind := range fixture.MixKinds {
		snap := engine.Compile(fixture.MixOf(500, k), engine.Options{})
		if w := snap.Warnings(); len(w) > 0 {
			b.Fatalf("kind %q: %v", kind, w)
		}
		b.Run(fmt.Sprintf("kind%d", k), func(b *testing.B) { run(b, snap, 500, k != 3 && k != 8) })
	}
}
