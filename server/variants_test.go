package server

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/signalbox/signalbox/clientapi"
)

func TestNormalizeVariantWeights(t *testing.T) {
	v := func(name string, weight int, weightType string) clientapi.Variant {
		return clientapi.Variant{Name: name, Weight: weight, WeightType: weightType}
	}
	type nw struct {
		Name   string
		Weight int
	}
	tests := []struct {
		name string
		in   []clientapi.Variant
		want []nw // nil: rejected
	}{
		{"none", nil, []nw{}},
		{"one variable", []clientapi.Variant{v("a", 1, "variable")}, []nw{{"a", 1000}}},
		{"remainder to the first variable ones, then sorted", []clientapi.Variant{v("c", 0, ""), v("a", 0, "variable"), v("b", 0, "variable")},
			[]nw{{"a", 333}, {"b", 333}, {"c", 334}}},
		{"seven variable", []clientapi.Variant{v("g", 0, ""), v("f", 0, ""), v("e", 0, ""), v("d", 0, ""), v("c", 0, ""), v("b", 0, ""), v("a", 0, "")},
			[]nw{{"a", 142}, {"b", 143}, {"c", 143}, {"d", 143}, {"e", 143}, {"f", 143}, {"g", 143}}},
		{"fixed keep their weight", []clientapi.Variant{v("a", 200, "fix"), v("b", 5, "variable"), v("c", 5, "variable")},
			[]nw{{"a", 200}, {"b", 400}, {"c", 400}}},
		{"fixed take everything", []clientapi.Variant{v("a", 1000, "fix"), v("b", 5, "variable")}, []nw{{"a", 1000}, {"b", 0}}},
		{"fixed above 1000", []clientapi.Variant{v("a", 600, "fix"), v("b", 401, "fix"), v("c", 0, "variable")}, nil},
		{"no variable variant", []clientapi.Variant{v("a", 500, "fix"), v("b", 500, "fix")}, nil},
		{"negative weight", []clientapi.Variant{v("a", -1, "variable")}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := normalizeVariants("variants", tt.in, false)
			if tt.want == nil {
				if err == nil {
					t.Fatalf("accepted: %+v", out)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := []nw{}
			total := 0
			for _, o := range out {
				got = append(got, nw{o.Name, o.Weight})
				total += o.Weight
				if o.Stickiness != "default" || (o.WeightType != "fix" && o.WeightType != "variable") {
					t.Errorf("defaults not applied: %+v", o)
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if len(out) > 0 && total != 1000 {
				t.Errorf("weights total %d", total)
			}
		})
	}
}

func TestEnvironmentVariants(t *testing.T) {
	fx := newFlagFixture(t)
	fx.create("f")
	path := envPath("f", "development") + "/variants"
	var answer variantsAnswer
	fx.ts.admin("GET", path, nil).must(t, 200).Decode(t, &answer)
	if answer.Version != 1 || answer.Variants == nil || len(answer.Variants) != 0 {
		t.Errorf("empty variants %+v", answer)
	}

	before := fx.lastEvent()
	res := fx.ts.admin("PUT", path, []any{
		map[string]any{"name": "b", "weight": 100, "weightType": "fix", "payload": map[string]string{"type": "json", "value": `{"a":1}`},
			"overrides": []any{map[string]any{"contextName": "userId", "values": []string{"1"}}}},
		map[string]any{"name": "a", "weight": 1},
	}).must(t, 200)
	res.Decode(t, &answer)
	if len(answer.Variants) != 2 || answer.Variants[0].Name != "a" || answer.Variants[0].Weight != 900 ||
		answer.Variants[1].Payload == nil || len(answer.Variants[1].Overrides) != 1 || answer.Variants[0].Overrides == nil {
		t.Errorf("PUT answer %s", res.Body)
	}
	events := fx.expectEvents(before, "f", "feature-environment-variants-updated")
	var data, pre variantsData
	if json.Unmarshal(events[0].Data, &data) != nil || json.Unmarshal(events[0].PreData, &pre) != nil || len(data.Variants) != 2 || len(pre.Variants) != 0 {
		t.Errorf("event data %s / %s", events[0].Data, events[0].PreData)
	}
	if e := events[0]; e.Environment != "development" || e.Project != "default" {
		t.Errorf("event %+v", e)
	}
	if f := fx.feature("f"); f.Environments[0].VariantCount != 2 || len(f.Environments[1].Variants) != 0 || len(f.Environments[0].Variants) != 2 {
		t.Errorf("feature view %+v", f)
	}

	before = fx.lastEvent()
	fx.ts.admin("PATCH", path, []any{map[string]any{"op": "add", "path": "/-", "value": map[string]any{"name": "c", "weight": 0, "weightType": "variable"}}}).
		must(t, 200).Decode(t, &answer)
	fx.expectEvents(before, "f", "feature-environment-variants-updated")
	if len(answer.Variants) != 3 || answer.Variants[0].Weight != 450 || answer.Variants[2].Weight != 450 {
		t.Errorf("after PATCH %+v", answer.Variants)
	}

	bad := []struct {
		name   string
		method string
		body   any
		detail string
	}{
		{"json payload that is not JSON", "PUT", []any{map[string]any{"name": "a", "weight": 1, "payload": map[string]string{"type": "json", "value": "{"}}}, "variants[0].payload.value"},
		{"number payload that is not a number", "PUT", []any{map[string]any{"name": "a", "weight": 1, "payload": map[string]string{"type": "number", "value": "ten"}}}, "variants[0].payload.value"},
		{"override without contextName", "PUT", []any{map[string]any{"name": "a", "weight": 1, "overrides": []any{map[string]any{"values": []string{"1"}}}}}, "variants[0].overrides[0].contextName"},
		{"only fixed", "PUT", []any{map[string]any{"name": "a", "weight": 1000, "weightType": "fix"}}, "variants"},
		{"object body", "PUT", map[string]any{"name": "a"}, "body"},
		{"patch of a missing index", "PATCH", []any{map[string]any{"op": "replace", "path": "/9/weight", "value": 1}}, "[0]"},
		{"patch to a bad weight", "PATCH", []any{map[string]any{"op": "replace", "path": "/0/weight", "value": 5000}}, "variants[0].weight"},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			before := fx.lastEvent()
			mustError(t, fx.ts.admin(tt.method, path, tt.body), 400, "ValidationError", tt.detail)
			fx.expectEvents(before, "")
		})
	}
	mustError(t, fx.ts.request("PUT", path, testAdminToken, `[]`, "Content-Type", "text/plain"), 415, "ContentTypeError", "")
	mustError(t, fx.ts.admin("PUT", envPath("f", "nope")+"/variants", []any{}), 404, "NotFoundError", "")
	mustError(t, fx.ts.admin("GET", envPath("nope", "development")+"/variants", nil), 404, "NotFoundError", "")

	before = fx.lastEvent()
	fx.ts.admin("PUT", path, []any{}).must(t, 200).Decode(t, &answer)
	fx.expectEvents(before, "f", "feature-environment-variants-updated")
	if len(answer.Variants) != 0 {
		t.Errorf("variants not cleared: %+v", answer)
	}
}

func TestLegacyVariants(t *testing.T) {
	fx := newFlagFixture(t)
	fx.create("f")
	legacy := defaultFeatures + "/f/variants"

	before := fx.lastEvent()
	var answer variantsAnswer
	fx.ts.admin("PUT", legacy, []any{map[string]any{"name": "x", "weight": 1}, map[string]any{"name": "y", "weight": 1}}).must(t, 200).Decode(t, &answer)
	events := fx.expectEvents(before, "f", "feature-environment-variants-updated", "feature-environment-variants-updated")
	if events[0].Environment != "development" || events[1].Environment != "production" {
		t.Errorf("one event per environment expected: %+v", events)
	}
	if len(answer.Variants) != 2 || answer.Variants[0].Weight != 500 {
		t.Errorf("answer %+v", answer)
	}
	f := fx.feature("f")
	for _, env := range f.Environments {
		if len(env.Variants) != 2 {
			t.Errorf("environment %s has %d variants", env.Name, len(env.Variants))
		}
	}

	before = fx.lastEvent()
	fx.ts.admin("PATCH", legacy, []any{map[string]any{"op": "remove", "path": "/1"}}).must(t, 200).Decode(t, &answer)
	fx.expectEvents(before, "f", "feature-environment-variants-updated", "feature-environment-variants-updated")
	fx.ts.admin("GET", legacy, nil).must(t, 200).Decode(t, &answer)
	if len(answer.Variants) != 1 || answer.Variants[0].Weight != 1000 {
		t.Errorf("legacy GET after PATCH %+v", answer)
	}

	batch := defaultFeatures + "/f/variants-batch"
	before = fx.lastEvent()
	fx.ts.admin("PUT", batch, map[string]any{"environments": []string{"production"}, "variants": []any{map[string]any{"name": "only", "weight": 7}}}).
		must(t, 200).Decode(t, &answer)
	fx.expectEvents(before, "f", "feature-environment-variants-updated")
	f = fx.feature("f")
	if len(f.Environments[0].Variants) != 1 || f.Environments[0].Variants[0].Name != "x" || f.Environments[1].Variants[0].Name != "only" {
		t.Errorf("batch touched the wrong environments: %+v", f.Environments)
	}
	mustError(t, fx.ts.admin("PUT", batch, map[string]any{"environments": []string{"nope"}, "variants": []any{}}), 400, "ValidationError", "environments[0]")
	mustError(t, fx.ts.admin("PUT", defaultFeatures+"/nope/variants", []any{}), http.StatusNotFound, "NotFoundError", "")
}
