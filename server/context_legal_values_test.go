package server

import (
	"net/http"
	"testing"
)

func TestContextLegalValues(t *testing.T) {
	ts := newTestServer(t)
	ref := unleashReference(t)
	ts.admin("POST", "/api/admin/context", map[string]any{"name": "tenant", "legalValues": []map[string]string{{"value": "acme"}}}).must(t, http.StatusCreated)
	const path = "/api/admin/context/tenant/legal-values"
	values := func() map[string]string {
		t.Helper()
		var c struct {
			LegalValues []struct{ Value, Description string }
		}
		ts.admin("GET", "/api/admin/context/tenant", nil).must(t, http.StatusOK).Decode(t, &c)
		out := map[string]string{}
		for _, v := range c.LegalValues {
			out[v.Value] = v.Description
		}
		return out
	}

	mark := auditMark(t, ts)
	ts.admin("POST", path, map[string]string{"value": "globex", "description": "Globex Corp."}).must(t, http.StatusOK)
	ts.admin("POST", path, map[string]string{"value": "acme", "description": "Acme Inc."}).must(t, http.StatusOK)
	ts.admin("POST", path, map[string]string{"value": "acme", "description": "Acme Inc."}).must(t, http.StatusOK)
	if v := values(); len(v) != 2 || v["acme"] != "Acme Inc." || v["globex"] != "Globex Corp." {
		t.Errorf("values %v", v)
	}
	if ev := auditAfter(t, ts, mark); len(ev) != 2 || ev[0].Type != "context-field-updated" || ev[1].Type != "context-field-updated" {
		t.Errorf("events %+v", ev)
	}
	mark = auditMark(t, ts)
	ts.admin("DELETE", path+"/globex", nil).must(t, http.StatusOK)
	ts.admin("DELETE", path+"/globex", nil).must(t, http.StatusOK)
	if v := values(); len(v) != 1 {
		t.Errorf("values after delete %v", v)
	}
	if ev := auditAfter(t, ts, mark); len(ev) != 1 {
		t.Errorf("events %+v", ev)
	}
	// A built-in field gets legal values too.
	ts.admin("POST", "/api/admin/context/environment/legal-values", map[string]string{"value": "staging"}).must(t, http.StatusOK)

	for _, tt := range []struct {
		name, method, path string
		body               any
		want               int
	}{
		{"unknown field", "POST", "/api/admin/context/nope/legal-values", map[string]string{"value": "x"}, 404},
		{"unknown field delete", "DELETE", "/api/admin/context/nope/legal-values/x", nil, 404},
		{"empty value", "POST", path, map[string]string{"value": ""}, 400},
		{"NUL", "POST", path, map[string]string{"value": "a\x00"}, 400},
		{"not JSON", "POST", path, "{", 400},
	} {
		t.Run(tt.name, func(t *testing.T) {
			mark := auditMark(t, ts)
			ts.admin(tt.method, tt.path, tt.body).must(t, tt.want)
			if ev := auditAfter(t, ts, mark); len(ev) != 0 {
				t.Errorf("events %+v", ev)
			}
		})
	}
	ts.request("POST", path, "", map[string]string{"value": "x"}).must(t, http.StatusUnauthorized)
	createTestUser(t, ts, "vic", "Viewer", strongPassword)
	cookie := signIn(t, ts, "vic", strongPassword)
	ts.asSession(cookie, "POST", path, map[string]string{"value": "xx"}).must(t, http.StatusForbidden)

	// Strategies using a field.
	ts.admin("POST", "/api/admin/projects/default/features", map[string]any{"name": "a"}).must(t, http.StatusCreated)
	ts.admin("POST", "/api/admin/projects/default/features/a/environments/development/strategies", map[string]any{"name": "default",
		"constraints": []map[string]any{{"contextName": "tenant", "operator": "IN", "values": []string{"acme"}}}}).must(t, http.StatusOK)
	ts.admin("POST", "/api/admin/projects/default/features/a/environments/production/strategies", map[string]any{"name": "default"}).must(t, http.StatusOK)
	res := ts.admin("GET", "/api/admin/context/tenant/strategies", nil).must(t, http.StatusOK)
	matchesUnleash(t, ref, "contextFieldStrategiesSchema", res.Body)
	var s struct {
		Strategies []struct{ FeatureName, ProjectID, Environment, StrategyName string }
	}
	res.Decode(t, &s)
	if len(s.Strategies) != 1 || s.Strategies[0].FeatureName != "a" || s.Strategies[0].ProjectID != "default" || s.Strategies[0].Environment != "development" {
		t.Errorf("strategies %+v", s)
	}
	ts.admin("GET", "/api/admin/context/nope/strategies", nil).must(t, http.StatusOK).Decode(t, &s)
	if len(s.Strategies) != 0 {
		t.Errorf("unknown field: %+v", s)
	}
	ts.request("GET", "/api/admin/context/tenant/strategies", "", nil).must(t, http.StatusUnauthorized)
}
