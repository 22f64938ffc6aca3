package engine

import (
	"fmt"
	"testing"

	"github.com/signalbox/signalbox/clientapi"
	"github.com/signalbox/signalbox/internal/fixture"
)

// TestFastPathsAgree compares the evaluation shortcuts with the plain
// path on realistic payloads and contexts: EvaluateAll (fields resolved
// once for all flags, fixed results) with each flag evaluated alone with
// the fixed results switched off; and a payload that reads more context
// fields than fit on the stack.
func TestFastPathsAgree(t *testing.T) {
	many := &clientapi.Features{Version: 2}
	for i := range stackSlots + 4 {
		many.Features = append(many.Features, clientapi.Feature{Name: fmt.Sprint("p", i), Enabled: true,
			Strategies: []clientapi.Strategy{{Name: "default", Constraints: []clientapi.Constraint{
				{ContextName: fmt.Sprint("prop", i), Operator: "NUM_GTE", Value: "3"}}}}})
	}
	manyCtx := Context{Properties: map[string]string{}}
	for i := range stackSlots + 4 {
		manyCtx.Properties[fmt.Sprint("prop", i)] = fmt.Sprint(i)
	}
	payloads := map[string]*clientapi.Features{"fixture": fixture.Features(600, 5), "many fields": many}
	for name, payload := range payloads {
		snap := Compile(payload, Options{Rand: func(int) int { return 0 }})
		fixed := 0
		for i := range snap.flags {
			if snap.flags[i].fixed != nil {
				fixed++
			}
		}
		plain := Compile(payload, Options{Rand: func(int) int { return 0 }})
		for i := range plain.flags {
			plain.flags[i].fixed = nil
		}
		contexts := []Context{{}, manyCtx}
		for i := range 12 {
			wc := fixture.Context(i)
			contexts = append(contexts, ContextFromWire(&wc))
		}
		for ci := range contexts {
			ctx := &contexts[ci]
			all := snap.EvaluateAll(ctx, nil)
			for k, r := range all {
				if want := plain.Evaluate(r.Name, ctx); r != want {
					t.Errorf("%s, context %d, flag %d: EvaluateAll %+v, alone without shortcuts %+v", name, ci, k, r, want)
				}
			}
		}
		if name == "fixture" && fixed == 0 {
			t.Error("no flag of the fixture has a fixed result")
		}
	}
}
