package server

import (
	"net/http"
	"testing"
)

func TestPersonalDashboard(t *testing.T) {
	ts := newTestServer(t)
	ref := unleashReference(t)
	for _, id := range []string{"web", "ops", "other"} {
		ts.admin("POST", "/api/admin/projects", map[string]any{"id": id, "name": id}).must(t, http.StatusCreated)
	}
	ed := createTestUser(t, ts, "ed", "Editor", strongPassword)
	owner := createTestUser(t, ts, "olga", "Viewer", "")
	ts.admin("POST", "/api/admin/projects/web/access", map[string]any{"roles": []int{5}, "users": []map[string]int{{"id": ed}}}).must(t, http.StatusOK)
	ts.admin("POST", "/api/admin/projects/web/access", map[string]any{"roles": []int{4}, "users": []map[string]int{{"id": owner}}}).must(t, http.StatusOK)
	ts.admin("POST", "/api/admin/projects/other/features", map[string]any{"name": "theirs"}).must(t, http.StatusCreated)
	ts.admin("POST", "/api/admin/projects/other/features", map[string]any{"name": "starred"}).must(t, http.StatusCreated)
	cookie := signIn(t, ts, "ed", strongPassword)
	ts.asSession(cookie, "POST", "/api/admin/projects/web/features", map[string]any{"name": "mine"}).must(t, http.StatusCreated)
	ts.asSession(cookie, "POST", "/api/admin/projects/ops/favorites", nil).must(t, http.StatusOK)
	ts.asSession(cookie, "POST", "/api/admin/projects/other/features/starred/favorites", nil).must(t, http.StatusOK)

	res := ts.asSession(cookie, "GET", "/api/admin/personal-dashboard", nil).must(t, http.StatusOK)
	matchesUnleash(t, ref, "personalDashboardSchema", res.Body)
	var d struct {
		Projects []struct {
			ID                        string
			MemberCount, FeatureCount int
		}
		Flags         []struct{ Name, Project string }
		Admins        []struct{ ID int }
		ProjectOwners []struct{ Name string }
	}
	res.Decode(t, &d)
	if len(d.Projects) != 2 || d.Projects[0].ID != "ops" || d.Projects[1].ID != "web" || d.Projects[1].MemberCount != 2 || d.Projects[1].FeatureCount != 1 {
		t.Errorf("projects %+v", d.Projects)
	}
	if len(d.Flags) != 2 || d.Flags[0].Name != "mine" || d.Flags[1].Name != "starred" {
		t.Errorf("flags %+v", d.Flags)
	}
	if len(d.Admins) != 1 || d.Admins[0].ID != 1 {
		t.Errorf("admins %+v", d.Admins)
	}
	if len(d.ProjectOwners) != 1 || d.ProjectOwners[0].Name != "olga" {
		t.Errorf("owners %+v", d.ProjectOwners)
	}
	res = ts.asSession(cookie, "GET", "/api/admin/personal-dashboard/web", nil).must(t, http.StatusOK)
	matchesUnleash(t, ref, "personalDashboardProjectDetailsSchema", res.Body)
	var p struct {
		Owners []struct{ OwnerType, Name string }
		Roles  []struct {
			ID   int
			Type string
		}
		LatestEvents     []struct{ ID int }
		OnboardingStatus struct{ Status string }
		Insights         map[string]any
	}
	res.Decode(t, &p)
	if len(p.Owners) != 1 || p.Owners[0].Name != "olga" || len(p.Roles) != 1 || p.Roles[0].ID != 5 || p.Roles[0].Type != "project" ||
		len(p.LatestEvents) == 0 || p.OnboardingStatus.Status != "first-flag-created" || p.Insights["totalFlags"] != float64(1) {
		t.Errorf("project details %+v", p)
	}
	ts.asSession(cookie, "GET", "/api/admin/personal-dashboard/ops", nil).must(t, http.StatusOK).Decode(t, &p)
	if len(p.Owners) != 1 || p.Owners[0].OwnerType != "system" || len(p.Roles) != 0 {
		t.Errorf("ops details %+v", p)
	}
	ts.asSession(cookie, "GET", "/api/admin/personal-dashboard/nope", nil).must(t, http.StatusNotFound)
	ts.admin("GET", "/api/admin/personal-dashboard/web", nil).must(t, http.StatusBadRequest)
	ts.admin("GET", "/api/admin/personal-dashboard", nil).must(t, http.StatusBadRequest)
	ts.request("GET", "/api/admin/personal-dashboard", "", nil).must(t, http.StatusUnauthorized)
}
