package engine_test

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/signalbox/signalbox/clientapi"
	"github.com/signalbox/signalbox/engine"
	"github.com/signalbox/signalbox/internal/fixture"
)

func oneFlag(f clientapi.Feature, opts engine.Options) *engine.Snapshot {
	return engine.Compile(&clientapi.Features{Version: 2, Features: []clientapi.Feature{f}}, opts)
}

func withStrategy(s clientapi.Strategy) clientapi.Feature {
	return clientapi.Feature{Name: "f", Enabled: true, Strategies: []clientapi.Strategy{s}}
}

// fixedRand returns a Rand that always draws v (clamped into [0, n)).
func fixedRand(v int) func(int) int {
	return func(n int) int { return min(v, n-1) }
}

func TestStrategies(t *testing.T) {
	tests := []struct {
		name string
		s    clientapi.Strategy
		opts engine.Options
		ctx  engine.Context
		want bool
	}{
		{"remoteAddress CIDR", clientapi.Strategy{Name: "remoteAddress", Parameters: clientapi.Parameters{"IPs": "10.0.0.0/8, 192.168.1.1"}}, engine.Options{}, engine.Context{RemoteAddress: "10.20.30.40"}, true},
		{"remoteAddress IPv6", clientapi.Strategy{Name: "remoteAddress", Parameters: clientapi.Parameters{"IPs": "2001:db8::/32"}}, engine.Options{}, engine.Context{RemoteAddress: "2001:db8::1"}, true},
		{"remoteAddress exact non-IP", clientapi.Strategy{Name: "remoteAddress", Parameters: clientapi.Parameters{"IPs": "gateway"}}, engine.Options{}, engine.Context{RemoteAddress: "gateway"}, true},
		{"remoteAddress missing", clientapi.Strategy{Name: "remoteAddress", Parameters: clientapi.Parameters{"IPs": "0.0.0.0/0"}}, engine.Options{}, engine.Context{}, false},
		{"applicationHostname match", clientapi.Strategy{Name: "applicationHostname", Parameters: clientapi.Parameters{"hostNames": "web-1, API-2"}}, engine.Options{Hostname: "api-2"}, engine.Context{}, true},
		{"applicationHostname miss", clientapi.Strategy{Name: "applicationHostname", Parameters: clientapi.Parameters{"hostNames": "web-1"}}, engine.Options{Hostname: "api-2"}, engine.Context{}, false},
		{"userWithId trims", clientapi.Strategy{Name: "userWithId", Parameters: clientapi.Parameters{"userIds": " a ,b,, c "}}, engine.Options{}, engine.Context{UserID: "c"}, true},
		{"userWithId missing user", clientapi.Strategy{Name: "userWithId", Parameters: clientapi.Parameters{"userIds": "a"}}, engine.Options{}, engine.Context{}, false},
		{"gradualRolloutRandom 100", clientapi.Strategy{Name: "gradualRolloutRandom", Parameters: clientapi.Parameters{"percentage": "100"}}, engine.Options{Rand: fixedRand(99)}, engine.Context{}, true},
		{"gradualRolloutRandom 0", clientapi.Strategy{Name: "gradualRolloutRandom", Parameters: clientapi.Parameters{"percentage": "0"}}, engine.Options{Rand: fixedRand(0)}, engine.Context{}, false},
		{"gradualRolloutRandom draw in", clientapi.Strategy{Name: "gradualRolloutRandom", Parameters: clientapi.Parameters{"percentage": "30"}}, engine.Options{Rand: fixedRand(29)}, engine.Context{}, true},
		{"gradualRolloutRandom draw out", clientapi.Strategy{Name: "gradualRolloutRandom", Parameters: clientapi.Parameters{"percentage": "30"}}, engine.Options{Rand: fixedRand(30)}, engine.Context{}, false},
		{"flexibleRollout random stickiness", clientapi.Strategy{Name: "flexibleRollout", Parameters: clientapi.Parameters{"rollout": "50", "stickiness": "random"}}, engine.Options{Rand: fixedRand(10)}, engine.Context{UserID: "u"}, true},
		{"flexibleRollout default falls back to random", clientapi.Strategy{Name: "flexibleRollout", Parameters: clientapi.Parameters{"rollout": "50"}}, engine.Options{Rand: fixedRand(80)}, engine.Context{}, false},
		{"flexibleRollout bad rollout", clientapi.Strategy{Name: "flexibleRollout", Parameters: clientapi.Parameters{"rollout": "lots"}}, engine.Options{}, engine.Context{UserID: "u"}, false},
		{"numeric parameter from JSON number", clientapi.Strategy{Name: "flexibleRollout", Parameters: clientapi.Parameters{"rollout": "100"}}, engine.Options{}, engine.Context{UserID: "u"}, true},
		{"unknown strategy", clientapi.Strategy{Name: "mine"}, engine.Options{}, engine.Context{}, false},
		{"custom strategy", clientapi.Strategy{Name: "mine", Parameters: clientapi.Parameters{"team": "x"}}, engine.Options{CustomStrategies: map[string]engine.CustomStrategy{
			"mine": engine.CustomStrategyFunc(func(p map[string]string, c *engine.Context) bool { return p["team"] == c.Properties["team"] }),
		}}, engine.Context{Properties: props("team", "x")}, true},
		{"custom strategy constraints first", clientapi.Strategy{Name: "mine", Constraints: []clientapi.Constraint{{ContextName: "userId", Operator: "IN", Values: []string{"a"}}}}, engine.Options{CustomStrategies: map[string]engine.CustomStrategy{
			"mine": engine.CustomStrategyFunc(func(map[string]string, *engine.Context) bool { return true }),
		}}, engine.Context{UserID: "b"}, false},
		{"missing segment switches strategy off", clientapi.Strategy{Name: "default", Segments: []int{42}}, engine.Options{}, engine.Context{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			snap := oneFlag(withStrategy(tt.s), tt.opts)
			if got := snap.IsEnabled("f", &tt.ctx); got != tt.want {
				t.Errorf("IsEnabled = %v, want %v (warnings %v)", got, tt.want, snap.Warnings())
			}
		})
	}
}

// TestRolloutDistribution checks that a 30% rollout over many ids lands
// near 30%, and that the same id always gets the same answer.
func TestRolloutDistribution(t *testing.T) {
	snap := oneFlag(withStrategy(clientapi.Strategy{Name: "flexibleRollout", Parameters: clientapi.Parameters{"rollout": "30", "stickiness": "userId", "groupId": "g"}}), engine.Options{})
	const n = 20000
	on := 0
	for i := range n {
		ctx := engine.Context{UserID: fmt.Sprint("user-", i)}
		a := snap.IsEnabled("f", &ctx)
		if a != snap.IsEnabled("f", &ctx) {
			t.Fatalf("user-%d is not sticky", i)
		}
		if a {
			on++
		}
	}
	if share := float64(on) / n; math.Abs(share-0.30) > 0.02 {
		t.Errorf("30%% rollout switched on %.3f of users", share)
	}
}

// TestVariantWeightDistribution checks fixed/variable style weights
// totalling 1000 split users in proportion.
func TestVariantWeightDistribution(t *testing.T) {
	f := clientapi.Feature{Name: "v", Enabled: true, Variants: []clientapi.Variant{
		{Name: "a", Weight: 500, WeightType: "fix"},
		{Name: "b", Weight: 300, WeightType: "variable"},
		{Name: "c", Weight: 200, WeightType: "variable"},
		{Name: "never", Weight: 0},
	}}
	snap := oneFlag(f, engine.Options{})
	counts := map[string]int{}
	const n = 30000
	for i := range n {
		ctx := engine.Context{UserID: fmt.Sprint(i)}
		counts[snap.Evaluate("v", &ctx).Variant.Name]++
	}
	for name, want := range map[string]float64{"a": 0.5, "b": 0.3, "c": 0.2} {
		if got := float64(counts[name]) / n; math.Abs(got-want) > 0.02 {
			t.Errorf("variant %s got share %.3f, want about %.2f", name, got, want)
		}
	}
	if counts["never"] != 0 {
		t.Errorf("zero-weight variant picked %d times", counts["never"])
	}
}

func TestVariants(t *testing.T) {
	payload := &clientapi.Payload{Type: "json", Value: `{"k":1}`}
	tests := []struct {
		name string
		f    clientapi.Feature
		opts engine.Options
		ctx  engine.Context
		want engine.Variant
	}{
		{
			name: "override wins even with zero weights",
			f: clientapi.Feature{Name: "f", Enabled: true, Variants: []clientapi.Variant{
				{Name: "a", Weight: 0, Overrides: []clientapi.Override{{ContextName: "userId", Values: []string{"u1"}}}},
			}},
			ctx:  engine.Context{UserID: "u1"},
			want: engine.Variant{Name: "a", Enabled: true, FeatureEnabled: true},
		},
		{
			name: "zero total weight gives the fallback with the flag on",
			f:    clientapi.Feature{Name: "f", Enabled: true, Variants: []clientapi.Variant{{Name: "a", Weight: 0}}},
			want: engine.Variant{Name: "disabled", FeatureEnabled: true},
		},
		{
			name: "payload passes through",
			f:    clientapi.Feature{Name: "f", Enabled: true, Variants: []clientapi.Variant{{Name: "a", Weight: 1000, Payload: payload}}},
			ctx:  engine.Context{UserID: "x"},
			want: engine.Variant{Name: "a", Enabled: true, Payload: payload, FeatureEnabled: true},
		},
		{
			name: "a user variant named disabled is enabled",
			f:    clientapi.Feature{Name: "f", Enabled: true, Variants: []clientapi.Variant{{Name: "disabled", Weight: 1000}}},
			ctx:  engine.Context{UserID: "x"},
			want: engine.Variant{Name: "disabled", Enabled: true, FeatureEnabled: true},
		},
		{
			name: "random bucket when no stickiness value",
			f: clientapi.Feature{Name: "f", Enabled: true, Variants: []clientapi.Variant{
				{Name: "a", Weight: 500}, {Name: "b", Weight: 500},
			}},
			opts: engine.Options{Rand: fixedRand(999)},
			want: engine.Variant{Name: "b", Enabled: true, FeatureEnabled: true},
		},
		{
			name: "default stickiness falls back to remoteAddress",
			f: clientapi.Feature{Name: "f", Enabled: true, Variants: []clientapi.Variant{
				{Name: "a", Weight: 500}, {Name: "b", Weight: 500},
			}},
			opts: engine.Options{Rand: func(int) int { panic("must not draw") }},
			ctx:  engine.Context{RemoteAddress: "10.0.0.1"},
			want: engine.Variant{Name: pickBy("f", "10.0.0.1", []string{"a", "b"}), Enabled: true, FeatureEnabled: true},
		},
		{
			name: "off flag gives the fallback with the flag off",
			f:    clientapi.Feature{Name: "f", Enabled: false, Variants: []clientapi.Variant{{Name: "a", Weight: 1000}}},
			want: engine.Variant{Name: "disabled"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// The snapshot keeps its own copy of a payload: compared by value.
			got := oneFlag(tt.f, tt.opts).Evaluate("f", &tt.ctx).Variant
			if !sameVariant(got, tt.want) {
				t.Errorf("variant = %+v, want %+v", got, tt.want)
			}
		})
	}
}

// pickBy is the expected variant of an equal-weight list for one id.
func pickBy(group, id string, names []string) string {
	b := engine.NormalizedHash(group, id, uint32(len(names))*500, 86028157)
	return names[(b-1)/500]
}

func TestDependencies(t *testing.T) {
	f := func(name string, on bool, deps ...clientapi.Dependency) clientapi.Feature {
		return clientapi.Feature{Name: name, Enabled: on, Dependencies: deps}
	}
	no := false
	snap := engine.Compile(&clientapi.Features{Features: []clientapi.Feature{
		f("a", true, clientapi.Dependency{Feature: "b"}),
		f("b", true, clientapi.Dependency{Feature: "a"}),
		f("self", true, clientapi.Dependency{Feature: "self"}),
		f("parent", false),
		f("child-of-off", true, clientapi.Dependency{Feature: "parent", Enabled: &no}),
		f("orphan", true, clientapi.Dependency{Feature: "missing"}),
	}}, engine.Options{})
	for name, want := range map[string]bool{"a": false, "b": false, "self": false, "child-of-off": true, "orphan": false} {
		if got := snap.IsEnabled(name, &engine.Context{}); got != want {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
}

func TestDuplicateFlagNamesLastWins(t *testing.T) {
	snap := engine.Compile(&clientapi.Features{Features: []clientapi.Feature{
		{Name: "x", Enabled: false}, {Name: "y", Enabled: true}, {Name: "x", Enabled: true},
	}}, engine.Options{})
	if snap.Len() != 2 || !snap.IsEnabled("x", &engine.Context{}) {
		t.Errorf("len %d, x on %v; want 2 flags and x on", snap.Len(), snap.IsEnabled("x", &engine.Context{}))
	}
	if got := snap.Names(); got[0] != "x" || got[1] != "y" {
		t.Errorf("order %v, want [x y]", got)
	}
}

func TestEvaluateAllKeepsPayloadOrder(t *testing.T) {
	snap := engine.Compile(&clientapi.Features{Features: []clientapi.Feature{
		{Name: "z", Enabled: true}, {Name: "a", Enabled: false}, {Name: "m", Enabled: true},
	}}, engine.Options{})
	all := snap.EvaluateAll(&engine.Context{}, nil)
	on, _, _ := snap.EvaluateEnabled(&engine.Context{}, nil)
	if len(all) != 3 || all[0].Name != "z" || all[1].Name != "a" || all[2].Name != "m" {
		t.Errorf("EvaluateAll order %+v", all)
	}
	if len(on) != 2 || on[0].Name != "z" || on[1].Name != "m" {
		t.Errorf("EvaluateEnabled %+v", on)
	}
	if r := snap.Evaluate("nope", &engine.Context{}); r.Found || r.Enabled || r.Variant.Name != "disabled" {
		t.Errorf("unknown flag result %+v", r)
	}
}

// TestEvaluateEnabledAppendsAfterDst: the enabled flags come after what
// dst already holds.
func TestEvaluateEnabledAppendsAfterDst(t *testing.T) {
	snap := engine.Compile(fixture.Features(500, 3), engine.Options{})
	wc := fixture.Context(1)
	ctx := engine.ContextFromWire(&wc)
	want, _, _ := snap.EvaluateEnabled(&ctx, nil)
	if len(want) == 0 {
		t.Fatal("no flag is on")
	}
	got, _, _ := snap.EvaluateEnabled(&ctx, []engine.Result{{Name: "before"}})
	if len(got) != len(want)+1 || got[0].Name != "before" || !slices.Equal(got[1:], want) {
		t.Errorf("after a prefix: %d results, want %d", len(got), len(want)+1)
	}
}

// sameVariant compares variants with their payloads by value: every
// snapshot keeps its own copy of the payloads it compiled.
func sameVariant(a, b engine.Variant) bool {
	pa, pb := a.Payload, b.Payload
	a.Payload, b.Payload = nil, nil
	return a == b && samePayload(pa, pb)
}
