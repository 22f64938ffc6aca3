package engine_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/signalbox/signalbox/clientapi"
	"github.com/signalbox/signalbox/engine"
)

// FuzzCompileEvaluate feeds arbitrary payloads and contexts through
// Compile and every evaluation entry point: nothing may panic, IsEnabled
// must agree with Evaluate, and every way of evaluating many flags (all of
// them, some, a plan of some) with each flag evaluated alone.
func FuzzCompileEvaluate(f *testing.F) {
	// Seed with every spec state and a few hand-written oddities.
	if dir := specDirOrEmpty(); dir != "" {
		files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
		for _, file := range files {
			var sf specFile
			if data, err := os.ReadFile(file); err == nil && json.Unmarshal(data, &sf) == nil && sf.State != nil {
				f.Add([]byte(sf.State), []byte(`{"userId":"1","properties":{"customField":"616"}}`))
			}
		}
	}
	f.Add([]byte(`{"features":[{"name":"a","enabled":true,"strategies":[{"name":"flexibleRollout","parameters":{"rollout":"x"}}]}]}`), []byte(`{}`))
	f.Add([]byte(`{"features":[{"name":"a","enabled":true,"dependencies":[{"feature":"a"}],"variants":[{"name":"v","weight":-5}]}]}`), []byte(`{"currentTime":"nope"}`))
	f.Add([]byte(`{"features":[{"name":"a","enabled":true,"strategies":[{"name":"default","constraints":[{"contextName":"x","operator":"REGEX","value":"(("}]}]}]}`), []byte(`{"properties":{"x":null}}`))
	f.Fuzz(func(t *testing.T, payload, context []byte) {
		state, err := loadState(payload)
		if err != nil {
			return
		}
		var wc clientapi.Context
		if json.Unmarshal(context, &wc) != nil {
			return
		}
		ctx := engine.ContextFromWire(&wc)
		snap := engine.Compile(state, engine.Options{Hostname: "h"})
		for _, name := range snap.Names() {
			r := snap.Evaluate(name, &ctx)
			if r.Variant.FeatureEnabled != r.Enabled {
				t.Fatalf("%s: feature_enabled %v but enabled %v", name, r.Variant.FeatureEnabled, r.Enabled)
			}
			if !r.Enabled && (r.Variant.Enabled || r.Variant.Name != "disabled") {
				t.Fatalf("%s: off flag gave variant %+v", name, r.Variant)
			}
			snap.IsEnabled(name, &ctx)
		}
		// Evaluating every flag (fields resolved once, parents' results
		// reused, constraint verdicts remembered) answers as each flag
		// evaluated alone, with the same clock and draws.
		at := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
		fixed := engine.Compile(state, engine.Options{Hostname: "h", Now: func() time.Time { return at }, Rand: func(int) int { return 0 }})
		all := fixed.EvaluateAll(&ctx, nil)
		for _, r := range all {
			if alone := fixed.Evaluate(r.Name, &ctx); r != alone {
				t.Fatalf("%s: with every flag %+v, alone %+v", r.Name, r, alone)
			}
		}
		// An answer that read no field telling users apart is every other
		// user's answer too (what answer templates rely on), and a plan made
		// for this context answers every other user as EvaluateSome does.
		positions := allPositions(fixed)
		plan := fixed.Plan(&ctx, positions)
		for _, other := range [][3]string{{}, {"fuzz-user", "fuzz-session", "10.1.2.3"}, {ctx.SessionID, ctx.UserID, "::1"}, {ctx.UserID, "", ""}} {
			o := ctx
			o.UserID, o.SessionID, o.RemoteAddress = other[0], other[1], other[2]
			for k, r := range fixed.EvaluateAll(&o, nil) {
				if !all[k].PerUser && r != all[k] {
					t.Fatalf("%s: %+v without PerUser, for another user %+v", r.Name, all[k], r)
				}
			}
			var want []engine.Result
			fixed.EvaluateSome(&o, positions, func(r *engine.Result) { want = append(want, *r) })
			k := 0
			plan.Evaluate(&o, func(r *engine.Result) {
				if k >= len(want) {
					t.Fatalf("the plan gave more results than EvaluateSome's %d", len(want))
				}
				if *r != want[k] {
					t.Fatalf("result %d of the plan %+v, of EvaluateSome %+v", k, *r, want[k])
				}
				k++
			})
			if k != len(want) {
				t.Fatalf("%d results from the plan, %d from EvaluateSome", k, len(want))
			}
			// Decided, each flag's outcome (or, for those left at -1, its
			// evaluation in full) is EvaluateSome's result too.
			out := make([]int32, plan.Steps())
			if !plan.Decide(&o, out) {
				continue
			}
			for k, oc := range out {
				if oc < 0 {
					continue
				}
				if r, _ := plan.Outcome(oc); r != want[k] {
					t.Fatalf("step %d decided %+v, EvaluateSome gives %+v", k, r, want[k])
				}
			}
			plan.EvaluateFull(&o, func(k int, r *engine.Result) {
				if out[k] != -1 || *r != want[k] {
					t.Fatalf("step %d (decided %d) in full %+v, EvaluateSome gives %+v", k, out[k], *r, want[k])
				}
			})
		}
	})
}

func specDirOrEmpty() string {
	for _, d := range []string{os.Getenv("SIGNALBOX_SPEC_DIR"), filepath.Join("testdata", "client-specification")} {
		if d == "" {
			continue
		}
		if _, err := os.Stat(filepath.Join(d, "index.json")); err == nil {
			return d
		}
	}
	return ""
}
