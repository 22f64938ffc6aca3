package server

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"time"

	"golang.org/x/mod/semver"

	"github.com/signalbox/signalbox/store"
)

// minimumSDKVersions are the oldest releases of the official server SDKs
// that Unleash does not call outdated (facts of its admin UI's advice):
// older ones lack fixes in evaluation or metrics and should be upgraded.
var minimumSDKVersions = map[string]string{
	"unleash-client-node":   "v5.3.2",
	"unleash-client-java":   "v9.2.0",
	"unleash-client-go":     "v4.1.0",
	"unleash-client-python": "v5.11.0",
	"unleash-client-ruby":   "v5.0.0",
	"unleash-client-dotnet": "v4.1.3",
	"unleash-client-php":    "v2.3.0",
}

// outdatedSDK reports whether an SDK's "name:version" is older than the
// minimum of a known SDK. Unknown SDKs and unreadable versions are not.
func outdatedSDK(sdkVersion string) bool {
	name, version, ok := strings.Cut(sdkVersion, ":")
	min := minimumSDKVersions[name]
	if !ok || min == "" {
		return false
	}
	// SDKs report versions with or without the "v" the parser wants.
	if !strings.HasPrefix(version, "v") {
		version = "v" + version
	}
	return semver.IsValid(version) && semver.Compare(version, min) < 0
}

type outdatedSDKJSON struct {
	SDKVersion   string   `json:"sdkVersion"`
	Applications []string `json:"applications"`
}

// outdatedSDKs lists the outdated SDK versions of the instances, with the
// applications running each; only applications keep is true for when keep
// is set.
func outdatedSDKs(instances []store.ClientInstance, keep func(app string) bool) []outdatedSDKJSON {
	apps := map[string][]string{}
	for _, in := range instances {
		if !outdatedSDK(in.SDKVersion) || (keep != nil && !keep(in.AppName)) {
			continue
		}
		if !slices.Contains(apps[in.SDKVersion], in.AppName) {
			apps[in.SDKVersion] = append(apps[in.SDKVersion], in.AppName)
		}
	}
	out := []outdatedSDKJSON{}
	for v, list := range apps {
		slices.Sort(list)
		out = append(out, outdatedSDKJSON{SDKVersion: v, Applications: list})
	}
	slices.SortFunc(out, func(a, b outdatedSDKJSON) int { return strings.Compare(a.SDKVersion, b.SDKVersion) })
	return out
}

func (s *Server) handleOutdatedSDKs(w http.ResponseWriter, r *http.Request) error {
	var out []outdatedSDKJSON
	err := s.view(r.Context(), func(rd store.Reader) error {
		instances, err := rd.ListClientInstances(r.Context(), "")
		out = outdatedSDKs(instances, nil)
		return err
	})
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, map[string]any{"sdks": out})
}

// handleProjectOutdatedSDKs is handleOutdatedSDKs for the applications that
// used the project's flags in the last two days.
func (s *Server) handleProjectOutdatedSDKs(w http.ResponseWriter, r *http.Request) error {
	ctx, project := r.Context(), r.PathValue("projectId")
	var out []outdatedSDKJSON
	err := s.view(ctx, func(rd store.Reader) error {
		used, err := projectAppNames(ctx, rd, project, s.now())
		if err != nil {
			return err
		}
		instances, err := rd.ListClientInstances(ctx, "")
		out = outdatedSDKs(instances, func(app string) bool { return used[app] })
		return err
	})
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, map[string]any{"sdks": out})
}

// projectAppNames are the applications that reported one of the project's
// flags in the last two days. NotFound for an unknown project.
func projectAppNames(ctx context.Context, rd store.Reader, project string, now time.Time) (map[string]bool, error) {
	if _, err := rd.GetProject(ctx, project); err != nil {
		return nil, err
	}
	flags, err := rd.ListFeatures(ctx, store.FeatureFilter{Project: project})
	if err != nil {
		return nil, err
	}
	inProject := map[string]bool{}
	for _, f := range flags {
		inProject[f.Name] = true
	}
	metrics, err := rd.ListClientMetrics(ctx, store.ClientMetricsFilter{Since: now.Add(-48 * time.Hour)})
	if err != nil {
		return nil, err
	}
	used := map[string]bool{}
	for _, m := range metrics {
		if inProject[m.Feature] {
			used[m.AppName] = true
		}
	}
	return used, nil
}
