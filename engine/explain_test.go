package engine_test

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/signalbox/signalbox/clientapi"
	"github.com/signalbox/signalbox/engine"
	"github.com/signalbox/signalbox/internal/fixture"
)

// sameDecision fails the test unless Explain and Evaluate answer alike.
func sameDecision(t *testing.T, where string, snap *engine.Snapshot, name string, ctx *engine.Context) {
	t.Helper()
	r := snap.Evaluate(name, ctx)
	x := snap.Explain(name, ctx)
	if x.Found != r.Found || x.Enabled != r.Enabled || x.Variant.Name != r.Variant.Name || x.Variant.Enabled != r.Variant.Enabled ||
		x.Variant.FeatureEnabled != r.Variant.FeatureEnabled || x.Variant.Payload != r.Variant.Payload || (r.Volatile && !x.Volatile) {
		t.Errorf("%s: %q: Explain = found %v enabled %v variant %+v volatile %v; Evaluate = found %v enabled %v variant %+v volatile %v",
			where, name, x.Found, x.Enabled, x.Variant, x.Volatile, r.Found, r.Enabled, r.Variant, r.Volatile)
		return
	}
	if !x.Found {
		return
	}
	// The reasons add up to the decision.
	if want := x.FlagEnabled && x.DependenciesMet && x.StrategiesResult == engine.OutcomeTrue; want != x.Enabled {
		t.Errorf("%s: %q: enabled %v, but flag %v, dependencies %v, strategies %v", where, name, x.Enabled, x.FlagEnabled, x.DependenciesMet, x.StrategiesResult)
	}
	for i, s := range x.Strategies {
		if s.Strategy == nil {
			t.Errorf("%s: %q: strategy %d has no definition", where, name, i)
			continue
		}
		if len(s.Constraints) != len(s.Strategy.Constraints) || len(s.Segments) != len(s.Strategy.Segments) {
			t.Errorf("%s: %q: strategy %d explains %d constraints and %d segments of %d and %d", where, name, i,
				len(s.Constraints), len(s.Segments), len(s.Strategy.Constraints), len(s.Strategy.Segments))
		}
		if s.Result == engine.OutcomeTrue {
			for _, c := range s.Constraints {
				if !c.Result {
					t.Errorf("%s: %q: strategy %d is on with a failing constraint %+v", where, name, i, *c.Constraint)
				}
			}
			for _, seg := range s.Segments {
				if !seg.Result {
					t.Errorf("%s: %q: strategy %d is on with failing segment %d", where, name, i, seg.ID)
				}
			}
		}
	}
}

// deterministic options: draws that do not depend on their order (so
// that Explain, which evaluates every strategy, draws as Evaluate does)
// and a fixed clock.
func deterministic(draw int) engine.Options {
	now := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	return engine.Options{Rand: fixedRand(draw), Now: func() time.Time { return now }, Hostname: "explain-host"}
}

// TestExplainAgreesWithEvaluateOnTheSpecification runs every case of the
// client specification through both paths.
func TestExplainAgreesWithEvaluateOnTheSpecification(t *testing.T) {
	dir := specDir(t)
	var index []string
	readJSON(t, filepath.Join(dir, "index.json"), &index)
	cases := 0
	for _, draw := range []int{0, 1 << 30} {
		for _, name := range index {
			var file specFile
			readJSON(t, filepath.Join(dir, name), &file)
			state, err := loadState(file.State)
			if err != nil {
				t.Fatalf("%s: state: %v", name, err)
			}
			snap := engine.Compile(state, deterministic(draw))
			for _, tc := range file.Tests {
				ctx := engine.ContextFromWire(&tc.Context)
				sameDecision(t, name+": "+tc.Description, snap, tc.ToggleName, &ctx)
				if x := snap.Explain(tc.ToggleName, &ctx); x.Enabled != tc.Expected {
					t.Errorf("%s: %s: Explain(%q).Enabled = %v, the specification says %v", name, tc.Description, tc.ToggleName, x.Enabled, tc.Expected)
				}
				cases++
			}
			for _, tc := range file.VariantTests {
				ctx := engine.ContextFromWire(&tc.Context)
				sameDecision(t, name+": "+tc.Description, snap, tc.ToggleName, &ctx)
				if x := snap.Explain(tc.ToggleName, &ctx); x.Variant.Name != tc.Expected.Name {
					t.Errorf("%s: %s: Explain(%q).Variant = %q, the specification says %q", name, tc.Description, tc.ToggleName, x.Variant.Name, tc.Expected.Name)
				}
				cases++
			}
		}
	}
	if cases < 2*279 {
		t.Errorf("explained %d cases, want every specification case twice", cases)
	}
}

// TestExplainAgreesWithEvaluateOnGeneratedFlags covers the generated mix
// of strategies, constraints, segments, variants and dependencies over
// many contexts.
func TestExplainAgreesWithEvaluateOnGeneratedFlags(t *testing.T) {
	payload := fixture.Features(600, 11)
	for _, draw := range []int{0, 49, 1 << 30} {
		snap := engine.Compile(payload, deterministic(draw))
		for i := range 24 {
			wc := fixture.Context(i)
			if i%4 == 3 {
				wc.UserID, wc.SessionID = "", "" // random stickiness paths
			}
			ctx := engine.ContextFromWire(&wc)
			for _, name := range snap.Names() {
				sameDecision(t, fmt.Sprintf("draw %d context %d", draw, i), snap, name, &ctx)
			}
		}
	}
}

func TestExplainUnknownFlag(t *testing.T) {
	snap := oneFlag(withStrategy(clientapi.Strategy{Name: "default"}), engine.Options{})
	x := snap.Explain("nope", &engine.Context{})
	if x.Found || x.Enabled || x.Variant.Name != engine.DisabledVariant || x.Strategies != nil {
		t.Errorf("unknown flag explained as %+v", x)
	}
}

// constraintVerdicts is the verdicts of a strategy's own constraints.
func constraintVerdicts(s engine.StrategyExplanation) []bool {
	var out []bool
	for _, c := range s.Constraints {
		out = append(out, c.Result)
	}
	return out
}

// TestExplainConstraints: each operator family, with the failing
// constraint marked false and the others still explained (evaluation
// stops at the first failure; an explanation does not).
func TestExplainConstraints(t *testing.T) {
	date := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	ctx := engine.Context{UserID: "42", AppName: "web", Environment: "production", RemoteAddress: "10.1.2.3", CurrentTime: date,
		Properties: map[string]string{"email": "Ann@Example.COM", "age": "31", "version": "2.4.0", "country": "no"}}
	c := func(field, op string, values ...string) clientapi.Constraint {
		return clientapi.Constraint{ContextName: field, Operator: op, Values: values}
	}
	v := func(field, op, value string) clientapi.Constraint {
		return clientapi.Constraint{ContextName: field, Operator: op, Value: value}
	}
	inverted := func(k clientapi.Constraint) clientapi.Constraint { k.Inverted = true; return k }
	folded := func(k clientapi.Constraint) clientapi.Constraint { k.CaseInsensitive = true; return k }
	tests := []struct {
		name        string
		constraints []clientapi.Constraint
		want        []bool
	}{
		{"IN and NOT_IN", []clientapi.Constraint{c("userId", "IN", "41", "42"), c("country", "NOT_IN", "se"), c("userId", "IN", "7")}, []bool{true, true, false}},
		{"NOT_IN on a missing field", []clientapi.Constraint{c("plan", "NOT_IN", "pro"), c("plan", "IN", "pro")}, []bool{true, false}},
		{"inverted", []clientapi.Constraint{inverted(c("userId", "IN", "42")), inverted(c("userId", "IN", "7"))}, []bool{false, true}},
		{"strings, case-sensitive", []clientapi.Constraint{c("email", "STR_ENDS_WITH", "@example.com"), c("email", "STR_STARTS_WITH", "Ann"), c("email", "STR_CONTAINS", "xample")}, []bool{false, true, true}},
		{"strings, case-insensitive", []clientapi.Constraint{folded(c("email", "STR_ENDS_WITH", "@example.com")), folded(c("email", "STR_STARTS_WITH", "ANN")), folded(c("email", "STR_CONTAINS", "nope"))}, []bool{true, true, false}},
		{"numbers", []clientapi.Constraint{v("age", "NUM_GTE", "31"), v("age", "NUM_LT", "18"), v("age", "NUM_EQ", "31.0"), v("age", "NUM_GT", "not a number")}, []bool{true, false, true, false}},
		{"dates", []clientapi.Constraint{v("currentTime", "DATE_AFTER", "2026-01-01T00:00:00Z"), v("currentTime", "DATE_BEFORE", "2026-01-01T00:00:00Z")}, []bool{true, false}},
		{"semantic versions", []clientapi.Constraint{v("version", "SEMVER_GTE", "2.4.0"), v("version", "SEMVER_LT", "2.0.0"), v("version", "SEMVER_EQ", "v2.4.0")}, []bool{true, false, false}},
		{"regular expressions", []clientapi.Constraint{v("email", "REGEX", `^ann@`), folded(v("email", "REGEX", `^ann@`))}, []bool{false, true}},
		{"CIDR", []clientapi.Constraint{c("remoteAddress", "IN_CIDR", "10.0.0.0/8"), c("remoteAddress", "IN_CIDR", "192.168.0.0/16")}, []bool{true, false}},
		{"unknown operator", []clientapi.Constraint{c("userId", "SOUNDS_LIKE", "42"), inverted(c("userId", "SOUNDS_LIKE", "42"))}, []bool{false, false}},
		{"all pass", []clientapi.Constraint{c("appName", "IN", "web"), c("environment", "IN", "production")}, []bool{true, true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			snap := oneFlag(withStrategy(clientapi.Strategy{Name: "default", Constraints: tt.constraints}), engine.Options{})
			x := snap.Explain("f", &ctx)
			if len(x.Strategies) != 1 {
				t.Fatalf("strategies %+v", x.Strategies)
			}
			s := x.Strategies[0]
			if got := constraintVerdicts(s); fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("constraint verdicts %v, want %v", got, tt.want)
			}
			allPass := true
			for i, w := range tt.want {
				allPass = allPass && w
				if s.Constraints[i].Constraint.Operator != tt.constraints[i].Operator {
					t.Errorf("constraint %d is %+v, want the definition %+v", i, *s.Constraints[i].Constraint, tt.constraints[i])
				}
			}
			if s.Result != engine.OutcomeTrue == allPass || x.Enabled != allPass || !s.Known {
				t.Errorf("strategy %v, flag %v; want both %v", s.Result, x.Enabled, allPass)
			}
			if r := snap.Evaluate("f", &ctx); r.Enabled != x.Enabled {
				t.Errorf("Evaluate says %v", r.Enabled)
			}
		})
	}
}

func TestExplainSegments(t *testing.T) {
	payload := &clientapi.Features{Version: 2,
		Segments: []clientapi.Segment{
			{ID: 1, Name: "beta", Constraints: []clientapi.Constraint{{ContextName: "userId", Operator: "IN", Values: []string{"1", "2"}}}},
			{ID: 2, Name: "norway", Constraints: []clientapi.Constraint{{ContextName: "country", Operator: "IN", Values: []string{"no"}}, {ContextName: "plan", Operator: "IN", Values: []string{"pro"}}}},
		},
		Features: []clientapi.Feature{
			{Name: "both", Enabled: true, Strategies: []clientapi.Strategy{{Name: "default", Segments: []int{1, 2},
				Constraints: []clientapi.Constraint{{ContextName: "appName", Operator: "IN", Values: []string{"web"}}}}}},
			{Name: "missing", Enabled: true, Strategies: []clientapi.Strategy{{Name: "default", Segments: []int{9, 1}}}},
		},
	}
	snap := engine.Compile(payload, engine.Options{})
	type seg struct {
		id          int
		found, pass bool
		constraints []bool
	}
	tests := []struct {
		flag     string
		ctx      engine.Context
		segments []seg
		on       bool
	}{
		{"both", engine.Context{AppName: "web", UserID: "2", Properties: map[string]string{"country": "no", "plan": "pro"}},
			[]seg{{1, true, true, []bool{true}}, {2, true, true, []bool{true, true}}}, true},
		{"both", engine.Context{AppName: "web", UserID: "2", Properties: map[string]string{"country": "no", "plan": "free"}},
			[]seg{{1, true, true, []bool{true}}, {2, true, false, []bool{true, false}}}, false},
		{"both", engine.Context{AppName: "web", UserID: "3", Properties: map[string]string{"country": "se", "plan": "pro"}},
			[]seg{{1, true, false, []bool{false}}, {2, true, false, []bool{false, true}}}, false},
		{"missing", engine.Context{UserID: "1"}, []seg{{9, false, false, nil}, {1, true, true, []bool{true}}}, false},
	}
	for i, tt := range tests {
		x := snap.Explain(tt.flag, &tt.ctx)
		s := x.Strategies[0]
		if len(s.Segments) != len(tt.segments) {
			t.Fatalf("%d: segments %+v", i, s.Segments)
		}
		for j, want := range tt.segments {
			got := s.Segments[j]
			var verdicts []bool
			for _, c := range got.Constraints {
				verdicts = append(verdicts, c.Result)
			}
			if got.ID != want.id || got.Found != want.found || got.Result != want.pass || fmt.Sprint(verdicts) != fmt.Sprint(want.constraints) {
				t.Errorf("%d: segment %d = id %d found %v result %v constraints %v; want %+v", i, j, got.ID, got.Found, got.Result, verdicts, want)
			}
			if want.found && got.Name == "" {
				t.Errorf("%d: segment %d has no name", i, j)
			}
		}
		if x.Enabled != tt.on || (s.Result == engine.OutcomeTrue) != tt.on {
			t.Errorf("%d: flag %v strategy %v, want %v", i, x.Enabled, s.Result, tt.on)
		}
		if r := snap.Evaluate(tt.flag, &tt.ctx); r.Enabled != x.Enabled {
			t.Errorf("%d: Evaluate says %v", i, r.Enabled)
		}
	}
}

func TestExplainStrategiesAndFlag(t *testing.T) {
	custom := engine.Options{CustomStrategies: map[string]engine.CustomStrategy{
		"byRegion": engine.CustomStrategyFunc(func(p map[string]string, ctx *engine.Context) bool { return ctx.Properties["region"] == p["region"] }),
	}}
	beta := clientapi.Constraint{ContextName: "userId", Operator: "IN", Values: []string{"1"}}
	unknown := clientapi.Strategy{ID: "u", Name: "byPlanet", Parameters: clientapi.Parameters{"planet": "mars"}}
	unknownFailing := clientapi.Strategy{ID: "u2", Name: "byPlanet", Constraints: []clientapi.Constraint{beta}}
	region := clientapi.Strategy{ID: "r", Name: "byRegion", Parameters: clientapi.Parameters{"region": "eu"}}
	variants := []clientapi.Variant{{Name: "blue", Weight: 1000, Payload: &clientapi.Payload{Type: "string", Value: "b"}}}
	tests := []struct {
		name       string
		f          clientapi.Feature
		opts       engine.Options
		ctx        engine.Context
		results    []engine.Outcome
		known      []bool
		strategies engine.Outcome
		on         bool
		variant    string
	}{
		{"unknown strategy whose constraints pass", clientapi.Feature{Name: "f", Enabled: true, Strategies: []clientapi.Strategy{unknown}}, engine.Options{},
			engine.Context{UserID: "1"}, []engine.Outcome{engine.OutcomeUnknown}, []bool{false}, engine.OutcomeUnknown, false, "disabled"},
		{"unknown strategy with a failing constraint", clientapi.Feature{Name: "f", Enabled: true, Strategies: []clientapi.Strategy{unknownFailing}}, engine.Options{},
			engine.Context{UserID: "2"}, []engine.Outcome{engine.OutcomeFalse}, []bool{false}, engine.OutcomeFalse, false, "disabled"},
		{"unknown strategy, then one that is on", clientapi.Feature{Name: "f", Enabled: true, Strategies: []clientapi.Strategy{unknown, {Name: "default"}}}, engine.Options{},
			engine.Context{}, []engine.Outcome{engine.OutcomeUnknown, engine.OutcomeTrue}, []bool{false, true}, engine.OutcomeTrue, true, "disabled"},
		{"registered custom strategy", clientapi.Feature{Name: "f", Enabled: true, Strategies: []clientapi.Strategy{region}}, custom,
			engine.Context{Properties: map[string]string{"region": "eu"}}, []engine.Outcome{engine.OutcomeTrue}, []bool{true}, engine.OutcomeTrue, true, "disabled"},
		{"disabled flag: strategies still explained", clientapi.Feature{Name: "f", Enabled: false, Strategies: []clientapi.Strategy{{Name: "default"}}}, engine.Options{},
			engine.Context{}, []engine.Outcome{engine.OutcomeTrue}, []bool{true}, engine.OutcomeTrue, false, "disabled"},
		{"no strategies", clientapi.Feature{Name: "f", Enabled: true}, engine.Options{}, engine.Context{}, nil, nil, engine.OutcomeTrue, true, "disabled"},
		{"no strategies, disabled", clientapi.Feature{Name: "f"}, engine.Options{}, engine.Context{}, nil, nil, engine.OutcomeFalse, false, "disabled"},
		{"every strategy explained, the first on wins", clientapi.Feature{Name: "f", Enabled: true, Strategies: []clientapi.Strategy{
			{Name: "userWithId", Parameters: clientapi.Parameters{"userIds": "7"}},
			{Name: "default", Variants: variants},
			{Name: "flexibleRollout", Parameters: clientapi.Parameters{"rollout": "0"}}}},
			engine.Options{}, engine.Context{UserID: "1"}, []engine.Outcome{engine.OutcomeFalse, engine.OutcomeTrue, engine.OutcomeFalse}, []bool{true, true, true}, engine.OutcomeTrue, true, "blue"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			snap := oneFlag(tt.f, tt.opts)
			x := snap.Explain("f", &tt.ctx)
			var results []engine.Outcome
			var known []bool
			for _, s := range x.Strategies {
				results = append(results, s.Result)
				known = append(known, s.Known)
			}
			if fmt.Sprint(results) != fmt.Sprint(tt.results) || fmt.Sprint(known) != fmt.Sprint(tt.known) {
				t.Errorf("strategies %v known %v, want %v %v", results, known, tt.results, tt.known)
			}
			if x.StrategiesResult != tt.strategies || x.Enabled != tt.on || x.Variant.Name != tt.variant || x.FlagEnabled != tt.f.Enabled {
				t.Errorf("strategies %v enabled %v variant %q flag %v; want %v %v %q %v", x.StrategiesResult, x.Enabled, x.Variant.Name, x.FlagEnabled, tt.strategies, tt.on, tt.variant, tt.f.Enabled)
			}
			for i, s := range x.Strategies {
				if s.Strategy == nil || s.Strategy.Name != tt.f.Strategies[i].Name {
					t.Errorf("strategy %d definition %+v", i, s.Strategy)
				}
				if (s.Variant != nil) != (s.Result == engine.OutcomeTrue && len(tt.f.Strategies[i].Variants) > 0) {
					t.Errorf("strategy %d variant %+v", i, s.Variant)
				}
			}
			if r := snap.Evaluate("f", &tt.ctx); r.Enabled != x.Enabled || r.Variant.Name != x.Variant.Name {
				t.Errorf("Evaluate says %v %q", r.Enabled, r.Variant.Name)
			}
		})
	}
}

func TestExplainDependencies(t *testing.T) {
	no := false
	payload := &clientapi.Features{Version: 2, Features: []clientapi.Feature{
		{Name: "parent", Enabled: true, Strategies: []clientapi.Strategy{{Name: "userWithId", Parameters: clientapi.Parameters{"userIds": "1"}}}},
		{Name: "child", Enabled: true, Dependencies: []clientapi.Dependency{{Feature: "parent"}}},
		{Name: "not-child", Enabled: true, Dependencies: []clientapi.Dependency{{Feature: "parent", Enabled: &no}}},
		{Name: "orphan", Enabled: true, Dependencies: []clientapi.Dependency{{Feature: "gone"}}},
	}}
	snap := engine.Compile(payload, engine.Options{})
	for _, tt := range []struct {
		flag, user string
		met        bool
	}{
		{"child", "1", true}, {"child", "2", false}, {"not-child", "1", false}, {"not-child", "2", true}, {"orphan", "1", false}, {"parent", "2", true},
	} {
		ctx := engine.Context{UserID: tt.user}
		x := snap.Explain(tt.flag, &ctx)
		if x.DependenciesMet != tt.met || x.HasDependencies != (tt.flag != "parent") || x.Enabled != (tt.met && (tt.flag != "parent" || tt.user == "1")) {
			t.Errorf("%s for %s: dependencies %v (has %v), enabled %v; want met %v", tt.flag, tt.user, x.DependenciesMet, x.HasDependencies, x.Enabled, tt.met)
		}
		sameDecision(t, "dependencies", snap, tt.flag, &ctx)
	}
}

func TestOutcomeJSON(t *testing.T) {
	b, err := json.Marshal([]engine.Outcome{engine.OutcomeTrue, engine.OutcomeFalse, engine.OutcomeUnknown})
	if err != nil || string(b) != `[true,false,"unknown"]` {
		t.Errorf("outcomes encode as %s (%v)", b, err)
	}
}

// TestExplainReadsTheClockOnce: two DATE constraints without currentTime
// see the same instant, and the answer's window is what both verdicts
// allow.
func TestExplainReadsTheClockOnce(t *testing.T) {
	calls := 0
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	opts := engine.Options{Now: func() time.Time { calls++; return start.Add(time.Duration(calls) * time.Hour) }}
	snap := oneFlag(withStrategy(clientapi.Strategy{Name: "default", Constraints: []clientapi.Constraint{
		{ContextName: "currentTime", Operator: "DATE_AFTER", Value: "2026-01-01T00:30:00Z"},
		{ContextName: "currentTime", Operator: "DATE_BEFORE", Value: "2026-01-01T01:30:00Z"},
	}}), opts)
	x := snap.Explain("f", &engine.Context{})
	from, _ := x.Window.From()
	until, _ := x.Window.Until()
	wantFrom, wantUntil := start.Add(30*time.Minute+time.Nanosecond), start.Add(90*time.Minute)
	if calls != 1 || !x.Enabled || x.Volatile || !from.Equal(wantFrom) || !until.Equal(wantUntil) {
		t.Errorf("clock read %d times, enabled %v volatile %v, window [%v, %v); want once, true, false, [%v, %v)",
			calls, x.Enabled, x.Volatile, from, until, wantFrom, wantUntil)
	}
}

// BenchmarkExplain measures the explaining path, which allocates (the
// explanation itself); BenchmarkEvaluateOne is the hot path it leaves
// alone.
func BenchmarkExplain(b *testing.B) {
	snap := oneFlag(clientapi.Feature{Name: "f", Enabled: true, Strategies: []clientapi.Strategy{{
		Name:       "flexibleRollout",
		Parameters: clientapi.Parameters{"rollout": "100", "stickiness": "default", "groupId": "f"},
		Constraints: []clientapi.Constraint{
			{ContextName: "environment", Operator: "IN", Values: []string{"staging", "production"}},
			{ContextName: "email", Operator: "STR_ENDS_WITH", Values: []string{"@example.com"}, CaseInsensitive: true},
			{ContextName: "age", Operator: "NUM_GTE", Value: "18"},
		},
	}}}, engine.Options{})
	ctx := engine.Context{UserID: "123", Environment: "production", Properties: map[string]string{"email": "someone@example.com", "age": "42"}}
	b.ReportAllocs()
	for b.Loop() {
		_ = snap.Explain("f", &ctx)
	}
}
