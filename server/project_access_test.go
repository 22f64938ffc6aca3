package server

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// projectAccessAnswer is the answer of GET …/access.
type projectAccessAnswer struct {
	Users []struct {
		ID     int   `json:"id"`
		RoleID int   `json:"roleId"`
		Roles  []int `json:"roles"`
	} `json:"users"`
	Groups []struct {
		ID        int    `json:"id"`
		Name      string `json:"name"`
		RoleID    int    `json:"roleId"`
		Roles     []int  `json:"roles"`
		UserCount int    `json:"userCount"`
	} `json:"groups"`
	Roles []struct {
		ID   int    `json:"id"`
		Name string `json:"name"`
		Type string `json:"type"`
	} `json:"roles"`
}

// userRoles maps user ids to their roles in the answer.
func (a projectAccessAnswer) userRoles() map[int][]int {
	out := map[int][]int{}
	for _, u := range a.Users {
		out[u.ID] = u.Roles
	}
	return out
}

func mustForbid(t *testing.T, res response, words ...string) {
	t.Helper()
	mustErrorRecord(t, res, http.StatusForbidden, "NoAccessError", "")
	for _, w := range words {
		if !strings.Contains(string(res.Body), w) {
			t.Errorf("403 should name %q: %s", w, res.Body)
		}
	}
}

func TestProjectAccess(t *testing.T) { projectAccessFlow(t, newTestServer(t)) }

// projectAccessFlow drives the project access endpoints and checks that
// project roles are enforced: a Member writes flags in its project only,
// an Owner also manages the project and who has access to it.
func projectAccessFlow(t *testing.T, ts *testServer) {
	ts.admin("POST", "/api/admin/projects", map[string]any{"id": "web", "name": "Web"}).must(t, http.StatusCreated)
	mia := createTestUser(t, ts, "mia", "Viewer", strongPassword)
	oscar := createTestUser(t, ts, "oscar", "Viewer", strongPassword)
	miaS, oscarS := signIn(t, ts, "mia", strongPassword), signIn(t, ts, "oscar", strongPassword)
	const web = "/api/admin/projects/web"

	// Before any role, mia is a plain Viewer everywhere.
	mustForbid(t, ts.asSession(miaS, "POST", web+"/features", map[string]any{"name": "web-early"}), string(PermCreateFeature), "web")

	// Member of web.
	mark := auditMark(t, ts)
	ts.admin("POST", web+"/access", map[string]any{"roles": []int{5}, "users": []map[string]int{{"id": mia}}, "groups": []any{}}).must(t, http.StatusOK)
	e := mustOneAudit(t, ts, mark, "project-access-added")
	if e.Project != "web" || dataField(t, e.Data, "roles") != "[5]" || dataField(t, e.Data, "users") != fmt.Sprint([]int{mia}) {
		t.Errorf("project-access-added %+v %s", e, e.Data)
	}
	// Granting again changes nothing and records nothing.
	mark = auditMark(t, ts)
	ts.admin("POST", web+"/access", map[string]any{"roles": []int{5}, "users": []map[string]int{{"id": mia}}}).must(t, http.StatusOK)
	mustNoAudit(t, ts, mark)

	ts.asSession(miaS, "POST", web+"/features", map[string]any{"name": "web-flag"}).must(t, http.StatusCreated)
	ts.asSession(miaS, "POST", web+"/features/web-flag/environments/development/on", nil).must(t, http.StatusOK)
	ts.asSession(miaS, "GET", web+"/features/web-flag", nil).must(t, http.StatusOK)
	mustForbid(t, ts.asSession(miaS, "POST", "/api/admin/projects/default/features", map[string]any{"name": "elsewhere"}),
		string(PermCreateFeature), "project default")
	ts.admin("POST", "/api/admin/projects/default/features", map[string]any{"name": "default-flag"}).must(t, http.StatusCreated)
	mustForbid(t, ts.asSession(miaS, "POST", "/api/admin/projects/default/features/default-flag/environments/production/on", nil),
		string(PermUpdateFeatureEnvironment), "environment production", "project default")
	mustForbid(t, ts.asSession(miaS, "PUT", web, map[string]any{"name": "Mine"}), string(PermUpdateProject), "project web")
	mustForbid(t, ts.asSession(miaS, "DELETE", web, nil), string(PermDeleteProject), "project web")
	mustForbid(t, ts.asSession(miaS, "POST", web+"/access", map[string]any{"roles": []int{5}, "users": []map[string]int{{"id": oscar}}}),
		string(PermProjectUserAccessWrite), "project web")
	// Root-level permissions stay out of reach.
	mustForbid(t, ts.asSession(miaS, "POST", "/api/admin/segments", map[string]any{"name": "s", "constraints": []any{}}), string(PermCreateSegment))

	// Owner of web through PUT …/users/{userId}/roles.
	mark = auditMark(t, ts)
	ts.admin("PUT", web+"/users/"+strconv.Itoa(oscar)+"/roles", map[string]any{"roles": []int{4}}).must(t, http.StatusOK)
	e = mustOneAudit(t, ts, mark, "project-access-user-roles-updated")
	if dataField(t, e.Data, "roles") != "[4]" || dataField(t, e.PreData, "roles") != "[]" || dataField(t, e.Data, "userId") != strconv.Itoa(oscar) {
		t.Errorf("roles-updated data %s, preData %s", e.Data, e.PreData)
	}
	ts.asSession(oscarS, "PUT", web, map[string]any{"name": "Web shop"}).must(t, http.StatusOK)
	ts.asSession(oscarS, "POST", web+"/features", map[string]any{"name": "oscar-flag"}).must(t, http.StatusCreated)
	ts.asSession(oscarS, "PUT", web+"/users/"+strconv.Itoa(mia)+"/roles", map[string]any{"roles": []int{5, 4, 5}}).must(t, http.StatusOK)
	var access projectAccessAnswer
	ts.asSession(miaS, "GET", web+"/access", nil).must(t, http.StatusOK).Decode(t, &access)
	if got := access.userRoles(); !slices.Equal(got[mia], []int{4, 5}) || !slices.Equal(got[oscar], []int{4}) || len(got) != 2 {
		t.Errorf("users of web: %+v", got)
	}
	if len(access.Roles) != 2 || access.Roles[0].Name != "Owner" || access.Roles[1].Name != "Member" || access.Roles[0].Type != "project" {
		t.Errorf("roles: %+v", access.Roles)
	}
	for _, u := range access.Users {
		if u.ID == mia && u.RoleID != 4 {
			t.Errorf("mia's roleId %d, want her first role 4", u.RoleID)
		}
	}

	// The older GET …/users answers the same users.
	var users struct {
		Users []struct {
			ID      int    `json:"id"`
			Name    string `json:"name"`
			AddedAt string `json:"addedAt"`
			RoleID  int    `json:"roleId"`
			Roles   []int  `json:"roles"`
		} `json:"users"`
		Roles []map[string]any `json:"roles"`
	}
	ts.admin("GET", web+"/users", nil).must(t, http.StatusOK).Decode(t, &users)
	if len(users.Users) != 2 || len(users.Roles) != 2 || users.Users[0].AddedAt == "" {
		t.Errorf("project users %+v", users)
	}

	// Removing mia's roles ends her access.
	mark = auditMark(t, ts)
	ts.asSession(oscarS, "DELETE", web+"/users/"+strconv.Itoa(mia)+"/roles", nil).must(t, http.StatusOK)
	e = mustOneAudit(t, ts, mark, "project-access-user-roles-deleted")
	if dataField(t, e.PreData, "roles") != "[4 5]" {
		t.Errorf("roles-deleted preData %s", e.PreData)
	}
	mustForbid(t, ts.asSession(miaS, "POST", web+"/features", map[string]any{"name": "web-late"}), string(PermCreateFeature))

	// Group roles apply to the members; the owner manages them.
	team := createTestGroup(t, ts, map[string]any{"name": "web-team", "users": members(mia)})
	teamRoles := web + "/groups/" + strconv.Itoa(team) + "/roles"
	mark = auditMark(t, ts)
	ts.asSession(oscarS, "PUT", teamRoles, map[string]any{"roles": []int{5}}).must(t, http.StatusOK)
	mustOneAudit(t, ts, mark, "project-access-group-roles-updated")
	ts.asSession(miaS, "POST", web+"/features", map[string]any{"name": "via-group"}).must(t, http.StatusCreated)
	ts.admin("GET", web+"/access", nil).must(t, http.StatusOK).Decode(t, &access)
	if len(access.Groups) != 1 || access.Groups[0].Name != "web-team" || !slices.Equal(access.Groups[0].Roles, []int{5}) || access.Groups[0].UserCount != 1 {
		t.Errorf("groups of web: %+v", access.Groups)
	}
	var g groupAnswer
	ts.admin("GET", groupPath(team), nil).must(t, http.StatusOK).Decode(t, &g)
	if !slices.Equal(g.Projects, []string{"web"}) {
		t.Errorf("group projects %v", g.Projects)
	}
	var profile struct {
		Projects []string `json:"projects"`
	}
	ts.asSession(miaS, "GET", "/api/admin/user/profile", nil).must(t, http.StatusOK).Decode(t, &profile)
	if !slices.Equal(profile.Projects, []string{"web"}) {
		t.Errorf("mia's profile projects %v", profile.Projects)
	}
	var list struct {
		Projects []struct {
			ID          string `json:"id"`
			MemberCount int    `json:"memberCount"`
		} `json:"projects"`
	}
	ts.admin("GET", "/api/admin/projects", nil).must(t, http.StatusOK).Decode(t, &list)
	for _, p := range list.Projects {
		if want := map[string]int{"web": 2}[p.ID]; p.MemberCount != want {
			t.Errorf("project %s: memberCount %d, want %d", p.ID, p.MemberCount, want)
		}
	}
	mark = auditMark(t, ts)
	ts.asSession(oscarS, "DELETE", teamRoles, nil).must(t, http.StatusOK)
	mustOneAudit(t, ts, mark, "project-access-group-roles-deleted")
	mustForbid(t, ts.asSession(miaS, "POST", web+"/features", map[string]any{"name": "group-gone"}), string(PermCreateFeature))

	// The older POST …/role/{roleId}/access grants to users and groups.
	mark = auditMark(t, ts)
	ts.asSession(oscarS, "POST", web+"/role/5/access", map[string]any{"users": []map[string]int{{"id": mia}}, "groups": []map[string]int{{"id": team}}}).
		must(t, http.StatusOK)
	mustAuditTypes(t, ts, mark, "project-user-added", "project-group-added")
	ts.asSession(miaS, "POST", web+"/features", map[string]any{"name": "via-role-access"}).must(t, http.StatusCreated)

	// A project's creator becomes its Owner.
	createTestUser(t, ts, "eve", "Editor", strongPassword)
	eve := signIn(t, ts, "eve", strongPassword)
	mark = auditMark(t, ts)
	ts.asSession(eve, "POST", "/api/admin/projects", map[string]any{"id": "eves"}).must(t, http.StatusCreated)
	mustAuditTypes(t, ts, mark, "project-created", "project-access-added")
	ts.asSession(eve, "GET", "/api/admin/user/profile", nil).must(t, http.StatusOK).Decode(t, &profile)
	if !slices.Equal(profile.Projects, []string{"eves"}) {
		t.Errorf("creator's profile projects %v", profile.Projects)
	}

	projectAccessErrors(t, ts, miaS, mia, team)
}

// projectAccessErrors checks each error status of the access endpoints;
// none writes an event.
func projectAccessErrors(t *testing.T, ts *testServer, viewer string, user, group int) {
	const web = "/api/admin/projects/web"
	userRoles := web + "/users/" + strconv.Itoa(user) + "/roles"
	groupRoles := web + "/groups/" + strconv.Itoa(group) + "/roles"
	someone := []map[string]int{{"id": user}}
	tests := []struct {
		name, method, path string
		body               any
		status             int
		kind, field        string
	}{
		{"no roles", "POST", web + "/access", map[string]any{"users": someone}, 400, "ValidationError", "roles"},
		{"root role", "POST", web + "/access", map[string]any{"roles": []int{1}, "users": someone}, 400, "ValidationError", "roles[0]"},
		{"unknown role", "POST", web + "/access", map[string]any{"roles": []int{5, 99}, "users": someone}, 400, "ValidationError", "roles[1]"},
		{"nobody", "POST", web + "/access", map[string]any{"roles": []int{5}, "users": []any{}, "groups": []any{}}, 400, "ValidationError", "users"},
		{"user without id", "POST", web + "/access", map[string]any{"roles": []int{5}, "users": []any{map[string]any{}}}, 400, "ValidationError", "users[0].id"},
		{"unknown user", "POST", web + "/access", map[string]any{"roles": []int{5}, "users": []map[string]int{{"id": 9999}}}, 400, "ValidationError", "users[0].id"},
		{"unknown group", "POST", web + "/access", map[string]any{"roles": []int{5}, "groups": []map[string]int{{"id": 9999}}}, 400, "ValidationError", "groups[0].id"},
		{"malformed", "POST", web + "/access", `{"roles":`, 400, "BadDataError", ""},
		{"access of unknown project", "POST", "/api/admin/projects/nope/access", map[string]any{"roles": []int{5}, "users": someone}, 404, "NotFoundError", ""},
		{"read unknown project", "GET", "/api/admin/projects/nope/access", nil, 404, "NotFoundError", ""},
		{"users of unknown project", "GET", "/api/admin/projects/nope/users", nil, 404, "NotFoundError", ""},
		{"role id not a number", "POST", web + "/role/abc/access", map[string]any{"users": someone, "groups": []any{}}, 400, "ValidationError", "roleId"},
		{"role access with root role", "POST", web + "/role/1/access", map[string]any{"users": someone, "groups": []any{}}, 400, "ValidationError", "roleId"},
		{"role access without groups", "POST", web + "/role/5/access", map[string]any{"users": someone}, 400, "ValidationError", "groups"},
		{"role access without users", "POST", web + "/role/5/access", map[string]any{"groups": []any{}}, 400, "ValidationError", "users"},
		{"unknown role in path", "POST", web + "/role/99/access", map[string]any{"users": someone, "groups": []any{}}, 404, "NotFoundError", ""},
		{"role access in unknown project", "POST", "/api/admin/projects/nope/role/5/access", map[string]any{"users": someone, "groups": []any{}}, 404, "NotFoundError", ""},
		{"set roles without roles", "PUT", userRoles, map[string]any{}, 400, "ValidationError", "roles"},
		{"set a root role", "PUT", userRoles, map[string]any{"roles": []int{2}}, 400, "ValidationError", "roles[0]"},
		{"set roles of unknown user", "PUT", web + "/users/9999/roles", map[string]any{"roles": []int{5}}, 404, "NotFoundError", ""},
		{"set roles of bad user id", "PUT", web + "/users/x/roles", map[string]any{"roles": []int{5}}, 400, "ValidationError", "userId"},
		{"set roles of unknown group", "PUT", web + "/groups/9999/roles", map[string]any{"roles": []int{5}}, 404, "NotFoundError", ""},
		{"set roles in unknown project", "PUT", "/api/admin/projects/nope/groups/" + strconv.Itoa(group) + "/roles", map[string]any{"roles": []int{5}}, 404, "NotFoundError", ""},
		{"remove roles of unknown user", "DELETE", web + "/users/9999/roles", nil, 404, "NotFoundError", ""},
		{"remove roles not held", "DELETE", "/api/admin/projects/default/users/" + strconv.Itoa(user) + "/roles", nil, 404, "NotFoundError", ""},
		{"remove group roles not held", "DELETE", "/api/admin/projects/default/groups/" + strconv.Itoa(group) + "/roles", nil, 404, "NotFoundError", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mark := auditMark(t, ts)
			mustErrorRecord(t, ts.admin(tt.method, tt.path, tt.body), tt.status, tt.kind, tt.field)
			mustNoAudit(t, ts, mark)
		})
	}

	mark := auditMark(t, ts)
	for _, path := range []string{web + "/access", web + "/role/5/access"} {
		mustErrorRecord(t, ts.request("POST", path, testAdminToken, `{"roles":[5],"users":[],"groups":[]}`, "Content-Type", "text/plain"), 415, "ContentTypeError", "")
	}
	for _, path := range []string{userRoles, groupRoles} {
		mustErrorRecord(t, ts.request("PUT", path, testAdminToken, `{"roles":[5]}`, "Content-Type", "text/plain"), 415, "ContentTypeError", "")
	}
	routes := []struct {
		method, path string
		perm         Permission
	}{
		{"GET", web + "/users", PermRead},
		{"GET", web + "/access", PermRead},
		{"POST", web + "/access", PermProjectUserAccessWrite},
		{"POST", web + "/role/5/access", PermProjectUserAccessWrite},
		{"PUT", userRoles, PermProjectUserAccessWrite},
		{"DELETE", userRoles, PermProjectUserAccessWrite},
		{"PUT", groupRoles, PermProjectGroupAccessWrite},
		{"DELETE", groupRoles, PermProjectGroupAccessWrite},
	}
	body := map[string]any{"roles": []int{5}, "users": []map[string]int{{"id": user}}, "groups": []any{}}
	for _, rt := range routes {
		mustErrorRecord(t, ts.request(rt.method, rt.path, "", body), 401, "AuthenticationRequired", "")
		if rt.perm != PermRead {
			// viewer is a Member of web: it may read, not manage access.
			mustForbid(t, ts.asSession(viewer, rt.method, rt.path, body), string(rt.perm), "project web")
		}
	}
	// A plain Viewer may read access lists, like everything else.
	ts.asSession(viewer, "GET", "/api/admin/projects/default/access", nil).must(t, http.StatusOK)
	mustNoAudit(t, ts, mark)
}

// TestAccessAnswersMatchOpenAPI checks the requests and answers of the
// group and project access endpoints against the served document.
func TestAccessAnswersMatchOpenAPI(t *testing.T) {
	ts := newTestServer(t)
	c := newOAChecker(t, ts)
	tok := testAdminToken
	ann := createTestUser(t, ts, "ann", "Viewer", strongPassword)
	c.do("POST", "/api/admin/projects", tok, map[string]any{"id": "web", "name": "Web"}, http.StatusCreated)

	var g groupAnswer
	c.do("POST", "/api/admin/groups", tok, map[string]any{"name": "team", "description": "d", "mappingsSSO": []string{"x"}, "rootRole": 3, "users": members(ann)},
		http.StatusCreated).Decode(t, &g)
	group := groupPath(g.ID)
	c.do("GET", "/api/admin/groups", tok, nil, http.StatusOK)
	c.do("GET", group, tok, nil, http.StatusOK)
	c.do("PUT", group, tok, map[string]any{"name": "team", "description": nil, "rootRole": nil, "users": members(ann)}, http.StatusOK)

	const web = "/api/admin/projects/web"
	who := []map[string]int{{"id": ann}}
	c.do("POST", web+"/access", tok, map[string]any{"roles": []int{5}, "users": who, "groups": []map[string]int{{"id": g.ID}}}, http.StatusOK)
	c.do("POST", web+"/role/4/access", tok, map[string]any{"users": who, "groups": []any{}}, http.StatusOK)
	c.do("GET", web+"/access", tok, nil, http.StatusOK)
	c.do("GET", web+"/users", tok, nil, http.StatusOK)
	c.do("GET", group, tok, nil, http.StatusOK)
	c.do("PUT", web+"/users/"+strconv.Itoa(ann)+"/roles", tok, map[string]any{"roles": []int{4}}, http.StatusOK)
	c.do("PUT", web+"/groups/"+strconv.Itoa(g.ID)+"/roles", tok, map[string]any{"roles": []int{4, 5}}, http.StatusOK)
	c.do("DELETE", web+"/users/"+strconv.Itoa(ann)+"/roles", tok, nil, http.StatusOK)
	c.do("DELETE", web+"/groups/"+strconv.Itoa(g.ID)+"/roles", tok, nil, http.StatusOK)
	c.do("POST", "/api/admin/groups", tok, map[string]any{"name": "team"}, http.StatusConflict)
	c.do("PUT", web+"/users/9999/roles", tok, map[string]any{"roles": []int{4}}, http.StatusNotFound)
	cookie := signIn(t, ts, "ann", strongPassword)
	c.do("GET", "/api/admin/user/profile", "", nil, http.StatusUnauthorized)
	ts.asSession(cookie, "GET", "/api/admin/user/profile", nil).must(t, http.StatusOK)
	c.do("DELETE", group, tok, nil, http.StatusOK)
}
