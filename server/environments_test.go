package server

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/signalbox/signalbox/store"
)

func TestEnvironmentsCRUD(t *testing.T) {
	ts := newTestServer(t)
	var list struct {
		Version      int
		Environments []environmentJSON
	}
	ts.admin("GET", "/api/admin/environments", nil).must(t, http.StatusOK).Decode(t, &list)
	if list.Version != 1 || len(list.Environments) != 2 || list.Environments[0].Name != "development" {
		t.Fatalf("list %+v", list)
	}

	mark := auditMark(t, ts)
	res := ts.admin("POST", "/api/admin/environments", map[string]any{"name": "staging", "type": "preproduction"}).must(t, http.StatusCreated)
	var env environmentJSON
	res.Decode(t, &env)
	if env.Name != "staging" || env.Type != "preproduction" || !env.Enabled || env.SortOrder <= 200 || res.Header.Get("Location") != "/api/admin/environments/staging" {
		t.Errorf("created %s", res.Body)
	}
	if e := mustOneAudit(t, ts, mark, "environment-created"); e.Environment != "staging" {
		t.Errorf("event %+v", e)
	}
	for _, tt := range []struct {
		name string
		body map[string]any
		code int
		kind string
	}{
		{"taken", map[string]any{"name": "staging", "type": "test"}, 409, "NameExistsError"},
		{"no type", map[string]any{"name": "qa"}, 400, "ValidationError"},
		{"bad name", map[string]any{"name": "q a", "type": "test"}, 400, "ValidationError"},
		{"star", map[string]any{"name": "*", "type": "test"}, 400, "ValidationError"},
	} {
		mustErrorRecord(t, ts.admin("POST", "/api/admin/environments", tt.body), tt.code, tt.kind, "")
	}

	ts.admin("GET", "/api/admin/environments/staging", nil).must(t, http.StatusOK).Decode(t, &env)
	mustErrorRecord(t, ts.admin("GET", "/api/admin/environments/moon", nil), 404, "NotFoundError", "")

	mark = auditMark(t, ts)
	ts.admin("PUT", "/api/admin/environments/staging", map[string]any{"sortOrder": 5}).must(t, http.StatusOK).Decode(t, &env)
	if env.SortOrder != 5 || env.Type != "preproduction" {
		t.Errorf("partial update %+v", env)
	}
	mustOneAudit(t, ts, mark, "environment-updated")
	mustErrorRecord(t, ts.admin("PUT", "/api/admin/environments/staging", map[string]any{"name": "prod2"}), 400, "ValidationError", "name")
	mustErrorRecord(t, ts.admin("PUT", "/api/admin/environments/moon", map[string]any{"type": "x"}), 404, "NotFoundError", "")

	mark = auditMark(t, ts)
	ts.admin("POST", "/api/admin/environments/staging/off", nil).must(t, http.StatusNoContent)
	mustOneAudit(t, ts, mark, "environment-updated")
	mark = auditMark(t, ts)
	ts.admin("POST", "/api/admin/environments/staging/off", nil).must(t, http.StatusNoContent)
	mustNoAudit(t, ts, mark) // nothing changed, nothing recorded
	ts.admin("POST", "/api/admin/environments/staging/on", nil).must(t, http.StatusNoContent)
	ts.admin("POST", "/api/admin/environments/moon/on", nil).must(t, http.StatusNotFound)

	mark = auditMark(t, ts)
	ts.admin("PUT", "/api/admin/environments/sort-order", map[string]int{"production": 1, "staging": 2, "development": 100}).must(t, http.StatusOK)
	mustOneAudit(t, ts, mark, "environment-updated")
	ts.admin("GET", "/api/admin/environments", nil).must(t, http.StatusOK).Decode(t, &list)
	if list.Environments[0].Name != "production" || list.Environments[1].Name != "staging" {
		t.Errorf("sorted %+v", list.Environments)
	}
	mustErrorRecord(t, ts.admin("PUT", "/api/admin/environments/sort-order", map[string]int{"moon": 1}), 404, "NotFoundError", "")
	mustErrorRecord(t, ts.admin("PUT", "/api/admin/environments/sort-order", map[string]any{"production": "first"}), 400, "ValidationError", "")

	// development carries the test client token.
	res = ts.admin("DELETE", "/api/admin/environments/development", nil)
	mustErrorRecord(t, res, 400, "BadDataError", "")
	if !strings.Contains(string(res.Body), "API token") {
		t.Errorf("message %s", res.Body)
	}
	mark = auditMark(t, ts)
	ts.admin("DELETE", "/api/admin/environments/staging", nil).must(t, http.StatusOK)
	mustOneAudit(t, ts, mark, "environment-deleted")
	ts.admin("DELETE", "/api/admin/environments/staging", nil).must(t, http.StatusNotFound)
}

func TestProtectedEnvironment(t *testing.T) {
	ts := newTestServer(t)
	plantInStore(t, ts, func(ctx context.Context, tx store.Tx) error {
		_, err := tx.CreateEnvironment(ctx, store.Environment{Name: "locked", Type: "production", Enabled: true, Protected: true})
		return err
	})
	mark := auditMark(t, ts)
	for _, req := range []struct {
		method, path string
		body         any
	}{
		{"DELETE", "/api/admin/environments/locked", nil},
		{"PUT", "/api/admin/environments/locked", map[string]any{"type": "test"}},
		{"POST", "/api/admin/environments/locked/off", nil},
	} {
		res := ts.admin(req.method, req.path, req.body)
		mustErrorRecord(t, res, 400, "BadDataError", "")
		if !strings.Contains(string(res.Body), "protected") {
			t.Errorf("%s %s: %s", req.method, req.path, res.Body)
		}
	}
	mustNoAudit(t, ts, mark)
	if env := ts.admin("GET", "/api/admin/environments/locked", nil).must(t, http.StatusOK).Object(); env["protected"] != true {
		t.Errorf("env %v", env)
	}
}

func TestProjectEnvironments(t *testing.T) {
	ts := newTestServer(t)
	ts.admin("POST", "/api/admin/projects", map[string]any{"id": "mobile", "name": "Mobile", "environments": []string{"development"}}).must(t, http.StatusCreated)
	base := "/api/admin/projects/mobile/environments"

	mark := auditMark(t, ts)
	ts.admin("POST", base, map[string]any{"environment": "production"}).must(t, http.StatusOK)
	if e := mustOneAudit(t, ts, mark, "project-environment-added"); e.Project != "mobile" || e.Environment != "production" {
		t.Errorf("event %+v", e)
	}
	mustErrorRecord(t, ts.admin("POST", base, map[string]any{"environment": "production"}), 409, "NameExistsError", "")
	mustErrorRecord(t, ts.admin("POST", base, map[string]any{"environment": "moon"}), 404, "NotFoundError", "")
	mustErrorRecord(t, ts.admin("POST", "/api/admin/projects/nope/environments", map[string]any{"environment": "production"}), 404, "NotFoundError", "")
	mustErrorRecord(t, ts.admin("POST", base, map[string]any{}), 400, "ValidationError", "environment")

	var envs struct {
		Environments []struct {
			Name    string
			Enabled bool
		}
	}
	ts.admin("GET", "/api/admin/environments/project/mobile", nil).must(t, http.StatusOK).Decode(t, &envs)
	if len(envs.Environments) != 2 || !envs.Environments[0].Enabled || !envs.Environments[1].Enabled {
		t.Errorf("project environments %+v", envs)
	}

	strategy := map[string]any{
		"name": "flexibleRollout", "parameters": map[string]any{"rollout": 50, "stickiness": "default", "groupId": "mobile"},
		"constraints": []map[string]any{{"contextName": "appName", "operator": "IN", "values": []string{"ios"}}},
	}
	mark = auditMark(t, ts)
	res := ts.admin("POST", base+"/production/default-strategy", strategy).must(t, http.StatusOK).Object()
	if res["name"] != "flexibleRollout" || res["parameters"].(map[string]any)["rollout"] != "50" || res["segments"] == nil {
		t.Errorf("default strategy %v", res)
	}
	if e := mustOneAudit(t, ts, mark, "default-strategy-updated"); e.Project != "mobile" || e.Environment != "production" || !strings.Contains(string(e.Data), "flexibleRollout") {
		t.Errorf("event %+v", e)
	}
	project := ts.admin("GET", "/api/admin/projects/mobile", nil).must(t, http.StatusOK)
	if !strings.Contains(string(project.Body), `"flexibleRollout"`) {
		t.Errorf("the project shows its default strategy: %s", project.Body)
	}
	bad := []struct {
		name string
		body map[string]any
		path string
	}{
		{"unknown strategy", map[string]any{"name": "teleport"}, "name"},
		{"no name", map[string]any{"parameters": map[string]any{}}, "name"},
		{"unknown operator", map[string]any{"name": "default", "constraints": []map[string]any{{"contextName": "userId", "operator": "LIKE"}}}, "constraints[0].operator"},
		{"unknown segment", map[string]any{"name": "default", "segments": []int{77}}, "segments"},
		{"bad variant weight", map[string]any{"name": "default", "variants": []map[string]any{{"name": "a", "weight": 2000}}}, "variants[0].weight"},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			mustErrorRecord(t, ts.admin("POST", base+"/production/default-strategy", tt.body), 400, "ValidationError", tt.path)
		})
	}
	mustErrorRecord(t, ts.admin("POST", "/api/admin/projects/default/environments/moon/default-strategy", map[string]any{"name": "default"}), 404, "NotFoundError", "")

	mark = auditMark(t, ts)
	ts.admin("DELETE", base+"/production", nil).must(t, http.StatusOK)
	if e := mustOneAudit(t, ts, mark, "project-environment-removed"); e.Environment != "production" {
		t.Errorf("event %+v", e)
	}
	mustErrorRecord(t, ts.admin("DELETE", base+"/production", nil), 404, "NotFoundError", "")
	res2 := ts.admin("DELETE", base+"/development", nil)
	mustErrorRecord(t, res2, 400, "BadDataError", "")
	if !strings.Contains(string(res2.Body), "at least one environment") {
		t.Errorf("message %s", res2.Body)
	}
}
