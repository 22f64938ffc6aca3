package server

import (
	"net/http"

	"github.com/signalbox/signalbox/web"
)

// The admin web UI (package web) is served at the paths of its pages and
// below web.AssetsPath. The pages are listed one by one so that every other
// path keeps its JSON 404, and so that the route table and the OpenAPI
// document name them.
var uiPages = []string{
	"GET /{$}",
	"GET /login",
	"GET /reset-password",
	"GET /new-user",
	"GET /projects",
	"GET /projects/{projectId}",
	"GET /projects/{projectId}/features/{featureName}",
	"GET /projects/{projectId}/health",
	"GET /projects/{projectId}/access",
	"GET /projects/{projectId}/change-requests",
	"GET /projects/{projectId}/change-requests/{changeRequestId}",
	"GET /archive",
	"GET /events",
	"GET /playground",
	"GET /segments",
	"GET /context",
	"GET /environments",
	"GET /admin/api-tokens",
	"GET /admin/users",
	"GET /admin/groups",
	"GET /admin/roles",
	"GET /admin/settings",
	"GET /admin/import-export",
	"GET /profile",
}

func registerUI(s *Server, m mux) {
	ui := web.Handler()
	serve := func(w http.ResponseWriter, r *http.Request) error {
		ui.ServeHTTP(w, r)
		return nil
	}
	for _, p := range uiPages {
		m.public(p, serve)
	}
	m.public("GET "+web.AssetsPath+"{path...}", serve)
	m.public("GET /auth/providers", s.handleAuthProviders)
}

// handleAuthProviders tells the sign-in page which ways to sign in are on.
func (s *Server) handleAuthProviders(w http.ResponseWriter, r *http.Request) error {
	set, ok, err := s.loadSAMLSettings(r.Context())
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, map[string]bool{"password": true, "saml": ok && set.Enabled})
}
