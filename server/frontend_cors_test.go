package server

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/signalbox/signalbox/store/sqlstore"
)

// sdkHeaders are what the browser SDK asks a preflight for.
const sdkHeaders = "authorization,content-type,if-none-match,unleash-appname,unleash-connection-id,unleash-sdk"

func preflightFrontend(ts *testServer, path, origin, method string) response {
	ts.t.Helper()
	return ts.request("OPTIONS", path, "", nil, "Origin", origin,
		"Access-Control-Request-Method", method, "Access-Control-Request-Headers", sdkHeaders)
}

// corsHeaders lists the Access-Control-* headers of an answer.
func corsHeaders(h http.Header) map[string]string {
	out := map[string]string{}
	for k, v := range h {
		if strings.HasPrefix(k, "Access-Control-") {
			out[k] = strings.Join(v, ", ")
		}
	}
	return out
}

// TestFrontendCORSDefault: with no setting saved and no configured
// default, browsers on any origin may use the frontend API, with the
// proxy's CORS answers; other APIs get no CORS headers.
func TestFrontendCORSDefault(t *testing.T) {
	ts := newTestServer(t)
	for _, path := range []string{"/api/frontend", "/api/frontend/all", "/api/frontend/client/metrics", "/api/frontend/client/register"} {
		res := preflightFrontend(ts, path, "https://app.example", "POST").must(t, http.StatusNoContent)
		want := map[string]string{
			"Access-Control-Allow-Origin":   "*",
			"Access-Control-Allow-Methods":  "GET, POST",
			"Access-Control-Allow-Headers":  sdkHeaders,
			"Access-Control-Max-Age":        "86400",
			"Access-Control-Expose-Headers": "ETag",
		}
		for k, v := range want {
			if got := res.Header.Get(k); got != v {
				t.Errorf("%s preflight %s = %q, want %q", path, k, got, v)
			}
		}
		if res.Header.Get("Access-Control-Allow-Credentials") != "" {
			t.Errorf("%s: credentials allowed", path)
		}
	}
	// Actual answers, a 401 included, carry the headers; a cross-site
	// POST with its token is served (the frontend API uses no cookies).
	for _, tc := range []struct {
		method, token string
		body          any
		want          int
	}{
		{"GET", testFrontendToken, nil, http.StatusOK},
		{"POST", testFrontendToken, map[string]any{"context": map[string]any{"userId": "1"}}, http.StatusOK},
		{"GET", "wrong-token", nil, http.StatusUnauthorized},
	} {
		res := ts.request(tc.method, "/api/frontend", tc.token, tc.body, "Origin", "https://app.example", "Sec-Fetch-Site", "cross-site", "Sec-Fetch-Mode", "cors").must(t, tc.want)
		if res.Header.Get("Access-Control-Allow-Origin") != "*" || res.Header.Get("Access-Control-Expose-Headers") != "ETag" {
			t.Errorf("%s %d: CORS headers %v", tc.method, tc.want, corsHeaders(res.Header))
		}
	}
	// Other APIs: no CORS, and no preflight answer.
	res := ts.request("OPTIONS", "/api/client/features", "", nil, "Origin", "https://app.example", "Access-Control-Request-Method", "GET")
	if res.Status != http.StatusMethodNotAllowed || len(corsHeaders(res.Header)) > 0 {
		t.Errorf("client API preflight: %d %v", res.Status, corsHeaders(res.Header))
	}
	res = ts.request("GET", "/api/client/features", testClientToken, nil, "Origin", "https://app.example").must(t, http.StatusOK)
	if len(corsHeaders(res.Header)) > 0 {
		t.Errorf("client API has CORS headers %v", corsHeaders(res.Header))
	}
	// An OPTIONS that is not a preflight is not allowed.
	ts.request("OPTIONS", "/api/frontend", testFrontendToken, nil).must(t, http.StatusMethodNotAllowed)
}

// TestFrontendCORSSetting: an admin sets the allowed origins; the change
// takes effect at once, writes one event, and only the listed origins get
// CORS headers. Viewers and Editors cannot change it; bad origins are
// refused with a validation error.
func TestFrontendCORSSetting(t *testing.T) {
	t.Run("SQLite", func(t *testing.T) { frontendCORSSettingFlow(t, newTestServer(t)) })
	t.Run("PostgreSQL", func(t *testing.T) { frontendCORSSettingFlow(t, newPostgresTestServer(t)) })
}

func frontendCORSSettingFlow(t *testing.T, ts *testServer) {
	var cfg uiConfig
	ts.admin("GET", "/api/admin/ui-config", nil).must(t, http.StatusOK).Decode(t, &cfg)
	if !slices.Equal(cfg.FrontendAPIOrigins, []string{"*"}) || cfg.Version == "" || cfg.UnleashURL == "" {
		t.Errorf("ui-config before: %+v", cfg)
	}

	created := len(events(t, ts, "setting-created"))
	ts.admin("POST", "/api/admin/ui-config/cors", map[string]any{"frontendApiOrigins": []string{"https://app.example", " http://localhost:3000 ", "https://app.example"}}).
		must(t, http.StatusNoContent)
	evs := events(t, ts, "setting-created")
	if len(evs) != created+1 {
		t.Fatalf("%d setting-created events, want 1", len(evs)-created)
	}
	if d := jsonObject(t, evs[len(evs)-1].Data); d["id"] != "unleash.frontend" || len(d["frontendApiOrigins"].([]any)) != 2 {
		t.Errorf("event data %s", evs[len(evs)-1].Data)
	}
	ts.admin("GET", "/api/admin/ui-config", nil).must(t, http.StatusOK).Decode(t, &cfg)
	if !slices.Equal(cfg.FrontendAPIOrigins, []string{"https://app.example", "http://localhost:3000"}) {
		t.Errorf("ui-config after: %v", cfg.FrontendAPIOrigins)
	}

	res := preflightFrontend(ts, "/api/frontend", "https://app.example", "GET").must(t, http.StatusNoContent)
	if res.Header.Get("Access-Control-Allow-Origin") != "https://app.example" || res.Header.Get("Access-Control-Expose-Headers") != "ETag" ||
		!strings.Contains(strings.Join(res.Header.Values("Vary"), ","), "Origin") {
		t.Errorf("allowed origin's preflight: %v %v", corsHeaders(res.Header), res.Header.Values("Vary"))
	}
	res = ts.request("GET", "/api/frontend", testFrontendToken, nil, "Origin", "http://localhost:3000").must(t, http.StatusOK)
	if res.Header.Get("Access-Control-Allow-Origin") != "http://localhost:3000" {
		t.Errorf("allowed origin's request: %v", corsHeaders(res.Header))
	}
	for _, method := range []string{"OPTIONS", "GET"} {
		var res response
		if method == "OPTIONS" {
			res = preflightFrontend(ts, "/api/frontend", "https://evil.example", "GET")
		} else {
			res = ts.request("GET", "/api/frontend", testFrontendToken, nil, "Origin", "https://evil.example").must(t, http.StatusOK)
		}
		if h := corsHeaders(res.Header); len(h) > 0 {
			t.Errorf("%s from another origin has CORS headers %v", method, h)
		}
	}

	// A second change: setting-updated with the earlier value as preData.
	ts.admin("POST", "/api/admin/ui-config/cors", map[string]any{"frontendApiOrigins": []string{"*"}}).must(t, http.StatusNoContent)
	upd := events(t, ts, "setting-updated")
	if len(upd) != 1 || !strings.Contains(string(upd[0].PreData), "localhost:3000") || !strings.Contains(string(upd[0].Data), `"*"`) {
		t.Fatalf("setting-updated events %+v", upd)
	}
	res = preflightFrontend(ts, "/api/frontend", "https://evil.example", "GET").must(t, http.StatusNoContent)
	if res.Header.Get("Access-Control-Allow-Origin") != "*" {
		t.Errorf("after allowing any origin: %v", corsHeaders(res.Header))
	}

	// Bad input.
	for _, body := range []any{
		map[string]any{},
		map[string]any{"frontendApiOrigins": nil},
		map[string]any{"frontendApiOrigins": []string{"a"}},
		map[string]any{"frontendApiOrigins": []string{"https://app.example/"}},
		map[string]any{"frontendApiOrigins": []string{"https://app.example/path"}},
		map[string]any{"frontendApiOrigins": []string{"HTTPS://App.example"}},
		map[string]any{"frontendApiOrigins": []string{"https://app.example:443"}},
		map[string]any{"frontendApiOrigins": []string{"https://*.example"}},
		map[string]any{"frontendApiOrigins": []string{"ftp://app.example"}},
		map[string]any{"frontendApiOrigins": []string{""}},
		map[string]any{"frontendApiOrigins": []string{"https://user@app.example"}},
		map[string]any{"frontendApiOrigins": "https://app.example"},
	} {
		res := ts.admin("POST", "/api/admin/ui-config/cors", body).must(t, http.StatusBadRequest)
		if o := res.Object(); o["name"] != "ValidationError" && o["name"] != "BadDataError" || o["message"] == "" {
			t.Errorf("%v: error body %s", body, res.Body)
		}
	}

	// Only admins.
	before := len(events(t, ts, "setting-updated"))
	viewer := viewerSession(t, ts)
	ts.asSession(viewer, "POST", "/api/admin/ui-config/cors", map[string]any{"frontendApiOrigins": []string{"https://viewer.example"}}).must(t, http.StatusForbidden)
	ts.asSession(viewer, "GET", "/api/admin/ui-config", nil).must(t, http.StatusOK)
	createTestUser(t, ts, "eddie-editor", "Editor", strongPassword)
	editor := signIn(t, ts, "eddie-editor", strongPassword)
	ts.asSession(editor, "POST", "/api/admin/ui-config/cors", map[string]any{"frontendApiOrigins": []string{"https://editor.example"}}).must(t, http.StatusForbidden)
	ts.request("POST", "/api/admin/ui-config/cors", testClientToken, map[string]any{"frontendApiOrigins": []string{"https://x.example"}}).must(t, http.StatusForbidden)
	if n := len(events(t, ts, "setting-updated")); n != before {
		t.Errorf("refused changes wrote %d events", n-before)
	}
	ts.admin("GET", "/api/admin/ui-config", nil).must(t, http.StatusOK).Decode(t, &cfg)
	if !slices.Equal(cfg.FrontendAPIOrigins, []string{"*"}) {
		t.Errorf("a refused change was stored: %v", cfg.FrontendAPIOrigins)
	}
}

// TestFrontendCORSConfiguredDefault: Config.FrontendAPIOrigins applies
// until an admin saves the setting; an invalid origin there stops New. A
// second instance on the same database follows a change once it sees the
// new revision.
func TestFrontendCORSConfiguredDefault(t *testing.T) {
	ctx := context.Background()
	st, err := sqlstore.Open(ctx, filepath.Join(t.TempDir(), "signalbox.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	if _, err := New(ctx, st, Config{Log: quiet, FrontendAPIOrigins: []string{"https://ok.example", "https://bad.example/"}}); err == nil ||
		!strings.Contains(err.Error(), "bad.example") {
		t.Fatalf("invalid configured origin: %v", err)
	}
	a := newTestServerOn(t, st)
	srv, err := New(ctx, st, Config{Log: quiet, FrontendAPIOrigins: []string{"https://configured.example"}})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(hs.Close)
	b := &testServer{t: t, srv: srv, url: hs.URL}

	allowed := func(ts *testServer, origin string) bool {
		res := preflightFrontend(ts, "/api/frontend", origin, "GET")
		return res.Header.Get("Access-Control-Allow-Origin") != ""
	}
	if !allowed(b, "https://configured.example") || allowed(b, "https://other.example") {
		t.Errorf("configured default not applied")
	}
	var cfg uiConfig
	b.admin("GET", "/api/admin/ui-config", nil).must(t, http.StatusOK).Decode(t, &cfg)
	if !slices.Equal(cfg.FrontendAPIOrigins, []string{"https://configured.example"}) {
		t.Errorf("ui-config shows %v", cfg.FrontendAPIOrigins)
	}

	a.admin("POST", "/api/admin/ui-config/cors", map[string]any{"frontendApiOrigins": []string{"https://saved.example"}}).must(t, http.StatusNoContent)
	if !allowed(a, "https://saved.example") || allowed(a, "https://configured.example") {
		t.Errorf("instance a does not follow its own change")
	}
	b.srv.refreshRevision(ctx) // what its revision poller does
	if !allowed(b, "https://saved.example") || allowed(b, "https://configured.example") {
		t.Errorf("instance b does not follow the saved setting")
	}
}

func TestValidOrigin(t *testing.T) {
	for o, want := range map[string]bool{
		"*": true, "https://app.example": true, "http://localhost:3000": true, "http://[::1]:8080": true, "http://10.0.0.1": true,
		"https://app.example/": false, "app.example": false, "https://app.example:443": false, "http://app.example:80": false,
		"https://App.example": false, "https://app.example?x": false, "https://app.example#x": false, "https://": false,
		"https://app.example:": false, "null": false, "https://ü.example": false, "*.example": false,
	} {
		if got := validOrigin(o); got != want {
			t.Errorf("validOrigin(%q) = %v, want %v", o, got, want)
		}
	}
}

// TestFrontendCORSOpenAPI: the answers of the new routes match their
// OpenAPI entries.
func TestFrontendCORSOpenAPI(t *testing.T) {
	ts := newTestServer(t)
	c := newOAChecker(t, ts)
	c.do("GET", "/api/admin/ui-config", testAdminToken, nil, http.StatusOK)
	c.do("POST", "/api/admin/ui-config/cors", testAdminToken, map[string]any{"frontendApiOrigins": []string{"https://app.example"}}, http.StatusNoContent)
	c.do("POST", "/api/admin/ui-config/cors", testAdminToken, map[string]any{"frontendApiOrigins": []string{"nope"}}, http.StatusBadRequest)
	c.do("POST", "/api/admin/ui-config/cors", "", map[string]any{"frontendApiOrigins": []string{}}, http.StatusUnauthorized)
	c.do("GET", "/api/admin/ui-config", testAdminToken, nil, http.StatusOK)
}
