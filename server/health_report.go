package server

// The project health report: the project's active flags, how many are
// stale or potentially stale, an overall rating, and activity statistics.
//
// Definitions (also in the OpenAPI description of the route):
//   - A flag is potentially stale when it is not marked stale and is older
//     than its flag type's lifetime (LifetimeDays); a type without a
//     lifetime never makes flags potentially stale.
//   - activeCount counts the active (not archived) flags not marked stale,
//     potentially stale ones included, as Unleash counts them; staleCount
//     the ones marked stale; potentiallyStaleCount the potentially stale.
//   - health is the percentage, rounded to a whole number, of active flags
//     that are neither stale nor potentially stale; 100 without flags.
//   - stats compare two windows: current is the last 30 days, past the 30
//     days before. Created and archived counts come from the flags'
//     createdAt and archivedAt (flags deleted since are not counted);
//     projectActivity counts the project's audit events;
//     projectMembersAddedCurrentWindow counts the users given access by
//     project-user-added and project-access-added events;
//     avgTimeToProdCurrentWindow is the mean time to production (see
//     dora.go) of the flags that first reached production in the current
//     window, 0 when none did.

import (
	"context"
	"encoding/json"
	"math"
	"net/http"
	"time"

	"github.com/signalbox/signalbox/store"
)

func registerHealthReport(s *Server, m mux) {
	m.admin("GET /api/admin/projects/{projectId}/health-report", PermRead, s.handleHealthReport)
}

// statsWindow is the length of each statistics window.
const statsWindow = 30 * 24 * time.Hour

// healthReport is the project health report (Unleash's healthReportSchema).
type healthReport struct {
	Version               int                      `json:"version"`
	Name                  string                   `json:"name"`
	Description           *string                  `json:"description"`
	DefaultStickiness     string                   `json:"defaultStickiness"`
	Mode                  string                   `json:"mode"`
	FeatureLimit          *int                     `json:"featureLimit"`
	Members               int                      `json:"members"`
	Health                int                      `json:"health"`
	TechnicalDebt         int                      `json:"technicalDebt"`
	Environments          []projectEnvironmentJSON `json:"environments"`
	Features              []adminFeature           `json:"features"`
	UpdatedAt             *time.Time               `json:"updatedAt"`
	CreatedAt             *time.Time               `json:"createdAt"`
	Favorite              bool                     `json:"favorite"`
	Stats                 projectStats             `json:"stats"`
	FeatureNaming         featureNaming            `json:"featureNaming"`
	PotentiallyStaleCount int                      `json:"potentiallyStaleCount"`
	ActiveCount           int                      `json:"activeCount"`
	StaleCount            int                      `json:"staleCount"`
}

// projectStats is Unleash's projectStatsSchema.
type projectStats struct {
	AvgTimeToProdCurrentWindow       float64 `json:"avgTimeToProdCurrentWindow"`
	CreatedCurrentWindow             int     `json:"createdCurrentWindow"`
	CreatedPastWindow                int     `json:"createdPastWindow"`
	ArchivedCurrentWindow            int     `json:"archivedCurrentWindow"`
	ArchivedPastWindow               int     `json:"archivedPastWindow"`
	ProjectActivityCurrentWindow     int     `json:"projectActivityCurrentWindow"`
	ProjectActivityPastWindow        int     `json:"projectActivityPastWindow"`
	ProjectMembersAddedCurrentWindow int     `json:"projectMembersAddedCurrentWindow"`
}

// featureNaming is a project's naming rule for new flags; projects have
// none here, so every member is null.
type featureNaming struct {
	Pattern     *string `json:"pattern"`
	Example     *string `json:"example"`
	Description *string `json:"description"`
}

// projectMemberCount is the number of users with a role in a project,
// directly or through a group.
func projectMemberCount(ctx context.Context, rd store.Reader, project string) (int, error) {
	counts, err := projectMemberCounts(ctx, rd)
	return counts[project], err
}

// windows tells which statistics window a time falls in.
type windows struct{ now time.Time }

func (w windows) current(t time.Time) bool {
	return t.After(w.now.Add(-statsWindow)) && !t.After(w.now)
}

func (w windows) past(t time.Time) bool {
	return t.After(w.now.Add(-2*statsWindow)) && !t.After(w.now.Add(-statsWindow))
}

// potentiallyStale reports whether an unstale flag has outlived its type's
// lifetime.
func potentiallyStale(f store.Feature, lifetimes map[string]*int, now time.Time) bool {
	days := lifetimes[f.Type]
	if f.Stale || days == nil || *days <= 0 {
		return false
	}
	return now.Sub(f.CreatedAt) > time.Duration(*days)*24*time.Hour
}

// flagHealth counts a project's active flags and the unhealthy ones among
// them (stale, or past their type's lifetime).
type flagHealth struct{ active, unhealthy int }

func (h flagHealth) rating() int { return healthRating(h.active-h.unhealthy, h.active) }

// projectsHealth counts the health of every project in one pass over
// active, the active flags of all projects.
func projectsHealth(ctx context.Context, r store.Reader, active []store.Feature, now time.Time) (map[string]flagHealth, error) {
	lifetimes, err := typeLifetimes(ctx, r)
	if err != nil {
		return nil, err
	}
	out := map[string]flagHealth{}
	for _, f := range active {
		h := out[f.Project]
		h.active++
		if f.Stale || potentiallyStale(f, lifetimes, now) {
			h.unhealthy++
		}
		out[f.Project] = h
	}
	return out, nil
}

// typeLifetimes maps each flag type to its expected lifetime in days (nil
// for types that do not go stale).
func typeLifetimes(ctx context.Context, r store.Reader) (map[string]*int, error) {
	types, err := r.ListFeatureTypes(ctx)
	if err != nil {
		return nil, err
	}
	lifetimes := map[string]*int{}
	for _, t := range types {
		lifetimes[t.ID] = t.LifetimeDays
	}
	return lifetimes, nil
}

// healthRating is the rounded percentage of healthy flags; 100 for none.
func healthRating(healthy, total int) int {
	if total == 0 {
		return 100
	}
	return int(math.Round(100 * float64(healthy) / float64(total)))
}

func (s *Server) handleHealthReport(w http.ResponseWriter, r *http.Request) error {
	var out healthReport
	err := s.view(r.Context(), func(rd store.Reader) (err error) {
		out, err = buildHealthReport(r.Context(), rd, r.PathValue("projectId"), s.now())
		return err
	})
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, out)
}

// buildHealthReport reports on a project as of now. NotFound if the
// project does not exist.
func buildHealthReport(ctx context.Context, r store.Reader, project string, now time.Time) (healthReport, error) {
	p, err := r.GetProject(ctx, project)
	if err != nil {
		return healthReport{}, err
	}
	out := healthReport{
		Version: 1, Name: p.Name, Description: nullable(p.Description), DefaultStickiness: p.DefaultStickiness,
		Mode: p.Mode, FeatureLimit: p.FeatureLimit, UpdatedAt: p.UpdatedAt, CreatedAt: &p.CreatedAt,
	}
	if out.DefaultStickiness == "" {
		out.DefaultStickiness = "default"
	}
	if out.Mode == "" {
		out.Mode = "open"
	}
	if out.Members, err = projectMemberCount(ctx, r, project); err != nil {
		return out, err
	}
	if out.Environments, err = healthEnvironments(ctx, r, project); err != nil {
		return out, err
	}

	all, err := r.ListFeatures(ctx, store.FeatureFilter{Project: project})
	if err != nil {
		return out, err
	}
	lifetimes, err := typeLifetimes(ctx, r)
	if err != nil {
		return out, err
	}
	var active []store.Feature
	win := windows{now}
	for _, f := range all {
		switch {
		case win.current(f.CreatedAt):
			out.Stats.CreatedCurrentWindow++
		case win.past(f.CreatedAt):
			out.Stats.CreatedPastWindow++
		}
		if f.ArchivedAt != nil {
			switch {
			case win.current(*f.ArchivedAt):
				out.Stats.ArchivedCurrentWindow++
			case win.past(*f.ArchivedAt):
				out.Stats.ArchivedPastWindow++
			}
			continue
		}
		active = append(active, f)
		switch {
		case f.Stale:
			out.StaleCount++
		case potentiallyStale(f, lifetimes, now):
			out.PotentiallyStaleCount++
			out.ActiveCount++
		default:
			out.ActiveCount++
		}
	}
	out.Health = healthRating(len(active)-out.StaleCount-out.PotentiallyStaleCount, len(active))
	out.TechnicalDebt = 100 - out.Health
	if out.Features, err = featureViews(ctx, r, active); err != nil {
		return out, err
	}
	if err := projectActivity(ctx, r, project, win, &out.Stats); err != nil {
		return out, err
	}
	arrivals, err := productionArrivals(ctx, r, all)
	if err != nil {
		return out, err
	}
	var recent []productionArrival
	for _, a := range arrivals {
		if win.current(a.at) {
			recent = append(recent, a)
		}
	}
	out.Stats.AvgTimeToProdCurrentWindow = meanDays(recent)
	return out, nil
}

// healthEnvironments lists the project's environments, each with the
// default strategy a flag switched on there gets: the project's own, or
// the built-in gradual rollout to 100% (its empty groupId stands for the
// flag's name).
func healthEnvironments(ctx context.Context, r store.Reader, project string) ([]projectEnvironmentJSON, error) {
	envs, err := projectEnvironmentsOf(ctx, r, project)
	for i := range envs {
		if envs[i].DefaultStrategy == nil {
			st := defaultStrategy(store.ProjectEnvironment{}, "")
			envs[i].DefaultStrategy = &store.StrategyTemplate{Name: st.Name, Parameters: st.Parameters,
				Constraints: st.Constraints, Variants: st.Variants, Segments: st.Segments}
		}
	}
	return envs, err
}

// usersAdded is the number of users an event gave access to the project:
// one for project-user-added, those listed in data.users for
// project-access-added.
func usersAdded(e store.Event) int {
	switch e.Type {
	case "project-user-added":
		return 1
	case "project-access-added":
		var data struct {
			Users []json.RawMessage `json:"users"`
		}
		if json.Unmarshal(e.Data, &data) == nil {
			return len(data.Users)
		}
	}
	return 0
}

// eventPage is how many events projectActivity reads at a time.
const eventPage = 500

// projectActivity counts the project's events in both windows, reading
// newest first and stopping at the first event older than the past window.
func projectActivity(ctx context.Context, r store.Reader, project string, win windows, stats *projectStats) error {
	var before int64
	for {
		list, err := r.ListEvents(ctx, store.EventFilter{Project: project, BeforeID: before, Limit: eventPage})
		if err != nil {
			return err
		}
		for _, e := range list {
			switch {
			case win.current(e.CreatedAt):
				stats.ProjectActivityCurrentWindow++
				stats.ProjectMembersAddedCurrentWindow += usersAdded(e)
			case win.past(e.CreatedAt):
				stats.ProjectActivityPastWindow++
			case e.CreatedAt.Before(win.now):
				return nil // older than both windows
			}
		}
		if len(list) < eventPage {
			return nil
		}
		before = list[len(list)-1].ID
	}
}
