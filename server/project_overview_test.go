package server

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/signalbox/signalbox/store"
)

func TestProjectOverviewAndStatus(t *testing.T) {
	ts := newTestServer(t)
	ref := unleashReference(t)
	ts.admin("POST", "/api/admin/projects", map[string]any{"id": "web", "name": "Web", "description": "The shop"}).must(t, http.StatusCreated)

	type overview struct {
		Name              string
		Members           int
		TechnicalDebt     int
		Environments      []struct{ Environment string }
		FeatureTypeCounts []struct {
			Type  string
			Count int
		}
		OnboardingStatus struct{ Status, Feature string }
	}
	get := func() overview {
		t.Helper()
		res := ts.admin("GET", "/api/admin/projects/web/overview", nil).must(t, http.StatusOK)
		matchesUnleash(t, ref, "projectOverviewSchema", res.Body)
		var o overview
		res.Decode(t, &o)
		return o
	}
	if o := get(); o.Name != "Web" || o.OnboardingStatus.Status != "onboarding-started" || len(o.FeatureTypeCounts) != 0 {
		t.Errorf("empty project: %+v", o)
	}
	ts.admin("POST", "/api/admin/projects/web/features", map[string]any{"name": "w1"}).must(t, http.StatusCreated)
	ts.admin("POST", "/api/admin/projects/web/features", map[string]any{"name": "w2", "type": "experiment"}).must(t, http.StatusCreated)
	ts.admin("POST", "/api/admin/projects/web/features", map[string]any{"name": "w3"}).must(t, http.StatusCreated)
	ts.admin("POST", "/api/admin/projects/web/stale", map[string]any{"features": []string{"w3"}, "stale": true}).must(t, http.StatusAccepted)
	ts.admin("POST", "/api/admin/projects/web/features", map[string]any{"name": "w4"}).must(t, http.StatusCreated)
	ts.admin("DELETE", "/api/admin/projects/web/features/w4", nil).must(t, http.StatusAccepted)
	o := get()
	if o.OnboardingStatus.Status != "first-flag-created" || o.OnboardingStatus.Feature != "w1" {
		t.Errorf("onboarding %+v", o.OnboardingStatus)
	}
	if len(o.FeatureTypeCounts) != 2 || o.FeatureTypeCounts[0].Type != "experiment" || o.FeatureTypeCounts[0].Count != 1 ||
		o.FeatureTypeCounts[1].Type != "release" || o.FeatureTypeCounts[1].Count != 2 {
		t.Errorf("type counts %+v", o.FeatureTypeCounts)
	}
	if o.TechnicalDebt != 33 || len(o.Environments) == 0 {
		t.Errorf("debt %d, environments %+v", o.TechnicalDebt, o.Environments)
	}
	ctx := context.Background()
	if err := ts.srv.store.Update(ctx, func(tx store.Tx) error {
		return tx.MarkFeaturesSeen(ctx, "production", []string{"w1"}, time.Now())
	}); err != nil {
		t.Fatal(err)
	}
	if o := get(); o.OnboardingStatus.Status != "onboarded" {
		t.Errorf("onboarding after a report: %+v", o.OnboardingStatus)
	}

	// Status: a token of web alone counts, one of web and default not; a
	// user given a role directly counts; web's own segment counts.
	ts.admin("POST", "/api/admin/api-tokens", map[string]any{"type": "client", "tokenName": "web-sdk", "projects": []string{"web"}}).must(t, http.StatusCreated)
	ts.admin("POST", "/api/admin/api-tokens", map[string]any{"type": "client", "tokenName": "both", "projects": []string{"web", "default"}}).must(t, http.StatusCreated)
	u := createTestUser(t, ts, "mia", "Viewer", "")
	ts.admin("POST", "/api/admin/projects/web/access", map[string]any{"roles": []int{5}, "users": []map[string]int{{"id": u}}}).must(t, http.StatusOK)
	ts.admin("POST", "/api/admin/segments", map[string]any{"name": "web-users", "project": "web", "constraints": []any{}}).must(t, http.StatusCreated)
	ts.admin("POST", "/api/admin/segments", map[string]any{"name": "everyone", "constraints": []any{}}).must(t, http.StatusCreated)
	res := ts.admin("GET", "/api/admin/projects/web/status", nil).must(t, http.StatusOK)
	matchesUnleash(t, ref, "projectStatusSchema", res.Body)
	var st struct {
		ActivityCountByDate []struct {
			Date  string
			Count int
		}
		Resources        map[string]int
		TechnicalDebt    struct{ Current int }
		LifecycleSummary map[string]struct{ CurrentFlags int }
		StaleFlags       struct{ Total int }
	}
	res.Decode(t, &st)
	if st.Resources["apiTokens"] != 1 || st.Resources["members"] != 1 || st.Resources["segments"] != 1 {
		t.Errorf("resources %v", st.Resources)
	}
	if st.StaleFlags.Total != 1 || st.TechnicalDebt.Current != 33 {
		t.Errorf("stale %d, debt %d", st.StaleFlags.Total, st.TechnicalDebt.Current)
	}
	if st.LifecycleSummary["initial"].CurrentFlags != 2 || st.LifecycleSummary["live"].CurrentFlags != 1 || st.LifecycleSummary["archived"].CurrentFlags != 1 {
		t.Errorf("lifecycle %+v", st.LifecycleSummary)
	}
	today := time.Now().UTC().Format(time.DateOnly)
	if n := len(st.ActivityCountByDate); n == 0 || st.ActivityCountByDate[n-1].Date != today || st.ActivityCountByDate[n-1].Count < 6 {
		t.Errorf("activity %+v", st.ActivityCountByDate)
	}

	for _, path := range []string{"/api/admin/projects/nope/overview", "/api/admin/projects/nope/status"} {
		ts.admin("GET", path, nil).must(t, http.StatusNotFound)
	}
	for _, path := range []string{"/api/admin/projects/web/overview", "/api/admin/projects/web/status"} {
		ts.request("GET", path, "", nil).must(t, http.StatusUnauthorized)
		ts.request("GET", path, testClientToken, nil).must(t, http.StatusForbidden)
	}
}
