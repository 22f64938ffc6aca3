package server

import (
	"net/http"
	"testing"
)

func TestProjectInsights(t *testing.T) {
	ts := newTestServer(t)
	plantReportProject(t, ts)
	c := newOAChecker(t, ts)
	var got projectInsights
	c.do("GET", "/api/admin/projects/health/insights", testAdminToken, nil, http.StatusOK).Decode(t, &got)
	var rep healthReport
	c.do("GET", "/api/admin/projects/health/health-report", testAdminToken, nil, http.StatusOK).Decode(t, &rep)
	var dora doraMetrics
	c.do("GET", "/api/admin/projects/health/dora", testAdminToken, nil, http.StatusOK).Decode(t, &dora)

	if got.Health.Rating != rep.Health || got.TechnicalDebt.Rating != 100-rep.Health || got.TechnicalDebt.StaleCount != rep.StaleCount ||
		got.TechnicalDebt.PotentiallyStaleCount != rep.PotentiallyStaleCount || got.TechnicalDebt.ActiveCount != rep.ActiveCount {
		t.Errorf("health %+v / debt %+v, report health %d", got.Health, got.TechnicalDebt, rep.Health)
	}
	if got.Stats != rep.Stats || got.LeadTime.ProjectAverage != dora.ProjectAverage || len(got.LeadTime.Features) != len(dora.Features) {
		t.Errorf("stats %+v lead time %+v", got.Stats, got.LeadTime)
	}
	counts := map[string]int{}
	for _, c := range got.FeatureTypeCounts {
		counts[c.Type] = c.Count
	}
	if counts["release"] != 2 || counts["experiment"] != 1 || counts["kill-switch"] != 1 || len(counts) != 3 {
		t.Errorf("flags by type %v", counts)
	}
	if got.Members.CurrentMembers != rep.Members || got.Members.Change != rep.Stats.ProjectMembersAddedCurrentWindow {
		t.Errorf("members %+v", got.Members)
	}
	c.do("GET", "/api/admin/projects/nope/insights", testAdminToken, nil, http.StatusNotFound)
	c.do("GET", "/api/admin/projects/health/insights", testClientToken, nil, http.StatusForbidden)
}
