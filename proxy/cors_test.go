package proxy

import (
	"net/http"
	"strings"
	"testing"
)

func preflight(t *testing.T, h *harness, origin, headers string) (*http.Response, []byte) {
	t.Helper()
	return h.do(t, "OPTIONS", "/proxy", "", "Authorization", "", "Origin", origin,
		"Access-Control-Request-Method", "POST", "Access-Control-Request-Headers", headers)
}

// TestCORSDefaults: the reference's preflight and actual-request headers.
func TestCORSDefaults(t *testing.T) {
	up := newFakeUpstream(t)
	h := startProxy(t, testConfig(t, up.url()))
	h.waitReady(t)
	resp, body := preflight(t, h, "https://app.example", "authorization,content-type")
	expectStatus(t, resp, body, http.StatusNoContent)
	want := map[string]string{
		"Access-Control-Allow-Origin":   "*",
		"Access-Control-Allow-Methods":  "GET, POST",
		"Access-Control-Allow-Headers":  "authorization,content-type",
		"Access-Control-Max-Age":        "172800",
		"Access-Control-Expose-Headers": "ETag",
	}
	for k, v := range want {
		if got := resp.Header.Get(k); got != v {
			t.Errorf("preflight %s = %q, want %q", k, got, v)
		}
	}
	if resp.Header.Get("Access-Control-Allow-Credentials") != "" {
		t.Errorf("credentials allowed by default")
	}
	// Actual request from a browser.
	resp, body = h.do(t, "GET", "/proxy", "", "Origin", "https://app.example")
	expectStatus(t, resp, body, http.StatusOK)
	if resp.Header.Get("Access-Control-Allow-Origin") != "*" || resp.Header.Get("Access-Control-Expose-Headers") != "ETag" {
		t.Errorf("actual request CORS headers %v", resp.Header)
	}
	// The preflight is answered before readiness too.
	h2 := startProxy(t, testConfig(t, deadURL(t)))
	resp, body = preflight(t, h2, "https://app.example", "authorization")
	expectStatus(t, resp, body, http.StatusNoContent)
}

// TestCORSOptions covers every cors.* option.
func TestCORSOptions(t *testing.T) {
	up := newFakeUpstream(t)
	cfg := testConfig(t, up.url())
	cfg.CORS = CORS{
		Origin:               []string{"https://a.example", "https://b.example"},
		Methods:              []string{"GET", "POST", "PUT"},
		AllowedHeaders:       []string{"Authorization", "X-Custom"},
		ExposedHeaders:       []string{"ETag", "X-Other"},
		Credentials:          true,
		MaxAge:               60,
		OptionsSuccessStatus: 200,
	}
	h := startProxy(t, cfg)
	h.waitReady(t)

	resp, body := preflight(t, h, "https://b.example", "authorization")
	expectStatus(t, resp, body, http.StatusOK)
	for k, v := range map[string]string{
		"Access-Control-Allow-Origin":      "https://b.example",
		"Access-Control-Allow-Methods":     "GET, POST, PUT",
		"Access-Control-Allow-Headers":     "authorization",
		"Access-Control-Allow-Credentials": "true",
		"Access-Control-Max-Age":           "60",
		"Access-Control-Expose-Headers":    "ETag, X-Other",
	} {
		if got := resp.Header.Get(k); got != v {
			t.Errorf("preflight %s = %q, want %q", k, got, v)
		}
	}
	// A header outside cors.allowedHeaders is not allowed.
	resp, _ = preflight(t, h, "https://b.example", "x-forbidden")
	if resp.Header.Get("Access-Control-Allow-Origin") != "" || resp.Header.Get("Access-Control-Expose-Headers") != "" {
		t.Errorf("disallowed header passed the preflight: %v", resp.Header)
	}
	// A preflight from an unlisted origin gets no CORS headers.
	resp, _ = preflight(t, h, "https://evil.example", "authorization")
	for k := range resp.Header {
		if strings.HasPrefix(k, "Access-Control-") {
			t.Errorf("unlisted origin's preflight has %s", k)
		}
	}
	// Another origin gets no CORS headers.
	resp, _ = h.do(t, "GET", "/proxy", "", "Origin", "https://evil.example")
	if resp.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("unlisted origin allowed")
	}
	resp, _ = h.do(t, "GET", "/proxy", "", "Origin", "https://a.example")
	if resp.Header.Get("Access-Control-Allow-Origin") != "https://a.example" ||
		resp.Header.Get("Access-Control-Expose-Headers") != "ETag, X-Other" ||
		resp.Header.Get("Access-Control-Allow-Credentials") != "true" {
		t.Errorf("listed origin: %v", resp.Header)
	}
}

// TestCORSPreflightContinue: the preflight is handed to the routes, which
// have none for OPTIONS, so it ends in 404 but keeps its CORS headers.
func TestCORSPreflightContinue(t *testing.T) {
	up := newFakeUpstream(t)
	cfg := testConfig(t, up.url())
	cfg.CORS.PreflightContinue = true
	h := startProxy(t, cfg)
	h.waitReady(t)
	resp, body := preflight(t, h, "https://app.example", "authorization")
	expectStatus(t, resp, body, http.StatusNotFound)
	if resp.Header.Get("Access-Control-Allow-Origin") != "*" || resp.Header.Get("Access-Control-Allow-Methods") != "GET, POST" {
		t.Errorf("continued preflight headers %v", resp.Header)
	}
}

func TestCORSNegativeMaxAge(t *testing.T) {
	up := newFakeUpstream(t)
	cfg := testConfig(t, up.url())
	cfg.CORS.MaxAge = -1
	h := startProxy(t, cfg)
	h.waitReady(t)
	resp, _ := preflight(t, h, "https://app.example", "authorization")
	if got := resp.Header.Get("Access-Control-Max-Age"); got != "0" {
		t.Errorf("Max-Age %q, want 0", got)
	}
}
