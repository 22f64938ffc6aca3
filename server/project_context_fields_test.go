package server

import (
	"net/http"
	"testing"

	"github.com/signalbox/signalbox/store"
)

// projectContextFixture is a server with projects shop and blog, a field
// of each and a global one.
func projectContextFixture(t *testing.T) *testServer {
	t.Helper()
	ts := newTestServer(t)
	for _, id := range []string{"shop", "blog"} {
		ts.admin("POST", "/api/admin/projects", map[string]any{"id": id, "name": id}).must(t, http.StatusCreated)
	}
	ts.admin("POST", "/api/admin/projects/shop/context", map[string]any{"name": "tier", "legalValues": []map[string]string{{"value": "gold"}}}).must(t, http.StatusCreated)
	ts.admin("POST", "/api/admin/projects/blog/context", map[string]any{"name": "topic"}).must(t, http.StatusCreated)
	ts.admin("POST", "/api/admin/context", map[string]any{"name": "region"}).must(t, http.StatusCreated)
	return ts
}

func fieldNames(list []contextFieldJSON) map[string]string {
	out := map[string]string{}
	for _, c := range list {
		out[c.Name] = c.Project
	}
	return out
}

func TestProjectContextFieldLists(t *testing.T) {
	ts := projectContextFixture(t)
	for _, tt := range []struct {
		name, path string
		want, not  []string
	}{
		{"project's own", "/api/admin/projects/shop/context", []string{"tier"}, []string{"topic", "region", "userId"}},
		{"project's and root", "/api/admin/projects/shop/context?include=root", []string{"tier", "region", "userId"}, []string{"topic"}},
		{"global only", "/api/admin/context", []string{"region", "userId"}, []string{"tier", "topic"}},
		{"global and every project's", "/api/admin/context?include=project", []string{"region", "tier", "topic"}, nil},
		{"project without fields", "/api/admin/projects/default/context", nil, []string{"tier", "region", "userId"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var list []contextFieldJSON
			res := ts.admin("GET", tt.path, nil).must(t, http.StatusOK)
			res.Decode(t, &list)
			if list == nil {
				t.Fatalf("want a list, got %s", res.Body)
			}
			got := fieldNames(list)
			for _, n := range tt.want {
				if _, ok := got[n]; !ok {
					t.Errorf("%s not listed: %v", n, got)
				}
			}
			for _, n := range tt.not {
				if _, ok := got[n]; ok {
					t.Errorf("%s listed: %v", n, got)
				}
			}
			if p, ok := got["tier"]; ok && p != "shop" {
				t.Errorf("tier listed in project %q", p)
			}
		})
	}
	mustErrorRecord(t, ts.admin("GET", "/api/admin/projects/nope/context", nil), 404, "NotFoundError", "")
}

func TestProjectContextFieldChanges(t *testing.T) {
	ts := projectContextFixture(t)
	const base = "/api/admin/projects/shop/context"

	mark := auditMark(t, ts)
	res := ts.admin("POST", base, map[string]any{"name": "plan", "description": "Paid plan", "stickiness": true}).must(t, http.StatusCreated)
	var c contextFieldJSON
	res.Decode(t, &c)
	if c.Name != "plan" || c.Project != "shop" || !c.Stickiness || res.Header.Get("Location") != base+"/plan" {
		t.Errorf("created %s (Location %q)", res.Body, res.Header.Get("Location"))
	}
	if ev := mustOneAudit(t, ts, mark, "context-field-created"); ev.Project != "shop" {
		t.Errorf("event in project %q", ev.Project)
	}

	// Each change: its status, the field afterwards, one event in the project.
	for _, tt := range []struct {
		name, method, path string
		body               any
		event              string
		check              func(c contextFieldJSON) bool
	}{
		{"update", "PUT", base + "/plan", map[string]any{"description": "Plan"}, "context-field-updated",
			func(c contextFieldJSON) bool { return c.Description == "Plan" && c.Stickiness && c.Project == "shop" }},
		{"add legal value", "POST", base + "/plan/legal-values", map[string]any{"value": "pro"}, "context-field-updated",
			func(c contextFieldJSON) bool { return len(c.LegalValues) == 1 && c.LegalValues[0].Value == "pro" }},
		{"describe legal value", "POST", base + "/plan/legal-values", map[string]any{"value": "pro", "description": "Pro"}, "context-field-updated",
			func(c contextFieldJSON) bool { return len(c.LegalValues) == 1 && c.LegalValues[0].Description == "Pro" }},
		{"remove legal value", "DELETE", base + "/plan/legal-values/pro", nil, "context-field-updated",
			func(c contextFieldJSON) bool { return len(c.LegalValues) == 0 }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			mark := auditMark(t, ts)
			ts.admin(tt.method, tt.path, tt.body).must(t, http.StatusOK)
			if ev := mustOneAudit(t, ts, mark, tt.event); ev.Project != "shop" {
				t.Errorf("event in project %q", ev.Project)
			}
			var got contextFieldJSON
			ts.admin("GET", base+"/plan", nil).must(t, http.StatusOK).Decode(t, &got)
			if !tt.check(got) {
				t.Errorf("field after %s: %+v", tt.name, got)
			}
		})
	}

	ts.admin("POST", base+"/validate", map[string]any{"name": "fresh"}).must(t, http.StatusOK)
	var uses struct{ Strategies []any }
	ts.admin("GET", base+"/plan/strategies", nil).must(t, http.StatusOK).Decode(t, &uses)
	if uses.Strategies == nil || len(uses.Strategies) != 0 {
		t.Errorf("strategies %+v", uses)
	}

	mark = auditMark(t, ts)
	ts.admin("DELETE", base+"/plan", nil).must(t, http.StatusOK)
	if ev := mustOneAudit(t, ts, mark, "context-field-deleted"); ev.Project != "shop" {
		t.Errorf("event in project %q", ev.Project)
	}
	mustErrorRecord(t, ts.admin("GET", base+"/plan", nil), 404, "NotFoundError", "")
}

func TestProjectContextFieldErrors(t *testing.T) {
	ts := projectContextFixture(t)
	const base = "/api/admin/projects/shop/context"
	for _, tt := range []struct {
		name, method, path string
		body               any
		status             int
		kind               string
	}{
		{"name of another project's field", "POST", base, map[string]any{"name": "topic"}, 409, "NameExistsError"},
		{"name of a global field", "POST", base, map[string]any{"name": "region"}, 409, "NameExistsError"},
		{"name of a built-in", "POST", base, map[string]any{"name": "userId"}, 409, "NameExistsError"},
		{"global name of a project field", "POST", "/api/admin/context", map[string]any{"name": "tier"}, 409, "NameExistsError"},
		{"bad name", "POST", base, map[string]any{"name": "a b"}, 400, "ValidationError"},
		{"body names another project", "POST", base, map[string]any{"name": "x", "project": "blog"}, 400, "ValidationError"},
		{"unknown project", "POST", "/api/admin/projects/nope/context", map[string]any{"name": "x"}, 404, "NotFoundError"},
		{"unknown project in a global body", "POST", "/api/admin/context", map[string]any{"name": "x", "project": "nope"}, 400, "ValidationError"},
		{"get another project's field", "GET", base + "/topic", nil, 404, "NotFoundError"},
		{"get a global field", "GET", base + "/region", nil, 404, "NotFoundError"},
		{"update another project's field", "PUT", base + "/topic", map[string]any{"description": "x"}, 404, "NotFoundError"},
		{"update a built-in", "PUT", base + "/userId", map[string]any{"stickiness": true}, 404, "NotFoundError"},
		{"move to another project", "PUT", base + "/tier", map[string]any{"project": "blog"}, 400, "ValidationError"},
		{"delete a global field", "DELETE", base + "/region", nil, 404, "NotFoundError"},
		{"legal value of another project's field", "POST", base + "/topic/legal-values", map[string]any{"value": "x"}, 404, "NotFoundError"},
		{"remove legal value of a global field", "DELETE", base + "/region/legal-values/x", nil, 404, "NotFoundError"},
		{"empty legal value", "POST", base + "/tier/legal-values", map[string]any{"value": ""}, 400, "ValidationError"},
		{"validate a taken name", "POST", base + "/validate", map[string]any{"name": "topic"}, 409, "NameExistsError"},
		{"validate in an unknown project", "POST", "/api/admin/projects/nope/context/validate", map[string]any{"name": "fresh"}, 404, "NotFoundError"},
		{"strategies in an unknown project", "GET", "/api/admin/projects/nope/context/tier/strategies", nil, 404, "NotFoundError"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			mark := auditMark(t, ts)
			mustErrorRecord(t, ts.admin(tt.method, tt.path, tt.body), tt.status, tt.kind, "")
			mustNoAudit(t, ts, mark)
		})
	}
	// The global routes reach every field by name, as in Unleash.
	var c contextFieldJSON
	ts.admin("GET", "/api/admin/context/tier", nil).must(t, http.StatusOK).Decode(t, &c)
	if c.Project != "shop" {
		t.Errorf("tier through the global route: %+v", c)
	}
	// A field created on the global route with a project in the body
	// belongs to that project.
	ts.admin("POST", "/api/admin/context", map[string]any{"name": "audience", "project": "blog"}).must(t, http.StatusCreated)
	ts.admin("GET", "/api/admin/projects/blog/context/audience", nil).must(t, http.StatusOK)
	// Deleting a project deletes its fields.
	ts.admin("DELETE", "/api/admin/projects/blog", nil).must(t, http.StatusOK)
	mustErrorRecord(t, ts.admin("GET", "/api/admin/context/topic", nil), 404, "NotFoundError", "")
}

func TestProjectContextFieldPermissions(t *testing.T) {
	ts := projectContextFixture(t)
	ids := map[string]int{}
	for _, u := range []struct{ name, root string }{{"owner", "Viewer"}, {"member", "Viewer"}, {"viewer", "Viewer"}, {"editor", "Editor"}} {
		ids[u.name] = createTestUser(t, ts, u.name, u.root, strongPassword)
	}
	grant := func(project string, role, user int) {
		ts.admin("POST", "/api/admin/projects/"+project+"/access", map[string]any{"roles": []int{role}, "users": []map[string]int{{"id": user}}}).must(t, http.StatusOK)
	}
	grant("shop", store.RoleOwner, ids["owner"])
	grant("shop", store.RoleMember, ids["member"])

	for _, tt := range []struct {
		user, project string
		write         bool // may create, change and delete the project's fields
	}{
		{"owner", "shop", true},
		{"owner", "blog", false}, // Owner of another project
		{"member", "shop", false},
		{"viewer", "shop", false},
		{"editor", "shop", true}, // Editors manage context fields everywhere
	} {
		t.Run(tt.user+" in "+tt.project, func(t *testing.T) {
			cookie := signIn(t, ts, tt.user, strongPassword)
			base := "/api/admin/projects/" + tt.project + "/context"
			ts.asSession(cookie, "GET", base, nil).must(t, http.StatusOK)
			name := tt.user + "-field"
			want := http.StatusForbidden
			if tt.write {
				want = http.StatusCreated
			}
			mark := auditMark(t, ts)
			ts.asSession(cookie, "POST", base, map[string]any{"name": name}).must(t, want)
			if !tt.write {
				mustNoAudit(t, ts, mark)
				ts.admin("POST", base, map[string]any{"name": name}).must(t, http.StatusCreated)
				want = http.StatusForbidden
			} else {
				mustOneAudit(t, ts, mark, "context-field-created")
				want = http.StatusOK
			}
			ts.asSession(cookie, "POST", base+"/validate", map[string]any{"name": "other-" + name}).must(t, want)
			ts.asSession(cookie, "PUT", base+"/"+name, map[string]any{"description": "x"}).must(t, want)
			ts.asSession(cookie, "POST", base+"/"+name+"/legal-values", map[string]any{"value": "v"}).must(t, want)
			ts.asSession(cookie, "DELETE", base+"/"+name+"/legal-values/v", nil).must(t, want)
			ts.asSession(cookie, "DELETE", base+"/"+name, nil).must(t, want)
			// The global routes stay with the root permissions.
			if tt.user != "editor" {
				ts.asSession(cookie, "POST", "/api/admin/context", map[string]any{"name": "g-" + name, "project": tt.project}).must(t, http.StatusForbidden)
			}
		})
	}
	ts.request("GET", "/api/admin/projects/shop/context", "", nil).must(t, http.StatusUnauthorized)
}
