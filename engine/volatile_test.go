package engine_test

import (
	"testing"

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
		{"date against the clock", withStrategy(clientapi.Strategy{Name: "default", Constraints: []clientapi.Constraint{{ContextName: "currentTime", Operator: "DATE_AFTER", Value: "2020-01-01T00:00:00Z"}}}), engine.Options{}, engine.Context{}, true},
		{"custom strategy", withStrategy(clientapi.Strategy{Name: "mine"}), custom, engine.Context{}, true},
		{"variant with its field", clientapi.Feature{Name: "f", Enabled: true, Variants: twoVariants}, engine.Options{}, engine.Context{Properties: map[string]string{"tenant": "t"}}, false},
		{"variant without its field", clientapi.Feature{Name: "f", Enabled: true, Variants: twoVariants}, engine.Options{}, engine.Context{}, true},
		{"off flag", clientapi.Feature{Name: "f", Enabled: false, Strategies: []clientapi.Strategy{rollout("random")}}, engine.Options{}, engine.Context{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := oneFlag(tt.f, tt.opts).Evaluate("f", &tt.ctx).Volatile; got != tt.want {
				t.Errorf("Volatile = %v, want %v", got, tt.want)
			}
		})
	}
}

// A flag that a random draw left out still makes the list volatile.
func TestEvaluateEnabledReportsVolatileOmissions(t *testing.T) {
	snap := oneFlag(withStrategy(clientapi.Strategy{Name: "gradualRolloutRandom", Parameters: clientapi.Parameters{"percentage": "50"}}),
		engine.Options{Rand: func(int) int { return 99 }}) // always draws 100: off
	results, volatile := snap.EvaluateEnabled(&engine.Context{}, nil)
	if len(results) != 0 || !volatile {
		t.Errorf("results %v, volatile %v; want none and volatile", results, volatile)
	}
	results, volatile = oneFlag(withStrategy(clientapi.Strategy{Name: "default"}), engine.Options{}).EvaluateEnabled(&engine.Context{}, nil)
	if len(results) != 1 || volatile {
		t.Errorf("default flag: results %v, volatile %v", results, volatile)
	}
}
