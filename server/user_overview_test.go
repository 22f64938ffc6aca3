package server

import (
	"context"
	"net/http"
	"slices"
	"strconv"
	"testing"

	"github.com/signalbox/signalbox/store"
)

func TestUserRoles(t *testing.T) {
	ts := newTestServer(t)
	ref := unleashReference(t)
	ts.admin("POST", "/api/admin/projects", map[string]any{"id": "web", "name": "Web"}).must(t, http.StatusCreated)
	vera := createTestUser(t, ts, "vera", "Viewer", strongPassword)
	// Member (5) of default directly; Owner (4) of web through a group
	// with the Editor root role.
	ts.admin("POST", "/api/admin/projects/default/access", map[string]any{"roles": []int{5}, "users": []map[string]int{{"id": vera}}}).must(t, http.StatusOK)
	group := createTestGroup(t, ts, map[string]any{"name": "web-team", "rootRole": 2, "users": []map[string]any{{"user": map[string]int{"id": vera}}}})
	ts.admin("POST", "/api/admin/projects/web/access", map[string]any{"roles": []int{4}, "groups": []map[string]int{{"id": group}}}).must(t, http.StatusOK)
	cookie := signIn(t, ts, "vera", strongPassword)

	roles := func(res response) []string {
		t.Helper()
		matchesUnleash(t, ref, "rolesSchema", res.Body)
		var a struct {
			Roles []struct{ Name, Type string }
		}
		res.Decode(t, &a)
		var out []string
		for _, r := range a.Roles {
			out = append(out, r.Type+":"+r.Name)
		}
		return out
	}
	for _, tt := range []struct {
		query string
		want  []string
	}{
		{"", []string{"root:Editor", "project:Member", "project:Owner"}},
		{"?projectId=web", []string{"root:Editor", "project:Owner"}},
		{"?projectId=nowhere", []string{"root:Editor"}},
	} {
		got := roles(ts.asSession(cookie, "GET", "/api/admin/user/roles"+tt.query, nil).must(t, http.StatusOK))
		if !slices.Equal(got, tt.want) {
			t.Errorf("%q: %v, want %v", tt.query, got, tt.want)
		}
	}
	if got := roles(ts.admin("GET", "/api/admin/user/roles", nil).must(t, http.StatusOK)); !slices.Equal(got, []string{"root:Admin"}) {
		t.Errorf("admin token: %v", got)
	}
	ts.request("GET", "/api/admin/user/roles", "", nil).must(t, http.StatusUnauthorized)
	ts.request("GET", "/api/admin/user/roles", testClientToken, nil).must(t, http.StatusForbidden)
	ts.admin("GET", "/api/admin/user/roles?projectId=a%00b", nil).must(t, http.StatusBadRequest)
}

func TestUsersAndGroupsBase(t *testing.T) {
	ts := newTestServer(t)
	ref := unleashReference(t)
	ann := createTestUser(t, ts, "ann", "Viewer", strongPassword)
	gone := createTestUser(t, ts, "gone", "Viewer", "")
	ts.admin("DELETE", "/api/admin/user-admin/"+strconv.Itoa(gone), nil).must(t, http.StatusOK)
	createTestGroup(t, ts, map[string]any{"name": "team", "users": []map[string]any{{"user": map[string]int{"id": ann}}}})
	addServiceAdmin(t, ts)

	cookie := signIn(t, ts, "ann", strongPassword)
	res := ts.asSession(cookie, "GET", "/api/admin/user-admin/access", nil).must(t, http.StatusOK)
	matchesUnleash(t, ref, "usersGroupsBaseSchema", res.Body)
	var a struct {
		Users []struct {
			ID       int
			Username string
		}
		Groups []struct {
			Name      string
			UserCount int
		}
	}
	res.Decode(t, &a)
	var names []string
	for _, u := range a.Users {
		names = append(names, u.Username)
	}
	if !slices.Equal(names, []string{"admin", "ann"}) {
		t.Errorf("users %v", names)
	}
	if len(a.Groups) != 1 || a.Groups[0].Name != "team" || a.Groups[0].UserCount != 1 {
		t.Errorf("groups %+v", a.Groups)
	}
	ts.request("GET", "/api/admin/user-admin/access", "", nil).must(t, http.StatusUnauthorized)
}

// addServiceAdmin stores a service account with the Admin root role.
func addServiceAdmin(t *testing.T, ts *testServer) {
	t.Helper()
	err := ts.srv.store.Update(context.Background(), func(tx store.Tx) error {
		_, err := tx.CreateUser(context.Background(), store.User{Username: "bot", RootRole: store.RoleAdmin, AccountType: store.AccountService})
		if err == nil {
			_, err = tx.AppendEvent(context.Background(), store.Event{Type: "service-account-created", CreatedBy: "test"})
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestAdminCount(t *testing.T) {
	ts := newTestServer(t)
	ref := unleashReference(t)
	createTestUser(t, ts, "ada", "Admin", strongPassword)
	createTestUser(t, ts, "sso-admin", "Admin", "")
	createTestUser(t, ts, "ed", "Editor", strongPassword)
	gone := createTestUser(t, ts, "gone", "Admin", "")
	ts.admin("DELETE", "/api/admin/user-admin/"+strconv.Itoa(gone), nil).must(t, http.StatusOK)
	addServiceAdmin(t, ts)
	res := ts.admin("GET", "/api/admin/user-admin/admin-count", nil).must(t, http.StatusOK)
	matchesUnleash(t, ref, "adminCountSchema", res.Body)
	var c map[string]int
	res.Decode(t, &c)
	// The bootstrap admin has a password.
	if c["password"] != 2 || c["noPassword"] != 1 || c["service"] != 1 {
		t.Errorf("counts %v", c)
	}
	cookie := signIn(t, ts, "ed", strongPassword)
	ts.asSession(cookie, "GET", "/api/admin/user-admin/admin-count", nil).must(t, http.StatusForbidden)
	ts.request("GET", "/api/admin/user-admin/admin-count", "", nil).must(t, http.StatusUnauthorized)
}
