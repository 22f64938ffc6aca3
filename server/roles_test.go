package server

import (
	"net/http"
	"slices"
	"testing"
)

// TestListRoles checks that every role is listed with what it grants, as
// authorization decides it, and that any signed-in user may read the list.
func TestListRoles(t *testing.T) {
	ts := newTestServer(t)
	viewer := crUser(t, ts, "roles-viewer", "Viewer")
	type perm struct {
		Name        string `json:"name"`
		DisplayName string `json:"displayName"`
		Type        string `json:"type"`
	}
	type role struct {
		ID          int    `json:"id"`
		Name        string `json:"name"`
		Type        string `json:"type"`
		Description string `json:"description"`
		Permissions []perm `json:"permissions"`
	}
	var body struct {
		Version int    `json:"version"`
		Roles   []role `json:"roles"`
	}
	ts.as(viewer, "GET", "/api/admin/roles", nil).must(t, http.StatusOK).Decode(t, &body)
	if body.Version != 1 {
		t.Errorf("version %d", body.Version)
	}
	names := func(ps []perm) []string {
		var out []string
		for _, p := range ps {
			out = append(out, p.Name)
		}
		return out
	}
	tests := []struct {
		role, kind string
		has, lacks []string
		exactly    int // the number of permissions, when not 0
	}{
		{role: "Admin", kind: "root", has: []string{"ADMIN", "CREATE_FEATURE", "DELETE_API_TOKEN"}},
		{role: "Editor", kind: "root", has: []string{"READ", "CREATE_PROJECT", "CREATE_FEATURE", "UPDATE_FEATURE_ENVIRONMENT"},
			lacks: []string{"ADMIN", "UPDATE_PROJECT", "PROJECT_USER_ACCESS_WRITE"}},
		{role: "Viewer", kind: "root", has: []string{"READ"}, exactly: 1},
		{role: "Owner", kind: "project", has: []string{"READ", "CREATE_FEATURE", "UPDATE_PROJECT", "PROJECT_USER_ACCESS_WRITE", "APPROVE_CHANGE_REQUEST"},
			lacks: []string{"ADMIN", "CREATE_PROJECT", "CREATE_SEGMENT"}},
		{role: "Member", kind: "project", has: []string{"READ", "CREATE_FEATURE", "UPDATE_FEATURE_STRATEGY", "CREATE_API_TOKEN"},
			lacks: []string{"UPDATE_PROJECT", "PROJECT_USER_ACCESS_WRITE", "APPROVE_CHANGE_REQUEST"}},
	}
	for _, tc := range tests {
		t.Run(tc.role, func(t *testing.T) {
			i := slices.IndexFunc(body.Roles, func(r role) bool { return r.Name == tc.role })
			if i < 0 {
				t.Fatalf("no role %s in %+v", tc.role, body.Roles)
			}
			r := body.Roles[i]
			got := names(r.Permissions)
			if r.Type != tc.kind || r.ID == 0 {
				t.Errorf("role %+v, want type %s", r, tc.kind)
			}
			for _, p := range tc.has {
				if !slices.Contains(got, p) {
					t.Errorf("%s lacks %s: %v", tc.role, p, got)
				}
			}
			for _, p := range tc.lacks {
				if slices.Contains(got, p) {
					t.Errorf("%s has %s: %v", tc.role, p, got)
				}
			}
			if tc.exactly != 0 && len(got) != tc.exactly {
				t.Errorf("%s has %v, want %d permissions", tc.role, got, tc.exactly)
			}
			for _, p := range r.Permissions {
				if p.DisplayName == "" || p.Type != tc.kind {
					t.Errorf("permission %+v of %s", p, tc.role)
				}
			}
		})
	}
	ts.request("GET", "/api/admin/roles", "", nil).must(t, http.StatusUnauthorized)
}
