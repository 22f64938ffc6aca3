package server

import (
	"net/http"
	"strings"
	"testing"
)

func TestCreateProject(t *testing.T) {
	ts := newTestServer(t)
	mark := auditMark(t, ts)
	res := ts.admin("POST", "/api/admin/projects", map[string]any{"id": "checkout", "name": "Checkout", "description": "Pay flow"}).must(t, http.StatusCreated)
	if loc := res.Header.Get("Location"); loc != "/api/admin/projects/checkout" {
		t.Errorf("location %q", loc)
	}
	var p struct {
		ID, Name, Mode, DefaultStickiness string
		Description                       *string
		FeatureLimit                      *int
		Environments                      []struct{ Environment string }
	}
	res.Decode(t, &p)
	if p.ID != "checkout" || p.Name != "Checkout" || *p.Description != "Pay flow" || p.Mode != "open" ||
		p.DefaultStickiness != "default" || p.FeatureLimit != nil || len(p.Environments) != 2 {
		t.Errorf("created %s", res.Body)
	}
	e := mustOneAudit(t, ts, mark, "project-created")
	if e.Project != "checkout" || !strings.Contains(string(e.Data), `"Checkout"`) {
		t.Errorf("event %+v", e)
	}

	// Without an id, one is made from the name; with a list, only those
	// environments are enabled.
	res = ts.admin("POST", "/api/admin/projects", map[string]any{"name": "Big Bang Launch!", "environments": []string{"production"}}).must(t, http.StatusCreated)
	if got := res.Object(); got["id"] != "big-bang-launch" || len(got["environments"].([]any)) != 1 {
		t.Errorf("derived %s", res.Body)
	}

	tests := []struct {
		name   string
		body   any
		status int
		kind   string
		path   string
	}{
		{"taken id", map[string]any{"id": "checkout", "name": "Again"}, 409, "NameExistsError", ""},
		{"id with a space", map[string]any{"id": "my project", "name": "x"}, 400, "ValidationError", "id"},
		{"no id, no name", map[string]any{"description": "x"}, 400, "ValidationError", "name"},
		{"unknown mode", map[string]any{"id": "m", "name": "m", "mode": "secret"}, 400, "ValidationError", "mode"},
		{"negative limit", map[string]any{"id": "l", "name": "l", "featureLimit": -1}, 400, "ValidationError", "featureLimit"},
		{"unknown environment", map[string]any{"id": "e", "name": "e", "environments": []string{"moon"}}, 400, "ValidationError", "environments"},
		{"name not a string", map[string]any{"id": "n", "name": 5}, 400, "ValidationError", "name"},
		{"empty body", "", 400, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mark := auditMark(t, ts)
			res := ts.admin("POST", "/api/admin/projects", tt.body)
			if tt.kind == "" {
				res.must(t, tt.status)
			} else {
				mustErrorRecord(t, res, tt.status, tt.kind, tt.path)
			}
			mustNoAudit(t, ts, mark)
		})
	}
	mustErrorRecord(t, ts.request("POST", "/api/admin/projects", testAdminToken, `{"id":"x"}`, "Content-Type", "text/plain"), 415, "ContentTypeError", "")
	mustErrorRecord(t, ts.request("POST", "/api/admin/projects", testFrontendToken, map[string]any{"id": "x"}), 403, "NoAccessError", "")
}

func TestReadUpdateProjects(t *testing.T) {
	ts := newTestServer(t)
	ts.admin("POST", "/api/admin/projects", map[string]any{"id": "growth", "name": "Growth", "description": "Keep me", "featureLimit": 5}).must(t, http.StatusCreated)
	plantFlag(t, ts, "growth", "growth-flag")

	var list struct {
		Version  int
		Projects []struct {
			ID           string
			FeatureCount int
		}
	}
	ts.admin("GET", "/api/admin/projects", nil).must(t, http.StatusOK).Decode(t, &list)
	if list.Version != 1 || len(list.Projects) != 2 || list.Projects[1].ID != "growth" || list.Projects[1].FeatureCount != 1 {
		t.Errorf("list %+v", list)
	}
	got := ts.admin("GET", "/api/admin/projects/growth", nil).must(t, http.StatusOK).Object()
	if got["featureCount"] != float64(1) || got["featureLimit"] != float64(5) || len(got["environments"].([]any)) != 2 {
		t.Errorf("get %v", got)
	}
	mustErrorRecord(t, ts.admin("GET", "/api/admin/projects/nope", nil), 404, "NotFoundError", "")

	mark := auditMark(t, ts)
	got = ts.admin("PUT", "/api/admin/projects/growth", map[string]any{"name": "Growth Team", "featureLimit": nil}).must(t, http.StatusOK).Object()
	if got["name"] != "Growth Team" || got["description"] != "Keep me" || got["featureLimit"] != nil || got["updatedAt"] == nil {
		t.Errorf("only the fields sent change: %v", got)
	}
	e := mustOneAudit(t, ts, mark, "project-updated")
	if !strings.Contains(string(e.PreData), `"Growth"`) || !strings.Contains(string(e.Data), `"Growth Team"`) {
		t.Errorf("event %s / %s", e.Data, e.PreData)
	}
	mustErrorRecord(t, ts.admin("PUT", "/api/admin/projects/growth", map[string]any{"id": "other"}), 400, "ValidationError", "id")
	mustErrorRecord(t, ts.admin("PUT", "/api/admin/projects/growth", map[string]any{"name": ""}), 400, "ValidationError", "name")
	mustErrorRecord(t, ts.admin("PUT", "/api/admin/projects/nope", map[string]any{"name": "x"}), 404, "NotFoundError", "")
}

func TestDeleteProject(t *testing.T) {
	ts := newTestServer(t)
	for _, id := range []string{"empty", "busy", "tokened"} {
		ts.admin("POST", "/api/admin/projects", map[string]any{"id": id, "name": id}).must(t, http.StatusCreated)
	}
	plantFlag(t, ts, "busy", "busy-flag")
	ts.admin("POST", "/api/admin/api-tokens", map[string]any{"type": "client", "tokenName": "scoped", "project": "tokened"}).must(t, http.StatusCreated)

	tests := []struct {
		id     string
		status int
		kind   string
		says   string
	}{
		{"default", 400, "BadDataError", "default project"},
		{"busy", 400, "BadDataError", "flag"},
		{"tokened", 400, "BadDataError", "API token"},
		{"nope", 404, "NotFoundError", ""},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			mark := auditMark(t, ts)
			res := ts.admin("DELETE", "/api/admin/projects/"+tt.id, nil)
			mustErrorRecord(t, res, tt.status, tt.kind, "")
			if !strings.Contains(string(res.Body), tt.says) {
				t.Errorf("message should say %q: %s", tt.says, res.Body)
			}
			mustNoAudit(t, ts, mark)
		})
	}
	mark := auditMark(t, ts)
	res := ts.admin("DELETE", "/api/admin/projects/empty", nil).must(t, http.StatusOK)
	if len(res.Body) != 0 {
		t.Errorf("delete answers no body, got %s", res.Body)
	}
	if e := mustOneAudit(t, ts, mark, "project-deleted"); e.Project != "empty" || e.PreData == nil {
		t.Errorf("event %+v", e)
	}
	ts.admin("GET", "/api/admin/projects/empty", nil).must(t, http.StatusNotFound)
}
