package server

// Managing the applications SDKs registered, beyond listing them
// (applications.go): describing one by hand
// (POST /api/admin/metrics/applications/{appName}), deleting one, its
// overview per environment, its recent instances, and the applications
// that use a project's flags (/api/admin/projects/{projectId}/applications).

import (
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/signalbox/signalbox/internal/apierr"
	"github.com/signalbox/signalbox/store"
)

func registerApplicationAdmin(s *Server, m mux) {
	m.admin("POST /api/admin/metrics/applications/{appName}", PermAdmin, s.handleSaveApplication)
	m.admin("DELETE /api/admin/metrics/applications/{appName}", PermAdmin, s.handleDeleteApplication)
	m.admin("GET /api/admin/metrics/applications/{appName}/overview", PermRead, s.handleApplicationOverview)
	m.admin("GET /api/admin/metrics/instances/{appName}/environment/{environment}", PermRead, s.handleApplicationInstances)
	m.admin("GET /api/admin/projects/{projectId}/applications", PermRead, s.handleProjectApplications)
}

// appEvent is the data of the application events.
type appEvent struct {
	AppName     string   `json:"appName"`
	Description string   `json:"description"`
	URL         string   `json:"url"`
	Color       string   `json:"color"`
	Icon        string   `json:"icon"`
	Strategies  []string `json:"strategies"`
}

func appEventOf(a store.ClientApplication) appEvent {
	return appEvent{AppName: a.AppName, Description: a.Description, URL: a.URL, Color: a.Color, Icon: a.Icon, Strategies: a.Strategies}
}

// handleSaveApplication is Unleash's createApplication: it creates the
// application or replaces its description, url, color and icon (members
// left out keep their value); strategies are what SDKs announce and are
// only set on a new application. Events application-created or
// application-updated. 202.
func (s *Server) handleSaveApplication(w http.ResponseWriter, r *http.Request) error {
	var body struct {
		AppName     *string  `json:"appName"`
		Description *string  `json:"description"`
		URL         *string  `json:"url"`
		Color       *string  `json:"color"`
		Icon        *string  `json:"icon"`
		Strategies  []string `json:"strategies"`
	}
	if err := decode(w, r, &body); err != nil {
		return err
	}
	name := r.PathValue("appName")
	if err := checkLabel("appName", name); err != nil {
		return err
	}
	for field, v := range map[string]*string{"description": body.Description, "url": body.URL, "color": body.Color, "icon": body.Icon} {
		if v != nil {
			if err := checkText(field, *v, 1000); err != nil {
				return err
			}
		}
	}
	if len(body.Strategies) > 100 {
		return apierr.Invalid("strategies", "at most 100 strategies, not %d", len(body.Strategies))
	}
	for _, st := range body.Strategies {
		if err := checkLabel("strategies", st); err != nil {
			return err
		}
	}
	set := func(dst *string, v *string) {
		if v != nil {
			*dst = *v
		}
	}
	ctx := r.Context()
	err := s.change(ctx, func(tx store.Tx) ([]store.Event, error) {
		before, err := tx.GetClientApplication(ctx, name)
		switch {
		case apierr.Is(err, apierr.NotFound):
			app := store.ClientApplication{AppName: name, Strategies: body.Strategies, SeenAt: nil}
			set(&app.Description, body.Description)
			set(&app.URL, body.URL)
			set(&app.Color, body.Color)
			set(&app.Icon, body.Icon)
			if app.Strategies == nil {
				app.Strategies = []string{}
			}
			if _, err := tx.RegisterClientApplication(ctx, app); err != nil {
				return nil, err
			}
			return []store.Event{{Type: "application-created", Data: eventData(appEventOf(app))}}, nil
		case err != nil:
			return nil, err
		}
		after := before
		set(&after.Description, body.Description)
		set(&after.URL, body.URL)
		set(&after.Color, body.Color)
		set(&after.Icon, body.Icon)
		if after, err = tx.UpdateClientApplication(ctx, after); err != nil {
			return nil, err
		}
		return []store.Event{{Type: "application-updated", Data: eventData(appEventOf(after)), PreData: eventData(appEventOf(before))}}, nil
	})
	if err != nil {
		return err
	}
	w.WriteHeader(http.StatusAccepted)
	return nil
}

// handleDeleteApplication is Unleash's deleteApplication: the application
// and its instances go (its metrics stay). 200 also when there was no
// such application, as in Unleash (then without an event). Event
// application-deleted.
func (s *Server) handleDeleteApplication(w http.ResponseWriter, r *http.Request) error {
	ctx, name := r.Context(), r.PathValue("appName")
	err := s.change(ctx, func(tx store.Tx) ([]store.Event, error) {
		before, err := tx.GetClientApplication(ctx, name)
		if apierr.Is(err, apierr.NotFound) {
			return nil, nil
		} else if err != nil {
			return nil, err
		}
		if err := tx.DeleteClientApplication(ctx, name); err != nil {
			return nil, err
		}
		return []store.Event{{Type: "application-deleted", PreData: eventData(appEventOf(before))}}, nil
	})
	if err != nil {
		return err
	}
	w.WriteHeader(http.StatusOK)
	return nil
}

// frontendSDKs are the names under which Unleash's browser and mobile SDKs
// register; every other SDK counts as a backend one.
var frontendSDKs = []string{
	"unleash-client-js", "unleash-proxy-client-js", "unleash-react-sdk", "unleash-proxy-react",
	"@unleash/proxy-client-react", "@unleash/proxy-client-vue", "@unleash/proxy-client-svelte",
	"unleash-client-swift", "unleash-android-proxy-sdk", "unleash-android", "unleash_proxy_client_flutter",
}

func isFrontendSDK(version string) bool {
	name, _, _ := strings.Cut(version, ":")
	return slices.Contains(frontendSDKs, name)
}

type appEnvironmentJSON struct {
	Name          string     `json:"name"`
	InstanceCount int        `json:"instanceCount"`
	SDKs          []string   `json:"sdks"`
	FrontendSDKs  []string   `json:"frontendSdks"`
	BackendSDKs   []string   `json:"backendSdks"`
	LastSeen      *time.Time `json:"lastSeen"`
	Issues        struct {
		MissingFeatures []string `json:"missingFeatures"`
		OutdatedSDKs    []string `json:"outdatedSdks"`
	} `json:"issues"`
}

// handleApplicationOverview is Unleash's getApplicationOverview: the
// projects and number of flags the application reported (all the metrics
// kept), and per environment its instances, SDKs and last report. Issues:
// the strategies it announced that are not defined here; metrics of
// unknown flags are never kept, and SDK versions are not judged, so those
// lists are empty. 404 for an application that never registered.
func (s *Server) handleApplicationOverview(w http.ResponseWriter, r *http.Request) error {
	ctx, name := r.Context(), r.PathValue("appName")
	out := struct {
		Projects     []string             `json:"projects"`
		FeatureCount int                  `json:"featureCount"`
		Environments []appEnvironmentJSON `json:"environments"`
		Issues       struct {
			MissingStrategies []string `json:"missingStrategies"`
		} `json:"issues"`
	}{Projects: []string{}, Environments: []appEnvironmentJSON{}}
	out.Issues.MissingStrategies = []string{}
	sight, err := s.sightOf(ctx)
	if err != nil {
		return err
	}
	err = s.view(ctx, func(rd store.Reader) error {
		app, err := rd.GetClientApplication(ctx, name)
		if apierr.Is(err, apierr.NotFound) {
			return apierr.New(apierr.NotFound, "no application named %q has registered", name)
		} else if err != nil {
			return err
		}
		defs, err := rd.ListStrategyDefinitions(ctx)
		if err != nil {
			return err
		}
		for _, st := range app.Strategies {
			if !slices.ContainsFunc(defs, func(d store.StrategyDefinition) bool { return d.Name == st }) {
				out.Issues.MissingStrategies = append(out.Issues.MissingStrategies, st)
			}
		}
		metrics, err := s.listUsage(ctx, rd, store.ClientMetricsFilter{AppName: name})
		if err != nil {
			return err
		}
		features := map[string]bool{}
		for _, m := range metrics {
			features[m.Feature] = true
		}
		out.FeatureCount = len(features)
		if len(features) > 0 {
			flags, err := rd.ListFeatures(ctx, store.FeatureFilter{Names: mapKeys(features)})
			if err != nil {
				return err
			}
			for _, f := range visibleFeatures(sight, flags) {
				if !slices.Contains(out.Projects, f.Project) {
					out.Projects = append(out.Projects, f.Project)
				}
			}
			slices.Sort(out.Projects)
		}
		instances, err := rd.ListClientInstances(ctx, name)
		if err != nil {
			return err
		}
		for _, in := range instances {
			i := slices.IndexFunc(out.Environments, func(e appEnvironmentJSON) bool { return e.Name == in.Environment })
			if i < 0 {
				e := appEnvironmentJSON{Name: in.Environment, SDKs: []string{}, FrontendSDKs: []string{}, BackendSDKs: []string{}}
				e.Issues.MissingFeatures, e.Issues.OutdatedSDKs = []string{}, []string{}
				out.Environments = append(out.Environments, e)
				i = len(out.Environments) - 1
			}
			e := &out.Environments[i]
			e.InstanceCount++
			if e.LastSeen == nil || in.LastSeen.After(*e.LastSeen) {
				seen := in.LastSeen
				e.LastSeen = &seen
			}
			if v := in.SDKVersion; v != "" && !slices.Contains(e.SDKs, v) {
				e.SDKs = append(e.SDKs, v)
				if isFrontendSDK(v) {
					e.FrontendSDKs = append(e.FrontendSDKs, v)
				} else {
					e.BackendSDKs = append(e.BackendSDKs, v)
				}
			}
		}
		slices.SortFunc(out.Environments, func(a, b appEnvironmentJSON) int { return strings.Compare(a.Name, b.Name) })
		return nil
	})
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, out)
}

func mapKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// handleApplicationInstances is Unleash's
// getApplicationEnvironmentInstances: the application's instances in the
// environment seen in the last 24 hours, most recent first.
func (s *Server) handleApplicationInstances(w http.ResponseWriter, r *http.Request) error {
	ctx, name, env := r.Context(), r.PathValue("appName"), r.PathValue("environment")
	type instance struct {
		InstanceID string    `json:"instanceId"`
		SDKVersion *string   `json:"sdkVersion"`
		ClientIP   *string   `json:"clientIp"`
		LastSeen   time.Time `json:"lastSeen"`
	}
	out := []instance{}
	since := s.now().Add(-24 * time.Hour)
	err := s.view(ctx, func(rd store.Reader) error {
		list, err := rd.ListClientInstances(ctx, name)
		for _, in := range list {
			if in.Environment == env && !in.LastSeen.Before(since) {
				out = append(out, instance{InstanceID: in.InstanceID, SDKVersion: nullable(in.SDKVersion), ClientIP: nullable(in.ClientIP), LastSeen: in.LastSeen})
			}
		}
		return err
	})
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, map[string]any{"instances": out})
}

type projectAppSDK struct {
	Name     string   `json:"name"`
	Versions []string `json:"versions"`
}

type projectApp struct {
	Name         string          `json:"name"`
	Environments []string        `json:"environments"`
	Instances    []string        `json:"instances"`
	SDKs         []projectAppSDK `json:"sdks"`
}

// handleProjectApplications is Unleash's getProjectApplications: the
// applications that reported metrics of the project's flags in the last
// 48 hours, with their environments, instances and SDKs. query keeps
// those whose name contains it (ignoring case); sorted by name (sortBy
// may only be appName or name), paged by offset and limit (default 50,
// at most 1000). 404 for an unknown project.
func (s *Server) handleProjectApplications(w http.ResponseWriter, r *http.Request) error {
	ctx, project := r.Context(), r.PathValue("projectId")
	q := r.URL.Query()
	query := strings.ToLower(q.Get("query"))
	if err := checkText("query", query, 200); err != nil {
		return err
	}
	offset, err := queryInt(q.Get("offset"), "offset", 0)
	if err != nil {
		return err
	}
	limit, err := queryInt(q.Get("limit"), "limit", searchDefaultLimit)
	if err != nil {
		return err
	}
	if limit < 1 {
		return apierr.Invalid("limit", "limit must be at least 1")
	}
	limit = min(limit, searchMaxLimit)
	if sb := q.Get("sortBy"); sb != "" && sb != "appName" && sb != "name" {
		return apierr.Invalid("sortBy", "sortBy is appName, not %q", sb)
	}
	desc := false
	switch o := q.Get("sortOrder"); o {
	case "", "asc":
	case "desc":
		desc = true
	default:
		return apierr.Invalid("sortOrder", "sortOrder is asc or desc, not %q", o)
	}
	var apps []projectApp
	err = s.view(ctx, func(rd store.Reader) error {
		if _, err := rd.GetProject(ctx, project); err != nil {
			return err
		}
		flags, err := rd.ListFeatures(ctx, store.FeatureFilter{Project: project})
		if err != nil {
			return err
		}
		inProject := map[string]bool{}
		for _, f := range flags {
			inProject[f.Name] = true
		}
		metrics, err := rd.ListClientMetrics(ctx, store.ClientMetricsFilter{Since: s.now().Add(-48 * time.Hour)})
		if err != nil {
			return err
		}
		used := map[string]bool{}
		for _, m := range metrics {
			if inProject[m.Feature] && (query == "" || strings.Contains(strings.ToLower(m.AppName), query)) {
				used[m.AppName] = true
			}
		}
		if len(used) == 0 {
			return nil
		}
		instances, err := rd.ListClientInstances(ctx, "")
		if err != nil {
			return err
		}
		byName := map[string]*projectApp{}
		for _, name := range mapKeys(used) {
			apps = append(apps, projectApp{Name: name, Environments: []string{}, Instances: []string{}, SDKs: []projectAppSDK{}})
		}
		for i := range apps {
			byName[apps[i].Name] = &apps[i]
		}
		for _, in := range instances {
			a := byName[in.AppName]
			if a == nil {
				continue
			}
			if !slices.Contains(a.Environments, in.Environment) {
				a.Environments = append(a.Environments, in.Environment)
			}
			if !slices.Contains(a.Instances, in.InstanceID) {
				a.Instances = append(a.Instances, in.InstanceID)
			}
			if in.SDKVersion == "" {
				continue
			}
			sdk, version, _ := strings.Cut(in.SDKVersion, ":")
			j := slices.IndexFunc(a.SDKs, func(x projectAppSDK) bool { return x.Name == sdk })
			if j < 0 {
				a.SDKs = append(a.SDKs, projectAppSDK{Name: sdk, Versions: []string{}})
				j = len(a.SDKs) - 1
			}
			if version != "" && !slices.Contains(a.SDKs[j].Versions, version) {
				a.SDKs[j].Versions = append(a.SDKs[j].Versions, version)
			}
		}
		for i := range apps {
			slices.Sort(apps[i].Environments)
			slices.Sort(apps[i].Instances)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if desc {
		slices.Reverse(apps)
	}
	total := len(apps)
	page := apps[min(offset, total):]
	page = page[:min(limit, len(page))]
	if page == nil {
		page = []projectApp{}
	}
	return writeJSON(w, http.StatusOK, map[string]any{"total": total, "applications": page})
}
