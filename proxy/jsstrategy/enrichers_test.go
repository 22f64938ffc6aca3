package jsstrategy

import (
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/signalbox/signalbox/engine"
)

func TestEnrichers(t *testing.T) {
	at := time.Date(2024, 5, 6, 7, 8, 9, 123456789, time.UTC)
	tests := []struct {
		name     string
		in, want engine.Context
	}{{
		name: "mutate, replace, async, top-level field",
		in: engine.Context{UserID: "42", SessionID: "s", RemoteAddress: "10.1.2.3", Environment: "prod", AppName: "web",
			CurrentTime: at, Properties: map[string]string{"drop": "x", "keep": "y"}},
		want: engine.Context{UserID: "user-42", RemoteAddress: "10.1.2.3", Environment: "prod", AppName: "web",
			CurrentTime: at, // sub-millisecond part kept: the enrichers did not change it
			Properties:  map[string]string{"keep": "y", "country": "NO", "tier": "gold", "score": "42", "region": "eu"}},
	}, {
		name: "currentTime set from an ISO string",
		in:   engine.Context{Properties: map[string]string{"setTime": "2024-01-02T03:04:05.678Z"}},
		want: engine.Context{UserID: "user-undefined", CurrentTime: time.Date(2024, 1, 2, 3, 4, 5, 678e6, time.UTC),
			Properties: map[string]string{"setTime": "2024-01-02T03:04:05.678Z", "country": "NO", "tier": "gold", "score": "42", "region": "eu"}},
	}}
	enrich, err := LoadEnrichers("testdata/enrichers.js", Options{PoolSize: 1, Timeout: slack})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := tt.in
			orig := maps.Clone(tt.in.Properties)
			enrich(&ctx)
			if diff := cmp.Diff(tt.want, ctx, cmp.Comparer(time.Time.Equal)); diff != "" {
				t.Errorf("enriched context (-want +got):\n%s", diff)
			}
			if !maps.Equal(orig, tt.in.Properties) {
				t.Errorf("the caller's properties map was modified: %v", tt.in.Properties)
			}
		})
	}
}

func TestEnricherFailures(t *testing.T) {
	tests := []struct {
		fail string
		want string // in the warning; "" means no failure
	}{
		{"", ""},
		{"throw", "enricher 1: Error: nope"},
		{"loop", "timed out after 50ms: enricher 2: interrupted"},
		{"reject", "enricher 3: promise rejected: Error: rejected"},
		{"number", "enricher 4 returned number, not a context object"},
		{"pending", "enricher 5: returned a promise that never settles"},
		{"date", `currentTime \"not a date\" is not a valid date`},
	}
	for _, tt := range tests {
		t.Run(tt.fail, func(t *testing.T) {
			log, out := newLog()
			timeout := slack
			if tt.fail == "loop" {
				timeout = 50 * time.Millisecond
			}
			enrich, err := LoadEnrichers("testdata/enrichers_failing.js",
				Options{Logger: log, PoolSize: 1, Timeout: timeout})
			if err != nil {
				t.Fatal(err)
			}
			in := engine.Context{UserID: "u", Properties: map[string]string{"fail": tt.fail}}
			ctx := in
			enrich(&ctx)
			if tt.want == "" {
				if ctx.UserID != "changed" {
					t.Errorf("UserID = %q, want the enriched value", ctx.UserID)
				}
				return
			}
			if diff := cmp.Diff(in, ctx); diff != "" {
				t.Errorf("a failed enrichment changed the context (-before +after):\n%s", diff)
			}
			if !strings.Contains(out.String(), tt.want) {
				t.Errorf("log lacks %q:\n%s", tt.want, out)
			}
			// The pool keeps working, even after a timeout dropped its runtime.
			if !eventually(func() bool {
				ok := engine.Context{}
				enrich(&ok)
				return ok.UserID == "changed"
			}) {
				t.Error("enrichers stopped working after a failure")
			}
		})
	}
}
