package server

// DORA lead time of a project: how long its flags took from creation to
// production.
//
// Definitions (also in the OpenAPI description of the route):
//   - A flag reaches production with the first feature-environment-enabled
//     event for it in an environment whose type is "production" (compared
//     ignoring case), whichever project the flag was in at the time.
//   - Its time to production is the days (hours / 24, rounded to one
//     decimal) from its creation to that event; never negative.
//   - Flags that never reached production are not listed: there is no time
//     to show for them. Archived flags that did are listed, since the lead
//     time is history.
//   - projectAverage is the mean of the listed flags' times (from the
//     unrounded values, then rounded to one decimal); 0 when none is listed.

import (
	"context"
	"math"
	"net/http"
	"strings"
	"time"

	"github.com/signalbox/signalbox/store"
)

func registerDora(s *Server, m mux) {
	m.admin("GET /api/admin/projects/{projectId}/dora", PermRead, s.handleProjectDora)
	m.admin("GET /api/admin/projects/{projectId}/insights", PermRead, s.handleProjectInsights)
}

// doraFeature is one flag's time to production in days.
type doraFeature struct {
	Name             string  `json:"name"`
	TimeToProduction float64 `json:"timeToProduction"`
}

// doraMetrics is Unleash's projectDoraMetricsSchema.
type doraMetrics struct {
	ProjectAverage float64       `json:"projectAverage"`
	Features       []doraFeature `json:"features"`
}

// productionArrival is when a flag was first enabled in production.
type productionArrival struct {
	feature store.Feature
	at      time.Time
}

// days is the flag's time to production in days, unrounded.
func (a productionArrival) days() float64 {
	return max(0, a.at.Sub(a.feature.CreatedAt).Hours()/24)
}

// productionArrivals finds, for each of features that reached production,
// its first enabling there, in the order of features.
func productionArrivals(ctx context.Context, r store.Reader, features []store.Feature) ([]productionArrival, error) {
	envs, err := r.ListEnvironments(ctx)
	if err != nil {
		return nil, err
	}
	production := map[string]bool{}
	for _, e := range envs {
		if strings.EqualFold(e.Type, productionEnvType) {
			production[e.Name] = true
		}
	}
	var out []productionArrival
	if len(production) == 0 {
		return out, nil
	}
	for _, f := range features {
		events, err := r.ListEvents(ctx, store.EventFilter{Type: "feature-environment-enabled", Feature: f.Name, Ascending: true})
		if err != nil {
			return nil, err
		}
		for _, e := range events {
			if production[e.Environment] {
				out = append(out, productionArrival{feature: f, at: e.CreatedAt})
				break
			}
		}
	}
	return out, nil
}

// productionEnvType is the environment type that counts as production.
const productionEnvType = "production"

// roundDays rounds a number of days to one decimal.
func roundDays(d float64) float64 { return math.Round(d*10) / 10 }

// meanDays is the rounded mean time to production of arrivals; 0 for none.
func meanDays(arrivals []productionArrival) float64 {
	if len(arrivals) == 0 {
		return 0
	}
	sum := 0.0
	for _, a := range arrivals {
		sum += a.days()
	}
	return roundDays(sum / float64(len(arrivals)))
}

// projectDora computes the metrics of a project's flags, archived ones
// included. NotFound if the project does not exist.
func projectDora(ctx context.Context, r store.Reader, project string) (doraMetrics, error) {
	out := doraMetrics{Features: []doraFeature{}}
	if _, err := r.GetProject(ctx, project); err != nil {
		return out, err
	}
	features, err := r.ListFeatures(ctx, store.FeatureFilter{Project: project})
	if err != nil {
		return out, err
	}
	arrivals, err := productionArrivals(ctx, r, features)
	if err != nil {
		return out, err
	}
	for _, a := range arrivals {
		out.Features = append(out.Features, doraFeature{Name: a.feature.Name, TimeToProduction: roundDays(a.days())})
	}
	out.ProjectAverage = meanDays(arrivals)
	return out, nil
}

func (s *Server) handleProjectDora(w http.ResponseWriter, r *http.Request) error {
	var out doraMetrics
	err := s.view(r.Context(), func(rd store.Reader) (err error) {
		out, err = projectDora(r.Context(), rd, r.PathValue("projectId"))
		return err
	})
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, out)
}
