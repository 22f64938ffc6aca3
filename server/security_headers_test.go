package server

import (
	"context"
	"net/http"
	"net/url"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/signalbox/signalbox/store/sqlstore"
)

// TestNoStoreOnSecretAnswers: every answer that carries a token, a reset
// link or an invite link says Cache-Control: no-store; answers without
// secrets do not. Each listed route is a registered one.
func TestNoStoreOnSecretAnswers(t *testing.T) {
	ts := newTestServer(t)
	var patterns []string
	for _, r := range ts.srv.Routes() {
		patterns = append(patterns, r.Pattern)
	}
	for p := range secretAnswers {
		if !slices.Contains(patterns, p) {
			t.Errorf("%s is listed as answering secrets but is no route", p)
		}
	}

	ts.admin("POST", "/api/admin/projects", map[string]any{"id": "web", "name": "Web"}).must(t, http.StatusCreated)
	rita := createTestUser(t, ts, "rita", "Editor", strongPassword)
	cookie := signIn(t, ts, "rita", strongPassword)
	var tok TokenJSON
	created := ts.admin("POST", "/api/admin/api-tokens", map[string]any{"type": "client", "tokenName": "ci"}).must(t, http.StatusCreated)
	created.Decode(t, &tok)
	var listed struct{ Tokens []TokenJSON }
	ts.admin("GET", "/api/admin/api-tokens", nil).must(t, http.StatusOK).Decode(t, &listed)
	shown := ""
	for _, l := range listed.Tokens {
		if l.TokenName == "ci" {
			shown = l.Secret
		}
	}
	expires := time.Now().Add(time.Hour).UTC().Format(time.RFC3339)
	var invite struct{ Secret string }
	invited := ts.admin("POST", inviteLinksPath, map[string]any{"name": "Partners", "expiresAt": expires}).must(t, http.StatusCreated)
	invited.Decode(t, &invite)

	secret := map[string]response{
		"POST /api/admin/api-tokens":                      created,
		"GET /api/admin/api-tokens":                       ts.admin("GET", "/api/admin/api-tokens", nil).must(t, http.StatusOK),
		"GET /api/admin/api-tokens/{name}":                ts.admin("GET", "/api/admin/api-tokens/ci", nil).must(t, http.StatusOK),
		"PUT /api/admin/api-tokens/{token}":               ts.admin("PUT", "/api/admin/api-tokens/"+url.PathEscape(shown), map[string]any{"expiresAt": expires}).must(t, http.StatusOK),
		"POST /api/admin/projects/{projectId}/api-tokens": ts.admin("POST", "/api/admin/projects/web/api-tokens", map[string]any{"type": "client", "tokenName": "web", "environment": "production"}).must(t, http.StatusCreated),
		"GET /api/admin/projects/{projectId}/api-tokens":  ts.admin("GET", "/api/admin/projects/web/api-tokens", nil).must(t, http.StatusOK),
		"POST /api/admin/user/tokens":                     ts.asSession(cookie, "POST", "/api/admin/user/tokens", map[string]any{"description": "ci", "expiresAt": expires}).must(t, http.StatusCreated),
		"GET /api/admin/user/tokens":                      ts.asSession(cookie, "GET", "/api/admin/user/tokens", nil).must(t, http.StatusOK),
		"POST /api/admin/user-admin/reset-password":       ts.admin("POST", "/api/admin/user-admin/reset-password", map[string]any{"id": itoa(rita)}).must(t, http.StatusOK),
		"POST " + inviteLinksPath:                         invited,
		"GET " + inviteLinksPath:                          ts.admin("GET", inviteLinksPath, nil).must(t, http.StatusOK),
		"GET " + inviteLinksPath + "/{token}":             ts.admin("GET", inviteLinksPath+"/"+invite.Secret, nil).must(t, http.StatusOK),
		"PUT " + inviteLinksPath + "/{token}":             ts.admin("PUT", inviteLinksPath+"/"+invite.Secret, map[string]any{"enabled": false}).must(t, http.StatusOK),
		"POST /edge/validate":                             ts.request("POST", "/edge/validate", "", map[string]any{"tokens": []string{tok.Secret}}).must(t, http.StatusOK),
	}
	for p := range secretAnswers {
		res, ok := secret[p]
		if !ok {
			t.Errorf("%s is not tested", p)
			continue
		}
		if got := res.Header.Values("Cache-Control"); !slices.Equal(got, []string{"no-store"}) {
			t.Errorf("%s: Cache-Control %q, want no-store", p, got)
		}
	}
	// An error on such a route is no-store too; other answers are not.
	if got := ts.request("GET", "/api/admin/api-tokens", "", nil).must(t, http.StatusUnauthorized).Header.Get("Cache-Control"); got != "no-store" {
		t.Errorf("401 on a token route: Cache-Control %q", got)
	}
	for _, path := range []string{"/api/admin/projects", "/api/admin/user", "/health"} {
		if got := ts.admin("GET", path, nil).must(t, http.StatusOK).Header.Get("Cache-Control"); got == "no-store" {
			t.Errorf("%s is no-store", path)
		}
	}
}

// TestSecurityHeaders: every answer, of every API, errors and the UI
// included, says X-Content-Type-Options: nosniff; Strict-Transport-Security
// is sent only when the server is reached over HTTPS (SecureCookies), and
// then on every answer.
func TestSecurityHeaders(t *testing.T) {
	plain := newTestServer(t)
	st, err := sqlstore.Open(context.Background(), filepath.Join(t.TempDir(), "secure.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	secure := newTestServerWith(t, st, Config{SecureCookies: true})
	for _, srv := range []struct {
		name string
		ts   *testServer
		hsts bool
	}{{"plain", plain, false}, {"secure", secure, true}} {
		ts := srv.ts
		answers := map[string]response{
			"health":           ts.request("GET", "/health", "", nil).must(t, http.StatusOK),
			"admin":            ts.admin("GET", "/api/admin/projects", nil).must(t, http.StatusOK),
			"admin error":      ts.admin("GET", "/api/admin/projects/nope", nil).must(t, http.StatusNotFound),
			"unauthenticated":  ts.request("GET", "/api/admin/projects", "", nil).must(t, http.StatusUnauthorized),
			"client":           ts.request("GET", "/api/client/features", testClientToken, nil).must(t, http.StatusOK),
			"frontend":         ts.request("GET", "/api/frontend", testFrontendToken, nil).must(t, http.StatusOK),
			"unknown path":     ts.request("GET", "/api/nothing-here", "", nil).must(t, http.StatusNotFound),
			"login":            ts.request("POST", "/auth/simple/login", "", map[string]any{"username": "admin", "password": "wrong"}),
			"ui":               ts.request("GET", "/", "", nil),
			"prometheus":       ts.request("GET", "/internal-backstage/prometheus", "", nil).must(t, http.StatusOK),
			"client not found": ts.request("GET", "/api/client/features/nope", testClientToken, nil).must(t, http.StatusNotFound),
		}
		for what, res := range answers {
			if got := res.Header.Values("X-Content-Type-Options"); !slices.Equal(got, []string{"nosniff"}) {
				t.Errorf("%s %s: X-Content-Type-Options %q", srv.name, what, got)
			}
			got := res.Header.Get("Strict-Transport-Security")
			if srv.hsts && got != "max-age=31536000" || !srv.hsts && got != "" {
				t.Errorf("%s %s: Strict-Transport-Security %q", srv.name, what, got)
			}
		}
	}
}
