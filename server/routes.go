package server

import (
	"net/http"

	"github.com/signalbox/signalbox/store"
)

// routes builds the router. Each admin area registers its routes in its own
// file (registerX); the permission every admin route needs is named there.
func (s *Server) routes() (http.Handler, error) {
	m := mux{s: s, ServeMux: http.NewServeMux()}

	m.public("GET /health", s.handleHealth)
	m.public("GET /ready", s.handleReady)
	m.record("GET /internal-backstage/prometheus", "none", "")
	m.Handle("GET /internal-backstage/prometheus", s.prometheusHandler())

	m.public("POST /auth/simple/login", s.handleLogin)
	m.public("POST /auth/logout", s.handleLogout)
	m.public("POST /logout", s.handleLogout)

	m.sdk("GET /api/client/features", store.TokenClient, s.withFetchMode(s.handleClientFeatures))
	m.sdk("GET /api/client/delta", store.TokenClient, s.withFetchMode(s.handleClientDelta))
	m.sdk("GET /api/client/streaming", store.TokenClient, s.handleClientStreaming)
	m.sdk("GET /api/client/features/{featureName}", store.TokenClient, s.handleClientFeature)
	m.sdk("POST /api/client/register", store.TokenClient, s.handleClientRegister)
	m.sdk("POST /api/client/metrics", store.TokenClient, s.handleClientMetrics)

	m.sdk("GET /api/frontend", store.TokenFrontend, s.handleFrontendGet)
	m.sdk("POST /api/frontend", store.TokenFrontend, s.handleFrontendPost)
	m.sdk("GET /api/frontend/all", store.TokenFrontend, s.handleFrontendAll)
	m.sdk("POST /api/frontend/all", store.TokenFrontend, s.handleFrontendPost)
	m.sdk("POST /api/frontend/client/metrics", store.TokenFrontend, s.handleClientMetrics)
	m.sdk("POST /api/frontend/client/register", store.TokenFrontend, s.handleClientRegister)

	for _, register := range adminAreas {
		register(s, m)
	}
	// Unknown admin paths: 401 without credentials, 404 with them. Not
	// recorded: it is a catch-all, not an endpoint.
	m.adminCatchAll("/api/admin/", PermRead, func(w http.ResponseWriter, r *http.Request) error {
		return notFoundPath(r)
	})
	return s.middleware(m.ServeMux)
}

// adminAreas holds each admin area's route registration; files add theirs
// in init so that areas stay independent of each other.
var adminAreas []func(s *Server, m mux)
