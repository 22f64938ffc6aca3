package server

import (
	"context"
	"maps"
	"net/http"
	"slices"
	"sort"
	"time"

	"github.com/signalbox/signalbox/internal/apierr"
	"github.com/signalbox/signalbox/store"
)

// Applications: what SDKs registered (/api/client/register) and the flag
// usage they reported (/api/client/metrics), kept per flag, application,
// environment and hour. Reports are buffered in memory and written every
// few seconds, so the newest minute may not show yet.

func registerApplications(s *Server, m mux) {
	m.admin("GET /api/admin/metrics/applications", PermRead, s.handleListApplications)
	m.admin("GET /api/admin/metrics/unknown-flags", PermRead, s.handleUnknownFlags)
	m.admin("GET /api/admin/metrics/sdks/outdated", PermRead, s.handleOutdatedSDKs)
	m.admin("GET /api/admin/projects/{projectId}/sdks/outdated", PermRead, s.handleProjectOutdatedSDKs)
	m.admin("GET /api/admin/metrics/applications/{appName}", PermRead, s.handleGetApplication)
	m.admin("GET /api/admin/client-metrics/features/{name}", PermRead, s.handleFeatureUsage)
	m.admin("GET /api/admin/client-metrics/features/{name}/raw", PermRead, s.handleFeatureMetricsRaw)
}

// applicationJSON is Unleash's applicationSchema; sdkVersion is the most
// recently seen instance's.
type applicationJSON struct {
	AppName     string   `json:"appName"`
	SDKVersion  string   `json:"sdkVersion,omitempty"`
	Strategies  []string `json:"strategies"`
	Description string   `json:"description"`
	URL         string   `json:"url"`
	Color       string   `json:"color"`
	Icon        string   `json:"icon"`
}

func applicationResponse(a store.ClientApplication, instances []store.ClientInstance) applicationJSON {
	out := applicationJSON{AppName: a.AppName, Strategies: a.Strategies, Description: a.Description, URL: a.URL, Color: a.Color, Icon: a.Icon}
	if out.Strategies == nil {
		out.Strategies = []string{}
	}
	if len(instances) > 0 {
		out.SDKVersion = instances[0].SDKVersion
	}
	return out
}

func (s *Server) handleListApplications(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	out := []applicationJSON{}
	err := s.view(ctx, func(rd store.Reader) error {
		apps, err := rd.ListClientApplications(ctx)
		if err != nil {
			return err
		}
		instances, err := rd.ListClientInstances(ctx, "")
		byApp := map[string][]store.ClientInstance{}
		for _, in := range instances {
			byApp[in.AppName] = append(byApp[in.AppName], in)
		}
		for _, a := range apps {
			out = append(out, applicationResponse(a, byApp[a.AppName]))
		}
		return err
	})
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, map[string]any{"total": len(out), "applications": out})
}

// applicationUsageJSON is Unleash's applicationUsageSchema: a project
// whose flags an application evaluated, and in which environments.
type applicationUsageJSON struct {
	Project      string   `json:"project"`
	Environments []string `json:"environments"`
}

// handleGetApplication answers one application as Unleash's
// applicationSchema; usage lists the projects and environments of the
// flags it reported in the last two days. Its instances are answered per
// environment by getApplicationEnvironmentInstances.
func (s *Server) handleGetApplication(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	name := r.PathValue("appName")
	var out struct {
		applicationJSON
		Usage []applicationUsageJSON `json:"usage"`
	}
	err := s.view(ctx, func(rd store.Reader) error {
		a, err := rd.GetClientApplication(ctx, name)
		if apierr.Is(err, apierr.NotFound) {
			return apierr.New(apierr.NotFound, "no application named %q has registered", name)
		} else if err != nil {
			return err
		}
		instances, err := rd.ListClientInstances(ctx, name)
		if err != nil {
			return err
		}
		out.applicationJSON = applicationResponse(a, instances)
		metrics, err := rd.ListClientMetrics(ctx, store.ClientMetricsFilter{AppName: name, Since: s.now().Add(-48 * time.Hour)})
		if err != nil {
			return err
		}
		out.Usage, err = applicationUsage(ctx, rd, metrics)
		return err
	})
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, out)
}

// applicationUsage groups the environments of metrics by the project of
// their flag, both sorted; flags deleted since are left out.
func applicationUsage(ctx context.Context, rd store.Reader, metrics []store.ClientMetric) ([]applicationUsageJSON, error) {
	projectOf := map[string]string{}
	envs := map[string]map[string]bool{}
	for _, m := range metrics {
		project, known := projectOf[m.Feature]
		if !known {
			f, err := rd.GetFeature(ctx, m.Feature)
			if err != nil && !apierr.Is(err, apierr.NotFound) {
				return nil, err
			}
			project = f.Project
			projectOf[m.Feature] = project
		}
		if project == "" {
			continue
		}
		if envs[project] == nil {
			envs[project] = map[string]bool{}
		}
		envs[project][m.Environment] = true
	}
	out := []applicationUsageJSON{}
	for _, project := range slices.Sorted(maps.Keys(envs)) {
		out = append(out, applicationUsageJSON{Project: project, Environments: slices.Sorted(maps.Keys(envs[project]))})
	}
	return out, nil
}

// featureMetricJSON is one hour of one flag's use by one application in one
// environment (Unleash's featureEnvironmentMetricsSchema).
type featureMetricJSON struct {
	FeatureName string           `json:"featureName"`
	AppName     string           `json:"appName"`
	Environment string           `json:"environment"`
	Timestamp   time.Time        `json:"timestamp"`
	Yes         int64            `json:"yes"`
	No          int64            `json:"no"`
	Variants    map[string]int64 `json:"variants"`
}

// featureMetrics reads a flag's hourly metrics since the given time; 404
// when the flag does not exist.
func (s *Server) featureMetrics(r *http.Request, since time.Time) ([]featureMetricJSON, error) {
	ctx := r.Context()
	name := r.PathValue("name")
	out := []featureMetricJSON{}
	sight, err := s.sightOf(ctx)
	if err != nil {
		return nil, err
	}
	err = s.view(ctx, func(rd store.Reader) error {
		f, err := rd.GetFeature(ctx, name)
		if err != nil {
			return err
		}
		if !sight.canSee(f.Project) {
			return apierr.New(apierr.NotFound, "feature flag %s not found", name)
		}
		list, err := s.listUsage(ctx, rd, store.ClientMetricsFilter{Feature: name, Since: since})
		for _, m := range list {
			v := m.Variants
			if v == nil {
				v = map[string]int64{}
			}
			out = append(out, featureMetricJSON{FeatureName: m.Feature, AppName: m.AppName, Environment: m.Environment,
				Timestamp: m.Hour, Yes: m.Yes, No: m.No, Variants: v})
		}
		return err
	})
	return out, err
}

// handleFeatureMetricsRaw answers the hourly metrics of the last hoursBack
// hours (default 1, at most 720), oldest first (featureMetricsSchema).
func (s *Server) handleFeatureMetricsRaw(w http.ResponseWriter, r *http.Request) error {
	hours, err := queryInt(r.URL.Query().Get("hoursBack"), "hoursBack", 1)
	if err != nil {
		return err
	}
	if hours < 1 || hours > 720 {
		return apierr.Invalid("hoursBack", "hoursBack must be 1 to 720")
	}
	data, err := s.featureMetrics(r, s.now().UTC().Truncate(time.Hour).Add(-time.Duration(hours-1)*time.Hour))
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, map[string]any{"version": 1, "maturity": "stable", "data": data})
}

// envTotalJSON is Unleash's featureEnvironmentTotalUsageSchema.
type envTotalJSON struct {
	Environment string `json:"environment"`
	Yes         int64  `json:"yes"`
	No          int64  `json:"no"`
}

// handleFeatureUsage answers a flag's use (Unleash's featureUsageSchema):
// the last hour per environment and application, the applications seen in
// the last two days, and those two days' totals per environment. The same
// hours one by one are getRawFeatureMetrics' (hoursBack=48).
func (s *Server) handleFeatureUsage(w http.ResponseWriter, r *http.Request) error {
	now := s.now().UTC()
	data, err := s.featureMetrics(r, now.Add(-48*time.Hour).Truncate(time.Hour))
	if err != nil {
		return err
	}
	lastHour := []featureMetricJSON{}
	apps := []string{}
	totals := map[string]*envTotalJSON{}
	cut := now.Add(-time.Hour).Truncate(time.Hour)
	for _, m := range data {
		if !m.Timestamp.Before(cut) {
			lastHour = append(lastHour, m)
		}
		if !contains(apps, m.AppName) {
			apps = append(apps, m.AppName)
		}
		if totals[m.Environment] == nil {
			totals[m.Environment] = &envTotalJSON{Environment: m.Environment}
		}
		totals[m.Environment].Yes += m.Yes
		totals[m.Environment].No += m.No
	}
	sort.Strings(apps)
	total := []envTotalJSON{}
	for _, env := range slices.Sorted(maps.Keys(totals)) {
		total = append(total, *totals[env])
	}
	return writeJSON(w, http.StatusOK, map[string]any{
		"version": 1, "maturity": "stable", "featureName": r.PathValue("name"),
		"lastHourUsage": lastHour, "seenApplications": apps, "totalUsage": total,
	})
}

// listUsage reads client metrics for a period. A period reaching past the
// retention of hourly metrics (Config.MetricsRetention) also gets the daily
// roll-up of the deleted hours, one entry per day stamped with the day's
// start (days are whole: the one holding f.Since counts entire). Hourly and
// daily entries never count one hour twice. Ordered by time.
func (s *Server) listUsage(ctx context.Context, rd store.Reader, f store.ClientMetricsFilter) ([]store.ClientMetric, error) {
	list, err := rd.ListClientMetrics(ctx, f)
	if err != nil || (!f.Since.IsZero() && !f.Since.Before(s.now().Add(-s.cfg.MetricsRetention))) {
		return list, err
	}
	daily, err := rd.ListClientMetricsDaily(ctx, f)
	if err != nil || len(daily) == 0 {
		return list, err
	}
	all := append(daily, list...)
	sort.SliceStable(all, func(i, j int) bool { return all[i].Hour.Before(all[j].Hour) })
	return all, nil
}
