package server

import (
	"encoding/csv"
	"net/http"
	"slices"
	"strings"
	"testing"
)

func TestInstanceStats(t *testing.T) {
	ts := newTestServer(t)
	ref := unleashReference(t)
	ts.admin("POST", "/api/admin/projects/default/features", map[string]any{"name": "a"}).must(t, http.StatusCreated)
	ts.admin("POST", "/api/admin/projects/default/features/a/environments/development/strategies", map[string]any{"name": "default",
		"constraints": []map[string]any{{"contextName": "userId", "operator": "IN", "values": []string{"1", "2", "3"}}}}).must(t, http.StatusOK)
	ts.admin("POST", "/api/admin/projects/default/features/a/environments/development/strategies", map[string]any{"name": "default"}).must(t, http.StatusOK)

	type stats struct {
		InstanceID               string
		Users, FeatureToggles    int
		APITokens                map[string]int
		MaxEnvironmentStrategies int
		MaxConstraints           int
		MaxConstraintValues      int
		Sum                      string
	}
	get := func() stats {
		t.Helper()
		res := ts.admin("GET", "/api/admin/instance-admin/statistics", nil).must(t, http.StatusOK)
		matchesUnleash(t, ref, "instanceAdminStatsSchema", res.Body)
		var s stats
		res.Decode(t, &s)
		return s
	}
	mark := auditMark(t, ts)
	s1, s2 := get(), get()
	if s1.InstanceID == "" || s1.InstanceID != s2.InstanceID || len(s1.Sum) != 64 {
		t.Errorf("instance id %q / %q, sum %q", s1.InstanceID, s2.InstanceID, s1.Sum)
	}
	if ev := auditAfter(t, ts, mark); len(ev) != 0 {
		t.Errorf("reading statistics wrote events %+v", ev)
	}
	if s1.Users != 1 || s1.FeatureToggles != 1 || s1.APITokens["admin"] != 1 || s1.APITokens["client"] != 2 || s1.APITokens["frontend"] != 1 ||
		s1.MaxEnvironmentStrategies != 2 || s1.MaxConstraints != 1 || s1.MaxConstraintValues != 3 {
		t.Errorf("stats %+v", s1)
	}

	res := ts.admin("GET", "/api/admin/instance-admin/statistics/csv", nil).must(t, http.StatusOK)
	if ct := res.Header.Get("Content-Type"); ct != "text/csv" {
		t.Errorf("Content-Type %q", ct)
	}
	rows, err := csv.NewReader(strings.NewReader(string(res.Body))).ReadAll()
	if err != nil || len(rows) != 2 || len(rows[0]) != len(rows[1]) {
		t.Fatalf("CSV %q: %v", res.Body, err)
	}
	i := slices.Index(rows[0], "apiTokensclient")
	if i < 0 || rows[1][i] != "2" || !slices.Contains(rows[0], "clientApps30d") {
		t.Errorf("CSV header %v", rows[0])
	}

	createTestUser(t, ts, "ed", "Editor", strongPassword)
	cookie := signIn(t, ts, "ed", strongPassword)
	for _, path := range []string{"/api/admin/instance-admin/statistics", "/api/admin/instance-admin/statistics/csv"} {
		ts.asSession(cookie, "GET", path, nil).must(t, http.StatusForbidden)
		ts.request("GET", path, "", nil).must(t, http.StatusUnauthorized)
	}
}
