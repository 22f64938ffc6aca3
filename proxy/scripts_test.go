package proxy

import (
	"slices"
	"testing"

	"github.com/signalbox/signalbox/engine"
	"github.com/signalbox/signalbox/proxy/jsstrategy"
)

// TestScriptFiles: the strategy and enricher files of the Node proxy
// (SERVICE_CUSTOM_STRATEGIES_FILE, EXP_CUSTOM_ENRICHERS_FILE), loaded the
// way the command loads them, drive evaluation.
func TestScriptFiles(t *testing.T) {
	cfg, err := ConfigFromEnv(env(map[string]string{
		"SERVICE_CUSTOM_STRATEGIES_FILE": "testdata/strategies.js",
		"EXP_CUSTOM_ENRICHERS_FILE":      "testdata/enrichers.js",
	}))
	if err != nil {
		t.Fatal(err)
	}
	strategies, err := jsstrategy.LoadStrategies(cfg.CustomStrategiesFile, jsstrategy.Options{})
	if err != nil {
		t.Fatal(err)
	}
	enrich, err := jsstrategy.LoadEnrichers(cfg.ExpCustomEnrichersFile, jsstrategy.Options{})
	if err != nil {
		t.Fatal(err)
	}
	h := echoProxy(t, func(c *Config) {
		c.CustomStrategies = strategies
		c.Enrichers = []func(*engine.Context){enrich}
		c.Environment = "production"
	})
	got := enabledNames(t, h, "GET", "/proxy?userId=carol", "")
	for _, want := range []string{"custom", "enriched", "env-production"} {
		if !slices.Contains(got, want) {
			t.Errorf("%s missing from %v", want, got)
		}
	}
	if slices.Contains(got, "env-staging") {
		t.Errorf("the enricher overrode the fixed environment: %v", got)
	}
	if got := enabledNames(t, h, "POST", "/proxy", `{"context":{"userId":"dave"},"toggles":["custom"]}`); len(got) != 0 {
		t.Errorf("custom strategy on for dave: %v", got)
	}
}
