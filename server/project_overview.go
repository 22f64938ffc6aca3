package server

// A project's overview (/api/admin/projects/{projectId}/overview) and
// status (/api/admin/projects/{projectId}/status), which Unleash's UI shows
// on the project page: settings, members, environments, flag counts by
// type, activity, health and lifecycle.

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/signalbox/signalbox/store"
)

func registerProjectOverview(s *Server, m mux) {
	m.admin("GET /api/admin/projects/{projectId}/overview", PermRead, s.handleProjectOverview)
	m.admin("GET /api/admin/projects/{projectId}/status", PermRead, s.handleProjectStatus)
}

// projectOverview is Unleash's projectOverviewSchema.
type projectOverview struct {
	Version           int                      `json:"version"`
	Name              string                   `json:"name"`
	Description       *string                  `json:"description"`
	DefaultStickiness string                   `json:"defaultStickiness"`
	Mode              string                   `json:"mode"`
	FeatureLimit      *int                     `json:"featureLimit"`
	FeatureNaming     featureNaming            `json:"featureNaming"`
	Members           int                      `json:"members"`
	Health            int                      `json:"health"`
	TechnicalDebt     int                      `json:"technicalDebt"`
	Environments      []projectEnvironmentJSON `json:"environments"`
	FeatureTypeCounts []featureTypeCount       `json:"featureTypeCounts"`
	Stats             projectStats             `json:"stats"`
	CreatedAt         *time.Time               `json:"createdAt"`
	UpdatedAt         *time.Time               `json:"updatedAt"`
	Favorite          bool                     `json:"favorite"`
	OnboardingStatus  onboardingStatus         `json:"onboardingStatus"`
}

type featureTypeCount struct {
	Type  string `json:"type"`
	Count int    `json:"count"`
}

// onboardingStatus is Unleash's onboardingStatusSchema: onboarding-started
// (no flag yet), first-flag-created (with the oldest flag's name), or
// onboarded (an SDK reported one of the project's flags).
type onboardingStatus struct {
	Status  string `json:"status"`
	Feature string `json:"feature,omitempty"`
}

// handleProjectOverview is Unleash's getProjectOverview. Flags counted are
// the active ones. 404 for an unknown project.
func (s *Server) handleProjectOverview(w http.ResponseWriter, r *http.Request) error {
	ctx, project := r.Context(), r.PathValue("projectId")
	var out projectOverview
	err := s.view(ctx, func(rd store.Reader) error {
		rep, err := buildHealthReport(ctx, rd, project, s.now())
		if err != nil {
			return err
		}
		out = projectOverview{
			Version: 1, Name: rep.Name, Description: rep.Description, DefaultStickiness: rep.DefaultStickiness,
			Mode: rep.Mode, FeatureLimit: rep.FeatureLimit, FeatureNaming: rep.FeatureNaming, Members: rep.Members,
			Health: rep.Health, TechnicalDebt: 100 - rep.Health, Environments: rep.Environments, Stats: rep.Stats,
			CreatedAt: rep.CreatedAt, UpdatedAt: rep.UpdatedAt, FeatureTypeCounts: []featureTypeCount{},
		}
		active := false
		flags, err := rd.ListFeatures(ctx, store.FeatureFilter{Project: project, Archived: &active})
		if err != nil {
			return err
		}
		out.FeatureTypeCounts = countFeatureTypes(flags)
		out.OnboardingStatus = onboardingOf(flags)
		favs, err := readFavorites(ctx, rd, principalFrom(ctx).UserID())
		out.Favorite = slices.Contains(favs.Projects, project)
		return err
	})
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, out)
}

// countFeatureTypes counts flags by type, ordered by type.
func countFeatureTypes(flags []store.Feature) []featureTypeCount {
	out := []featureTypeCount{}
	for _, f := range flags {
		i := slices.IndexFunc(out, func(c featureTypeCount) bool { return c.Type == f.Type })
		if i < 0 {
			out = append(out, featureTypeCount{Type: f.Type})
			i = len(out) - 1
		}
		out[i].Count++
	}
	slices.SortFunc(out, func(a, b featureTypeCount) int { return strings.Compare(a.Type, b.Type) })
	return out
}

func onboardingOf(flags []store.Feature) onboardingStatus {
	if len(flags) == 0 {
		return onboardingStatus{Status: "onboarding-started"}
	}
	for _, f := range flags {
		if f.LastSeenAt != nil {
			return onboardingStatus{Status: "onboarded"}
		}
	}
	first := slices.MinFunc(flags, func(a, b store.Feature) int { return a.CreatedAt.Compare(b.CreatedAt) })
	return onboardingStatus{Status: "first-flag-created", Feature: first.Name}
}

// projectStatus is Unleash's projectStatusSchema.
type projectStatus struct {
	ActivityCountByDate []activityCount  `json:"activityCountByDate"`
	Resources           projectResources `json:"resources"`
	Health              currentValue     `json:"health"`
	TechnicalDebt       currentValue     `json:"technicalDebt"`
	LifecycleSummary    lifecycleSummary `json:"lifecycleSummary"`
	StaleFlags          struct {
		Total int `json:"total"`
	} `json:"staleFlags"`
}

type activityCount struct {
	Date  string `json:"date"`
	Count int    `json:"count"`
}

type projectResources struct {
	APITokens int `json:"apiTokens"`
	Members   int `json:"members"`
	Segments  int `json:"segments"`
}

type currentValue struct {
	Current int `json:"current"`
}

type lifecycleSummary struct {
	Initial   stageCount    `json:"initial"`
	PreLive   stageCount    `json:"preLive"`
	Live      stageCount    `json:"live"`
	Completed stageCount    `json:"completed"`
	Archived  archivedCount `json:"archived"`
}

// archivedCount: last30Days counts the flags archived in the last 30 days.
type archivedCount struct {
	CurrentFlags int `json:"currentFlags"`
	Last30Days   int `json:"last30Days"`
}

// stageCount: averageDays is always null, since the server does not keep
// when each flag entered each stage.
type stageCount struct {
	AverageDays  *float64 `json:"averageDays"`
	CurrentFlags int      `json:"currentFlags"`
}

// activityDays is how far back the status counts events.
const activityDays = 365

// handleProjectStatus is Unleash's getProjectStatus: the project's audit
// events per day over the last year (days without events left out), its
// own API tokens (those of this project alone), the users given a role in
// it directly, its own segments, health, flags per lifecycle stage, and
// how many flags are stale or potentially stale. 404 for an unknown
// project.
func (s *Server) handleProjectStatus(w http.ResponseWriter, r *http.Request) error {
	ctx, project := r.Context(), r.PathValue("projectId")
	now := s.now()
	out := projectStatus{ActivityCountByDate: []activityCount{}}
	err := s.view(ctx, func(rd store.Reader) error {
		rep, err := buildHealthReport(ctx, rd, project, now)
		if err != nil {
			return err
		}
		out.Health.Current, out.TechnicalDebt.Current = rep.Health, 100-rep.Health
		out.StaleFlags.Total = rep.StaleCount + rep.PotentiallyStaleCount

		tokens, err := rd.ListAPITokens(ctx, store.APITokenFilter{})
		if err != nil {
			return err
		}
		for _, t := range tokens {
			if len(t.Projects) == 1 && t.Projects[0] == project {
				out.Resources.APITokens++
			}
		}
		grants, err := rd.ListProjectAccess(ctx, store.AccessFilter{Project: project})
		if err != nil {
			return err
		}
		users := map[int]bool{}
		for _, g := range grants {
			if g.UserID != 0 {
				users[g.UserID] = true
			}
		}
		out.Resources.Members = len(users)
		segments, err := rd.ListSegments(ctx, store.SegmentFilter{Project: project})
		if err != nil {
			return err
		}
		for _, sg := range segments {
			if sg.Project == project {
				out.Resources.Segments++
			}
		}

		out.LifecycleSummary.Archived.Last30Days = rep.Stats.ArchivedCurrentWindow
		counters := map[string]*int{
			stageInitial: &out.LifecycleSummary.Initial.CurrentFlags, stagePreLive: &out.LifecycleSummary.PreLive.CurrentFlags,
			stageLive: &out.LifecycleSummary.Live.CurrentFlags, stageCompleted: &out.LifecycleSummary.Completed.CurrentFlags,
			stageArchived: &out.LifecycleSummary.Archived.CurrentFlags,
		}
		done, err := readCompletions(ctx, rd)
		if err != nil {
			return err
		}
		for _, archived := range []bool{false, true} {
			flags, err := rd.ListFeatureOverviews(ctx, archived)
			if err != nil {
				return err
			}
			for _, f := range flags {
				if f.Project != project {
					continue
				}
				var c *lifecycleCompletion
				if d, ok := done[f.Name]; ok {
					c = &d
				}
				*counters[currentStage(f, c).Stage]++
			}
		}
		return projectActivityByDay(ctx, rd, project, now, &out.ActivityCountByDate)
	})
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, out)
}

// projectActivityByDay counts the project's events per UTC day over the
// last activityDays, oldest day first, reading newest first and stopping
// at the first older event.
func projectActivityByDay(ctx context.Context, rd store.Reader, project string, now time.Time, out *[]activityCount) error {
	since := now.AddDate(0, 0, -activityDays)
	counts := map[string]int{}
	var before int64
	for {
		list, err := rd.ListEvents(ctx, store.EventFilter{Project: project, BeforeID: before, Limit: eventPage})
		if err != nil {
			return err
		}
		for _, e := range list {
			if e.CreatedAt.Before(since) {
				return finishActivity(counts, out)
			}
			counts[e.CreatedAt.UTC().Format(time.DateOnly)]++
		}
		if len(list) < eventPage {
			return finishActivity(counts, out)
		}
		before = list[len(list)-1].ID
	}
}

func finishActivity(counts map[string]int, out *[]activityCount) error {
	for day, n := range counts {
		*out = append(*out, activityCount{Date: day, Count: n})
	}
	slices.SortFunc(*out, func(a, b activityCount) int { return strings.Compare(a.Date, b.Date) })
	return nil
}
