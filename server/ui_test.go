package server

import (
	"net/http"
	"strings"
	"testing"

	"github.com/signalbox/signalbox/auth/saml/samltest"
	"github.com/signalbox/signalbox/web"
)

func TestUIRoutes(t *testing.T) {
	ts := newTestServer(t)
	tests := []struct {
		method, path string
		status       int
		wantType     string
	}{
		{"GET", "/", 200, "text/html; charset=utf-8"},
		{"GET", "/login", 200, "text/html; charset=utf-8"},
		{"GET", "/projects", 200, "text/html; charset=utf-8"},
		{"GET", "/projects/default", 200, "text/html; charset=utf-8"},
		{"GET", "/projects/default/features/my-flag", 200, "text/html; charset=utf-8"},
		{"GET", "/events", 200, "text/html; charset=utf-8"},
		{"HEAD", "/archive", 200, "text/html; charset=utf-8"},
		{"GET", "/projects/default/access", 200, "text/html; charset=utf-8"},
		{"GET", "/admin/roles", 200, "text/html; charset=utf-8"},
		{"GET", "/admin/settings", 200, "text/html; charset=utf-8"},
		{"GET", "/admin/import-export", 200, "text/html; charset=utf-8"},
		{"GET", "/assets/" + web.Version() + "/app.js", 200, "text/javascript; charset=utf-8"},
		// Paths that are not pages keep their JSON answers.
		{"GET", "/api/admin/nope", 401, "application/json; charset=utf-8"},
		{"GET", "/api/nope", 404, "application/json; charset=utf-8"},
		{"GET", "/nope", 404, "application/json; charset=utf-8"},
		{"GET", "/projects/default/nope", 404, "application/json; charset=utf-8"},
		{"POST", "/projects", 405, "application/json; charset=utf-8"},
		{"GET", "/assets/" + web.Version() + "/missing.js", 404, ""},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.path, func(t *testing.T) {
			res := ts.request(tt.method, tt.path, "", nil)
			if res.Status != tt.status {
				t.Fatalf("status %d, want %d: %s", res.Status, tt.status, res.Body)
			}
			if tt.wantType != "" && res.Header.Get("Content-Type") != tt.wantType {
				t.Errorf("Content-Type %q, want %q", res.Header.Get("Content-Type"), tt.wantType)
			}
			if tt.wantType == "text/html; charset=utf-8" && !strings.Contains(res.Header.Get("Content-Security-Policy"), "default-src 'none'") {
				t.Errorf("no strict CSP: %q", res.Header.Get("Content-Security-Policy"))
			}
		})
	}
	// With a token, an unknown admin path is still the API's 404.
	ts.admin("GET", "/api/admin/nope", nil).must(t, http.StatusNotFound)
}

func TestAuthProviders(t *testing.T) {
	ts := newSAMLTestServer(t)
	got := ts.request("GET", "/auth/providers", "", nil).must(t, http.StatusOK).Object()
	if got["saml"] != false || got["password"] != true {
		t.Errorf("before SAML is set up: %v", got)
	}
	idp := samltest.New(t)
	configureSAML(t, ts, idp, settingsFor(idp))
	if got := ts.request("GET", "/auth/providers", "", nil).must(t, http.StatusOK).Object(); got["saml"] != true {
		t.Errorf("with SAML enabled: %v", got)
	}
	ts.admin("POST", "/api/admin/auth/saml/settings", with(settingsFor(idp), "enabled", false)).must(t, http.StatusOK)
	if got := ts.request("GET", "/auth/providers", "", nil).must(t, http.StatusOK).Object(); got["saml"] != false {
		t.Errorf("with SAML turned off: %v", got)
	}
}
