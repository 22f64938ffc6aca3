package server

import (
	"maps"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/signalbox/signalbox/server/openapi"
	"github.com/signalbox/signalbox/store"
)

// The conventions of the route table, as tests: what a new route must
// declare is checked here rather than remembered.

// flagWriteRE picks the routes that may change a flag, its environments,
// strategies or variants: every writing admin route whose path speaks of
// features, strategies, variants or the archive. Each must refuse direct
// changes while change requests are on (TestFlagWritesRespectChangeRequests)
// or be on flagWriteExempt with the reason it need not.
var flagWriteRE = regexp.MustCompile(`^(POST|PUT|PATCH|DELETE) .*(feature|strateg|variant|archive|revive)`)

// flagWriteExempt lists the flag-ish writes that change requests do not
// govern, with the reason. A change request guards what SDKs are served
// in an environment; these change nothing an environment serves.
var flagWriteExempt = map[string]string{
	"POST /api/admin/projects/{projectId}/features":                                    "a new flag starts disabled in every environment, as in Unleash; metadata edits (PUT, PATCH) are checked with a body that archives",
	"POST /api/admin/projects/{projectId}/features/{featureName}/clone":                "the clone is a new flag; the original is untouched",
	"POST /api/admin/projects/{projectId}/features/{featureName}/favorites":            "a per-user bookmark",
	"DELETE /api/admin/projects/{projectId}/features/{featureName}/favorites":          "a per-user bookmark",
	"POST /api/admin/projects/{projectId}/features/{featureName}/link":                 "links are metadata for people, never served",
	"PUT /api/admin/projects/{projectId}/features/{featureName}/link/{linkId}":         "links are metadata for people, never served",
	"DELETE /api/admin/projects/{projectId}/features/{featureName}/link/{linkId}":      "links are metadata for people, never served",
	"POST /api/admin/projects/{projectId}/features/{featureName}/lifecycle/complete":   "lifecycle stage is metadata for people, never served",
	"POST /api/admin/projects/{projectId}/features/{featureName}/lifecycle/uncomplete": "lifecycle stage is metadata for people, never served",
	"POST /api/admin/features/{featureName}/tags":                                      "tags are metadata, never served",
	"PUT /api/admin/features/{featureName}/tags":                                       "tags are metadata, never served",
	"DELETE /api/admin/features/{featureName}/tags/{type}/{value}":                     "tags are metadata, never served",
	"POST /api/admin/features/validate":                                                "checks a name; writes nothing",
	"POST /api/admin/features-batch/export":                                            "reads only",
	"POST /api/admin/features-batch/validate":                                          "reads only",
	"POST /api/admin/projects/{projectId}/archive/validate":                            "reads only",
	"POST /api/admin/archive/revive/{featureName}":                                     "an archived flag is served nowhere; it comes back disabled in every environment",
	"POST /api/admin/projects/{projectId}/revive":                                      "archived flags are served nowhere; they come back disabled in every environment",
	"DELETE /api/admin/archive/{featureName}":                                          "an archived flag is served nowhere; deleting it for good changes no answer",
	"PUT /api/admin/feature-types/{id}/lifetime":                                       "an instance setting about flag types, not a flag",
	"PUT /api/admin/feature-types/{id}/lifetimes":                                      "an instance setting about flag types, not a flag",
	"POST /api/admin/projects/{projectId}/environments/{environment}/default-strategy": "a project setting for flags created later; no existing flag changes",
	"POST /api/admin/strategies":                                                       "strategy definitions (the catalogue of types), not a flag's strategies",
	"PUT /api/admin/strategies/{name}":                                                 "strategy definitions (the catalogue of types), not a flag's strategies",
	"DELETE /api/admin/strategies/{name}":                                              "strategy definitions (the catalogue of types), not a flag's strategies",
	"POST /api/admin/strategies/{name}/deprecate":                                      "strategy definitions (the catalogue of types), not a flag's strategies",
	"POST /api/admin/strategies/{name}/reactivate":                                     "strategy definitions (the catalogue of types), not a flag's strategies",
}

// TestFlagWritesRespectChangeRequests sends every flag write of the route
// table, on a flag of a project whose production environment requires
// change requests: each answers 403 naming change requests and records
// nothing, unless it is exempt.
func TestFlagWritesRespectChangeRequests(t *testing.T) {
	ts := newTestServer(t)
	crFlag(t, ts, "guarded")
	crFlag(t, ts, "parent")
	ts.admin("POST", crFlags+"/guarded/dependencies", map[string]any{"feature": "parent"}).must(t, http.StatusOK)
	strategy := crStrategy(t, ts, "guarded", "production", map[string]any{"name": "default"})
	crEnable(t, ts, "production", 1)

	params := map[string]string{
		"projectId": "default", "featureName": "guarded", "environment": "production",
		"strategyId": strategy, "parent": "parent",
	}
	// bodies are what each route needs to get past its own validation to
	// the change-request check; the others need none.
	bodies := map[string]any{
		"PUT /api/admin/projects/{projectId}/features/{featureName}":                                                       map[string]any{"archived": true},
		"PATCH /api/admin/projects/{projectId}/features/{featureName}":                                                     []map[string]any{{"op": "replace", "path": "/archived", "value": true}},
		"POST /api/admin/projects/{projectId}/archive":                                                                     map[string]any{"features": []string{"guarded"}},
		"POST /api/admin/projects/{projectId}/features/{featureName}/dependencies":                                         map[string]any{"feature": "parent"},
		"POST /api/admin/projects/{projectId}/bulk_features/environments/{environment}/on":                                 map[string]any{"features": []string{"guarded"}},
		"POST /api/admin/projects/{projectId}/bulk_features/environments/{environment}/off":                                map[string]any{"features": []string{"guarded"}},
		"POST /api/admin/projects/{projectId}/features/{featureName}/environments/{environment}/strategies":                map[string]any{"name": "default"},
		"POST /api/admin/projects/{projectId}/features/{featureName}/environments/{environment}/strategies/set-sort-order": []map[string]any{{"id": strategy, "sortOrder": 1}},
		"PUT /api/admin/projects/{projectId}/features/{featureName}/environments/{environment}/strategies/{strategyId}":    map[string]any{"name": "default", "title": "x"},
		"PATCH /api/admin/projects/{projectId}/features/{featureName}/environments/{environment}/strategies/{strategyId}":  []map[string]any{{"op": "replace", "path": "/title", "value": "x"}},
		"PUT /api/admin/projects/{projectId}/features/{featureName}/environments/{environment}/variants":                   []map[string]any{{"name": "a", "weight": 1000}},
		"PATCH /api/admin/projects/{projectId}/features/{featureName}/environments/{environment}/variants":                 []map[string]any{{"op": "add", "path": "/0", "value": map[string]any{"name": "a"}}},
		"PUT /api/admin/projects/{projectId}/features/{featureName}/variants":                                              []map[string]any{{"name": "a", "weight": 1000}},
		"PATCH /api/admin/projects/{projectId}/features/{featureName}/variants":                                            []map[string]any{{"op": "add", "path": "/0", "value": map[string]any{"name": "a"}}},
		"PUT /api/admin/projects/{projectId}/features/{featureName}/variants-batch":                                        map[string]any{"variants": []map[string]any{{"name": "a"}}, "environments": []string{"production"}},
		"POST /api/admin/segments/strategies":                                                                              map[string]any{"projectId": "default", "strategyId": strategy, "environmentId": "production", "segmentIds": []int{}},
		"POST /api/admin/features-batch/import": map[string]any{"project": "default", "environment": "production",
			"data": map[string]any{"features": []map[string]any{{"name": "guarded", "type": "release", "project": "default"}},
				"featureStrategies": []map[string]any{{"featureName": "guarded", "name": "default"}}, "featureEnvironments": []map[string]any{{"name": "guarded", "featureName": "guarded", "environment": "production", "enabled": true}}}},
	}

	seen := map[string]bool{}
	mark := auditMark(t, ts)
	for _, rt := range ts.srv.Routes() {
		if rt.Auth != "admin" || !flagWriteRE.MatchString(rt.Pattern) {
			continue
		}
		seen[rt.Pattern] = true
		if _, ok := flagWriteExempt[rt.Pattern]; ok {
			continue
		}
		method, path, _ := strings.Cut(rt.Pattern, " ")
		path = openapi.ParamRE.ReplaceAllStringFunc(path, func(seg string) string {
			name := strings.Trim(seg, "{}")
			v, ok := params[name]
			if !ok {
				t.Fatalf("%s: no test value for {%s}", rt.Pattern, name)
			}
			return v
		})
		res := ts.admin(method, path, bodies[rt.Pattern])
		if res.Status != http.StatusForbidden || !strings.Contains(res.Object()["message"].(string), "change request") {
			t.Errorf("%s: %d %s; a flag write must answer 403 while change requests are on, or be listed in flagWriteExempt with the reason", rt.Pattern, res.Status, res.Body)
		}
	}
	mustNoAudit(t, ts, mark)
	for pattern, reason := range flagWriteExempt {
		if !seen[pattern] {
			t.Errorf("exempt %s is not a flag write of the route table", pattern)
		}
		if strings.TrimSpace(reason) == "" {
			t.Errorf("exempt %s has no reason", pattern)
		}
	}
	for pattern := range bodies {
		if !seen[pattern] {
			t.Errorf("body for %s, which is not a flag write of the route table", pattern)
		}
	}
}

// TestRoutesDeclareTheirAccess: every admin route names the permission it
// needs, and routes of one project or flag name their path parameters as
// authorize reads them ({projectId}, {featureName}, {environment}):
// spelled otherwise, a project Owner or Member would silently be refused
// on them, since authorize would find no project to look their role up in.
func TestRoutesDeclareTheirAccess(t *testing.T) {
	ts := newTestServer(t)
	wantParam := map[string]string{"projects": "projectId", "features": "featureName", "environments": "environment"}
	for _, rt := range ts.srv.Routes() {
		switch rt.Auth {
		case "admin":
			if rt.Permission == "" {
				t.Errorf("%s: an admin route without a permission", rt.Pattern)
			}
		case "none", "client", "frontend":
			if rt.Permission != "" {
				t.Errorf("%s: permission %s on a route that checks none", rt.Pattern, rt.Permission)
			}
			continue
		default:
			t.Errorf("%s: unknown kind of authentication %q", rt.Pattern, rt.Auth)
			continue
		}
		_, path, _ := strings.Cut(rt.Pattern, " ")
		if rt.Permission == PermRead {
			continue // every user reads at root level: no project lookup
		}
		segs := strings.Split(strings.Trim(path, "/"), "/")
		for i := 1; i < len(segs); i++ {
			if segs[i-1] == "environments" && !strings.Contains(path, "{projectId}") {
				continue // the instance's environments, not a project's
			}
			want, ok := wantParam[segs[i-1]]
			if !ok || !openapi.ParamRE.MatchString(segs[i]) {
				continue
			}
			if got := strings.Trim(segs[i], "{}."); got != want {
				t.Errorf("%s: {%s} after /%s/; authorize reads {%s}", rt.Pattern, got, segs[i-1], want)
			}
		}
		// A permission project roles grant is only ever granted through
		// one: the route must say which project (or flag) it is about.
		if projectRoleAllows(store.RoleOwner, rt.Permission) && rt.Permission != PermRead && rt.Permission != PermCreateAPIToken {
			if !strings.Contains(path, "{projectId}") && !strings.Contains(path, "{featureName}") {
				if reason, ok := rootOnlyProjectPerms[rt.Pattern]; !ok || reason == "" {
					t.Errorf("%s needs %s, which project roles grant, but names no {projectId} or {featureName}: project Owners and Members could never use it (list it in rootOnlyProjectPerms with the reason if that is meant)", rt.Pattern, rt.Permission)
				}
			}
		}
	}
}

// rootOnlyProjectPerms lists routes that need a permission project roles
// grant but are about no single project, so only root roles reach them.
var rootOnlyProjectPerms = map[string]string{
	"POST /api/admin/segments/strategies":   "the strategy's project is in the body, not the path, so the route is checked at root level",
	"POST /api/admin/tags":                  "tag values are instance-wide, not one project's",
	"DELETE /api/admin/tags/{type}/{value}": "tag values are instance-wide, not one project's",
}

// TestChangeRequestActionsDocumented: the actions the OpenAPI document
// offers are exactly the actions table, and each action needs the
// permission of a direct route making the same change.
func TestChangeRequestActionsDocumented(t *testing.T) {
	var documented []string
	for _, v := range openapi.CRActions().Enum {
		documented = append(documented, v.(string))
	}
	slices.Sort(documented)
	if table := slices.Sorted(maps.Keys(crActions)); !slices.Equal(documented, table) {
		t.Errorf("OpenAPI actions %v, actions table %v", documented, table)
	}
	ts := newTestServer(t)
	routePerms := map[Permission]bool{}
	for _, rt := range ts.srv.Routes() {
		routePerms[rt.Permission] = true
	}
	for name, a := range crActions {
		if a.perm == "" || !routePerms[a.perm] {
			t.Errorf("action %s needs %q, the permission of no route", name, a.perm)
		}
	}
}
