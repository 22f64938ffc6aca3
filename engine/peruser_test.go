package engine_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/signalbox/signalbox/clientapi"
	"github.com/signalbox/signalbox/engine"
	"github.com/signalbox/signalbox/internal/fixture"
)

// perUserReads has a flag for every way an answer can read the fields that
// tell users apart, each also behind a constraint that may stop it first
// and as the parent of flags before and after it.
func perUserReads() *clientapi.Features {
	f := &clientapi.Features{Version: 2, Segments: []clientapi.Segment{
		{ID: 1, Constraints: []clientapi.Constraint{{ContextName: "userId", Operator: "IN", Values: []string{"u1", "u2"}}}},
	}}
	tier := clientapi.Constraint{ContextName: "tier", Operator: "IN", Values: []string{"gold"}}
	strategies := []clientapi.Strategy{
		{Name: "userWithId", Parameters: clientapi.Parameters{"userIds": "u1,u3"}},
		{Name: "gradualRolloutUserId", Parameters: clientapi.Parameters{"percentage": "50", "groupId": "g"}},
		{Name: "gradualRolloutSessionId", Parameters: clientapi.Parameters{"percentage": "50", "groupId": "g"}},
		{Name: "flexibleRollout", Parameters: clientapi.Parameters{"rollout": "50", "stickiness": "default", "groupId": "g"}},
		{Name: "flexibleRollout", Parameters: clientapi.Parameters{"rollout": "50", "stickiness": "sessionId", "groupId": "g"}},
		{Name: "flexibleRollout", Parameters: clientapi.Parameters{"rollout": "50", "stickiness": "tier", "groupId": "g"}},
		{Name: "remoteAddress", Parameters: clientapi.Parameters{"IPs": "10.0.0.0/8"}},
		{Name: "default", Constraints: []clientapi.Constraint{{ContextName: "sessionId", Operator: "STR_STARTS_WITH", Values: []string{"s1"}}}},
		{Name: "default", Constraints: []clientapi.Constraint{{ContextName: "remoteAddress", Operator: "IN_CIDR", Values: []string{"192.168.0.0/16"}}}},
		{Name: "default", Segments: []int{1}},
		{Name: "default", Segments: []int{1}}, // the same constraint again: a remembered verdict
		{Name: "default", Variants: []clientapi.Variant{{Name: "a", Weight: 500}, {Name: "b", Weight: 500}}},
		{Name: "default", Variants: []clientapi.Variant{{Name: "a", Weight: 500, Stickiness: "tier"}, {Name: "b", Weight: 500, Stickiness: "tier"}}},
		{Name: "byUser"}, // a custom strategy (see byUser)
	}
	for i, st := range strategies {
		guarded := st
		guarded.Constraints = append([]clientapi.Constraint{tier}, st.Constraints...)
		f.Features = append(f.Features,
			clientapi.Feature{Name: fmt.Sprint("child-before-", i), Enabled: true, Dependencies: []clientapi.Dependency{{Feature: fmt.Sprint("read-", i)}}},
			clientapi.Feature{Name: fmt.Sprint("read-", i), Enabled: true, Strategies: []clientapi.Strategy{st}},
			clientapi.Feature{Name: fmt.Sprint("guarded-", i), Enabled: true, Strategies: []clientapi.Strategy{guarded}},
			clientapi.Feature{Name: fmt.Sprint("child-after-", i), Enabled: true, Dependencies: []clientapi.Dependency{{Feature: fmt.Sprint("read-", i), Enabled: new(bool)}}})
	}
	f.Features = append(f.Features,
		clientapi.Feature{Name: "flag-variants", Enabled: true, Variants: []clientapi.Variant{{Name: "a", Weight: 500}, {Name: "b", Weight: 500}}},
		clientapi.Feature{Name: "override", Enabled: true, Variants: []clientapi.Variant{
			{Name: "a", Weight: 500, Stickiness: "tier", Overrides: []clientapi.Override{{ContextName: "userId", Values: []string{"u2"}}}},
			{Name: "b", Weight: 500, Stickiness: "tier"}}})
	return f
}

// identities are users with every mix of the fields that tell users apart,
// none of them included, with values that perUserReads' flags test.
func identities() []engine.Context {
	return []engine.Context{
		{},
		{UserID: "u1", SessionID: "s1", RemoteAddress: "10.0.0.1"},
		{UserID: "u2", RemoteAddress: "192.168.1.7"},
		{UserID: "u3", SessionID: "s2"},
		{SessionID: "s1"},
		{RemoteAddress: "10.9.9.9"},
		{UserID: "someone-else", SessionID: "s9", RemoteAddress: "2001:db8::1"},
	}
}

// sharedContexts is every one of users without a tier and with the tiers
// gold and silver (a property perUserReads' guards test), then the first
// fixtures of fixture.Context.
func sharedContexts(users []engine.Context, fixtures int) []engine.Context {
	var contexts []engine.Context
	for _, tier := range []string{"", "gold", "silver"} {
		for _, u := range users {
			c := u
			if tier != "" {
				c.Properties = map[string]string{"tier": tier}
			}
			contexts = append(contexts, c)
		}
	}
	for i := range fixtures {
		wc := fixture.Context(i)
		contexts = append(contexts, engine.ContextFromWire(&wc))
	}
	return contexts
}

// allPositions is every flag of snap, as EvaluateSome and Plan take them.
func allPositions(snap *engine.Snapshot) []int32 {
	positions := make([]int32, snap.Len())
	for i := range positions {
		positions[i] = int32(i)
	}
	return positions
}

// TestPerUserIsSound: an answer without PerUser is the same, to the last
// field, for every context that differs in userId, sessionId and
// remoteAddress alone, for every flag of realistic payloads and of one
// with every way of reading them; and PerUser is both set and unset there.
func TestPerUserIsSound(t *testing.T) {
	users := identities()
	contexts := sharedContexts(users, 12)
	payloads := map[string]*clientapi.Features{"every read": perUserReads()}
	for seed := range 3 {
		payloads[fmt.Sprint("fixture ", seed)] = fixture.Features(600, uint64(seed+1))
	}
	for name, payload := range payloads {
		// A fixed draw: volatile answers must agree too.
		snap := engine.Compile(payload, engine.Options{Rand: func(int) int { return 0 }, CustomStrategies: byUser})
		perUser, shared := 0, 0
		for ci := range contexts {
			ctx := contexts[ci]
			all := snap.EvaluateAll(&ctx, nil)
			for _, u := range users {
				other := ctx
				other.UserID, other.SessionID, other.RemoteAddress = u.UserID, u.SessionID, u.RemoteAddress
				otherAll := snap.EvaluateAll(&other, nil)
				for k, r := range all {
					if r.PerUser {
						continue
					}
					if got := otherAll[k]; got != r {
						t.Errorf("%s, context %d: %s without PerUser is %+v, with user %+v %+v", name, ci, r.Name, r, u, got)
					}
				}
			}
			for _, r := range all {
				if r.PerUser {
					perUser++
				} else {
					shared++
				}
			}
		}
		if perUser == 0 || shared == 0 {
			t.Errorf("%s: %d answers per user and %d shared: the test shows nothing", name, perUser, shared)
		}
	}
}

// byUser is a custom strategy on for users whose id ends in 1.
var byUser = map[string]engine.CustomStrategy{"byUser": engine.CustomStrategyFunc(func(_ map[string]string, c *engine.Context) bool {
	return strings.HasSuffix(c.UserID, "1")
})}
