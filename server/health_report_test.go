package server

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/signalbox/signalbox/clientapi"
	"github.com/signalbox/signalbox/store"
)

const day = 24 * time.Hour

// plantReportProject stores, directly and with past timestamps, a project
// "health" whose numbers the tests know:
//
//	flag            type         created  archived  stale  production
//	fresh           release      1d ago   -         -      0.5d after creation
//	old-release     release      45d ago  -         -      1d after creation
//	stale-one       experiment   2d ago   -         yes    (development only)
//	killer          kill-switch  400d ago -         -      10d after creation
//	archived-recent release      10d ago  5d ago    -      -
//	archived-past   release      100d ago 40d ago   -      3d after creation
//
// and, besides the enable events, project events 4d (feature-updated),
// 3d (project-user-added), 2d (project-access-added for two users), 35d
// (feature-updated), 40d (project-user-added) and 70d (feature-created)
// ago.
func plantReportProject(t *testing.T, ts *testServer) {
	t.Helper()
	now := time.Now()
	ago := func(d time.Duration) time.Time { return now.Add(-d) }
	ctx := context.Background()
	err := ts.srv.store.Update(ctx, func(tx store.Tx) error {
		if _, err := tx.CreateProject(ctx, store.Project{ID: "health", Name: "Health", Description: "Checked", Mode: "open",
			DefaultStickiness: "userId", CreatedAt: ago(200 * day)}); err != nil {
			return err
		}
		for _, env := range []string{store.EnvDevelopment, store.EnvProduction} {
			pe := store.ProjectEnvironment{Project: "health", Environment: env}
			if env == store.EnvProduction {
				pe.DefaultStrategy = &store.StrategyTemplate{Name: "default", Parameters: clientapi.Parameters{}}
			}
			if err := tx.CreateProjectEnvironment(ctx, pe); err != nil {
				return err
			}
		}
		flags := []struct {
			name, typ         string
			created, archived time.Duration
			stale             bool
		}{
			{"fresh", "release", day, 0, false},
			{"old-release", "release", 45 * day, 0, false},
			{"stale-one", "experiment", 2 * day, 0, true},
			{"killer", "kill-switch", 400 * day, 0, false},
			{"archived-recent", "release", 10 * day, 5 * day, false},
			{"archived-past", "release", 100 * day, 40 * day, false},
		}
		for _, f := range flags {
			sf := store.Feature{Name: f.name, Project: "health", Type: f.typ, Stale: f.stale, CreatedAt: ago(f.created)}
			if f.archived != 0 {
				at := ago(f.archived)
				sf.ArchivedAt = &at
			}
			if _, err := tx.CreateFeature(ctx, sf); err != nil {
				return err
			}
		}
		enable := func(flag, env string, at time.Time) store.Event {
			return store.Event{Type: "feature-environment-enabled", Project: "health", FeatureName: flag, Environment: env, CreatedAt: at, CreatedBy: "test"}
		}
		events := []store.Event{
			{Type: "feature-created", Project: "health", CreatedAt: ago(70 * day), CreatedBy: "test"},
			enable("killer", store.EnvDevelopment, ago(399*day)),
			enable("killer", store.EnvProduction, ago(390*day)),
			enable("killer", store.EnvProduction, ago(380*day)),
			enable("archived-past", store.EnvProduction, ago(97*day)),
			enable("old-release", store.EnvProduction, ago(44*day)),
			{Type: "feature-updated", Project: "health", CreatedAt: ago(35 * day), CreatedBy: "test"},
			{Type: "feature-updated", Project: "health", CreatedAt: ago(4 * day), CreatedBy: "test"},
			{Type: "project-user-added", Project: "health", CreatedAt: ago(3 * day), CreatedBy: "test"},
			{Type: "project-access-added", Project: "health", CreatedAt: ago(2 * day), CreatedBy: "test", Data: []byte(`{"roles":[5],"users":[7,8],"groups":[1]}`)},
			{Type: "project-user-added", Project: "health", CreatedAt: ago(40 * day), CreatedBy: "test"},
			enable("stale-one", store.EnvDevelopment, ago(day)),
			enable("fresh", store.EnvProduction, ago(day/2)),
		}
		for _, e := range events {
			if _, err := tx.AppendEvent(ctx, e); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	ts.srv.refreshRevision(ctx)
}

func TestHealthReport(t *testing.T) { healthReportFlow(t, newTestServer(t)) }

func healthReportFlow(t *testing.T, ts *testServer) {
	plantReportProject(t, ts)
	c := newOAChecker(t, ts)
	var got healthReport
	c.do("GET", "/api/admin/projects/health/health-report", testAdminToken, nil, http.StatusOK).Decode(t, &got)

	var names []string
	for _, f := range got.Features {
		names = append(names, f.Name)
	}
	if diff := cmp.Diff([]string{"fresh", "killer", "old-release", "stale-one"}, names); diff != "" {
		t.Errorf("features (-want +got):\n%s", diff)
	}
	type summary struct {
		Version, Members, Health, Active, Stale, PotentiallyStale int
		Name, Mode, Stickiness                                    string
		Stats                                                     projectStats
	}
	want := summary{
		Version: 1, Members: 0, Health: 50, Active: 3, Stale: 1, PotentiallyStale: 1,
		Name: "Health", Mode: "open", Stickiness: "userId",
		Stats: projectStats{
			AvgTimeToProdCurrentWindow: 0.5, CreatedCurrentWindow: 3, CreatedPastWindow: 1,
			ArchivedCurrentWindow: 1, ArchivedPastWindow: 1,
			ProjectActivityCurrentWindow: 5, ProjectActivityPastWindow: 3, ProjectMembersAddedCurrentWindow: 3,
		},
	}
	have := summary{
		Version: got.Version, Members: got.Members, Health: got.Health, Active: got.ActiveCount, Stale: got.StaleCount,
		PotentiallyStale: got.PotentiallyStaleCount, Name: got.Name, Mode: got.Mode, Stickiness: got.DefaultStickiness, Stats: got.Stats,
	}
	if diff := cmp.Diff(want, have); diff != "" {
		t.Errorf("report (-want +got):\n%s", diff)
	}
	if len(got.Environments) != 2 {
		t.Fatalf("environments %+v", got.Environments)
	}
	for _, e := range got.Environments {
		wantStrategy := map[string]string{store.EnvDevelopment: "flexibleRollout", store.EnvProduction: "default"}[e.Environment]
		if e.DefaultStrategy == nil || e.DefaultStrategy.Name != wantStrategy || e.ChangeRequestsEnabled {
			t.Errorf("environment %+v", e)
		}
	}
	raw := c.do("GET", "/api/admin/projects/health/health-report", testAdminToken, nil, http.StatusOK).Object()
	if naming, _ := raw["featureNaming"].(map[string]any); naming == nil || naming["pattern"] != nil {
		t.Errorf("featureNaming %v", raw["featureNaming"])
	}

	// A project without flags is perfectly healthy.
	ts.admin("POST", "/api/admin/projects", map[string]any{"id": "empty", "name": "Empty"}).must(t, http.StatusCreated)
	c.do("GET", "/api/admin/projects/empty/health-report", testAdminToken, nil, http.StatusOK).Decode(t, &got)
	if got.Health != 100 || got.ActiveCount != 0 || len(got.Features) != 0 || got.Stats.ProjectActivityCurrentWindow != 1 {
		t.Errorf("empty project: %+v", got)
	}

	// The project list gives each project the report's health figure.
	var list struct {
		Projects []struct {
			ID           string `json:"id"`
			Health       int    `json:"health"`
			FeatureCount int    `json:"featureCount"`
		} `json:"projects"`
	}
	c.do("GET", "/api/admin/projects", testAdminToken, nil, http.StatusOK).Decode(t, &list)
	health := map[string][2]int{}
	for _, p := range list.Projects {
		health[p.ID] = [2]int{p.Health, p.FeatureCount}
	}
	if health["health"] != [2]int{50, 4} || health["empty"] != [2]int{100, 0} {
		t.Errorf("project list health and flag counts: %v", health)
	}

	// Errors: 401, 403 and 404. Reading records nothing.
	mark := auditMark(t, ts)
	mustErrorRecord(t, c.do("GET", "/api/admin/projects/nope/health-report", testAdminToken, nil, 404), 404, "NotFoundError", "")
	mustErrorRecord(t, c.do("GET", "/api/admin/projects/health/health-report", "", nil, 401), 401, "AuthenticationRequired", "")
	mustErrorRecord(t, c.do("GET", "/api/admin/projects/health/health-report", testClientToken, nil, 403), 403, "NoAccessError", "")
	mustNoAudit(t, ts, mark)
}

func TestHealthRules(t *testing.T) {
	now := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	forty, zero := 40, 0
	lifetimes := map[string]*int{"release": &forty, "kill-switch": nil, "odd": &zero}
	for _, tt := range []struct {
		name string
		f    store.Feature
		want bool
	}{
		{"young release", store.Feature{Type: "release", CreatedAt: now.Add(-39 * day)}, false},
		{"exactly at its lifetime", store.Feature{Type: "release", CreatedAt: now.Add(-40 * day)}, false},
		{"past its lifetime", store.Feature{Type: "release", CreatedAt: now.Add(-40*day - time.Minute)}, true},
		{"stale flags are not potentially stale", store.Feature{Type: "release", Stale: true, CreatedAt: now.Add(-400 * day)}, false},
		{"types without a lifetime", store.Feature{Type: "kill-switch", CreatedAt: now.Add(-4000 * day)}, false},
		{"a lifetime of 0 means none", store.Feature{Type: "odd", CreatedAt: now.Add(-4000 * day)}, false},
		{"unknown types", store.Feature{Type: "gone", CreatedAt: now.Add(-4000 * day)}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := potentiallyStale(tt.f, lifetimes, now); got != tt.want {
				t.Errorf("potentiallyStale = %v, want %v", got, tt.want)
			}
		})
	}
	for _, tt := range []struct{ healthy, total, want int }{{0, 0, 100}, {2, 4, 50}, {2, 3, 67}, {1, 3, 33}, {0, 5, 0}, {7, 7, 100}} {
		if got := healthRating(tt.healthy, tt.total); got != tt.want {
			t.Errorf("healthRating(%d, %d) = %d, want %d", tt.healthy, tt.total, got, tt.want)
		}
	}
	w := windows{now}
	for _, tt := range []struct {
		at            time.Time
		current, past bool
	}{
		{now, true, false}, {now.Add(-29 * day), true, false}, {now.Add(-30 * day), false, true},
		{now.Add(-59 * day), false, true}, {now.Add(-60 * day), false, false}, {now.Add(time.Hour), false, false},
	} {
		if w.current(tt.at) != tt.current || w.past(tt.at) != tt.past {
			t.Errorf("%v: current %v past %v, want %v %v", now.Sub(tt.at), w.current(tt.at), w.past(tt.at), tt.current, tt.past)
		}
	}
}
