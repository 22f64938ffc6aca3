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
// fields than fit on the stack; and EvaluateEach, which keeps only the
// parents' results, and EvaluateSome, which evaluates them afresh, with
// EvaluateAll.
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
	// Addresses: remoteAddress strategies and IN_CIDR constraints share
	// the context's parsed address within a run.
	addresses := &clientapi.Features{Version: 2}
	for i, ips := range []string{"10.0.0.0/8", "gateway", "192.168.1.7,2001:db8::/32", "10.0.0.1", "::/0", "bad, 10.0.0.0/31"} {
		addresses.Features = append(addresses.Features,
			clientapi.Feature{Name: fmt.Sprint("ra", i), Enabled: true, Strategies: []clientapi.Strategy{{Name: "remoteAddress", Parameters: clientapi.Parameters{"IPs": ips}}}},
			clientapi.Feature{Name: fmt.Sprint("cidr", i), Enabled: true, Strategies: []clientapi.Strategy{{Name: "default", Constraints: []clientapi.Constraint{
				{ContextName: "remoteAddress", Operator: "IN_CIDR", Values: splitList(ips)}}}}})
	}
	// Dependencies: parents before and after their children, fixed and
	// evaluated, on and off, with variants asked for.
	deps := &clientapi.Features{Version: 2}
	rollout := func(pct string) []clientapi.Strategy {
		return []clientapi.Strategy{{Name: "flexibleRollout", Parameters: clientapi.Parameters{"rollout": pct, "stickiness": "userId", "groupId": "g"}}}
	}
	for i := range 12 {
		parent := fmt.Sprint("parent", i)
		deps.Features = append(deps.Features,
			clientapi.Feature{Name: fmt.Sprint("early-child", i), Enabled: true, Dependencies: []clientapi.Dependency{{Feature: parent}}},
			clientapi.Feature{Name: parent, Enabled: i%4 != 0, Strategies: rollout(fmt.Sprint(i * 9)),
				Variants: []clientapi.Variant{{Name: "a", Weight: 500, Stickiness: "userId"}, {Name: "b", Weight: 500, Stickiness: "userId"}}},
			clientapi.Feature{Name: fmt.Sprint("fixed-parent", i), Enabled: i%2 == 0},
			clientapi.Feature{Name: fmt.Sprint("late-child", i), Enabled: true, Strategies: rollout("50"), Dependencies: []clientapi.Dependency{
				{Feature: parent, Variants: []string{"a"}}, {Feature: fmt.Sprint("fixed-parent", i)}}},
			clientapi.Feature{Name: fmt.Sprint("unless-child", i), Enabled: true, Dependencies: []clientapi.Dependency{
				{Feature: parent, Enabled: new(bool)}}})
	}
	payloads := map[string]*clientapi.Features{"fixture": fixture.Features(600, 5), "many fields": many, "addresses": addresses, "dependencies": deps}
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
		for _, addr := range []string{"10.0.0.1", "gateway", "2001:db8::1", "fe80::1%eth0", " 192.168.1.7", "not an address"} {
			contexts = append(contexts, Context{RemoteAddress: addr})
		}
		for i := range 12 {
			wc := fixture.Context(i)
			contexts = append(contexts, ContextFromWire(&wc))
		}
		for ci := range contexts {
			ctx := &contexts[ci]
			all := snap.EvaluateAll(ctx, nil)
			for k, r := range all {
				if want := plain.Evaluate(r.Name, ctx); !sameResult(r, want) {
					t.Errorf("%s, context %d, flag %d: EvaluateAll %+v, alone without shortcuts %+v", name, ci, k, r, want)
				}
			}
			k := 0
			snap.EvaluateEach(ctx, func(r *Result) {
				if k >= len(all) || *r != all[k] {
					t.Errorf("%s, context %d, flag %d: EvaluateEach %+v, EvaluateAll %+v", name, ci, k, *r, all[min(k, len(all)-1)])
				}
				k++
			})
			if k != len(all) {
				t.Errorf("%s, context %d: EvaluateEach gave %d results, EvaluateAll %d", name, ci, k, len(all))
			}
			// Some flags, which evaluates parents afresh: every third, the
			// children without their parents among them.
			var some []int32
			for i := range all {
				if i%3 == 1 {
					some = append(some, int32(i))
				}
			}
			k = 0
			snap.EvaluateSome(ctx, some, func(r *Result) {
				if k >= len(some) || !sameResult(*r, all[some[k]]) {
					t.Errorf("%s, context %d, flag %d: EvaluateSome %+v, EvaluateAll %+v", name, ci, k, *r, all[some[min(k, len(some)-1)]])
				}
				k++
			})
			if k != len(some) {
				t.Errorf("%s, context %d: EvaluateSome gave %d results of %d", name, ci, k, len(some))
			}
		}
		if name == "fixture" && fixed == 0 {
			t.Error("no flag of the fixture has a fixed result")
		}
	}
}

// sameResult compares results with their payloads by value: two
// compilations of one payload keep a copy each.
func sameResult(a, b Result) bool {
	pa, pb := a.Variant.Payload, b.Variant.Payload
	a.Variant.Payload, b.Variant.Payload = nil, nil
	if a != b {
		return false
	}
	if pa == nil || pb == nil {
		return pa == nil && pb == nil
	}
	return *pa == *pb
}
