package server

import (
	"fmt"
	"net/http"
	"strconv"
	"testing"

	"github.com/signalbox/signalbox/store"
)

// TestPermissionTable walks root roles × project roles × actions against
// the real routes: each cell runs in a project of its own, in which the
// principal holds the row's project role, and expects the row's answer.
// The README's permission table is this table.
func TestPermissionTable(t *testing.T) { permissionTable(t, newTestServer(t)) }

// TestPermissionTablePostgres is the table on PostgreSQL. It skips only
// where pgtest does (no PostgreSQL binaries, outside CI).
func TestPermissionTablePostgres(t *testing.T) { permissionTable(t, newPostgresTestServer(t)) }

func permissionTable(t *testing.T, ts *testServer) {
	const y, n = true, false
	type action struct {
		name string
		// do runs the action in project p (set up by the admin token, with
		// the flag p+"-f" and change requests off) as auth, and returns the
		// answer.
		do func(auth, p string) response
		ok int // the status when allowed; 403 otherwise
	}
	var target int // a user whose roles the principals grant and revoke
	seq := 0
	unique := func(prefix string) string { seq++; return prefix + strconv.Itoa(seq) }
	enableCR := func(p string) {
		ts.admin("PUT", crProject(p).config("production"), map[string]any{"changeRequestsEnabled": true, "requiredApprovals": 1}).
			must(t, http.StatusNoContent)
	}
	author := crUser(t, ts, "cr-author", "Admin")
	actions := []action{
		{"create project", func(auth, _ string) response {
			return ts.as(auth, "POST", "/api/admin/projects", map[string]any{"id": unique("new")})
		}, http.StatusCreated},
		{"update project", func(auth, p string) response {
			return ts.as(auth, "PUT", "/api/admin/projects/"+p, map[string]any{"name": "renamed"})
		}, http.StatusOK},
		{"grant project role", func(auth, p string) response {
			return ts.as(auth, "POST", "/api/admin/projects/"+p+"/access",
				map[string]any{"roles": []int{store.RoleOwner}, "users": []map[string]int{{"id": target}}})
		}, http.StatusOK},
		{"revoke project roles", func(auth, p string) response {
			ts.admin("POST", "/api/admin/projects/"+p+"/access", map[string]any{"roles": []int{store.RoleMember}, "users": []map[string]int{{"id": target}}}).
				must(t, http.StatusOK)
			return ts.as(auth, "DELETE", "/api/admin/projects/"+p+"/users/"+strconv.Itoa(target)+"/roles", nil)
		}, http.StatusOK},
		{"remove project environment", func(auth, p string) response {
			return ts.as(auth, "DELETE", "/api/admin/projects/"+p+"/environments/development", nil)
		}, http.StatusOK},
		{"delete project", func(auth, p string) response {
			ts.admin("DELETE", "/api/admin/projects/"+p+"/features/"+p+"-f", nil).must(t, http.StatusAccepted)
			ts.admin("DELETE", "/api/admin/archive/"+p+"-f", nil).must(t, http.StatusOK)
			return ts.as(auth, "DELETE", "/api/admin/projects/"+p, nil)
		}, http.StatusOK},
		{"create flag", func(auth, p string) response {
			return ts.as(auth, "POST", "/api/admin/projects/"+p+"/features", map[string]any{"name": unique("flag")})
		}, http.StatusCreated},
		{"switch flag on", func(auth, p string) response {
			return ts.as(auth, "POST", "/api/admin/projects/"+p+"/features/"+p+"-f/environments/development/on", nil)
		}, http.StatusOK},
		{"import", func(auth, p string) response {
			return ts.as(auth, "POST", featuresBatchPath+"/import", map[string]any{"project": p, "environment": "development",
				"data": map[string]any{"features": []any{}, "featureStrategies": []any{}}})
		}, http.StatusOK},
		{"require change requests", func(auth, p string) response {
			return ts.as(auth, "PUT", crProject(p).config("production"), map[string]any{"changeRequestsEnabled": true, "requiredApprovals": 2})
		}, http.StatusNoContent},
		{"stop requiring change requests", func(auth, p string) response {
			enableCR(p)
			return ts.as(auth, "PUT", crProject(p).config("production"), map[string]any{"changeRequestsEnabled": false})
		}, http.StatusNoContent},
		{"propose change", func(auth, p string) response {
			enableCR(p)
			return ts.as(auth, "POST", crProject(p).propose("production"),
				map[string]any{"feature": p + "-f", "action": "updateEnabled", "payload": map[string]any{"enabled": true}})
		}, http.StatusOK},
		{"approve another's change", func(auth, p string) response {
			enableCR(p)
			cr := crDecode(t, ts.as(author, "POST", crProject(p).propose("production"),
				map[string]any{"feature": p + "-f", "action": "updateEnabled", "payload": map[string]any{"enabled": true}}).must(t, http.StatusOK))
			ts.as(author, "PUT", crProject(p).state(cr.ID), map[string]any{"state": "In review"}).must(t, http.StatusOK)
			return ts.as(auth, "PUT", crProject(p).state(cr.ID), map[string]any{"state": "Approved"})
		}, http.StatusOK},
		{"client token for the project (production)", func(auth, p string) response {
			return ts.as(auth, "POST", "/api/admin/api-tokens",
				map[string]any{"type": "client", "tokenName": unique("t"), "projects": []string{p}, "environment": "production"})
		}, http.StatusCreated},
		{"client token for all projects (development)", func(auth, _ string) response {
			return ts.as(auth, "POST", "/api/admin/api-tokens", map[string]any{"type": "client", "tokenName": unique("t"), "environment": "development"})
		}, http.StatusCreated},
		{"admin token", func(auth, _ string) response {
			return ts.as(auth, "POST", "/api/admin/api-tokens", map[string]any{"type": "admin", "tokenName": unique("t")})
		}, http.StatusCreated},
	}
	rows := []struct {
		root        string // "" for the admin API token
		projectRole int    // 0: none
		creates     bool   // the principal creates the project (and so owns it)
		allowed     []bool // one per action, in order
	}{
		{"Admin", 0, false, []bool{y, y, y, y, y, y, y, y, y, y, y, y, y, y, y, y}},
		{"", 0, false, []bool{y, y, y, y, y, y, y, y, y, y, y, y, n, y, y, y}},
		{"Editor", 0, false, []bool{y, n, n, n, n, n, y, y, y, n, n, y, y, n, n, n}},
		{"Editor", store.RoleOwner, true, []bool{y, y, y, y, y, y, y, y, y, y, n, y, y, y, n, n}},
		{"Editor", store.RoleMember, false, []bool{y, n, n, n, n, n, y, y, y, n, n, y, y, y, n, n}},
		{"Viewer", 0, false, []bool{n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n}},
		{"Viewer", store.RoleOwner, false, []bool{n, y, y, y, y, y, y, y, y, y, n, y, y, n, n, n}},
		{"Viewer", store.RoleMember, false, []bool{n, n, n, n, n, n, y, y, y, n, n, y, n, n, n, n}},
	}
	target = createTestUser(t, ts, "target", "Viewer", strongPassword)
	for i, row := range rows {
		if len(row.allowed) != len(actions) {
			t.Fatalf("row %d has %d cells for %d actions", i, len(row.allowed), len(actions))
		}
		auth, who := testAdminToken, "admin API token"
		if row.root != "" {
			name := fmt.Sprintf("u%d-%s", i, row.root)
			auth = crUser(t, ts, name, row.root)
			who = row.root + " + " + map[int]string{0: "no project role", store.RoleOwner: "Owner", store.RoleMember: "Member"}[row.projectRole]
		}
		for j, a := range actions {
			p := unique("p")
			if row.creates {
				ts.as(auth, "POST", "/api/admin/projects", map[string]any{"id": p}).must(t, http.StatusCreated)
			} else {
				ts.admin("POST", "/api/admin/projects", map[string]any{"id": p}).must(t, http.StatusCreated)
			}
			if row.projectRole != 0 && !row.creates {
				var u UserJSON
				ts.as(auth, "GET", "/api/admin/user", nil).must(t, http.StatusOK).Decode(t, &struct {
					User *UserJSON `json:"user"`
				}{&u})
				ts.admin("POST", "/api/admin/projects/"+p+"/access",
					map[string]any{"roles": []int{row.projectRole}, "users": []map[string]int{{"id": u.ID}}}).must(t, http.StatusOK)
			}
			ts.admin("POST", "/api/admin/projects/"+p+"/features", map[string]any{"name": p + "-f"}).must(t, http.StatusCreated)
			res := a.do(auth, p)
			want := http.StatusForbidden
			if row.allowed[j] {
				want = a.ok
			}
			if res.Status != want {
				t.Errorf("%s, %s: status %d, want %d; body %s", who, a.name, res.Status, want, res.Body)
			}
		}
	}
}
