package server

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"testing"
	"time"
)

func TestProjectModes(t *testing.T) { projectModesFlow(t, newTestServer(t)) }

func TestProjectModesPostgres(t *testing.T) { projectModesFlow(t, newPostgresTestServer(t)) }

// listedNames reads the field of every object in the list under key of a
// JSON answer.
func listedNames(t *testing.T, res response, key, field string) []string {
	t.Helper()
	var body map[string]json.RawMessage
	var list []map[string]any
	if err := json.Unmarshal(res.Body, &body); err != nil {
		t.Fatalf("decoding %s: %v", res.Body, err)
	}
	if err := json.Unmarshal(body[key], &list); err != nil {
		t.Fatalf("decoding %s of %s: %v", key, res.Body, err)
	}
	var out []string
	for _, item := range list {
		if v, ok := item[field].(string); ok {
			out = append(out, v)
		}
	}
	return out
}

// projectModesFlow checks project modes on every kind of path: a private
// project is unseen by a Viewer or an Editor holding no role in it (its
// paths answer 404, lists leave it and its flags and events out) and seen
// by its members and Admins; in a protected project only members propose
// change requests, while anyone may read it; an open project is open to
// all.
func projectModesFlow(t *testing.T, ts *testServer) {
	admin := func(method, path string, body any, want int) response {
		t.Helper()
		return ts.admin(method, path, body).must(t, want)
	}
	admin("POST", "/api/admin/projects", map[string]any{"id": "secret", "name": "Secret"}, http.StatusCreated)
	admin("POST", "/api/admin/projects", map[string]any{"id": "guarded", "name": "Guarded", "mode": "protected"}, http.StatusCreated)
	for _, f := range [][2]string{{"secret", "secret-flag"}, {"secret", "secret-old"}, {"guarded", "guarded-flag"}, {"default", "open-flag"}} {
		admin("POST", "/api/admin/projects/"+f[0]+"/features", map[string]any{"name": f[1]}, http.StatusCreated)
	}
	admin("DELETE", "/api/admin/projects/secret/features/secret-old", nil, http.StatusAccepted)

	vera := crUser(t, ts, "vera", "Viewer")
	ed := crUser(t, ts, "ed", "Editor")
	moID := createTestUser(t, ts, "mo", "Viewer", strongPassword)
	mo := signIn(t, ts, "mo", strongPassword)
	for _, p := range []string{"secret", "guarded"} {
		admin("POST", "/api/admin/projects/"+p+"/access", map[string]any{"roles": []int{5}, "users": []map[string]int{{"id": moID}}, "groups": []any{}}, http.StatusOK)
	}
	// Gus is a member through a group.
	gusID := createTestUser(t, ts, "gus", "Viewer", strongPassword)
	gus := signIn(t, ts, "gus", strongPassword)
	var team groupAnswer
	admin("POST", "/api/admin/groups", map[string]any{"name": "Secret keepers", "users": members(gusID)}, http.StatusCreated).Decode(t, &team)
	admin("POST", "/api/admin/projects/secret/access", map[string]any{"roles": []int{5}, "users": []any{}, "groups": []map[string]int{{"id": team.ID}}}, http.StatusOK)
	// Vera stars the project while it is open; then it becomes private.
	ts.asSession(vera, "POST", "/api/admin/projects/secret/favorites", nil).must(t, http.StatusOK)
	admin("PUT", "/api/admin/projects/secret", map[string]any{"mode": "private"}, http.StatusOK)

	// An application reports using flags of the private and the open
	// project.
	var every TokenJSON
	admin("POST", "/api/admin/api-tokens", map[string]any{"type": "client", "tokenName": "every-project", "projects": []string{"*"}, "environment": "development"},
		http.StatusCreated).Decode(t, &every)
	now := time.Now().UTC()
	ts.request("POST", "/api/client/register", every.Secret, map[string]any{"appName": "modes", "instanceId": "modes-1",
		"sdkVersion": "unleash-client-node:6.1.0", "strategies": []string{}, "started": now, "interval": 15000}).must(t, http.StatusAccepted)
	ts.request("POST", "/api/client/metrics", every.Secret, map[string]any{"appName": "modes", "instanceId": "modes-1",
		"bucket": map[string]any{"start": now.Add(-time.Minute), "stop": now, "toggles": map[string]any{
			"secret-flag": map[string]any{"yes": 1, "no": 0}, "open-flag": map[string]any{"yes": 1, "no": 0}}},
	}).must(t, http.StatusAccepted)
	if err := ts.srv.FlushMetrics(context.Background()); err != nil {
		t.Fatal(err)
	}

	type caller struct {
		name string
		as   func(method, path string, body any) response
		sees bool
	}
	callers := []caller{
		{"viewer without a role", func(m, p string, b any) response { return ts.asSession(vera, m, p, b) }, false},
		{"editor without a role", func(m, p string, b any) response { return ts.asSession(ed, m, p, b) }, false},
		{"member", func(m, p string, b any) response { return ts.asSession(mo, m, p, b) }, true},
		{"member through a group", func(m, p string, b any) response { return ts.asSession(gus, m, p, b) }, true},
		{"admin token", func(m, p string, b any) response { return ts.admin(m, p, b) }, true},
	}
	for _, c := range callers {
		t.Run(c.name, func(t *testing.T) {
			seen := func(what string, got []string, name string) {
				t.Helper()
				if slices.Contains(got, name) != c.sees {
					t.Errorf("%s: %q listed = %v, want %v (list %v)", what, name, !c.sees, c.sees, got)
				}
			}
			// Paths in the project, and of its flags, whatever the method.
			want := http.StatusNotFound
			if c.sees {
				want = http.StatusOK
			}
			for _, path := range []string{
				"/api/admin/projects/secret",
				"/api/admin/projects/secret/features",
				"/api/admin/projects/secret/features/secret-flag",
				"/api/admin/projects/secret/overview",
				"/api/admin/projects/secret/health-report",
				"/api/admin/projects/secret/insights",
				"/api/admin/projects/secret/change-requests",
				"/api/admin/features/secret-flag",
				"/api/admin/client-metrics/features/secret-flag",
				"/api/admin/events/secret-flag",
			} {
				c.as("GET", path, nil).must(t, want)
			}
			if !c.sees {
				// A write answers as if the project did not exist, not 403.
				mustErrorRecord(t, c.as("PUT", "/api/admin/projects/secret/features/secret-flag", map[string]any{"description": "x"}), http.StatusNotFound, "NotFoundError", "")
				mustErrorRecord(t, c.as("POST", "/api/admin/projects/secret/favorites", nil), http.StatusNotFound, "NotFoundError", "")
			}

			// Lists across projects.
			seen("projects", listedNames(t, c.as("GET", "/api/admin/projects", nil).must(t, http.StatusOK), "projects", "id"), "secret")
			seen("features", listedNames(t, c.as("GET", "/api/admin/features", nil).must(t, http.StatusOK), "features", "name"), "secret-flag")
			seen("search", listedNames(t, c.as("GET", "/api/admin/search/features", nil).must(t, http.StatusOK), "features", "name"), "secret-flag")
			seen("archive", listedNames(t, c.as("GET", "/api/admin/archive/features", nil).must(t, http.StatusOK), "features", "name"), "secret-old")
			seen("events", listedNames(t, c.as("GET", "/api/admin/events", nil).must(t, http.StatusOK), "events", "project"), "secret")
			seen("event search", listedNames(t, c.as("GET", "/api/admin/search/events?query=secret", nil).must(t, http.StatusOK), "events", "project"), "secret")
			seen("playground", listedNames(t, c.as("POST", "/api/admin/playground", map[string]any{"environment": "development", "projects": "*", "context": map[string]any{"appName": "modes"}}).must(t, http.StatusOK), "features", "name"), "secret-flag")
			var counts map[string]int
			c.as("GET", "/api/admin/lifecycle/count", nil).must(t, http.StatusOK).Decode(t, &counts)
			if (counts["archived"] == 1) != c.sees {
				t.Errorf("lifecycle count %v", counts)
			}
			var app struct{ Projects []string }
			c.as("GET", "/api/admin/metrics/applications/modes/overview", nil).must(t, http.StatusOK).Decode(t, &app)
			seen("application projects", app.Projects, "secret")
			// The open and protected projects' flags are everyone's.
			if got := listedNames(t, c.as("GET", "/api/admin/features", nil), "features", "name"); !slices.Contains(got, "guarded-flag") || !slices.Contains(got, "open-flag") {
				t.Errorf("open and protected flags missing: %v", got)
			}

			// Export, of the project or of its flag by name.
			exp := c.as("POST", featuresBatchPath+"/export", map[string]any{"environment": "development", "project": "secret"})
			exp.must(t, want)
			exp = c.as("POST", featuresBatchPath+"/export", map[string]any{"environment": "development", "features": []string{"secret-flag"}})
			exp.must(t, want)
			exp = c.as("POST", featuresBatchPath+"/export", map[string]any{"environment": "development", "features": []string{}}).must(t, http.StatusOK)
			seen("export", listedNames(t, exp, "features", "name"), "secret-flag")
		})
	}

	// The personal dashboard leaves out a starred project now private.
	ts.asSession(vera, "GET", "/api/admin/personal-dashboard/secret", nil).must(t, http.StatusNotFound)
	ts.asSession(mo, "GET", "/api/admin/personal-dashboard/secret", nil).must(t, http.StatusOK)
	if got := listedNames(t, ts.asSession(vera, "GET", "/api/admin/personal-dashboard", nil).must(t, http.StatusOK), "projects", "id"); slices.Contains(got, "secret") {
		t.Errorf("vera's dashboard shows the private project: %v", got)
	}
	if got := listedNames(t, ts.asSession(mo, "GET", "/api/admin/personal-dashboard", nil).must(t, http.StatusOK), "projects", "id"); !slices.Contains(got, "secret") {
		t.Errorf("mo's dashboard misses the project he is a member of: %v", got)
	}

	// Protected: everyone reads it; only members propose change requests.
	for _, p := range []string{"guarded", "default"} {
		admin("PUT", "/api/admin/projects/"+p+"/environments/production/change-requests/config",
			map[string]any{"changeRequestsEnabled": true, "requiredApprovals": 1}, http.StatusNoContent)
	}
	ts.asSession(vera, "GET", "/api/admin/projects/guarded", nil).must(t, http.StatusOK)
	ts.asSession(ed, "GET", "/api/admin/projects/guarded/features/guarded-flag", nil).must(t, http.StatusOK)
	on := func(flag string) map[string]any {
		return map[string]any{"feature": flag, "action": "updateEnabled", "payload": map[string]any{"enabled": true}}
	}
	const guardedCR = "/api/admin/projects/guarded/environments/production/change-requests"
	mark := auditMark(t, ts)
	mustForbid(t, ts.asSession(ed, "POST", guardedCR, on("guarded-flag")), "guarded", "protected")
	mustNoAudit(t, ts, mark)
	ts.asSession(mo, "POST", guardedCR, on("guarded-flag")).must(t, http.StatusOK)
	ts.admin("POST", guardedCR, on("guarded-flag")).must(t, http.StatusOK)
	// In an open project an Editor without a role proposes as before.
	ts.asSession(ed, "POST", "/api/admin/projects/default/environments/production/change-requests", on("open-flag")).must(t, http.StatusOK)

	// A draft begun while the project was open cannot go to review once
	// it is protected, unless its author is a member.
	admin("PUT", "/api/admin/projects/guarded", map[string]any{"mode": "open"}, http.StatusOK)
	var draft changeRequestJSON
	ts.asSession(ed, "POST", guardedCR, on("guarded-flag")).must(t, http.StatusOK).Decode(t, &draft)
	admin("PUT", "/api/admin/projects/guarded", map[string]any{"mode": "protected"}, http.StatusOK)
	mustForbid(t, ts.asSession(ed, "PUT", "/api/admin/projects/guarded/change-requests/"+strconv.Itoa(draft.ID)+"/state", map[string]any{"state": "In review"}), "protected")
}
