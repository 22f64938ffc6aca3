package engine_test

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/signalbox/signalbox/clientapi"
	"github.com/signalbox/signalbox/engine"
)

// TestUserWithIdLists checks userWithId against the plain reading of the
// lists, for ids that several strategies list, that one list names twice,
// that only a later strategy or flag lists, and that none does; over all
// flags at once, one flag at a time, and through a dependency on a flag
// further down the payload (evaluated out of order).
func TestUserWithIdLists(t *testing.T) {
	lists := map[string][]string{
		"alpha":   {"u1, u2, u3", "u9"},
		"beta":    {"u2,u2 ,u4"},
		"gamma":   {"u9", "u3,u5"},
		"delta":   {""},
		"epsilon": {"u5"},
	}
	payload := &clientapi.Features{Version: 2}
	// The child depends on a parent listed after it.
	payload.Features = append(payload.Features, clientapi.Feature{
		Name: "child", Enabled: true, Strategies: []clientapi.Strategy{{Name: "default"}},
		Dependencies: []clientapi.Dependency{{Feature: "epsilon"}},
	})
	for _, name := range []string{"alpha", "beta", "gamma", "delta", "epsilon"} {
		f := clientapi.Feature{Name: name, Enabled: true}
		for _, ids := range lists[name] {
			f.Strategies = append(f.Strategies, clientapi.Strategy{Name: "userWithId", Parameters: clientapi.Parameters{"userIds": ids}})
		}
		payload.Features = append(payload.Features, f)
	}
	// A later flag of the same name replaces the earlier one.
	payload.Features = append(payload.Features, clientapi.Feature{Name: "beta", Enabled: true,
		Strategies: []clientapi.Strategy{{Name: "userWithId", Parameters: clientapi.Parameters{"userIds": "u7"}}}})
	lists["beta"] = []string{"u7"}

	listed := func(flag, user string) bool {
		for _, ids := range lists[flag] {
			for _, id := range strings.Split(ids, ",") {
				if user != "" && strings.TrimSpace(id) == user {
					return true
				}
			}
		}
		return false
	}
	snap := engine.Compile(payload, engine.Options{})
	for _, user := range []string{"", "u1", "u2", "u3", "u4", "u5", "u7", "u9", "u6", "u 1", "U1"} {
		want := map[string]bool{"child": listed("epsilon", user)}
		for name := range lists {
			want[name] = listed(name, user)
		}
		ctx := &engine.Context{UserID: user}
		var all []string
		snap.EvaluateEach(ctx, func(r *engine.Result) {
			all = append(all, fmt.Sprintf("%s=%t", r.Name, r.Enabled))
			if r.Enabled != want[r.Name] {
				t.Errorf("user %q, all flags: %s is %t, want %t", user, r.Name, r.Enabled, want[r.Name])
			}
		})
		if len(all) != len(want) {
			t.Errorf("user %q: evaluated %v, want %d flags", user, all, len(want))
		}
		for _, name := range slices.Sorted(maps.Keys(want)) {
			if got := snap.Evaluate(name, ctx).Enabled; got != want[name] {
				t.Errorf("user %q, one flag: %s is %t, want %t", user, name, got, want[name])
			}
		}
	}
}
