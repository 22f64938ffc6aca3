package server

import (
	"net/http"
	"slices"
	"testing"

	"github.com/signalbox/signalbox/store"
)

// TestUserPermissionsInProject checks that GET /api/admin/user/permissions
// adds the permissions of the caller's project roles, held themselves or
// through a group, in that project only.
func TestUserPermissionsInProject(t *testing.T) {
	ts := newTestServer(t)
	ts.admin("POST", "/api/admin/projects", map[string]any{"id": "team"}).must(t, http.StatusCreated)
	grant := func(name string, role int) string {
		id := createTestUser(t, ts, name, "Viewer", strongPassword)
		ts.admin("POST", "/api/admin/projects/team/access", map[string]any{"roles": []int{role}, "users": []map[string]int{{"id": id}}}).
			must(t, http.StatusOK)
		return signIn(t, ts, name, strongPassword)
	}
	owner := grant("otto", store.RoleOwner)
	member := grant("mia", store.RoleMember)
	grouped := createTestUser(t, ts, "gus", "Viewer", strongPassword)
	group := createTestGroup(t, ts, map[string]any{"name": "team-members", "users": members(grouped)})
	ts.admin("POST", "/api/admin/projects/team/access", map[string]any{"roles": []int{store.RoleMember}, "groups": []map[string]int{{"id": group}}}).
		must(t, http.StatusOK)
	viaGroup := signIn(t, ts, "gus", strongPassword)
	editor := crUser(t, ts, "eddie", "Editor")
	viewer := crUser(t, ts, "vic", "Viewer")

	approve, strategy, project := string(PermApproveChangeRequest), string(PermUpdateFeatureStrategy), string(PermUpdateProject)
	tests := []struct {
		name    string
		cookie  string
		project string
		has     []string
		hasNot  []string
	}{
		{"owner in their project", owner, "team", []string{approve, string(PermApplyChangeRequest), strategy, project}, nil},
		{"owner elsewhere", owner, "default", nil, []string{approve, strategy, project}},
		{"owner without a project", owner, "", nil, []string{approve, strategy}},
		{"member in their project", member, "team", []string{strategy, string(PermUpdateFeatureVariants), string(PermUpdateFeatureEnvironment)}, []string{approve, project}},
		{"member through a group", viaGroup, "team", []string{strategy}, []string{approve}},
		{"member elsewhere", member, "default", nil, []string{strategy}},
		{"editor without a project role", editor, "team", []string{approve, strategy}, []string{project}},
		{"viewer without a project role", viewer, "team", nil, []string{approve, strategy}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got struct {
				Project     string              `json:"project"`
				Permissions []map[string]string `json:"permissions"`
			}
			ts.asSession(tt.cookie, "GET", "/api/admin/user/permissions?project="+tt.project, nil).must(t, http.StatusOK).Decode(t, &got)
			held := func(perm string) bool {
				return slices.ContainsFunc(got.Permissions, func(p map[string]string) bool { return p["permission"] == perm })
			}
			if got.Project != tt.project {
				t.Errorf("project %q, want %q", got.Project, tt.project)
			}
			for _, perm := range tt.has {
				if !held(perm) {
					t.Errorf("%s missing from %v", perm, got.Permissions)
				}
			}
			for _, perm := range tt.hasNot {
				if held(perm) {
					t.Errorf("%s listed in %v", perm, got.Permissions)
				}
			}
		})
	}

	t.Run("admin token holds ADMIN", func(t *testing.T) {
		var got struct {
			Permissions []map[string]string `json:"permissions"`
		}
		ts.admin("GET", "/api/admin/user/permissions?project=team", nil).must(t, http.StatusOK).Decode(t, &got)
		if len(got.Permissions) != 1 || got.Permissions[0]["permission"] != string(PermAdmin) {
			t.Errorf("permissions %v", got.Permissions)
		}
	})
	t.Run("unknown project", func(t *testing.T) {
		ts.asSession(owner, "GET", "/api/admin/user/permissions?project=nope", nil).must(t, http.StatusNotFound)
	})
	t.Run("signed out", func(t *testing.T) {
		ts.request("GET", "/api/admin/user/permissions?project=team", "", nil).must(t, http.StatusUnauthorized)
	})
}
