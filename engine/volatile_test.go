package engine_test

import (
	"slices"
	"testing"
	"time"

	"github.com/signalbox/signalbox/clientapi"
	"github.com/signalbox/signalbox/engine"
)

// TestVolatile pins which answers may be cached: only those that depend on
// nothing but the snapshot and the context.
func TestVolatile(t *testing.T) {
	custom := engine.Options{CustomStrategies: map[string]engine.CustomStrategy{
		"mine": engine.CustomStrategyFunc(func(map[string]string, *engine.Context) bool { return true }),
	}}
	rollout := func(stickiness string) clientapi.Strategy {
		return clientapi.Strategy{Name: "flexibleRollout", Parameters: clientapi.Parameters{"rollout": "50", "stickiness": stickiness}}
	}
	twoVariants := []clientapi.Variant{{Name: "a", Weight: 500, Stickiness: "tenant"}, {Name: "b", Weight: 500, Stickiness: "tenant"}}
	tests := []struct {
		name string
		f    clientapi.Feature
		opts engine.Options
		ctx  engine.Context
		want bool
	}{
		{"default strategy", withStrategy(clientapi.Strategy{Name: "default"}), engine.Options{}, engine.Context{}, false},
		{"rollout on userId", withStrategy(rollout("default")), engine.Options{}, engine.Context{UserID: "u"}, false},
		{"rollout without ids", withStrategy(rollout("default")), engine.Options{}, engine.Context{}, true},
		{"random stickiness", withStrategy(rollout("random")), engine.Options{}, engine.Context{UserID: "u"}, true},
		{"gradualRolloutRandom", withStrategy(clientapi.Strategy{Name: "gradualRolloutRandom", Parameters: clientapi.Parameters{"percentage": "50"}}), engine.Options{}, engine.Context{}, true},
		// The clock bounds an answer's Window instead (TestWindow).
		{"date against the clock", withStrategy(clientapi.Strategy{Name: "default", Constraints: []clientapi.Constraint{{ContextName: "currentTime", Operator: "DATE_AFTER", Value: "2020-01-01T00:00:00Z"}}}), engine.Options{}, engine.Context{}, false},
		{"custom strategy", withStrategy(clientapi.Strategy{Name: "mine"}), custom, engine.Context{}, true},
		{"variant with its field", clientapi.Feature{Name: "f", Enabled: true, Variants: twoVariants}, engine.Options{}, engine.Context{Properties: map[string]string{"tenant": "t"}}, false},
		{"variant without its field", clientapi.Feature{Name: "f", Enabled: true, Variants: twoVariants}, engine.Options{}, engine.Context{}, true},
		{"off flag", clientapi.Feature{Name: "f", Enabled: false, Strategies: []clientapi.Strategy{rollout("random")}}, engine.Options{}, engine.Context{}, false},
		// Everyone: the draw or hash cannot change the answer.
		{"100% rollout without ids", withStrategy(rolloutAll("default")), engine.Options{}, engine.Context{}, false},
		{"100% rollout, random stickiness", withStrategy(rolloutAll("random")), engine.Options{}, engine.Context{}, false},
		{"gradualRolloutRandom at 100%", withStrategy(clientapi.Strategy{Name: "gradualRolloutRandom", Parameters: clientapi.Parameters{"percentage": "100"}}), engine.Options{}, engine.Context{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := oneFlag(tt.f, tt.opts).Evaluate("f", &tt.ctx).Volatile; got != tt.want {
				t.Errorf("Volatile = %v, want %v", got, tt.want)
			}
		})
	}
}

func rolloutAll(stickiness string) clientapi.Strategy {
	return clientapi.Strategy{Name: "flexibleRollout", Parameters: clientapi.Parameters{"rollout": "100", "stickiness": stickiness, "groupId": "g"}}
}

// TestRolloutToEveryone: a rollout to 100% is on without hashing for
// default and random stickiness, with or without ids, and still needs the
// id or the field where the strategy does.
func TestRolloutToEveryone(t *testing.T) {
	tests := []struct {
		name string
		st   clientapi.Strategy
		ctx  engine.Context
		want bool
	}{
		{"default stickiness, no ids", rolloutAll("default"), engine.Context{}, true},
		{"default stickiness, a user", rolloutAll("default"), engine.Context{UserID: "u7"}, true},
		{"random stickiness", rolloutAll("random"), engine.Context{}, true},
		{"named field present", rolloutAll("tenant"), engine.Context{Properties: map[string]string{"tenant": "t"}}, true},
		{"named field missing", rolloutAll("tenant"), engine.Context{}, false},
		{"above 100", clientapi.Strategy{Name: "flexibleRollout", Parameters: clientapi.Parameters{"rollout": "150"}}, engine.Context{}, true},
		{"gradualRolloutUserId without a user", clientapi.Strategy{Name: "gradualRolloutUserId", Parameters: clientapi.Parameters{"percentage": "100"}}, engine.Context{}, false},
		{"gradualRolloutUserId with a user", clientapi.Strategy{Name: "gradualRolloutUserId", Parameters: clientapi.Parameters{"percentage": "100"}}, engine.Context{UserID: "u"}, true},
		{"gradualRolloutRandom", clientapi.Strategy{Name: "gradualRolloutRandom", Parameters: clientapi.Parameters{"percentage": "100"}}, engine.Context{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// A draw of 100, the highest, must still be in.
			snap := oneFlag(withStrategy(tt.st), engine.Options{Rand: func(n int) int { return n - 1 }})
			if got := snap.Evaluate("f", &tt.ctx).Enabled; got != tt.want {
				t.Errorf("enabled %v, want %v", got, tt.want)
			}
		})
	}
}

// A flag that a random draw left out still makes the list volatile.
func TestEvaluateEnabledReportsVolatileOmissions(t *testing.T) {
	snap := oneFlag(withStrategy(clientapi.Strategy{Name: "gradualRolloutRandom", Parameters: clientapi.Parameters{"percentage": "50"}}),
		engine.Options{Rand: func(int) int { return 99 }}) // always draws 100: off
	results, volatile, _ := snap.EvaluateEnabled(&engine.Context{}, nil)
	if len(results) != 0 || !volatile {
		t.Errorf("results %v, volatile %v; want none and volatile", results, volatile)
	}
	results, volatile, _ = oneFlag(withStrategy(clientapi.Strategy{Name: "default"}), engine.Options{}).EvaluateEnabled(&engine.Context{}, nil)
	if len(results) != 1 || volatile {
		t.Errorf("default flag: results %v, volatile %v", results, volatile)
	}
}

// TestWindow checks that an answer holds at every instant of its window:
// at instants around each of several date boundaries (just before, at,
// just after), with inverted constraints, several strategies and a parent
// flag, evaluating again anywhere inside the window gives the same answer.
// It also pins the exact bounds of single constraints.
func TestWindow(t *testing.T) {
	base := time.Date(2030, 6, 1, 12, 0, 0, 0, time.UTC)
	at := func(d time.Duration) string { return base.Add(d).Format(time.RFC3339Nano) }
	date := func(op string, d time.Duration, inverted bool) clientapi.Constraint {
		return clientapi.Constraint{ContextName: "currentTime", Operator: op, Value: at(d), Inverted: inverted}
	}
	payload := &clientapi.Features{Version: 2, Features: []clientapi.Feature{
		{Name: "launch", Enabled: true, Strategies: []clientapi.Strategy{{Name: "default", Constraints: []clientapi.Constraint{date("DATE_AFTER", 0, false)}}}},
		{Name: "sale", Enabled: true, Strategies: []clientapi.Strategy{{Name: "default", Constraints: []clientapi.Constraint{
			date("DATE_AFTER", time.Hour, false), date("DATE_BEFORE", 2*time.Hour, false)}}}},
		{Name: "not-yet", Enabled: true, Strategies: []clientapi.Strategy{{Name: "default", Constraints: []clientapi.Constraint{date("DATE_AFTER", 3*time.Hour, true)}}}},
		{Name: "two-ways", Enabled: true, Strategies: []clientapi.Strategy{
			{Name: "default", Constraints: []clientapi.Constraint{date("DATE_BEFORE", -time.Hour, false)}},
			{Name: "userWithId", Parameters: clientapi.Parameters{"userIds": "u"}, Constraints: []clientapi.Constraint{date("DATE_BEFORE", 4*time.Hour, true)}},
		}},
		{Name: "child", Enabled: true, Dependencies: []clientapi.Dependency{{Feature: "sale"}}, Strategies: []clientapi.Strategy{{Name: "default"}}},
		{Name: "steady", Enabled: true, Strategies: []clientapi.Strategy{{Name: "default"}}},
	}}
	boundaries := []time.Duration{-time.Hour, 0, time.Hour, 2 * time.Hour, 3 * time.Hour, 4 * time.Hour}
	var instants []time.Time
	for _, b := range boundaries {
		for _, d := range []time.Duration{-time.Nanosecond, 0, time.Nanosecond, 30 * time.Minute} {
			instants = append(instants, base.Add(b+d))
		}
	}
	var now time.Time
	snap := engine.Compile(payload, engine.Options{Now: func() time.Time { return now }})
	for _, ctx := range []engine.Context{{}, {UserID: "u"}} {
		answers := make([][]engine.Result, len(instants))
		for i, t0 := range instants {
			now = t0
			answers[i] = snap.EvaluateAll(&ctx, nil)
		}
		for i, t0 := range instants {
			for k, r := range answers[i] {
				if !r.Window.Holds(t0) {
					t.Errorf("%q at %v: its own window does not hold", r.Name, t0)
				}
				for j, t1 := range instants {
					if r.Window.Holds(t1) && (answers[j][k].Enabled != r.Enabled || answers[j][k].Variant != r.Variant) {
						t.Errorf("user %q, %q: answered at %v with window %v, but evaluating at %v inside it differs",
							ctx.UserID, r.Name, t0, r.Window, t1)
					}
				}
			}
			// The list of enabled flags holds only where every flag's
			// answer, listed or not, holds.
			now = t0
			_, _, w := snap.EvaluateEnabled(&ctx, nil)
			for _, r := range answers[i] {
				for _, t1 := range instants {
					if w.Holds(t1) && !r.Window.Holds(t1) {
						t.Errorf("at %v: EvaluateEnabled window %v holds at %v, %q's %v does not", t0, w, t1, r.Name, r.Window)
					}
				}
			}
		}
	}

	// Exact bounds of single constraints.
	tests := []struct {
		name        string
		flag        string
		now         time.Duration
		from, until time.Duration // 0 = unbounded on that side (none of these cases has a bound at base)
	}{
		{"after, not yet", "launch", -time.Nanosecond, 0, time.Nanosecond},
		{"after, at the instant", "launch", 0, 0, time.Nanosecond},
		{"after, just past", "launch", time.Nanosecond, time.Nanosecond, 0},
		{"before and after", "sale", 90 * time.Minute, time.Hour + time.Nanosecond, 2 * time.Hour},
		{"inverted after", "not-yet", time.Hour, 0, 3*time.Hour + time.Nanosecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			now = base.Add(tt.now)
			w := snap.Evaluate(tt.flag, &engine.Context{}).Window
			from, hasFrom := w.From()
			until, hasUntil := w.Until()
			if hasFrom != (tt.from != 0) || (hasFrom && !from.Equal(base.Add(tt.from))) {
				t.Errorf("from = %v (%v), want %v", from, hasFrom, tt.from)
			}
			if hasUntil != (tt.until != 0) || (hasUntil && !until.Equal(base.Add(tt.until))) {
				t.Errorf("until = %v (%v), want %v", until, hasUntil, tt.until)
			}
		})
	}

	// A context with currentTime does not read the clock.
	if w := snap.Evaluate("sale", &engine.Context{CurrentTime: base}).Window; !w.Always() {
		t.Errorf("currentTime given: window %v, want always", w)
	}
}

// TestEvaluationReadsTheClockOnce: every DATE constraint of one evaluation
// without currentTime, across flags, sees the same reading of the clock,
// and the answers are those of that instant.
func TestEvaluationReadsTheClockOnce(t *testing.T) {
	calls := 0
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	opts := engine.Options{Now: func() time.Time { calls++; return start.Add(time.Duration(calls) * time.Hour) }}
	dated := func(name, op, value string) clientapi.Feature {
		return clientapi.Feature{Name: name, Enabled: true, Strategies: []clientapi.Strategy{{Name: "default",
			Constraints: []clientapi.Constraint{{ContextName: "currentTime", Operator: op, Value: value}}}}}
	}
	snap := engine.Compile(&clientapi.Features{Version: 2, Features: []clientapi.Feature{
		dated("after-0:30", "DATE_AFTER", "2026-01-01T00:30:00Z"),
		dated("before-1:30", "DATE_BEFORE", "2026-01-01T01:30:00Z"),
		dated("after-1:30", "DATE_AFTER", "2026-01-01T01:30:00Z"),
	}}, opts)
	for _, tc := range []struct {
		name     string
		evaluate func() []engine.Result
	}{
		{"EvaluateAll", func() []engine.Result { return snap.EvaluateAll(&engine.Context{}, nil) }},
		{"EvaluateEnabled", func() []engine.Result { r, _, _ := snap.EvaluateEnabled(&engine.Context{}, nil); return r }},
	} {
		calls = 0
		var on []string
		for _, r := range tc.evaluate() {
			if r.Enabled {
				on = append(on, r.Name)
			}
		}
		// The one reading is 01:00: after 00:30 and before 01:30.
		if calls != 1 || !slices.Equal(on, []string{"after-0:30", "before-1:30"}) {
			t.Errorf("%s: clock read %d times, flags on %v; want once, [after-0:30 before-1:30]", tc.name, calls, on)
		}
	}
}
