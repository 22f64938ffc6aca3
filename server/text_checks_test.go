package server

import (
	"net/http"
	"strconv"
	"strings"
	"testing"
)

// Free text the admin API stores (descriptions, titles) is checked the same
// way on every route: a NUL character, which PostgreSQL cannot store, or a
// text over the route's bound is a 400 that names the field, on SQLite as
// on PostgreSQL, instead of being stored on one and failing on the other.
func TestFreeTextChecked(t *testing.T) { runFreeTextChecks(t, newTestServer(t)) }

// TestFreeTextCheckedPostgres runs the same checks on PostgreSQL (skipped
// without PostgreSQL binaries, except under CI).
func TestFreeTextCheckedPostgres(t *testing.T) { runFreeTextChecks(t, newPostgresTestServer(t)) }

func runFreeTextChecks(t *testing.T, ts *testServer) {
	fx := flagFixture{t: t, ts: ts}
	fx.create("f")
	st := fx.addStrategy("f", "development", map[string]any{"name": "default"})
	ts.admin("POST", "/api/admin/projects", map[string]any{"id": "p", "name": "P"}).must(t, http.StatusCreated)
	var seg struct{ ID int }
	ts.admin("POST", "/api/admin/segments", map[string]any{"name": "s", "constraints": []any{}}).must(t, http.StatusCreated).Decode(t, &seg)
	ts.admin("POST", "/api/admin/context", map[string]any{"name": "cf"}).must(t, http.StatusCreated)
	ts.admin("POST", "/api/admin/tag-types", map[string]any{"name": "tt"}).must(t, http.StatusCreated)
	ts.admin("POST", "/api/admin/strategies", map[string]any{"name": "sd", "parameters": []any{}}).must(t, http.StatusCreated)
	var group struct{ ID int }
	ts.admin("POST", "/api/admin/groups", map[string]any{"name": "g"}).must(t, http.StatusCreated).Decode(t, &group)
	// The import replaces the strategies of the flags it imports: it gets
	// a flag of its own.
	fx.create("imp")
	fx.addStrategy("imp", "development", map[string]any{"name": "default"})
	export := exportOf(t, ts, map[string]any{"environment": "development", "features": []string{"imp"}})
	strategyPath := envPath("f", "development") + "/strategies/" + st.ID

	replace := func(path string, v string) []any {
		return []any{map[string]any{"op": "replace", "path": path, "value": v}}
	}
	importing := func(edit func(doc *exportDoc, v string)) func(string) any {
		return func(v string) any {
			doc := export
			doc.Features = append([]exportFeature(nil), export.Features...)
			doc.FeatureStrategies = append([]adminStrategy(nil), export.FeatureStrategies...)
			edit(&doc, v)
			return map[string]any{"project": "default", "environment": "development", "data": doc}
		}
	}
	n := 0
	unique := func(prefix string) string { n++; return prefix + strconv.Itoa(n) }
	session := signIn(t, ts, "admin", testAdminPassword)
	tests := []struct {
		route  string
		field  string
		max    int
		body   func(v string) any
		status int
		// nul names what the answer to a NUL names, when not field: the
		// import refuses NUL anywhere in its body at once.
		nul string
	}{
		{"POST " + defaultFeatures, "description", 1000, func(v string) any { return map[string]any{"name": unique("new-"), "description": v} }, http.StatusCreated, ""},
		{"PUT " + defaultFeatures + "/f", "description", 1000, func(v string) any { return map[string]any{"description": v} }, http.StatusOK, ""},
		{"PATCH " + defaultFeatures + "/f", "description", 1000, func(v string) any { return replace("/description", v) }, http.StatusOK, ""},
		{"POST " + envPath("f", "development") + "/strategies", "title", 255, func(v string) any { return map[string]any{"name": "default", "title": v} }, http.StatusOK, ""},
		{"PUT " + strategyPath, "title", 255, func(v string) any { return map[string]any{"name": "default", "title": v} }, http.StatusOK, ""},
		{"PATCH " + strategyPath, "title", 255, func(v string) any { return replace("/title", v) }, http.StatusOK, ""},
		{"POST " + featuresBatchPath + "/import", "description", 1000, importing(func(doc *exportDoc, v string) { doc.Features[0].Description = v }), http.StatusOK, "body"},
		{"POST " + featuresBatchPath + "/import", "title", 255, importing(func(doc *exportDoc, v string) { doc.FeatureStrategies[0].Title = &v }), http.StatusOK, "body"},
		{"POST /api/admin/projects", "description", 1000, func(v string) any { return map[string]any{"id": unique("p-"), "name": "P", "description": v} }, http.StatusCreated, ""},
		{"PUT /api/admin/projects/p", "description", 1000, func(v string) any { return map[string]any{"name": "P", "description": v} }, http.StatusOK, ""},
		{"POST /api/admin/segments", "description", 1000, func(v string) any {
			return map[string]any{"name": unique("s-"), "description": v, "constraints": []any{}}
		}, http.StatusCreated, ""},
		{"PUT /api/admin/segments/" + strconv.Itoa(seg.ID), "description", 1000, func(v string) any {
			return map[string]any{"name": "s", "description": v, "constraints": []any{}}
		}, http.StatusNoContent, ""},
		{"POST /api/admin/context", "description", 1000, func(v string) any { return map[string]any{"name": unique("cf-"), "description": v} }, http.StatusCreated, ""},
		{"PUT /api/admin/context/cf", "description", 1000, func(v string) any { return map[string]any{"name": "cf", "description": v} }, http.StatusOK, ""},
		{"POST /api/admin/tag-types", "description", 1000, func(v string) any { return map[string]any{"name": unique("tt-"), "description": v} }, http.StatusCreated, ""},
		{"PUT /api/admin/tag-types/tt", "description", 1000, func(v string) any { return map[string]any{"name": "tt", "description": v} }, http.StatusOK, ""},
		{"POST /api/admin/strategies", "description", 1000, func(v string) any {
			return map[string]any{"name": unique("sd-"), "description": v, "parameters": []any{}}
		}, http.StatusCreated, ""},
		{"PUT /api/admin/strategies/sd", "description", 1000, func(v string) any {
			return map[string]any{"name": "sd", "description": v, "parameters": []any{}}
		}, http.StatusOK, ""},
		{"POST /api/admin/groups", "description", 1000, func(v string) any { return map[string]any{"name": unique("g-"), "description": v} }, http.StatusCreated, ""},
		{"PUT /api/admin/groups/" + strconv.Itoa(group.ID), "description", 1000, func(v string) any { return map[string]any{"name": "g", "description": v} }, http.StatusOK, ""},
		// Strings without a bound of their own (the body's applies: lists
		// of ids and payloads can be long) are checked for NUL.
		{"POST " + envPath("f", "development") + "/strategies", "parameters.userIds", 0, func(v string) any {
			return map[string]any{"name": "userWithId", "parameters": map[string]string{"userIds": v}}
		}, http.StatusOK, ""},
		{"PATCH " + strategyPath, "parameters.note", 0, func(v string) any {
			return []any{map[string]any{"op": "add", "path": "/parameters/note", "value": v}}
		}, http.StatusOK, ""},
		{"POST /api/admin/projects/default/environments/development/default-strategy", "parameters.groupId", 0, func(v string) any {
			return map[string]any{"name": "flexibleRollout", "parameters": map[string]string{"rollout": "50", "groupId": v}}
		}, http.StatusOK, ""},
		{"PUT " + envPath("f", "development") + "/variants", "variants[0].payload.value", 0, func(v string) any {
			return []any{map[string]any{"name": "v", "weightType": "variable", "stickiness": "default", "payload": map[string]string{"type": "string", "value": v}}}
		}, http.StatusOK, ""},
		{"PUT " + envPath("f", "development") + "/variants", "variants[0].name", 0, func(v string) any {
			return []any{map[string]any{"name": "v" + v, "weightType": "variable", "stickiness": "default"}}
		}, http.StatusOK, ""},
		{"POST /api/admin/user/tokens", "description", 255, func(v string) any {
			return map[string]any{"description": v, "expiresAt": "2999-01-01T00:00:00Z"}
		}, http.StatusCreated, ""},
	}
	for _, tt := range tests {
		method, path, _ := strings.Cut(tt.route, " ")
		t.Run(tt.route+" "+tt.field, func(t *testing.T) {
			ts := onT(ts, t)
			send := func(body any) response {
				t.Helper()
				if path == "/api/admin/user/tokens" {
					return ts.request(method, path, "", body, "Cookie", session)
				}
				return ts.admin(method, path, body)
			}
			// A patched document is bounded as a whole (256 KiB) before
			// its fields are looked at.
			huge := 1500 << 10
			if method == "PATCH" {
				huge = 200 << 10
			}
			nul := tt.field
			if tt.nul != "" {
				nul = tt.nul
			}
			bads := []struct{ name, value, field string }{{"NUL", "a\x00b", nul}}
			if tt.max > 0 {
				bads = append(bads, struct{ name, value, field string }{"too long", strings.Repeat("é", tt.max+1), tt.field},
					struct{ name, value, field string }{"much too long", strings.Repeat("x", huge), tt.field})
			}
			for _, bad := range bads {
				res := send(tt.body(bad.value))
				if res.Status != http.StatusBadRequest {
					t.Errorf("%s: status %d, want 400; %.300s", bad.name, res.Status, res.Body)
					continue
				}
				if !strings.Contains(res.Object()["message"].(string), bad.field) {
					t.Errorf("%s: the answer does not name %s: %.300s", bad.name, bad.field, res.Body)
				}
			}
			// The bound itself is accepted.
			if tt.max > 0 {
				send(tt.body(strings.Repeat("é", tt.max))).must(t, tt.status)
			} else {
				send(tt.body("ok")).must(t, tt.status)
			}
		})
	}
}
