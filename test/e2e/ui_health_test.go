package e2e

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"
)

// healthFlow opens a project's health and lead-time page and checks its
// figures against the admin API's health report and DORA answers.
func healthFlow(t *testing.T, s *uiSuite) {
	adminCall(t, s.url, "POST", "/api/admin/projects", obj{"id": "checkup", "name": "Checkup"})
	for _, name := range []string{"checkup-a", "checkup-b", "checkup-c", "checkup-d"} {
		adminCall(t, s.url, "POST", "/api/admin/projects/checkup/features", obj{"name": name})
	}
	adminCall(t, s.url, "POST", "/api/admin/projects/checkup/stale", obj{"features": []string{"checkup-d"}, "stale": true})
	adminCall(t, s.url, "POST", "/api/admin/projects/checkup/features/checkup-a/environments/production/strategies", obj{"name": "default"})
	adminCall(t, s.url, "POST", "/api/admin/projects/checkup/features/checkup-a/environments/production/on", nil)

	var rep struct {
		Health     int `json:"health"`
		StaleCount int `json:"staleCount"`
	}
	json.Unmarshal(adminCall(t, s.url, "GET", "/api/admin/projects/checkup/health-report", nil), &rep)
	var dora struct {
		ProjectAverage float64 `json:"projectAverage"`
		Features       []struct {
			Name string `json:"name"`
		} `json:"features"`
	}
	json.Unmarshal(adminCall(t, s.url, "GET", "/api/admin/projects/checkup/dora", nil), &dora)
	if rep.Health != 75 || rep.StaleCount != 1 || len(dora.Features) != 1 {
		t.Fatalf("the API gives health %d, %d stale, DORA %+v", rep.Health, rep.StaleCount, dora)
	}

	f := s.newFlow(t)
	f.login("admin", s.password)
	f.visit("/projects/checkup", "Checkup")
	f.run("opening health", click(`a[href="/projects/checkup/health"]`), waitText("h1", "Health of Checkup"))
	if got := f.textOf(`p.health-rating strong`); got != fmt.Sprintf("%d %%", rep.Health) {
		t.Errorf("the page shows health %q, the API %d", got, rep.Health)
	}
	if got := f.textOf(`[data-figure="stale"] dd`); got != "1" {
		t.Errorf("stale figure %q", got)
	}
	if got := f.textOf(`li[data-flag="checkup-d"]`); !strings.Contains(got, "checkup-d") {
		t.Errorf("the stale flag is not listed: %q", got)
	}
	want := fmt.Sprintf("%v days", math.Round(dora.ProjectAverage*10)/10)
	if got := f.textOf(`[data-figure="projectAverage"] strong`); got != want {
		t.Errorf("lead time %q, the API %q", got, want)
	}
	if n := f.count(`tr[data-dora="checkup-a"]`); n != 1 {
		t.Error("checkup-a is not in the lead-time table")
	}
	f.screenshot("project-health")
}
