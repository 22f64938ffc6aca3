package server

import (
	"net/http"
	"strings"
	"testing"

	"github.com/signalbox/signalbox/store"
)

func TestStrategyDefinitions(t *testing.T) {
	ts := newTestServer(t)
	var list struct {
		Version    int
		Strategies []strategyDefinitionJSON
	}
	ts.admin("GET", "/api/admin/strategies", nil).must(t, http.StatusOK).Decode(t, &list)
	if list.Version != 1 || len(list.Strategies) != len(store.BuiltinStrategies) || list.Strategies[0].Editable {
		t.Fatalf("list %+v", list)
	}

	mark := auditMark(t, ts)
	body := map[string]any{"name": "betaUsers", "title": "Beta users", "description": "On for the beta list",
		"parameters": []map[string]any{{"name": "list", "type": "list", "description": "Who", "required": true}}}
	res := ts.admin("POST", "/api/admin/strategies", body).must(t, http.StatusCreated)
	var d strategyDefinitionJSON
	res.Decode(t, &d)
	if d.Name != "betaUsers" || *d.DisplayName != "Beta users" || !d.Editable || d.Deprecated || len(d.Parameters) != 1 ||
		res.Header.Get("Location") != "/api/admin/strategies/betaUsers" {
		t.Errorf("created %s", res.Body)
	}
	mustOneAudit(t, ts, mark, "strategy-created")

	for _, tt := range []struct {
		name string
		body any
		code int
		kind string
		path string
	}{
		{"taken", map[string]any{"name": "betaUsers", "parameters": []any{}}, 409, "NameExistsError", ""},
		{"built-in name", map[string]any{"name": "default", "parameters": []any{}}, 409, "NameExistsError", ""},
		{"no name", map[string]any{"parameters": []any{}}, 400, "ValidationError", "name"},
		{"bad parameter type", map[string]any{"name": "x", "parameters": []map[string]any{{"name": "p", "type": "date"}}}, 400, "ValidationError", "parameters[0].type"},
		{"unnamed parameter", map[string]any{"name": "x", "parameters": []map[string]any{{"type": "string"}}}, 400, "ValidationError", "parameters[0].name"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			mustErrorRecord(t, ts.admin("POST", "/api/admin/strategies", tt.body), tt.code, tt.kind, tt.path)
		})
	}

	ts.admin("GET", "/api/admin/strategies/betaUsers", nil).must(t, http.StatusOK)
	mustErrorRecord(t, ts.admin("GET", "/api/admin/strategies/nope", nil), 404, "NotFoundError", "")

	mark = auditMark(t, ts)
	ts.admin("PUT", "/api/admin/strategies/betaUsers", map[string]any{"description": "Beta list"}).must(t, http.StatusOK).Decode(t, &d)
	if d.Description != "Beta list" || *d.Title != "Beta users" || len(d.Parameters) != 1 {
		t.Errorf("only the fields sent change: %+v", d)
	}
	mustOneAudit(t, ts, mark, "strategy-updated")
	for _, builtin := range []string{"PUT", "DELETE"} {
		mark = auditMark(t, ts)
		res := ts.admin(builtin, "/api/admin/strategies/flexibleRollout", map[string]any{"parameters": []any{}})
		mustErrorRecord(t, res, 400, "BadDataError", "")
		if !strings.Contains(string(res.Body), "built-in") {
			t.Errorf("%s built-in: %s", builtin, res.Body)
		}
		mustNoAudit(t, ts, mark)
	}

	mark = auditMark(t, ts)
	ts.admin("POST", "/api/admin/strategies/betaUsers/deprecate", nil).must(t, http.StatusOK)
	mustOneAudit(t, ts, mark, "strategy-deprecated")
	if got := ts.admin("GET", "/api/admin/strategies/betaUsers", nil).Object(); got["deprecated"] != true {
		t.Errorf("deprecated %v", got)
	}
	mark = auditMark(t, ts)
	ts.admin("POST", "/api/admin/strategies/userWithId/deprecate", nil).must(t, http.StatusOK)
	mustOneAudit(t, ts, mark, "strategy-deprecated")
	mark = auditMark(t, ts)
	ts.admin("POST", "/api/admin/strategies/betaUsers/reactivate", nil).must(t, http.StatusOK)
	mustOneAudit(t, ts, mark, "strategy-reactivated")
	ts.admin("POST", "/api/admin/strategies/nope/deprecate", nil).must(t, http.StatusNotFound)

	plantFlag(t, ts, "default", "beta-flag")
	plantStrategy(t, ts, store.Strategy{Feature: "beta-flag", Name: "betaUsers"})
	res = ts.admin("DELETE", "/api/admin/strategies/betaUsers", nil)
	mustErrorRecord(t, res, 400, "BadDataError", "")
	if !strings.Contains(string(res.Body), "beta-flag") {
		t.Errorf("message should name the flag: %s", res.Body)
	}

	ts.admin("POST", "/api/admin/strategies", map[string]any{"name": "unused", "parameters": []any{}}).must(t, http.StatusCreated)
	mark = auditMark(t, ts)
	ts.admin("DELETE", "/api/admin/strategies/unused", nil).must(t, http.StatusOK)
	mustOneAudit(t, ts, mark, "strategy-deleted")
	ts.admin("DELETE", "/api/admin/strategies/unused", nil).must(t, http.StatusNotFound)
}
