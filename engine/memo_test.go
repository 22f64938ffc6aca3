package engine

import (
	"fmt"
	"testing"

	"github.com/signalbox/signalbox/clientapi"
	"github.com/signalbox/signalbox/internal/fixture"
)

// memoConstraints are constraints that differ from one another in one
// detail each: a verdict remembered for one must never answer for another.
var memoConstraints = []clientapi.Constraint{
	{ContextName: "region", Operator: "IN", Values: []string{"eu", "us"}},
	{ContextName: "region", Operator: "IN", Values: []string{"eu", "us"}, Inverted: true},
	{ContextName: "region", Operator: "NOT_IN", Values: []string{"eu", "us"}},
	{ContextName: "region", Operator: "IN", Values: []string{"eu"}},
	{ContextName: "zone", Operator: "IN", Values: []string{"eu", "us"}},
	{ContextName: "userId", Operator: "IN", Values: []string{"u1", "u3"}},
	{ContextName: "email", Operator: "STR_ENDS_WITH", Values: []string{"@Example.com"}},
	{ContextName: "email", Operator: "STR_ENDS_WITH", Values: []string{"@Example.com"}, CaseInsensitive: true},
	{ContextName: "email", Operator: "STR_STARTS_WITH", Values: []string{"@Example.com"}, CaseInsensitive: true},
	{ContextName: "age", Operator: "NUM_GTE", Value: "18"},
	{ContextName: "age", Operator: "NUM_GT", Value: "18"},
	{ContextName: "age", Operator: "NUM_GTE", Value: "18.5"},
	{ContextName: "appVersion", Operator: "SEMVER_GTE", Value: "2.1.0"},
	{ContextName: "appVersion", Operator: "SEMVER_GTE", Value: "2.1.0-beta"},
	{ContextName: "email", Operator: "REGEX", Value: "^a"},
	{ContextName: "email", Operator: "REGEX", Value: "^a", CaseInsensitive: true},
	{ContextName: "remoteAddress", Operator: "IN_CIDR", Values: []string{"10.0.0.0/8"}},
	{ContextName: "remoteAddress", Operator: "IN_CIDR", Values: []string{"10.0.0.0/16"}},
	{ContextName: "currentTime", Operator: "DATE_AFTER", Value: "2024-01-01T00:00:00Z"},
	{ContextName: "region", Operator: "NO_SUCH_OPERATOR", Values: []string{"eu"}},
}

// TestRememberedVerdicts: within an evaluation of every flag, equal
// constraints share one remembered verdict and constraints that differ in
// any detail do not; answers are those of each flag evaluated alone, which
// remembers nothing.
func TestRememberedVerdicts(t *testing.T) {
	payload := &clientapi.Features{Version: 2, Segments: []clientapi.Segment{{ID: 1, Constraints: memoConstraints[:2]}}}
	// Every constraint three times, on flags spread over the payload,
	// alone and after the others, and through a segment.
	for round := range 3 {
		for i, c := range memoConstraints {
			payload.Features = append(payload.Features,
				clientapi.Feature{Name: fmt.Sprint("alone", round, "-", i), Enabled: true,
					Strategies: []clientapi.Strategy{{Name: "default", Constraints: []clientapi.Constraint{c}}}},
				clientapi.Feature{Name: fmt.Sprint("pair", round, "-", i), Enabled: true,
					Strategies: []clientapi.Strategy{{Name: "default", Segments: []int{1},
						Constraints: []clientapi.Constraint{memoConstraints[(i+round)%len(memoConstraints)], c}}}})
		}
	}
	snap := Compile(payload, Options{})
	// Two kinds are never remembered: DATE (its verdict also narrows each
	// flag's window) and an unknown operator.
	if want := len(memoConstraints) - 2; snap.memoCount != want {
		t.Errorf("%d distinct remembered constraints, want %d", snap.memoCount, want)
	}
	contexts := []Context{{}}
	for _, region := range []string{"eu", "us", "ap"} {
		contexts = append(contexts, Context{UserID: "u1", RemoteAddress: "10.0.3.4", Properties: map[string]string{
			"region": region, "zone": "eu", "email": "a@example.com", "age": "18", "appVersion": "2.1.0-beta"}},
			Context{UserID: "u3", RemoteAddress: "10.1.3.4", Properties: map[string]string{
				"region": region, "email": "A@Example.COM", "age": "18.7", "appVersion": "2.1.0"}})
	}
	for i := range 6 {
		wc := fixture.Context(i)
		contexts = append(contexts, ContextFromWire(&wc))
	}
	on := 0
	for ci := range contexts {
		ctx := &contexts[ci]
		for k, r := range snap.EvaluateAll(ctx, nil) {
			if want := snap.Evaluate(r.Name, ctx); r != want {
				t.Errorf("context %d, flag %d %s: %+v, alone %+v", ci, k, r.Name, r, want)
			}
			if r.Enabled {
				on++
			}
		}
	}
	if on == 0 {
		t.Fatal("no flag was on for any context")
	}
}
