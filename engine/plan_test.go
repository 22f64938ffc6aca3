package engine_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/signalbox/signalbox/clientapi"
	"github.com/signalbox/signalbox/engine"
	"github.com/signalbox/signalbox/internal/fixture"
)

// planEdges has the flags whose checks are easiest to get wrong: rollouts
// of a fraction of a percent (on for no bucket, yet a draw for a context
// without ids), of nothing and of everyone by user id, variants that weigh
// nothing, a date that decides a strategy, parents that do and do not read
// the user (with variants, and two of them), variants without strategies,
// and variants pinned to users by overrides (with and without weights) or
// to a shared field.
func planEdges() *clientapi.Features {
	rollout := func(pct, sticky string) clientapi.Strategy {
		return clientapi.Strategy{Name: "flexibleRollout", Parameters: clientapi.Parameters{"rollout": pct, "stickiness": sticky, "groupId": "edge"}}
	}
	zeroWeights := rollout("50", "default")
	zeroWeights.Variants = []clientapi.Variant{{Name: "a", Weight: 0}, {Name: "b", Weight: 0}}
	dated := rollout("50", "default")
	dated.Constraints = []clientapi.Constraint{{ContextName: "currentTime", Operator: "DATE_AFTER", Value: "2020-01-01T00:00:00Z"}}
	weighted := []clientapi.Variant{{Name: "a", Weight: 300, Payload: &clientapi.Payload{Type: "string", Value: "A"}}, {Name: "b", Weight: 700}}
	withVariants := rollout("80", "default")
	withVariants.Variants = weighted
	pinned := []clientapi.Variant{
		{Name: "a", Weight: 500, Overrides: []clientapi.Override{{ContextName: "sessionId", Values: []string{"s2"}}}},
		{Name: "b", Weight: 500, Overrides: []clientapi.Override{{ContextName: "userId", Values: []string{"", "u2", "7"}}}},
		{Name: "c", Weight: 0, Overrides: []clientapi.Override{{ContextName: "remoteAddress", Values: []string{"10.9.9.9"}}}},
	}
	pinnedOnly := []clientapi.Variant{{Name: "a", Weight: 0, Overrides: []clientapi.Override{{ContextName: "userId", Values: []string{"u1"}}}}}
	byTier := []clientapi.Variant{{Name: "a", Weight: 500, Overrides: []clientapi.Override{{ContextName: "tier", Values: []string{"gold"}}}}, {Name: "b", Weight: 500}}
	return &clientapi.Features{Version: 2, Features: []clientapi.Feature{
		{Name: "half-percent", Enabled: true, Strategies: []clientapi.Strategy{rollout("0.5", "default")}},
		{Name: "nothing", Enabled: true, Strategies: []clientapi.Strategy{rollout("0", "default"), rollout("30", "default")}},
		{Name: "bad-percent", Enabled: true, Strategies: []clientapi.Strategy{rollout("lots", "default")}},
		{Name: "everyone-by-id", Enabled: true, Strategies: []clientapi.Strategy{{Name: "gradualRolloutUserId", Parameters: clientapi.Parameters{"percentage": "100", "groupId": "g"}}}},
		{Name: "session-part", Enabled: true, Strategies: []clientapi.Strategy{{Name: "gradualRolloutSessionId", Parameters: clientapi.Parameters{"percentage": "37.5", "groupId": "g"}}}},
		{Name: "zero-weights", Enabled: true, Strategies: []clientapi.Strategy{zeroWeights}},
		{Name: "weightless", Enabled: true, Strategies: []clientapi.Strategy{{Name: "default"}}, Variants: zeroWeights.Variants},
		{Name: "dated", Enabled: true, Strategies: []clientapi.Strategy{dated}},
		{Name: "strategy-variants", Enabled: true, ImpressionData: true, Strategies: []clientapi.Strategy{withVariants}},
		{Name: "flag-variants", Enabled: true, Strategies: []clientapi.Strategy{rollout("60", "default")}, Variants: weighted},
		{Name: "variants-alone", Enabled: true, Variants: weighted},
		{Name: "pinned", Enabled: true, Strategies: []clientapi.Strategy{{Name: "default"}}, Variants: pinned},
		{Name: "pinned-rollout", Enabled: true, Strategies: []clientapi.Strategy{rollout("70", "default")}, Variants: pinned},
		{Name: "pinned-only", Enabled: true, Strategies: []clientapi.Strategy{{Name: "default"}}, Variants: pinnedOnly},
		{Name: "pinned-by-tier", Enabled: true, Strategies: []clientapi.Strategy{rollout("90", "default")}, Variants: byTier},
		{Name: "shared-parent", Enabled: true, Strategies: []clientapi.Strategy{{Name: "default", Constraints: []clientapi.Constraint{
			{ContextName: "tier", Operator: "IN", Values: []string{"gold"}}}}}},
		{Name: "child-of-shared", Enabled: true, Dependencies: []clientapi.Dependency{{Feature: "shared-parent"}},
			Strategies: []clientapi.Strategy{rollout("50", "default")}},
		{Name: "child-of-user", Enabled: true, Dependencies: []clientapi.Dependency{{Feature: "half-percent", Enabled: new(bool)}},
			Strategies: []clientapi.Strategy{rollout("50", "default")}},
		{Name: "child-of-variant", Enabled: true, Dependencies: []clientapi.Dependency{{Feature: "flag-variants", Variants: []string{"a"}}}},
		{Name: "child-of-variants", Enabled: true, Dependencies: []clientapi.Dependency{{Feature: "strategy-variants", Variants: []string{"b"}},
			{Feature: "half-percent", Enabled: new(bool)}}, Strategies: []clientapi.Strategy{rollout("50", "default")}},
		{Name: "ids-then-rollout", Enabled: true, Strategies: []clientapi.Strategy{
			{Name: "userWithId", Parameters: clientapi.Parameters{"userIds": "u1,u2"}}, rollout("25", "default")}},
		{Name: "rollout-then-default", Enabled: true, Strategies: []clientapi.Strategy{rollout("25", "default"), {Name: "default"}, rollout("75", "default")}},
	}}
}

// userLists has userWithId lists of each shape: short, long (a map), the
// same list twice, lists ahead of rollouts, and with extra ids enough to
// pass the plan's index bound (a plan then reads each list itself).
func userLists(extra int) *clientapi.Features {
	ids := func(list ...string) clientapi.Strategy {
		return clientapi.Strategy{Name: "userWithId", Parameters: clientapi.Parameters{"userIds": strings.Join(list, ",")}}
	}
	long := []string{"3", "u2"}
	for i := range 20 {
		long = append(long, fmt.Sprint("long-", i))
	}
	many := []string{"5"}
	for i := range extra {
		many = append(many, fmt.Sprint("many-", i))
	}
	half := clientapi.Strategy{Name: "flexibleRollout", Parameters: clientapi.Parameters{"rollout": "50", "stickiness": "default"}}
	return &clientapi.Features{Version: 2, Features: []clientapi.Feature{
		{Name: "short", Enabled: true, Strategies: []clientapi.Strategy{ids("1", "7", "u1")}},
		{Name: "long", Enabled: true, Strategies: []clientapi.Strategy{ids(long...), half}},
		{Name: "short-again", Enabled: true, Strategies: []clientapi.Strategy{ids("1", "7", "u1")}},
		{Name: "rollout-then-list", Enabled: true, Strategies: []clientapi.Strategy{half, ids("2", "u3")}},
		{Name: "many", Enabled: true, Strategies: []clientapi.Strategy{ids(many...)}},
		{Name: "two-lists", Enabled: true, Strategies: []clientapi.Strategy{ids("u9"), ids("7", "4")}},
	}}
}

// TestPlanMatches: a plan gives, to the last field, the results
// EvaluateSome gives for every flag and every context that differs from the
// plan's base in userId, sessionId and remoteAddress alone, with every way
// of reading them, and it answers flags from checks as well as in full.
func TestPlanMatches(t *testing.T) {
	bases := sharedContexts(identities(), 6)
	users := identities()
	for i := range 40 {
		users = append(users, engine.Context{UserID: fmt.Sprint(i), SessionID: fmt.Sprint("s-", i)})
	}
	// Ids on the edges of the edge payload's rollouts in group "g": bucket
	// 100 (on only at 100%), 37 and 38 (37.5% lets 1..37 in).
	for _, bucket := range []uint32{100, 37, 38} {
		for i := 0; ; i++ {
			id := fmt.Sprint("edge-", i)
			if engine.NormalizedHash("g", id, 100, 0) == bucket {
				users = append(users, engine.Context{UserID: id, SessionID: id})
				break
			}
		}
	}
	payloads := map[string]*clientapi.Features{"every read": perUserReads(), "edges": planEdges(),
		"user lists": userLists(10), "user lists past the index": userLists(engine.MaxUserIndex)}
	for seed := range 2 {
		payloads[fmt.Sprint("fixture ", seed)] = fixture.Features(300, uint64(seed+1))
	}
	for name, payload := range payloads {
		// A fixed draw, so that answers that draw agree too.
		snap := engine.Compile(payload, engine.Options{Rand: func(n int) int { return n / 3 }, CustomStrategies: byUser})
		positions := allPositions(snap)
		checked, generic, indexed := 0, 0, 0
		for bi := range bases {
			plan := snap.Plan(&bases[bi], positions)
			c, g := engine.PlanShape(plan)
			checked, generic = checked+c, generic+g
			if engine.PlanIndexesUsers(plan) {
				indexed++
			}
			for _, u := range users {
				ctx := bases[bi]
				ctx.UserID, ctx.SessionID, ctx.RemoteAddress = u.UserID, u.SessionID, u.RemoteAddress
				var want, got []engine.Result
				snap.EvaluateSome(&ctx, positions, func(r *engine.Result) { want = append(want, *r) })
				plan.Evaluate(&ctx, func(r *engine.Result) { got = append(got, *r) })
				if len(got) != len(want) {
					t.Fatalf("%s: %d results from the plan, %d from EvaluateSome", name, len(got), len(want))
				}
				for k := range want {
					if got[k] != want[k] {
						t.Errorf("%s, base %d, user %+v: %s is\n%+v from the plan,\n%+v from EvaluateSome", name, bi, u, want[k].Name, got[k], want[k])
					}
				}
				// Naming outcomes gives every step once, in order, with the
				// same result; the outcomes named are those a user can get
				// (callers prepare nothing for the others).
				next := 0
				plan.EvaluateOutcomes(&ctx, nil, func(step int, o int32, full *engine.Result) {
					if step != next {
						t.Fatalf("%s: step %d named after %d", name, step, next-1)
					}
					next++
					if o >= 0 {
						r, possible := plan.Outcome(o)
						if !possible {
							t.Errorf("%s, base %d, user %+v: outcome %d named, but none can get it", name, bi, u, o)
						}
						full = &r
					}
					if *full != want[step] {
						t.Errorf("%s, base %d, user %+v: step %d named %+v, EvaluateSome gives %+v", name, bi, u, step, *full, want[step])
					}
				})
				if next != len(want) {
					t.Fatalf("%s: %d steps named, %d results from EvaluateSome", name, next, len(want))
				}
			}
		}
		if checked == 0 || generic == 0 && !strings.HasPrefix(name, "user lists") {
			t.Errorf("%s: %d flags answered from checks, %d in full: the test shows nothing", name, checked, generic)
		}
		if wantIndexed := name != "user lists past the index"; (indexed > 0) != wantIndexed {
			t.Errorf("%s: %d plans of %d index their user lists", name, indexed, len(bases))
		}
	}
}
