package server

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/signalbox/signalbox/internal/fixture"
	"github.com/signalbox/signalbox/store"
	"github.com/signalbox/signalbox/store/sqlstore"
)

// uiBenchProjects and uiBenchFlags size the web UI benchmark: 5,000 flags
// across 100 projects, each flag in two environments, one audit event each.
const (
	uiBenchProjects = 100
	uiBenchFlags    = 5000
)

// BenchmarkUIPages measures the server time of the admin API calls each
// page of the web UI makes when it opens, one after the other (the browser
// sends them in parallel, so a page waits less than this), signed in with a
// session cookie as the UI is.
//
//	go test -run '^$' -bench BenchmarkUIPages -benchtime 20x ./server
func BenchmarkUIPages(b *testing.B) {
	ctx := context.Background()
	st, err := sqlstore.Open(ctx, filepath.Join(b.TempDir(), "ui-bench.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	if _, err := Bootstrap(ctx, st, BootstrapConfig{AdminPassword: testAdminPassword}); err != nil {
		b.Fatal(err)
	}
	payload := fixture.Features(uiBenchFlags, 1)
	err = st.Update(ctx, func(tx store.Tx) error {
		for i := range uiBenchProjects {
			id := fmt.Sprintf("project-%02d", i)
			if _, err := tx.CreateProject(ctx, store.Project{ID: id, Name: fmt.Sprintf("Project %02d", i), Mode: "open", DefaultStickiness: "default"}); err != nil {
				return err
			}
			for _, env := range []string{store.EnvDevelopment, "production"} {
				if err := tx.CreateProjectEnvironment(ctx, store.ProjectEnvironment{Project: id, Environment: env}); err != nil {
					return err
				}
			}
		}
		for i, f := range payload.Features {
			project := fmt.Sprintf("project-%02d", i%uiBenchProjects)
			if _, err := tx.CreateFeature(ctx, store.Feature{Name: f.Name, Project: project, Type: "release", Description: "A flag of the benchmark", ImpressionData: f.ImpressionData}); err != nil {
				return err
			}
			for _, env := range []string{store.EnvDevelopment, "production"} {
				fe := store.FeatureEnvironment{Feature: f.Name, Environment: env, Enabled: f.Enabled && env == store.EnvDevelopment, Variants: f.Variants}
				if _, err := tx.UpdateFeatureEnvironment(ctx, fe); err != nil {
					return err
				}
				for n, s := range f.Strategies {
					if _, err := tx.CreateStrategy(ctx, store.Strategy{Feature: f.Name, Environment: env, Name: s.Name,
						SortOrder: n, Parameters: s.Parameters, Constraints: s.Constraints, Variants: s.Variants}); err != nil {
						return err
					}
				}
			}
			data := fmt.Sprintf(`{"name":%q,"project":%q,"type":"release"}`, f.Name, project)
			if _, err := tx.AppendEvent(ctx, store.Event{Type: "feature-created", CreatedBy: "bench", Project: project, FeatureName: f.Name, Data: []byte(data)}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	srv, err := New(ctx, st, Config{Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		b.Fatal(err)
	}
	h := srv.Handler()

	login := httptest.NewRequest("POST", "/auth/simple/login", strings.NewReader(`{"username":"admin","password":"`+testAdminPassword+`"}`))
	login.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, login)
	var cookie *http.Cookie
	for _, c := range rec.Result().Cookies() {
		if c.Name == SessionCookie {
			cookie = c
		}
	}
	if cookie == nil {
		b.Fatalf("no session: %d %s", rec.Code, rec.Body)
	}

	flag := payload.Features[4].Name // a rollout with variants, in project-04
	pages := []struct {
		name  string
		calls []string
	}{
		{"sign-in check", []string{"/api/admin/user"}},
		{"projects", []string{"/api/admin/projects"}},
		{"project flags", []string{"/api/admin/projects/project-04", "/api/admin/projects/project-04/features",
			"/api/admin/environments", "/api/admin/feature-types", "/api/admin/projects/project-04/access"}},
		{"project access", []string{"/api/admin/projects/project-04", "/api/admin/projects/project-04/access"}},
		{"roles", []string{"/api/admin/roles"}},
		{"instance settings", []string{"/api/admin/auth/saml/settings", "/api/admin/ui-config", "/api/admin/instance-admin/info"}},
		// The settings page shows the statistics' counts when they come.
		{"instance statistics", []string{"/api/admin/instance-admin/statistics"}},
		{"flag", []string{"/api/admin/environments", "/api/admin/projects/project-04/features/" + flag}},
		{"flag with a segment", []string{"/api/admin/environments", "/api/admin/projects/project-04/features/" + flag, "/api/admin/segments"}},
		{"strategy editor", []string{"/api/admin/strategies", "/api/admin/context", "/api/admin/segments"}},
		{"events", []string{"/api/admin/projects", "/api/admin/search/events?limit=50&offset=0"}},
		{"events by project and type", []string{"/api/admin/search/events?limit=50&offset=0&project=IS:project-04&type=IS:feature-created"}},
		{"events by date", []string{"/api/admin/search/events?limit=50&offset=0&from=IS:2000-01-01"}},
		{"archive", []string{"/api/admin/archive/features"}},
	}
	if testing.Verbose() {
		// One benchmark per call too, to see which call a page waits for.
		seen := map[string]bool{}
		for _, p := range pages[:len(pages):len(pages)] {
			for _, c := range p.calls {
				if !seen[c] {
					seen[c] = true
					pages = append(pages, struct {
						name  string
						calls []string
					}{"call " + c, []string{c}})
				}
			}
		}
	}
	w := newDiscardRecorder()
	for _, p := range pages {
		reqs := make([]*http.Request, len(p.calls))
		for i, c := range p.calls {
			reqs[i] = httptest.NewRequest("GET", c, nil)
			reqs[i].AddCookie(cookie)
		}
		b.Run(p.name, func(b *testing.B) {
			for b.Loop() {
				for _, r := range reqs {
					w.reset()
					h.ServeHTTP(w, r)
					if w.code != http.StatusOK {
						b.Fatalf("%s: %d", r.URL, w.code)
					}
				}
			}
		})
	}
}
