package engine_test

import (
	"reflect"
	"testing"

	"github.com/signalbox/signalbox/engine"
	"github.com/signalbox/signalbox/internal/fixture"
)

// TestDropSource: a snapshot compiled with DropSource keeps no payload and
// gives the same results and the same Explain verdicts as one that keeps it.
func TestDropSource(t *testing.T) {
	payload := fixture.Features(300, 5)
	keep := engine.Compile(payload, engine.Options{Rand: func(int) int { return 0 }})
	drop := engine.Compile(payload, engine.Options{Rand: func(int) int { return 0 }, DropSource: true})
	if keep.Source() != payload || drop.Source() != nil {
		t.Fatalf("Source: kept %p, dropped %p; payload %p", keep.Source(), drop.Source(), payload)
	}
	for i := range 20 {
		wc := fixture.Context(i)
		ctx := engine.ContextFromWire(&wc)
		want := keep.EvaluateAll(&ctx, nil)
		got := drop.EvaluateAll(&ctx, nil)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("context %d: results differ", i)
		}
		for _, f := range payload.Features[:30] {
			k, d := keep.Explain(f.Name, &ctx), drop.Explain(f.Name, &ctx)
			if k.Feature == nil || d.Feature != nil {
				t.Fatalf("%s: Feature kept %v, dropped %v", f.Name, k.Feature != nil, d.Feature != nil)
			}
			if k.Enabled != d.Enabled || k.Variant.Name != d.Variant.Name || k.StrategiesResult != d.StrategiesResult || len(k.Strategies) != len(d.Strategies) {
				t.Errorf("context %d, %s: explained %+v with the source, %+v without", i, f.Name, k, d)
			}
		}
	}
}
