package server

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// auditTypes lists the types of the events recorded after mark, oldest
// first.
func auditTypes(t *testing.T, ts *testServer, mark int64) []string {
	t.Helper()
	types := []string{}
	for _, e := range auditAfter(t, ts, mark) {
		types = append(types, e.Type)
	}
	return types
}

// mustAuditTypes checks the types of the events recorded after mark.
func mustAuditTypes(t *testing.T, ts *testServer, mark int64, want ...string) {
	t.Helper()
	if got := auditTypes(t, ts, mark); !slices.Equal(got, want) {
		t.Fatalf("events %v, want %v", got, want)
	}
}

// dataField reads one property of an event's data or preData, formatted
// with fmt.Sprint ("DX", "[4 5]", "3"); databases may reformat the JSON.
func dataField(t *testing.T, raw json.RawMessage, name string) string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("event data %s: %v", raw, err)
	}
	return fmt.Sprint(m[name])
}

// groupAnswer is a group as the API answers it.
type groupAnswer struct {
	ID          int      `json:"id"`
	Name        string   `json:"name"`
	Description *string  `json:"description"`
	MappingsSSO []string `json:"mappingsSSO"`
	RootRole    *int     `json:"rootRole"`
	CreatedBy   *string  `json:"createdBy"`
	CreatedAt   *string  `json:"createdAt"`
	Users       []struct {
		JoinedAt  string  `json:"joinedAt"`
		CreatedBy *string `json:"createdBy"`
		User      struct {
			ID       int     `json:"id"`
			Username *string `json:"username"`
		} `json:"user"`
	} `json:"users"`
	Projects  []string `json:"projects"`
	UserCount int      `json:"userCount"`
}

func (g groupAnswer) userIDs() []int {
	ids := []int{}
	for _, u := range g.Users {
		ids = append(ids, u.User.ID)
	}
	return ids
}

// createTestGroup creates a group through the API and returns its id.
func createTestGroup(t *testing.T, ts *testServer, body map[string]any) int {
	t.Helper()
	var g groupAnswer
	ts.admin("POST", "/api/admin/groups", body).must(t, http.StatusCreated).Decode(t, &g)
	return g.ID
}

// members is the users property of a group body.
func members(ids ...int) []map[string]any {
	out := []map[string]any{}
	for _, id := range ids {
		out = append(out, map[string]any{"user": map[string]any{"id": id}})
	}
	return out
}

func groupPath(id int) string { return "/api/admin/groups/" + strconv.Itoa(id) }

func TestGroups(t *testing.T) { groupFlow(t, newTestServer(t)) }

// groupFlow drives every group endpoint through its success path, its
// error statuses and its events.
func groupFlow(t *testing.T, ts *testServer) {
	ann := createTestUser(t, ts, "ann", "Viewer", "")
	bob := createTestUser(t, ts, "bob", "Viewer", "")

	mark := auditMark(t, ts)
	res := ts.admin("POST", "/api/admin/groups", map[string]any{
		"name": "  DX  ", "description": "Developer experience", "mappingsSSO": []string{"sso-dx", "", "sso-dx", "sso-all"},
		"rootRole": 2, "users": members(ann, ann),
	}).must(t, http.StatusCreated)
	var dx groupAnswer
	res.Decode(t, &dx)
	if loc := res.Header.Get("Location"); loc != groupPath(dx.ID) {
		t.Errorf("location %q", loc)
	}
	if dx.Name != "DX" || dx.Description == nil || *dx.Description != "Developer experience" ||
		!slices.Equal(dx.MappingsSSO, []string{"sso-dx", "sso-all"}) || dx.RootRole == nil || *dx.RootRole != 2 ||
		dx.CreatedBy == nil || dx.CreatedAt == nil || !slices.Equal(dx.userIDs(), []int{ann}) || dx.UserCount != 1 ||
		dx.Projects == nil || len(dx.Projects) != 0 || dx.Users[0].JoinedAt == "" || dx.Users[0].CreatedBy == nil {
		t.Errorf("created group %s", res.Body)
	}
	mustAuditTypes(t, ts, mark, "group-created", "group-user-added")
	events := auditAfter(t, ts, mark)
	if dataField(t, events[0].Data, "name") != "DX" || dataField(t, events[1].Data, "userId") != strconv.Itoa(ann) {
		t.Errorf("event data %s / %s", events[0].Data, events[1].Data)
	}

	var list struct {
		Groups []groupAnswer `json:"groups"`
	}
	ts.admin("GET", "/api/admin/groups", nil).must(t, http.StatusOK).Decode(t, &list)
	if len(list.Groups) != 1 || list.Groups[0].ID != dx.ID || list.Groups[0].UserCount != 1 {
		t.Errorf("group list %+v", list)
	}
	var got groupAnswer
	ts.admin("GET", groupPath(dx.ID), nil).must(t, http.StatusOK).Decode(t, &got)
	if got.Name != "DX" || !slices.Equal(got.userIDs(), []int{ann}) {
		t.Errorf("group %+v", got)
	}

	// PUT overrides: what is left out is cleared, members are replaced.
	mark = auditMark(t, ts)
	ts.admin("PUT", groupPath(dx.ID), map[string]any{"name": "DX team", "users": members(bob)}).must(t, http.StatusOK).Decode(t, &got)
	if got.Name != "DX team" || got.Description != nil || len(got.MappingsSSO) != 0 || got.RootRole != nil ||
		!slices.Equal(got.userIDs(), []int{bob}) || got.UserCount != 1 {
		t.Errorf("updated group %+v", got)
	}
	mustAuditTypes(t, ts, mark, "group-updated", "group-user-removed", "group-user-added")
	if e := auditAfter(t, ts, mark)[0]; dataField(t, e.PreData, "name") != "DX" || dataField(t, e.Data, "name") != "DX team" {
		t.Errorf("group-updated data %s, preData %s", e.Data, e.PreData)
	}

	other := createTestGroup(t, ts, map[string]any{"name": "Other"})
	viewer := viewerSession(t, ts)
	tests := []struct {
		name, method, path string
		body               any
		status             int
		kind, field        string
	}{
		{"create taken name", "POST", "/api/admin/groups", map[string]any{"name": "DX team"}, 409, "NameExistsError", ""},
		{"rename to taken name", "PUT", groupPath(other), map[string]any{"name": "DX team"}, 409, "NameExistsError", ""},
		{"no name", "POST", "/api/admin/groups", map[string]any{"description": "x"}, 400, "ValidationError", "name"},
		{"blank name", "PUT", groupPath(other), map[string]any{"name": "  "}, 400, "ValidationError", "name"},
		{"project role as root role", "POST", "/api/admin/groups", map[string]any{"name": "g1", "rootRole": 4}, 400, "ValidationError", "rootRole"},
		{"unknown root role", "PUT", groupPath(other), map[string]any{"name": "g1", "rootRole": 99}, 400, "ValidationError", "rootRole"},
		{"root role as text", "POST", "/api/admin/groups", map[string]any{"name": "g1", "rootRole": "Editor"}, 400, "ValidationError", ""},
		{"member without id", "POST", "/api/admin/groups", map[string]any{"name": "g1", "users": []any{map[string]any{"user": map[string]any{}}}}, 400, "ValidationError", "users[0].user.id"},
		{"unknown member", "PUT", groupPath(other), map[string]any{"name": "Other", "users": members(bob, 9999)}, 400, "ValidationError", "users[1].user.id"},
		{"name with NUL", "POST", "/api/admin/groups", map[string]any{"name": "a\x00b"}, 400, "ValidationError", "name"},
		{"malformed JSON", "POST", "/api/admin/groups", `{"name":`, 400, "BadDataError", ""},
		{"bad group id", "PUT", "/api/admin/groups/abc", map[string]any{"name": "x"}, 400, "ValidationError", "groupId"},
		{"update missing", "PUT", groupPath(9999), map[string]any{"name": "x"}, 404, "NotFoundError", ""},
		{"get missing", "GET", groupPath(9999), nil, 404, "NotFoundError", ""},
		{"delete missing", "DELETE", groupPath(9999), nil, 404, "NotFoundError", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mark := auditMark(t, ts)
			mustErrorRecord(t, ts.admin(tt.method, tt.path, tt.body), tt.status, tt.kind, tt.field)
			mustNoAudit(t, ts, mark)
		})
	}
	mark = auditMark(t, ts)
	mustErrorRecord(t, ts.request("POST", "/api/admin/groups", testAdminToken, `{"name":"g2"}`, "Content-Type", "text/plain"), 415, "ContentTypeError", "")
	mustErrorRecord(t, ts.request("PUT", groupPath(other), testAdminToken, `{"name":"g2"}`, "Content-Type", "text/plain"), 415, "ContentTypeError", "")
	for _, m := range []struct{ method, path string }{{"GET", "/api/admin/groups"}, {"POST", "/api/admin/groups"}, {"GET", groupPath(dx.ID)}, {"PUT", groupPath(dx.ID)}, {"DELETE", groupPath(dx.ID)}} {
		mustErrorRecord(t, ts.request(m.method, m.path, "", map[string]any{"name": "g3"}), 401, "AuthenticationRequired", "")
	}
	for _, m := range []struct{ method, path string }{{"POST", "/api/admin/groups"}, {"PUT", groupPath(dx.ID)}, {"DELETE", groupPath(dx.ID)}} {
		res := ts.asSession(viewer, m.method, m.path, map[string]any{"name": "g3"})
		mustErrorRecord(t, res, 403, "NoAccessError", "")
		if !strings.Contains(string(res.Body), string(PermAdmin)) {
			t.Errorf("%s %s: 403 should name %s: %s", m.method, m.path, PermAdmin, res.Body)
		}
	}
	// Any signed-in user may read groups.
	ts.asSession(viewer, "GET", "/api/admin/groups", nil).must(t, http.StatusOK)
	ts.asSession(viewer, "GET", groupPath(dx.ID), nil).must(t, http.StatusOK)
	mustNoAudit(t, ts, mark)

	// A deleted user leaves the groups.
	ts.admin("DELETE", "/api/admin/user-admin/"+strconv.Itoa(bob), nil).must(t, http.StatusOK)
	ts.admin("GET", groupPath(dx.ID), nil).must(t, http.StatusOK).Decode(t, &got)
	if len(got.Users) != 0 || got.UserCount != 0 {
		t.Errorf("group after deleting its member: %+v", got)
	}

	mark = auditMark(t, ts)
	ts.admin("DELETE", groupPath(dx.ID), nil).must(t, http.StatusOK)
	e := mustOneAudit(t, ts, mark, "group-deleted")
	if dataField(t, e.PreData, "name") != "DX team" {
		t.Errorf("group-deleted preData %s", e.PreData)
	}
	ts.admin("GET", groupPath(dx.ID), nil).must(t, http.StatusNotFound)
	ts.admin("DELETE", groupPath(dx.ID), nil).must(t, http.StatusNotFound)
}

// TestGroupRootRole checks that a group's root role applies to its
// members: a Viewer in a group with root role Editor can create flags, and
// loses that when leaving the group. A weaker group role takes nothing
// away.
func TestGroupRootRole(t *testing.T) { groupRootRoleFlow(t, newTestServer(t)) }

func groupRootRoleFlow(t *testing.T, ts *testServer) {
	vera := createTestUser(t, ts, "vera", "Viewer", strongPassword)
	cookie := signIn(t, ts, "vera", strongPassword)
	flags := "/api/admin/projects/default/features"

	res := ts.asSession(cookie, "POST", flags, map[string]any{"name": "before-group"})
	mustErrorRecord(t, res, 403, "NoAccessError", "")
	if !strings.Contains(string(res.Body), string(PermCreateFeature)) {
		t.Errorf("403 should name %s: %s", PermCreateFeature, res.Body)
	}

	editors := createTestGroup(t, ts, map[string]any{"name": "editors", "rootRole": 2, "users": members(vera)})
	ts.asSession(cookie, "POST", flags, map[string]any{"name": "in-group"}).must(t, http.StatusCreated)
	var me struct {
		User        map[string]any      `json:"user"`
		Permissions []map[string]string `json:"permissions"`
	}
	ts.asSession(cookie, "GET", "/api/admin/user", nil).must(t, http.StatusOK).Decode(t, &me)
	if me.User["rootRole"] != float64(3) || !slices.ContainsFunc(me.Permissions, func(p map[string]string) bool { return p["permission"] == string(PermCreateFeature) }) {
		t.Errorf("me of a Viewer in an Editor group: %+v", me)
	}
	var profile struct {
		Groups []map[string]any `json:"groups"`
	}
	ts.asSession(cookie, "GET", "/api/admin/user/profile", nil).must(t, http.StatusOK).Decode(t, &profile)
	if len(profile.Groups) != 1 || profile.Groups[0]["name"] != "editors" {
		t.Errorf("profile groups %+v", profile.Groups)
	}
	// Still not an Admin.
	ts.asSession(cookie, "GET", "/api/admin/user-admin", nil).must(t, http.StatusForbidden)

	// A personal access token acts with the same effective role.
	var pat struct {
		Secret string `json:"secret"`
	}
	ts.asSession(cookie, "POST", "/api/admin/user/tokens", map[string]any{"description": "ci", "expiresAt": "2099-01-01T00:00:00Z"}).
		must(t, http.StatusCreated).Decode(t, &pat)
	ts.request("POST", flags, pat.Secret, map[string]any{"name": "by-pat"}).must(t, http.StatusCreated)

	ts.admin("PUT", groupPath(editors), map[string]any{"name": "editors", "rootRole": 2}).must(t, http.StatusOK)
	mustErrorRecord(t, ts.asSession(cookie, "POST", flags, map[string]any{"name": "after-group"}), 403, "NoAccessError", "")
	mustErrorRecord(t, ts.request("POST", flags, pat.Secret, map[string]any{"name": "after-group"}), 403, "NoAccessError", "")

	// An Editor in a Viewer group stays an Editor.
	eddieID := createTestUser(t, ts, "eddie", "Editor", strongPassword)
	eddie := signIn(t, ts, "eddie", strongPassword)
	createTestGroup(t, ts, map[string]any{"name": "viewers", "rootRole": 3, "users": members(eddieID)})
	ts.asSession(eddie, "POST", flags, map[string]any{"name": "by-eddie"}).must(t, http.StatusCreated)
}

// fuzzSend sends body in-process with the admin token, fails on any 5xx
// and returns the status.
func fuzzSend(t testing.TB, h http.Handler, method, path string, body []byte) int {
	t.Helper()
	req := httptest.NewRequest(method, path, strings.NewReader(string(body)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", testAdminToken)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code >= 500 {
		t.Fatalf("%s %s %q: status %d: %s", method, path, body, rec.Code, rec.Body)
	}
	return rec.Code
}

func FuzzGroupBodies(f *testing.F) {
	for _, seed := range []string{
		`{"name":"a"}`, `{"name":"b","description":null,"mappingsSSO":["x"],"rootRole":1,"users":[{"user":{"id":1}}]}`,
		`{"name":"c","rootRole":2.5}`, `{"name":"d","rootRole":99999999999999999999}`, `{"name":"\u0000"}`,
		`{"name":"e","users":[{"user":{"id":-1}}]}`, `{"name":"f","users":[{}]}`, `{"name":"g","users":[null]}`,
		`{"name":"h","mappingsSSO":[null,"\u0000"]}`, `null`, `[]`, `{"name":["x"]}`, `{"name":"` + strings.Repeat("x", 300) + `"}`,
	} {
		f.Add([]byte(seed))
	}
	h := newFuzzServer(f)
	// The target of the PUTs, group 1.
	if code := fuzzSend(f, h, "POST", "/api/admin/groups", []byte(`{"name":"fuzz-target"}`)); code != http.StatusCreated {
		f.Fatalf("creating the group to update: status %d", code)
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		fuzzSend(t, h, "POST", "/api/admin/groups", body)
		fuzzSend(t, h, "PUT", "/api/admin/groups/1", body)
	})
}
