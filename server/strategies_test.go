package server

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/signalbox/signalbox/store"
	"github.com/signalbox/signalbox/store/sqlstore"
)

func TestCreateStrategyValidation(t *testing.T) {
	fx := newFlagFixture(t)
	fx.addProject("other")
	fx.create("f")
	global := fx.addSegment("global", "")
	foreign := fx.addSegment("foreign", "other")
	fx.storeChange(func(ctx context.Context, tx store.Tx) error {
		if _, err := tx.CreateStrategyDefinition(ctx, store.StrategyDefinition{Name: "myCustom", Editable: true}); err != nil {
			return err
		}
		_, err := tx.CreateContextField(ctx, store.ContextField{Name: "region", LegalValues: []store.LegalValue{{Value: "eu"}, {Value: "us"}}})
		return err
	})
	c := func(ctx, op string, values []string, value string) map[string]any {
		return map[string]any{"contextName": ctx, "operator": op, "values": values, "value": value}
	}
	v := func(name string, weight int, weightType string) map[string]any {
		return map[string]any{"name": name, "weight": weight, "weightType": weightType, "stickiness": "default"}
	}
	tests := []struct {
		name   string
		body   map[string]any
		detail string // "" for a valid body
	}{
		{"minimal", map[string]any{"name": "default"}, ""},
		{"custom strategy type", map[string]any{"name": "myCustom", "parameters": map[string]string{"k": "v"}}, ""},
		{"every operator form", map[string]any{"name": "flexibleRollout", "constraints": []any{
			c("userId", "IN", []string{"1"}, ""), c("userId", "NOT_IN", []string{"1"}, ""),
			c("email", "STR_ENDS_WITH", []string{"@x.io"}, ""), c("n", "NUM_GTE", nil, "1.5"),
			c("currentTime", "DATE_AFTER", nil, "2030-01-01T00:00:00Z"), c("v", "SEMVER_LT", nil, "2.0.0-beta.1"),
			c("u", "REGEX", nil, "^a.*"), c("remoteAddress", "IN_CIDR", []string{"10.0.0.0/8", "::1"}, ""),
			c("region", "IN", []string{"eu"}, ""),
		}}, ""},
		{"global segment", map[string]any{"name": "default", "segments": []int{global}}, ""},
		{"variants", map[string]any{"name": "flexibleRollout", "variants": []any{v("a", 0, "variable"), v("b", 1000, "fix")}}, ""},
		{"no name", map[string]any{"parameters": map[string]string{}}, "name"},
		{"unknown strategy type", map[string]any{"name": "nope"}, "name"},
		{"rollout above 100", map[string]any{"name": "flexibleRollout", "parameters": map[string]string{"rollout": "101"}}, "parameters.rollout"},
		{"rollout not a number", map[string]any{"name": "flexibleRollout", "parameters": map[string]string{"rollout": "half"}}, "parameters.rollout"},
		{"sortOrder not whole", map[string]any{"name": "default", "sortOrder": 1.5}, "sortOrder"},
		{"unknown operator", map[string]any{"name": "default", "constraints": []any{c("userId", "LIKE", []string{"1"}, "")}}, "constraints[0].operator"},
		{"no contextName", map[string]any{"name": "default", "constraints": []any{c("", "IN", []string{"1"}, "")}}, "constraints[0].contextName"},
		{"IN without values", map[string]any{"name": "default", "constraints": []any{c("userId", "IN", nil, "1")}}, "constraints[0].values"},
		{"NUM without value", map[string]any{"name": "default", "constraints": []any{c("n", "NUM_EQ", []string{"1"}, "")}}, "constraints[0].value"},
		{"NUM not a number", map[string]any{"name": "default", "constraints": []any{c("n", "NUM_EQ", nil, "ten")}}, "constraints[0].value"},
		{"bad date", map[string]any{"name": "default", "constraints": []any{c("currentTime", "DATE_BEFORE", nil, "tomorrow")}}, "constraints[0].value"},
		{"semver with v", map[string]any{"name": "default", "constraints": []any{c("v", "SEMVER_EQ", nil, "v1.2.3")}}, "constraints[0].value"},
		{"bad regex", map[string]any{"name": "default", "constraints": []any{c("u", "REGEX", nil, "(")}}, "constraints[0].value"},
		{"bad CIDR", map[string]any{"name": "default", "constraints": []any{c("remoteAddress", "IN_CIDR", []string{"10.0.0.0/99"}, "")}}, "constraints[0].values"},
		{"illegal value", map[string]any{"name": "default", "constraints": []any{c("region", "IN", []string{"mars"}, "")}}, "constraints[0].values"},
		{"values not strings", map[string]any{"name": "default", "constraints": []any{map[string]any{"contextName": "a", "operator": "IN", "values": []int{1}}}}, "constraints.values"},
		{"unknown segment", map[string]any{"name": "default", "segments": []int{9999}}, "segments[0]"},
		{"segment of another project", map[string]any{"name": "default", "segments": []int{foreign}}, "segments[0]"},
		{"weight above 1000", map[string]any{"name": "default", "variants": []any{v("a", 1001, "variable")}}, "variants[0].weight"},
		{"bad weightType", map[string]any{"name": "default", "variants": []any{v("a", 1, "heavy")}}, "variants[0].weightType"},
		{"fixed above 1000", map[string]any{"name": "default", "variants": []any{v("a", 600, "fix"), v("b", 500, "fix"), v("c", 0, "variable")}}, "variants"},
		{"no variable variant", map[string]any{"name": "default", "variants": []any{v("a", 1000, "fix")}}, "variants"},
		{"duplicate variant", map[string]any{"name": "default", "variants": []any{v("a", 1, "variable"), v("a", 1, "variable")}}, "variants[1].name"},
		{"unnamed variant", map[string]any{"name": "default", "variants": []any{v("", 1, "variable")}}, "variants[0].name"},
		{"bad json payload", map[string]any{"name": "default", "variants": []any{map[string]any{"name": "a", "weight": 1000, "weightType": "variable", "stickiness": "default",
			"payload": map[string]string{"type": "json", "value": "{nope"}}}}, "variants[0].payload.value"},
		{"bad payload type", map[string]any{"name": "default", "variants": []any{map[string]any{"name": "a", "weight": 1000, "weightType": "variable", "stickiness": "default",
			"payload": map[string]string{"type": "xml", "value": "<a/>"}}}}, "variants[0].payload.type"},
		{"overrides on a strategy variant", map[string]any{"name": "default", "variants": []any{map[string]any{"name": "a", "weight": 1000, "weightType": "variable", "stickiness": "default",
			"overrides": []any{map[string]any{"contextName": "userId", "values": []string{"1"}}}}}}, "variants[0].overrides"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := fx.lastEvent()
			res := fx.ts.admin("POST", envPath("f", "development")+"/strategies", tt.body)
			if tt.detail != "" {
				mustError(t, res, http.StatusBadRequest, "ValidationError", tt.detail)
				fx.expectEvents(before, "")
				return
			}
			var st adminStrategy
			res.must(t, http.StatusOK).Decode(t, &st)
			if _, err := uuid.Parse(st.ID); err != nil || st.FeatureName != "f" || st.Constraints == nil || st.Variants == nil || st.Segments == nil {
				t.Errorf("created strategy %s", res.Body)
			}
			events := fx.expectEvents(before, "f", "feature-strategy-add")
			if events[0].Environment != "development" || events[0].Data == nil {
				t.Errorf("event %+v", events[0])
			}
		})
	}
	mustError(t, fx.ts.request("POST", envPath("f", "development")+"/strategies", testAdminToken, `{"name":"default"}`, "Content-Type", "text/plain"),
		http.StatusUnsupportedMediaType, "ContentTypeError", "")
	mustError(t, fx.ts.admin("POST", envPath("nope", "development")+"/strategies", map[string]any{"name": "default"}), 404, "NotFoundError", "")
	mustError(t, fx.ts.admin("POST", envPath("f", "nope")+"/strategies", map[string]any{"name": "default"}), 404, "NotFoundError", "")
}

func TestStrategyRoutes(t *testing.T) {
	fx := newFlagFixture(t)
	fx.create("f")
	strategies := envPath("f", "development") + "/strategies"
	first := fx.addStrategy("f", "development", map[string]any{"name": "flexibleRollout", "title": "first",
		"parameters": map[string]any{"rollout": 40, "stickiness": "", "groupId": "f"}})
	second := fx.addStrategy("f", "development", map[string]any{"name": "userWithId", "parameters": map[string]string{"userIds": "1,2"}})
	if first.SortOrder != 0 || second.SortOrder != 1 {
		t.Errorf("sort orders %d, %d; want new strategies appended", first.SortOrder, second.SortOrder)
	}
	if first.Parameters["rollout"] != "40" || first.Parameters["stickiness"] != "default" || *first.Title != "first" {
		t.Errorf("parameters %+v", first)
	}
	if second.Title != nil {
		t.Errorf("an empty title is null, got %q", *second.Title)
	}

	var list []adminStrategy
	fx.ts.admin("GET", strategies, nil).must(t, 200).Decode(t, &list)
	if len(list) != 2 || list[0].ID != first.ID {
		t.Errorf("list %+v", list)
	}
	var got adminStrategy
	fx.ts.admin("GET", strategies+"/"+second.ID, nil).must(t, 200).Decode(t, &got)
	if got.Name != "userWithId" {
		t.Errorf("get %+v", got)
	}

	before := fx.lastEvent()
	var put adminStrategy
	fx.ts.admin("PUT", strategies+"/"+first.ID, map[string]any{"parameters": map[string]string{"rollout": "60", "groupId": "f"}}).must(t, 200).Decode(t, &put)
	fx.expectEvents(before, "f", "feature-strategy-update")
	if put.Parameters["rollout"] != "60" || put.Name != "flexibleRollout" || put.Title == nil || *put.Title != "first" {
		t.Errorf("PUT must keep what it does not send: %+v", put)
	}
	mustError(t, fx.ts.admin("PUT", strategies+"/"+first.ID, map[string]any{"name": "nope"}), 400, "ValidationError", "name")

	before = fx.lastEvent()
	fx.ts.admin("POST", strategies+"/set-sort-order", []any{
		map[string]any{"id": first.ID, "sortOrder": 5}, map[string]any{"id": second.ID, "sortOrder": 2},
	}).must(t, 200)
	events := fx.expectEvents(before, "f", "strategy-order-changed")
	if want := `{"strategyIds":["` + second.ID + `","` + first.ID + `"]}`; string(events[0].Data) != want {
		t.Errorf("order event data %s, want %s", events[0].Data, want)
	}
	fx.ts.admin("GET", strategies, nil).must(t, 200).Decode(t, &list)
	if list[0].ID != second.ID || list[1].SortOrder != 5 {
		t.Errorf("after reordering %+v", list)
	}
	mustError(t, fx.ts.admin("POST", strategies+"/set-sort-order", []any{map[string]any{"id": "nope", "sortOrder": 1}}), 400, "ValidationError", "[0].id")
	mustError(t, fx.ts.admin("POST", strategies+"/set-sort-order", []any{map[string]any{"id": first.ID}}), 400, "ValidationError", "[0].sortOrder")
	mustError(t, fx.ts.admin("POST", strategies+"/set-sort-order", map[string]any{"id": first.ID}), 400, "ValidationError", "")

	before = fx.lastEvent()
	fx.ts.admin("DELETE", strategies+"/"+second.ID, nil).must(t, 200)
	events = fx.expectEvents(before, "f", "feature-strategy-remove")
	if events[0].PreData == nil || events[0].Data != nil {
		t.Errorf("remove event %+v", events[0])
	}
	for _, method := range []string{"GET", "PUT", "PATCH", "DELETE"} {
		var body any
		if method == "PUT" {
			body = map[string]any{"name": "default"}
		} else if method == "PATCH" {
			body = []any{}
		}
		mustError(t, fx.ts.admin(method, strategies+"/"+second.ID, body), 404, "NotFoundError", "")
	}
	// A strategy of another environment is not reachable through this one.
	prod := fx.addStrategy("f", "production", map[string]any{"name": "default"})
	mustError(t, fx.ts.admin("GET", strategies+"/"+prod.ID, nil), 404, "NotFoundError", "")
}

func TestPatchStrategy(t *testing.T) {
	fx := newFlagFixture(t)
	fx.create("f")
	st := fx.addStrategy("f", "development", map[string]any{"name": "flexibleRollout",
		"parameters": map[string]string{"rollout": "50", "groupId": "f", "stickiness": "default"}})
	path := envPath("f", "development") + "/strategies/" + st.ID
	op := func(kind, path string, value any) map[string]any {
		return map[string]any{"op": kind, "path": path, "value": value}
	}
	tests := []struct {
		name   string
		body   any
		status int
		detail string
	}{
		{"replace a parameter", []any{op("replace", "/parameters/rollout", "75")}, 200, ""},
		{"set the title", []any{op("replace", "/title", "patched")}, 200, ""},
		{"add a constraint", []any{op("add", "/constraints/-", map[string]any{"contextName": "userId", "operator": "IN", "values": []string{"1"}})}, 200, ""},
		{"copy and move", []any{map[string]any{"op": "copy", "from": "/parameters/groupId", "path": "/parameters/other"},
			map[string]any{"op": "move", "from": "/parameters/other", "path": "/parameters/moved"}}, 200, ""},
		{"remove a parameter", []any{map[string]any{"op": "remove", "path": "/parameters/moved"}}, 200, ""},
		{"add variants", []any{op("replace", "/variants", []any{map[string]any{"name": "a", "weight": 5, "weightType": "variable", "stickiness": "default"}})}, 200, ""},
		{"empty patch", []any{}, 200, ""},
		{"replace a missing path", []any{op("replace", "/nothing", 1)}, 400, "[0]"},
		{"remove a missing path", []any{map[string]any{"op": "remove", "path": "/parameters/nope"}}, 400, "[0]"},
		{"failing test", []any{op("test", "/name", "default")}, 400, "[0]"},
		{"unknown op", []any{op("upsert", "/title", "x")}, 400, "[0].op"},
		{"missing path", []any{map[string]any{"op": "replace", "value": "x"}}, 400, "[0].path"},
		{"move without from", []any{map[string]any{"op": "move", "path": "/title"}}, 400, "[0].from"},
		{"add without value", []any{map[string]any{"op": "add", "path": "/title"}}, 400, "[0].value"},
		{"operation not an object", []any{"replace"}, 400, "[0]"},
		{"body is an object", op("replace", "/title", "x"), 400, "body"},
		{"body is a string", `"replace"`, 400, "body"},
		{"negative index", []any{op("replace", "/constraints/-1", nil)}, 400, "[0]"},
		{"result fails validation", []any{op("replace", "/constraints/0/operator", "LIKE")}, 400, "constraints[0].operator"},
		{"unknown strategy type", []any{op("replace", "/name", "nope")}, 400, "name"},
		{"change the id", []any{op("replace", "/id", "other")}, 400, "id"},
		{"move to another flag", []any{op("replace", "/featureName", "g")}, 400, "featureName"},
		{"wrong JSON type", []any{op("replace", "/disabled", "yes")}, 400, "disabled"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := fx.lastEvent()
			res := fx.ts.admin("PATCH", path, tt.body)
			if tt.status != 200 {
				mustError(t, res, tt.status, "ValidationError", tt.detail)
				fx.expectEvents(before, "")
				return
			}
			res.must(t, 200)
			fx.expectEvents(before, "f", "feature-strategy-update")
		})
	}
	var got adminStrategy
	fx.ts.admin("GET", path, nil).must(t, 200).Decode(t, &got)
	if got.Parameters["rollout"] != "75" || *got.Title != "patched" || len(got.Constraints) != 1 ||
		got.Parameters["moved"] != "" || len(got.Variants) != 1 || got.Variants[0].Weight != 1000 {
		t.Errorf("after patches %+v", got)
	}
	mustError(t, fx.ts.request("PATCH", path, testAdminToken, `[]`, "Content-Type", "text/plain"), 415, "ContentTypeError", "")
	mustError(t, fx.ts.request("PATCH", path, testAdminToken, `[{"op":`, "Content-Type", "application/json"), 400, "BadDataError", "")
	mustError(t, fx.ts.admin("PATCH", envPath("f", "development")+"/strategies/nope", []any{}), 404, "NotFoundError", "")
}

func TestLastEnabledStrategySwitchesEnvironmentOff(t *testing.T) {
	fx := newFlagFixture(t)
	fx.create("f")
	strategies := envPath("f", "development") + "/strategies"
	a := fx.addStrategy("f", "development", map[string]any{"name": "default"})
	b := fx.addStrategy("f", "development", map[string]any{"name": "userWithId", "parameters": map[string]string{"userIds": "1"}})
	fx.ts.admin("POST", envPath("f", "development")+"/on", nil).must(t, 200)

	before := fx.lastEvent()
	fx.ts.admin("PUT", strategies+"/"+a.ID, map[string]any{"disabled": true}).must(t, 200)
	fx.expectEvents(before, "f", "feature-strategy-update") // b is still enabled
	if !fx.feature("f").Environments[0].Enabled {
		t.Fatal("switched off while an enabled strategy remains")
	}

	before = fx.lastEvent()
	fx.ts.admin("PATCH", strategies+"/"+b.ID, []any{map[string]any{"op": "replace", "path": "/disabled", "value": true}}).must(t, 200)
	fx.expectEvents(before, "f", "feature-strategy-update", "feature-environment-disabled")
	dev := fx.feature("f").Environments[0]
	if dev.Enabled || dev.HasEnabledStrategies || !dev.HasStrategies {
		t.Errorf("after disabling the last strategy: %+v", dev)
	}

	// Deleting the last enabled strategy switches off too.
	fx.ts.admin("PUT", strategies+"/"+b.ID, map[string]any{"disabled": false}).must(t, 200)
	fx.ts.admin("POST", envPath("f", "development")+"/on", nil).must(t, 200)
	before = fx.lastEvent()
	fx.ts.admin("DELETE", strategies+"/"+b.ID, nil).must(t, 200)
	fx.expectEvents(before, "f", "feature-strategy-remove", "feature-environment-disabled")
}

// FuzzStrategyBodies posts arbitrary bodies to the strategy create and
// PATCH routes, in process, and requires an answer that is not a 5xx.
func FuzzStrategyBodies(f *testing.F) {
	seeds := []string{
		`{"name":"default"}`,
		`{"name":"flexibleRollout","parameters":{"rollout":"50"},"constraints":[{"contextName":"a","operator":"IN","values":["1"]}]}`,
		`{"name":"default","variants":[{"name":"a","weight":1000,"weightType":"fix","stickiness":"default"}],"segments":[1,2]}`,
		`{"name":"default","sortOrder":1e300,"parameters":{"x":{"y":[1]}}}`,
		`[{"op":"replace","path":"/parameters/rollout","value":"10"}]`,
		`[{"op":"copy","from":"/constraints","path":"/constraints/-"}]`,
		`[{"op":"move","from":"/parameters","path":"/parameters/x"}]`,
		`[{"op":"add","path":"/constraints/0","value":{"contextName":"a","operator":"NUM_GT","value":"x"}}]`,
		`[{"op":"remove","path":"/"}]`, `[{"op":"replace","path":"/~2","value":1}]`, `[]`, `{}`, `null`, `"x"`, ``,
	}
	for _, s := range seeds {
		f.Add(s)
	}
	ft := newFuzzTarget(f)
	f.Fuzz(func(t *testing.T, body string) {
		ft.do(t, "POST", ft.strategies, body)
		ft.do(t, "PATCH", ft.strategies+"/"+ft.id, body)
	})
}

// fuzzTarget is an in-process server with one flag and one strategy.
type fuzzTarget struct {
	h          http.Handler
	strategies string
	id         string
}

func newFuzzTarget(tb testing.TB) fuzzTarget {
	ctx := context.Background()
	st, err := sqlstore.Open(ctx, filepath.Join(tb.TempDir(), "fuzz.db"))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { st.Close() })
	if _, err := Bootstrap(ctx, st, BootstrapConfig{AdminTokens: []string{testAdminToken}, AdminPassword: testAdminPassword}); err != nil {
		tb.Fatal(err)
	}
	srv, err := New(ctx, st, Config{Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		tb.Fatal(err)
	}
	ft := fuzzTarget{h: srv.Handler(), strategies: envPath("fz", "development") + "/strategies"}
	if rec := ft.serve("POST", defaultFeatures, `{"name":"fz"}`); rec.Code != http.StatusCreated {
		tb.Fatalf("creating the flag: %d %s", rec.Code, rec.Body)
	}
	rec := ft.serve("POST", ft.strategies, `{"name":"flexibleRollout","parameters":{"rollout":"50"}}`)
	var created adminStrategy
	if err := json.Unmarshal(rec.Body.Bytes(), &created); err != nil || created.ID == "" {
		tb.Fatalf("creating the strategy: %d %s", rec.Code, rec.Body)
	}
	ft.id = created.ID
	return ft
}

func (ft fuzzTarget) serve(method, path, body string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	req.Header.Set("Authorization", testAdminToken)
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	ft.h.ServeHTTP(rec, req)
	return rec
}

func (ft fuzzTarget) do(t *testing.T, method, path, body string) {
	done := make(chan *httptest.ResponseRecorder, 1)
	go func() { done <- ft.serve(method, path, body) }()
	select {
	case rec := <-done:
		if rec.Code >= 500 {
			t.Fatalf("%s %s with %q: %d %s", method, path, body, rec.Code, rec.Body)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("%s %s with %q: no answer within 10s", method, path, body)
	}
}
