package server

import (
	"net/http"
	"strings"

	"github.com/signalbox/signalbox/internal/apierr"
	"github.com/signalbox/signalbox/store"
)

// routes builds the server's handler: the router inside the middleware.
func (s *Server) routes() (http.Handler, error) {
	return s.middleware(s.router())
}

// router registers the public and SDK routes here, then every admin area
// of adminAreas, and records them in the route table.
func (s *Server) router() *exactRoutes {
	m := mux{s: s, ServeMux: http.NewServeMux(), exact: map[string]exactRoute{}}

	m.public("GET /health", s.handleHealth)
	m.public("GET /ready", s.handleReady)
	m.record("GET /internal-backstage/prometheus", "none", "")
	m.Handle("GET /internal-backstage/prometheus", s.prometheusHandler())

	m.public("POST /auth/simple/login", s.handleLogin)
	m.public("POST /auth/logout", s.handleLogout)
	m.public("POST /logout", s.handleLogout)

	m.sdk("GET /api/client/features", store.TokenClient, s.handleClientFeatures)
	m.sdk("GET /api/client/delta", store.TokenClient, s.withFetchMode(s.handleClientDelta))
	m.sdk("GET /api/client/streaming", store.TokenClient, s.handleClientStreaming)
	m.sdk("GET /api/client/features/{featureName}", store.TokenClient, s.handleClientFeature)
	m.sdk("POST /api/client/register", store.TokenClient, s.handleClientRegister)
	m.sdk("POST /api/client/metrics", store.TokenClient, s.handleClientMetrics)
	m.sdk("POST /api/client/metrics/bulk", store.TokenClient, s.handleClientBulkMetrics)

	m.sdk("GET /api/frontend", store.TokenFrontend, s.handleFrontendGet)
	m.sdk("POST /api/frontend", store.TokenFrontend, s.handleFrontendPost)
	m.sdk("GET /api/frontend/all", store.TokenFrontend, s.handleFrontendAll)
	m.sdk("POST /api/frontend/all", store.TokenFrontend, s.handleFrontendPost)
	m.sdk("POST /api/frontend/client/metrics", store.TokenFrontend, answeredOK(s.handleClientMetrics))
	m.sdk("POST /api/frontend/client/register", store.TokenFrontend, answeredOK(s.handleClientRegister))

	for _, register := range adminAreas() {
		register(s, m)
	}
	// Unknown admin paths: 401 without credentials, 404 with them, and 405
	// for a known path with another method. Not recorded: it is a
	// catch-all, not an endpoint.
	m.adminCatchAll(adminCatchAllPattern, PermRead, func(w http.ResponseWriter, r *http.Request) error {
		if allow := allowedMethods(m.ServeMux, r); len(allow) > 0 {
			w.Header().Set("Allow", strings.Join(allow, ", "))
			return apierr.New(apierr.MethodNotAllowed, "method %s is not allowed on %s", r.Method, r.URL.Path)
		}
		return notFoundPath(r)
	})
	return &exactRoutes{get: m.exact, mux: m.ServeMux}
}

// adminCatchAllPattern matches every admin path. Having no method, it also
// matches a known path requested with a method that path lacks, which is why
// ServeMux never answers 405 under it by itself.
const adminCatchAllPattern = "/api/admin/"

// probeMethods are the methods allowedMethods tries.
var probeMethods = []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete}

// allowedMethods lists the methods for which mux has a route, other than
// the admin catch-all, at r's path; empty when the path is unknown.
func allowedMethods(mux *http.ServeMux, r *http.Request) []string {
	var allow []string
	for _, method := range probeMethods {
		probe := *r
		probe.Method = method
		if _, pattern := mux.Handler(&probe); pattern != "" && pattern != adminCatchAllPattern {
			allow = append(allow, method)
			if method == http.MethodGet {
				allow = append(allow, http.MethodHead)
			}
		}
	}
	return allow
}

// adminAreas are the admin API's areas, each registering its routes (and
// naming the permission each needs) in its own file. The list is the one
// place that says which areas the server has; a new area is added here.
func adminAreas() []func(s *Server, m mux) {
	return []func(s *Server, m mux){
		registerAddons,
		registerAPITokens,
		registerApplicationAdmin,
		registerApplications,
		registerArchive,
		registerChangeRequests,
		registerConstraintValidate,
		registerContextFields,
		registerContextLegalValues,
		registerCreators,
		registerDependencies,
		registerDocs,
		registerDora,
		registerEdge,
		registerEdgeIssue,
		registerEnvironments,
		registerEvents,
		registerFavorites,
		registerFeatureEnvironments,
		registerFeatureLinks,
		registerFeatureTypes,
		registerFeatures,
		registerFrontendCORS,
		registerGroups,
		registerHealthReport,
		registerImportExport,
		registerInactiveUsers,
		registerInstanceInfo,
		registerInstanceStats,
		registerInviteLinks,
		registerLifecycle,
		registerMaintenance,
		registerPasswordReset,
		registerPasswordValidate,
		registerPersonalDashboard,
		registerPlayground,
		registerProjectAccess,
		registerProjectAPITokens,
		registerProjectBulk,
		registerProjectContextFields,
		registerProjectOverview,
		registerProjects,
		registerRoles,
		registerSAML,
		registerSearch,
		registerSegmentStrategies,
		registerSegments,
		registerStandaloneTags,
		registerStrategies,
		registerStrategyDefinitions,
		registerTagTypes,
		registerTags,
		registerUI,
		registerUIObservability,
		registerUIState,
		registerUserOverview,
		registerUsers,
		registerVariants,
	}
}
