package clientapi

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// A payload as an Unleash server sends it, with fields this package does not
// model (they must be tolerated) and every modelled one.
const serverPayload = `{
  "version": 2,
  "features": [{
    "name": "checkout.v2", "type": "release", "description": null, "project": "default",
    "enabled": true, "stale": false, "impressionData": true, "createdAt": "2024-01-01T00:00:00.000Z",
    "strategies": [{
      "id": "01HZX", "name": "flexibleRollout", "sortOrder": 0, "title": null, "disabled": false,
      "constraints": [{"contextName": "appVersion", "operator": "SEMVER_GTE", "value": "2.0.0", "values": [], "caseInsensitive": false, "inverted": false}],
      "parameters": {"rollout": 50, "stickiness": "default", "groupId": "checkout.v2", "dropped": null},
      "segments": [1],
      "variants": [{"name": "a", "weight": 1000, "weightType": "variable", "stickiness": "default", "payload": {"type": "json", "value": "{\"x\":1}"}}]
    }],
    "variants": [{"name": "blue", "weight": 1000, "weightType": "fix", "stickiness": "userId",
      "overrides": [{"contextName": "userId", "values": ["1", "2"]}]}],
    "dependencies": [{"feature": "parent", "enabled": false}, {"feature": "p2", "variants": ["x"]}]
  }],
  "segments": [{"id": 1, "name": "beta", "constraints": [{"contextName": "userId", "operator": "IN", "values": ["7"]}], "createdAt": "x"}],
  "query": {"environment": "production", "inlineSegmentConstraints": false, "project": ["default"]},
  "meta": {"revisionId": 12, "etag": "\"abc\"", "queryHash": "q"}
}`

func TestFeaturesDecodeAndRoundTrip(t *testing.T) {
	var f Features
	if err := json.Unmarshal([]byte(serverPayload), &f); err != nil {
		t.Fatal(err)
	}
	got := f.Features[0]
	if got.Strategies[0].Parameters["rollout"] != "50" {
		t.Errorf("numeric parameter = %q, want \"50\"", got.Strategies[0].Parameters["rollout"])
	}
	if _, ok := got.Strategies[0].Parameters["dropped"]; ok {
		t.Error("null parameter must be dropped")
	}
	if got.Dependencies[0].WantsEnabled() || !got.Dependencies[1].WantsEnabled() {
		t.Error("dependency enabled defaults to true and honours false")
	}
	if got.Variants[0].Overrides[0].Values[1] != "2" || got.Strategies[0].Variants[0].Payload.Value != `{"x":1}` {
		t.Errorf("variants decoded wrong: %+v", got.Variants)
	}
	// Encode and decode again: nothing modelled may change.
	data, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	var again Features
	if err := json.Unmarshal(data, &again); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(f, again); diff != "" {
		t.Errorf("round trip changed the payload (-first +second):\n%s", diff)
	}
}

func TestParametersEncoding(t *testing.T) {
	tests := []struct {
		in      string
		want    Parameters
		wantErr bool
	}{
		{`{"a":"x","b":1.5,"c":true,"d":null}`, Parameters{"a": "x", "b": "1.5", "c": "true"}, false},
		{`null`, nil, false},
		{`{"a":[1,2]}`, Parameters{"a": "[1,2]"}, false},
		{`[]`, nil, true},
		{`{"a":"\u00e9"}`, Parameters{"a": "é"}, false},
	}
	for _, tt := range tests {
		var p Parameters
		err := json.Unmarshal([]byte(tt.in), &p)
		if (err != nil) != tt.wantErr {
			t.Errorf("%s: err = %v", tt.in, err)
			continue
		}
		if diff := cmp.Diff(tt.want, p); diff != "" && !tt.wantErr {
			t.Errorf("%s: (-want +got)\n%s", tt.in, diff)
		}
	}
	var nilParams Parameters
	if b, _ := json.Marshal(Strategy{Name: "default", Parameters: nilParams}); string(b) != `{"name":"default","constraints":null,"parameters":{}}` {
		t.Errorf("nil parameters encode as %s", b)
	}
}

func TestApplyDelta(t *testing.T) {
	one := 1
	base := &Features{Version: 2, Features: []Feature{{Name: "keep"}, {Name: "drop"}}}
	out := Apply(base, []DeltaEvent{
		{Type: EventFeatureUpdated, Feature: &Feature{Name: "keep", Enabled: true}},
		{Type: EventFeatureRemoved, FeatureName: "drop"},
		{Type: EventFeatureUpdated, Feature: &Feature{Name: "new"}},
		{Type: EventSegmentUpdated, Segment: &Segment{ID: 1, Name: "s"}},
		{Type: EventSegmentUpdated, Segment: &Segment{ID: 1, Name: "s2"}},
		{Type: "something-from-the-future"},
	})
	if len(out.Features) != 2 || !out.Features[0].Enabled || out.Features[1].Name != "new" {
		t.Errorf("features after delta: %+v", out.Features)
	}
	if len(out.Segments) != 1 || out.Segments[0].Name != "s2" {
		t.Errorf("segments after delta: %+v", out.Segments)
	}
	if len(base.Features) != 2 || base.Features[0].Enabled {
		t.Error("Apply must not modify its base")
	}
	out = Apply(out, []DeltaEvent{{Type: EventSegmentRemoved, SegmentID: &one}})
	if len(out.Segments) != 0 {
		t.Errorf("segment-removed left %+v", out.Segments)
	}
	out = Apply(out, []DeltaEvent{{Type: EventHydration, Features: []Feature{{Name: "only"}}}})
	if len(out.Features) != 1 || out.Features[0].Name != "only" {
		t.Errorf("hydration: %+v", out.Features)
	}
}

// FuzzDecode proves that no input panics the decoders.
func FuzzDecode(f *testing.F) {
	f.Add([]byte(serverPayload))
	f.Add([]byte(`{"events":[{"type":"hydration","features":[{"name":"x"}]}]}`))
	f.Add([]byte(`{"features":[{"strategies":[{"parameters":{"a":1e999}}]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var feats Features
		_ = json.Unmarshal(data, &feats)
		var d Delta
		if json.Unmarshal(data, &d) == nil {
			Apply(&feats, d.Events)
		}
		var ctx Context
		_ = json.Unmarshal(data, &ctx)
		var m Metrics
		_ = json.Unmarshal(data, &m)
	})
}
