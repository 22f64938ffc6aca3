package server

import (
	"net/http"
	"testing"
)

func TestValidateConstraint(t *testing.T) {
	ts := newTestServer(t)
	ts.admin("POST", "/api/admin/context", map[string]any{"name": "tenant",
		"legalValues": []map[string]string{{"value": "acme"}, {"value": "globex"}}}).must(t, http.StatusCreated)
	const path = "/api/admin/constraints/validate"
	tests := []struct {
		name string
		body any
		want int
	}{
		{"in", map[string]any{"contextName": "userId", "operator": "IN", "values": []string{"1", "2"}}, 204},
		{"legal values", map[string]any{"contextName": "tenant", "operator": "IN", "values": []string{"acme"}}, 204},
		{"undefined field", map[string]any{"contextName": "planet", "operator": "STR_CONTAINS", "values": []string{"ar"}, "caseInsensitive": true}, 204},
		{"number", map[string]any{"contextName": "age", "operator": "NUM_GT", "value": "18", "inverted": true}, 204},
		{"date", map[string]any{"contextName": "currentTime", "operator": "DATE_AFTER", "value": "2024-01-01T00:00:00Z"}, 204},
		{"semver", map[string]any{"contextName": "appVersion", "operator": "SEMVER_GTE", "value": "1.2.3"}, 204},
		{"illegal value", map[string]any{"contextName": "tenant", "operator": "IN", "values": []string{"initech"}}, 400},
		{"unknown operator", map[string]any{"contextName": "userId", "operator": "LIKE", "values": []string{"1"}}, 400},
		{"not a number", map[string]any{"contextName": "age", "operator": "NUM_GT", "value": "old"}, 400},
		{"not a date", map[string]any{"contextName": "currentTime", "operator": "DATE_AFTER", "value": "tomorrow"}, 400},
		{"not a version", map[string]any{"contextName": "appVersion", "operator": "SEMVER_EQ", "value": "one"}, 400},
		{"no context", map[string]any{"operator": "IN", "values": []string{"1"}}, 400},
		{"not an object", "[]", 400},
		{"not JSON", "{", 400},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mark := auditMark(t, ts)
			res := ts.admin("POST", path, tt.body).must(t, tt.want)
			if tt.want == 400 {
				if o := res.Object(); o["name"] == nil || o["message"] == "" {
					t.Errorf("error body %s", res.Body)
				}
			} else if len(res.Body) != 0 {
				t.Errorf("body %s", res.Body)
			}
			if ev := auditAfter(t, ts, mark); len(ev) != 0 {
				t.Errorf("validation wrote events %v", ev)
			}
		})
	}
	ts.request("POST", path, "", map[string]any{"contextName": "userId", "operator": "IN"}).must(t, http.StatusUnauthorized)
	ts.request("POST", path, testClientToken, map[string]any{"contextName": "userId", "operator": "IN"}).must(t, http.StatusForbidden)
	ts.request("POST", path, testAdminToken, "<x/>", "Content-Type", "application/xml").must(t, http.StatusUnsupportedMediaType)
}
