package server

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
)

// unleashReference is Unleash's OpenAPI document (see refLoad).
func unleashReference(t *testing.T) *openapi3.T {
	t.Helper()
	if _, err := refLoad(); err != nil {
		missingReference(t, err)
	}
	return refDoc
}

// matchesUnleash fails the test unless body is valid for Unleash's schema.
func matchesUnleash(t *testing.T, ref *openapi3.T, schema string, body []byte) {
	t.Helper()
	s := ref.Components.Schemas[schema]
	if s == nil || s.Value == nil {
		t.Fatalf("no schema %s in the reference", schema)
	}
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatalf("answer is not JSON: %v", err)
	}
	if err := s.Value.VisitJSON(v, openapi3.MultiErrors()); err != nil {
		t.Errorf("the answer breaks Unleash's %s: %v\n%s", schema, err, body)
	}
}

// seedPlayground builds, through the admin API, flags that exercise every
// part of an explanation:
//
//	checkout (default): a rollout limited to Norway and example.com
//	  addresses, and a disabled strategy with a title;
//	beta (default): on for the "testers" segment (users 1 and 3);
//	child (default): depends on beta;
//	planet (default): a custom strategy the server cannot evaluate;
//	web.search (web): on for everyone.
func seedPlayground(t *testing.T, ts *testServer) {
	t.Helper()
	const env = "/environments/development"
	ts.admin("POST", "/api/admin/projects", map[string]any{"id": "web", "name": "Web"}).must(t, http.StatusCreated)
	seg := ts.admin("POST", "/api/admin/segments", map[string]any{"name": "testers",
		"constraints": []map[string]any{{"contextName": "userId", "operator": "IN", "values": []string{"1", "3"}}}}).must(t, http.StatusCreated).Object()
	ts.admin("POST", "/api/admin/strategies", map[string]any{"name": "byPlanet",
		"parameters": []map[string]any{{"name": "planet", "type": "string"}}}).must(t, http.StatusCreated)
	flag := func(project, name string, strategies ...map[string]any) {
		path := "/api/admin/projects/" + project + "/features"
		ts.admin("POST", path, map[string]any{"name": name}).must(t, http.StatusCreated)
		for _, st := range strategies {
			ts.admin("POST", path+"/"+name+env+"/strategies", st).must(t, http.StatusOK)
		}
		ts.admin("POST", path+"/"+name+env+"/on", nil).must(t, http.StatusOK)
	}
	flag("default", "checkout", map[string]any{
		"name": "flexibleRollout", "title": "Norwegian shop",
		"parameters": map[string]string{"rollout": "100", "stickiness": "default", "groupId": "checkout"},
		"constraints": []map[string]any{
			{"contextName": "country", "operator": "IN", "values": []string{"no"}},
			{"contextName": "email", "operator": "STR_ENDS_WITH", "values": []string{"@example.com"}, "caseInsensitive": true},
		},
		"variants": []map[string]any{{"name": "fast", "weight": 1000, "weightType": "variable", "stickiness": "default",
			"payload": map[string]string{"type": "string", "value": "f"}}},
	}, map[string]any{"name": "default", "title": "Everyone, later", "disabled": true,
		"constraints": []map[string]any{{"contextName": "userId", "operator": "IN", "values": []string{"2"}}}})
	flag("default", "beta", map[string]any{"name": "default", "segments": []any{seg["id"]}})
	flag("default", "child", map[string]any{"name": "default"})
	ts.admin("POST", "/api/admin/projects/default/features/child/dependencies", map[string]any{"feature": "beta"}).must(t, http.StatusOK)
	flag("default", "planet", map[string]any{"name": "byPlanet", "parameters": map[string]string{"planet": "mars"}})
	flag("web", "web.search", map[string]any{"name": "default"})
}

// playgroundAnswer is the part of the answer the tests read.
type playgroundAnswer struct {
	Features []struct {
		Name                          string `json:"name"`
		ProjectID                     string `json:"projectId"`
		IsEnabled                     bool   `json:"isEnabled"`
		IsEnabledInCurrentEnvironment bool   `json:"isEnabledInCurrentEnvironment"`
		HasUnsatisfiedDependency      bool   `json:"hasUnsatisfiedDependency"`
		Variant                       struct {
			Name string `json:"name"`
		} `json:"variant"`
		Strategies struct {
			Result any `json:"result"`
			Data   []struct {
				Name     string `json:"name"`
				Title    string `json:"title"`
				Disabled bool   `json:"disabled"`
				Result   struct {
					EvaluationStatus string `json:"evaluationStatus"`
					Enabled          any    `json:"enabled"`
					Variant          *struct {
						Name string `json:"name"`
					} `json:"variant"`
				} `json:"result"`
				Constraints []struct {
					ContextName string `json:"contextName"`
					Result      bool   `json:"result"`
				} `json:"constraints"`
				Segments []struct {
					Name        string `json:"name"`
					Result      bool   `json:"result"`
					Constraints []struct {
						Result bool `json:"result"`
					} `json:"constraints"`
				} `json:"segments"`
				Links struct {
					Edit string `json:"edit"`
				} `json:"links"`
			} `json:"data"`
		} `json:"strategies"`
	} `json:"features"`
}

func (a playgroundAnswer) names() []string {
	var out []string
	for _, f := range a.Features {
		out = append(out, f.Name)
	}
	return out
}

func TestPlaygroundExplainsEachFlag(t *testing.T) {
	ts := newTestServer(t)
	seedPlayground(t, ts)
	ref := unleashReference(t)
	c := newOAChecker(t, ts)

	ask := func(ctx map[string]any) playgroundAnswer {
		t.Helper()
		res := c.do("POST", "/api/admin/playground", testAdminToken, map[string]any{"environment": "development", "projects": "*", "context": ctx}, http.StatusOK)
		matchesUnleash(t, ref, "playgroundResponseSchema", res.Body)
		var a playgroundAnswer
		res.Decode(t, &a)
		return a
	}
	// A Norwegian tester with an example.com address.
	on := ask(map[string]any{"appName": "shop", "userId": "1", "country": "no", "properties": map[string]string{"email": "Ann@EXAMPLE.com"}})
	if got := strings.Join(on.names(), ","); got != "beta,checkout,child,planet,web.search" {
		t.Fatalf("features %s", got)
	}
	// Someone from elsewhere, not a tester.
	off := ask(map[string]any{"appName": "shop", "userId": "2", "country": "se", "properties": map[string]string{"email": "bo@example.com"}})

	checkout := on.Features[1]
	if !checkout.IsEnabled || !checkout.IsEnabledInCurrentEnvironment || checkout.Variant.Name != "fast" || checkout.Strategies.Result != true {
		t.Errorf("checkout for a Norwegian: %+v", checkout)
	}
	if n := len(checkout.Strategies.Data); n != 2 {
		t.Fatalf("checkout strategies: %d, want the enabled and the disabled one", n)
	}
	rollout, disabled := checkout.Strategies.Data[0], checkout.Strategies.Data[1]
	if rollout.Title != "Norwegian shop" || rollout.Result.EvaluationStatus != "complete" || rollout.Result.Enabled != true ||
		rollout.Result.Variant == nil || rollout.Result.Variant.Name != "fast" || !strings.Contains(rollout.Links.Edit, "/projects/default/features/checkout/strategies/edit?environmentId=development&strategyId=") {
		t.Errorf("rollout strategy: %+v", rollout)
	}
	if !disabled.Disabled || disabled.Title != "Everyone, later" || disabled.Result.EvaluationStatus != "unevaluated" || disabled.Result.Enabled != false ||
		len(disabled.Constraints) != 1 || disabled.Constraints[0].Result {
		t.Errorf("disabled strategy: %+v", disabled)
	}

	// The failing constraint is marked, the passing one too.
	checkout = off.Features[1]
	rollout = checkout.Strategies.Data[0]
	if checkout.IsEnabled || checkout.Variant.Name != "disabled" || checkout.Strategies.Result != false || rollout.Result.Enabled != false {
		t.Errorf("checkout for a Swede: %+v", checkout)
	}
	if len(rollout.Constraints) != 2 || rollout.Constraints[0].ContextName != "country" || rollout.Constraints[0].Result || !rollout.Constraints[1].Result {
		t.Errorf("constraints for a Swede: %+v", rollout.Constraints)
	}
	if rollout.Result.Variant != nil {
		t.Errorf("a strategy that is off gives no variant: %+v", rollout.Result.Variant)
	}
	// The disabled strategy's constraint (userId 2) is explained even though
	// the strategy never counts.
	if d := checkout.Strategies.Data[1]; !d.Constraints[0].Result || d.Result.Enabled != false {
		t.Errorf("disabled strategy for user 2: %+v", d)
	}

	// Segments.
	if beta := on.Features[0]; !beta.IsEnabled || beta.Strategies.Data[0].Segments[0].Name != "testers" || !beta.Strategies.Data[0].Segments[0].Result {
		t.Errorf("beta for a tester: %+v", beta)
	}
	if beta := off.Features[0]; beta.IsEnabled || beta.Strategies.Data[0].Segments[0].Result || beta.Strategies.Data[0].Segments[0].Constraints[0].Result {
		t.Errorf("beta for someone else: %+v", beta)
	}
	// Dependencies.
	if child := on.Features[2]; !child.IsEnabled || child.HasUnsatisfiedDependency {
		t.Errorf("child of an enabled parent: %+v", child)
	}
	if child := off.Features[2]; child.IsEnabled || !child.HasUnsatisfiedDependency || child.Strategies.Result != true {
		t.Errorf("child of a disabled parent: %+v", child)
	}
	// A strategy the server cannot evaluate.
	planet := on.Features[3]
	if planet.IsEnabled || planet.Strategies.Result != "unknown" || planet.Strategies.Data[0].Result.EvaluationStatus != "incomplete" || planet.Strategies.Data[0].Result.Enabled != "unknown" {
		t.Errorf("custom strategy: %+v", planet)
	}
}

// TestPlaygroundAgreesWithTheFrontendAPI: the playground's isEnabled and
// variant are what an SDK gets for the same context.
func TestPlaygroundAgreesWithTheFrontendAPI(t *testing.T) {
	ts := newTestServer(t)
	seedPlayground(t, ts)
	for _, user := range []string{"1", "2", "3"} {
		for _, country := range []string{"no", "se"} {
			ctx := map[string]any{"appName": "shop", "userId": user, "properties": map[string]string{"country": country, "email": "x@example.com"}}
			var a playgroundAnswer
			ts.admin("POST", "/api/admin/playground", map[string]any{"environment": "development", "projects": []string{"default"}, "context": ctx}).
				must(t, http.StatusOK).Decode(t, &a)
			var toggles struct {
				Toggles []struct {
					Name    string `json:"name"`
					Variant struct {
						Name string `json:"name"`
					} `json:"variant"`
				} `json:"toggles"`
			}
			ts.request("POST", "/api/frontend", testFrontendToken, map[string]any{"context": ctx}).must(t, http.StatusOK).Decode(t, &toggles)
			sdk := map[string]string{}
			for _, tg := range toggles.Toggles {
				sdk[tg.Name] = tg.Variant.Name
			}
			for _, f := range a.Features {
				variant, on := sdk[f.Name]
				if f.IsEnabled != on || (on && variant != f.Variant.Name) {
					t.Errorf("user %s in %s: %s playground %v/%s, frontend API %v/%s", user, country, f.Name, f.IsEnabled, f.Variant.Name, on, variant)
				}
			}
		}
	}
}

func TestPlaygroundProjectsAndErrors(t *testing.T) {
	ts := newTestServer(t)
	seedPlayground(t, ts)
	ref := unleashReference(t)
	c := newOAChecker(t, ts)
	ctx := map[string]any{"appName": "shop"}
	for _, tt := range []struct {
		projects any
		want     string
	}{
		{nil, "beta,checkout,child,planet,web.search"},
		{"*", "beta,checkout,child,planet,web.search"},
		{[]string{"web"}, "web.search"},
		{[]string{"web", "default"}, "beta,checkout,child,planet,web.search"},
		{[]string{"nope"}, ""},
		{[]string{}, ""},
	} {
		body := map[string]any{"environment": "development", "context": ctx}
		if tt.projects != nil {
			body["projects"] = tt.projects
		}
		res := c.do("POST", "/api/admin/playground", testAdminToken, body, http.StatusOK)
		matchesUnleash(t, ref, "playgroundResponseSchema", res.Body)
		var a playgroundAnswer
		res.Decode(t, &a)
		if got := strings.Join(a.names(), ","); got != tt.want {
			t.Errorf("projects %v: features %q, want %q", tt.projects, got, tt.want)
		}
		if tt.projects != nil {
			if got, _ := json.Marshal(res.Object()["input"].(map[string]any)["projects"]); string(got) != mustJSON(tt.projects) {
				t.Errorf("projects %v echoed as %s", tt.projects, got)
			}
		}
	}

	for _, tt := range []struct {
		name string
		body any
		want int
	}{
		{"unknown environment", map[string]any{"environment": "moon", "context": ctx}, http.StatusBadRequest},
		{"no environment", map[string]any{"context": ctx}, http.StatusBadRequest},
		{"no context", map[string]any{"environment": "development"}, http.StatusBadRequest},
		{"no appName", map[string]any{"environment": "development", "context": map[string]any{"userId": "1"}}, http.StatusBadRequest},
		{"empty appName", map[string]any{"environment": "development", "context": map[string]any{"appName": ""}}, http.StatusBadRequest},
		{"userId not a string", map[string]any{"environment": "development", "context": map[string]any{"appName": "a", "userId": 7}}, http.StatusBadRequest},
		{"bad projects", map[string]any{"environment": "development", "projects": "all", "context": ctx}, http.StatusBadRequest},
		{"properties not an object", map[string]any{"environment": "development", "context": map[string]any{"appName": "a", "properties": []string{"x"}}}, http.StatusBadRequest},
		{"not JSON", "{", http.StatusBadRequest},
	} {
		res := c.do("POST", "/api/admin/playground", testAdminToken, tt.body, tt.want)
		if m := res.Object(); m["name"] == nil || m["message"] == nil || m["id"] == nil {
			t.Errorf("%s: error body %s", tt.name, res.Body)
		}
	}
	c.do("POST", "/api/admin/playground", "", map[string]any{"environment": "development", "context": ctx}, http.StatusUnauthorized)
	c.do("POST", "/api/admin/playground", testClientToken, map[string]any{"environment": "development", "context": ctx}, http.StatusForbidden)
	res := ts.admin("POST", "/api/admin/playground", map[string]any{"environment": "moon", "context": ctx})
	if m := res.Object(); m["name"] != "ValidationError" || !strings.Contains(fmt.Sprint(m["message"]), "moon") {
		t.Errorf("unknown environment: %s", res.Body)
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// advancedAnswer is the part of the advanced answer the tests read.
type advancedAnswer struct {
	Features []struct {
		Name         string `json:"name"`
		ProjectID    string `json:"projectId"`
		Environments map[string][]struct {
			Environment string            `json:"environment"`
			Context     map[string]string `json:"context"`
			IsEnabled   bool              `json:"isEnabled"`
		} `json:"environments"`
	} `json:"features"`
	Warnings *struct {
		InvalidContextProperties []string `json:"invalidContextProperties"`
	} `json:"warnings"`
}

func TestAdvancedPlaygroundCombinations(t *testing.T) {
	ts := newTestServer(t)
	seedPlayground(t, ts)
	ref := unleashReference(t)
	c := newOAChecker(t, ts)

	res := c.do("POST", "/api/admin/playground/advanced", testAdminToken, map[string]any{
		"environments": []string{"development", "production"}, "projects": []string{"default"},
		"context": map[string]any{"appName": "shop", "userId": "1, 2", "properties": map[string]any{"country": []string{"no", "se"}}, "email": "a@example.com", "age": 42},
	}, http.StatusOK)
	matchesUnleash(t, ref, "advancedPlaygroundResponseSchema", res.Body)
	var a advancedAnswer
	res.Decode(t, &a)
	if len(a.Features) != 4 {
		t.Fatalf("features %+v", a.Features)
	}
	if a.Warnings == nil || strings.Join(a.Warnings.InvalidContextProperties, ",") != "age" {
		t.Errorf("warnings %+v", a.Warnings)
	}
	for _, f := range a.Features {
		if len(f.Environments) != 2 || len(f.Environments["development"]) != 4 || len(f.Environments["production"]) != 4 {
			t.Fatalf("%s: evaluations %+v", f.Name, f.Environments)
		}
		for env, list := range f.Environments {
			seen := map[string]bool{}
			for _, e := range list {
				if e.Environment != env || e.Context["appName"] != "shop" || e.Context["email"] != "a@example.com" {
					t.Errorf("%s in %s: %+v", f.Name, env, e)
				}
				seen[e.Context["userId"]+"/"+e.Context["country"]] = true
				// Nothing is on in production; in development checkout is on
				// for Norwegians only.
				want := env == "development" && f.Name == "checkout" && e.Context["country"] == "no"
				if f.Name == "checkout" && e.IsEnabled != want {
					t.Errorf("checkout in %s for %v: %v", env, e.Context, e.IsEnabled)
				}
				if env == "production" && e.IsEnabled {
					t.Errorf("%s is on in production for %v", f.Name, e.Context)
				}
			}
			if len(seen) != 4 {
				t.Errorf("%s in %s: combinations %v", f.Name, env, seen)
			}
		}
	}

	// A named field of the wrong type is left out of the evaluation and
	// the echo, and reported (Unleash's schema allows any type there).
	res = ts.admin("POST", "/api/admin/playground/advanced", map[string]any{
		"environments": []string{"development"}, "context": map[string]any{"appName": "shop", "sessionId": 5, "userId": []string{"1"}},
	}).must(t, http.StatusOK)
	matchesUnleash(t, ref, "advancedPlaygroundResponseSchema", res.Body)
	a = advancedAnswer{}
	res.Decode(t, &a)
	if a.Warnings == nil || strings.Join(a.Warnings.InvalidContextProperties, ",") != "sessionId" {
		t.Errorf("warnings %+v", a.Warnings)
	}

	// Bounded: 2 environments × 501 values is over 1000 evaluations.
	many := make([]string, 501)
	for i := range many {
		many[i] = fmt.Sprint(i)
	}
	c.do("POST", "/api/admin/playground/advanced", testAdminToken, map[string]any{
		"environments": []string{"development", "production"}, "context": map[string]any{"appName": "shop", "userId": many},
	}, http.StatusBadRequest)
	c.do("POST", "/api/admin/playground/advanced", testAdminToken, map[string]any{
		"environments": []string{"development"}, "context": map[string]any{"appName": "shop", "userId": many[:100], "sessionId": many[:11]},
	}, http.StatusBadRequest)
	c.do("POST", "/api/admin/playground/advanced", testAdminToken, map[string]any{
		"environments": []string{"development"}, "context": map[string]any{"appName": "shop", "userId": many[:100], "sessionId": many[:10]},
	}, http.StatusOK)
	c.do("POST", "/api/admin/playground/advanced", testAdminToken, map[string]any{
		"environments": []string{"development", "moon"}, "context": map[string]any{"appName": "shop"},
	}, http.StatusBadRequest)
	c.do("POST", "/api/admin/playground/advanced", testAdminToken, map[string]any{
		"environments": []string{}, "context": map[string]any{"appName": "shop"},
	}, http.StatusBadRequest)
}

// TestPlaygroundUsesTheCachedSnapshot: the playground evaluates with the
// snapshot compiled for the environment's payload, once per revision, and
// a change shows at once.
func TestPlaygroundUsesTheCachedSnapshot(t *testing.T) {
	ts := newTestServer(t)
	seedPlayground(t, ts)
	body := map[string]any{"environment": "development", "projects": []string{"web"}, "context": map[string]any{"appName": "shop"}}
	ts.admin("POST", "/api/admin/playground", body).must(t, http.StatusOK)
	q := clientQuery{Environment: "development", Projects: []string{"*"}}
	p1, err := ts.srv.payload(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	ts.admin("POST", "/api/admin/playground", body).must(t, http.StatusOK)
	p2, err := ts.srv.payload(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	if p1.compiled() != p2.compiled() {
		t.Error("the same revision compiled twice")
	}
	ts.admin("POST", "/api/admin/projects/web/features/web.search/environments/development/off", nil).must(t, http.StatusOK)
	var a playgroundAnswer
	ts.admin("POST", "/api/admin/playground", body).must(t, http.StatusOK).Decode(t, &a)
	if len(a.Features) != 1 || a.Features[0].IsEnabled || a.Features[0].IsEnabledInCurrentEnvironment {
		t.Errorf("after switching web.search off: %+v", a.Features)
	}
	p3, err := ts.srv.payload(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	if p3.compiled() == p1.compiled() {
		t.Error("a new revision must be compiled anew")
	}
}

// FuzzPlayground: no body makes either playground fail with a 5xx.
func FuzzPlayground(f *testing.F) {
	for _, seed := range []string{
		`{"environment":"development","context":{"appName":"a"}}`,
		`{"environment":"development","projects":"*","context":{"appName":"a","userId":"1","properties":{"x":"y","n":null}}}`,
		`{"environment":"development","projects":["default",null],"context":{"appName":["a"],"currentTime":"2026-13-45"}}`,
		`{"environments":["development","production"],"context":{"appName":"a,b","userId":["1",null,"2"],"k":{"deep":1}}}`,
		`{"environments":["nope"],"context":{"appName":"a"}}`, `{"environments":[],"context":{}}`, `{"environment":7}`,
		`{"context":null}`, `null`, `[]`, `""`, `{"environment":"development","projects":{},"context":{"appName":"a","properties":"x"}}`,
	} {
		f.Add([]byte(seed))
	}
	h := newFuzzServer(f)
	f.Fuzz(func(t *testing.T, body []byte) {
		fuzzPost(t, h, "/api/admin/playground", body)
		fuzzPost(t, h, "/api/admin/playground/advanced", body)
	})
}
