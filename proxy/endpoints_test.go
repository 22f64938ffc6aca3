package proxy

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/signalbox/signalbox/clientapi"
)

// TestNotReadyAnswers503Everywhere: before the first configuration every
// path, with or without a key, health included, answers 503 in plain text.
func TestNotReadyAnswers503Everywhere(t *testing.T) {
	cfg := testConfig(t, deadURL(t))
	cfg.EnableOAS = true
	h := startProxy(t, cfg)
	for _, tc := range []struct{ method, path string }{
		{"GET", "/proxy"}, {"POST", "/proxy"}, {"GET", "/proxy/all"}, {"GET", "/proxy/health"},
		{"POST", "/proxy/client/metrics"}, {"POST", "/proxy/client/register"}, {"GET", "/proxy/client/features"},
		{"GET", "/proxy/internal-backstage/prometheus"}, {"GET", "/docs/openapi.json"}, {"GET", "/nowhere"},
	} {
		for _, key := range []string{testClientKey, ""} {
			resp, body := h.do(t, tc.method, tc.path, "", "Authorization", key)
			expectStatus(t, resp, body, http.StatusServiceUnavailable)
			if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain") || len(body) < 20 {
				t.Errorf("%s %s: 503 answer %q (%s), want a plain-text sentence", tc.method, tc.path, body, ct)
			}
			if resp.Header.Get("Access-Control-Allow-Origin") != "*" {
				t.Errorf("%s %s: 503 lacks CORS headers", tc.method, tc.path)
			}
		}
	}
	if h.p.Ready() {
		t.Fatal("ready without any configuration")
	}
}

// TestBecomesReadyOnFirstSync: the Not ready → Ready transition.
func TestBecomesReadyOnFirstSync(t *testing.T) {
	up := newFakeUpstream(t)
	up.set(func(f *fakeUpstream) { f.status = http.StatusInternalServerError })
	h := startProxy(t, testConfig(t, up.url()))
	waitFor(t, "a failed poll", func() bool { return up.pollCount() >= 2 })
	resp, body := h.do(t, "GET", "/proxy/health", "")
	expectStatus(t, resp, body, http.StatusServiceUnavailable)
	up.set(func(f *fakeUpstream) { f.status = 0 })
	h.waitReady(t)
	resp, body = h.do(t, "GET", "/proxy/health", "")
	expectStatus(t, resp, body, http.StatusOK)
}

func TestGetProxy(t *testing.T) {
	up := newFakeUpstream(t)
	h := startProxy(t, testConfig(t, up.url()))
	h.waitReady(t)

	resp, body := h.do(t, "GET", "/proxy", "")
	expectStatus(t, resp, body, http.StatusOK)
	ts := toggles(t, body)
	if diff := cmp.Diff(enabledForAnonymous, names(ts)); diff != "" {
		t.Errorf("enabled flags (-want +got):\n%s", diff)
	}
	for _, tr := range ts {
		if !tr.Enabled {
			t.Errorf("%s: enabled false in GET /proxy", tr.Name)
		}
	}
	on, _ := find(ts, "on-default")
	want := clientapi.ToggleResult{Name: "on-default", Enabled: true, ImpressionData: true,
		Variant: clientapi.VariantResult{Name: "disabled", Enabled: false, FeatureEnabled: true, FeatureEnabled2: true}}
	if diff := cmp.Diff(want, on); diff != "" {
		t.Errorf("on-default (-want +got):\n%s", diff)
	}
	checkToggleHeaders(t, resp)

	// The query carries the context: alice sees her flag.
	_, body = h.do(t, "GET", "/proxy?userId=alice", "")
	if _, ok := find(toggles(t, body), "leak-alice-only"); !ok {
		t.Errorf("userId=alice: leak-alice-only missing: %s", body)
	}
	// properties[name]=value and unknown parameters are properties.
	_, body = h.do(t, "GET", "/proxy?properties%5BleakTierField%5D=leakGoldValue", "")
	if _, ok := find(toggles(t, body), "leak-gold-tier"); !ok {
		t.Errorf("properties[...]: leak-gold-tier missing: %s", body)
	}
	_, body = h.do(t, "GET", "/proxy?leakTierField=leakGoldValue&leakRegionField=leakEuValue", "")
	got := names(toggles(t, body))
	if !slices.Contains(got, "leak-gold-tier") || !slices.Contains(got, "leak-segment-eu") {
		t.Errorf("unknown parameters as properties: got %v", got)
	}
	// Explicit properties win over a same-named top-level parameter.
	_, body = h.do(t, "GET", "/proxy?leakTierField=leakGoldValue&properties[leakTierField]=silver", "")
	if _, ok := find(toggles(t, body), "leak-gold-tier"); ok {
		t.Errorf("properties[x] should win over x")
	}
	// An empty userId is dropped rather than matching.
	_, body = h.do(t, "GET", "/proxy?userId=", "")
	if diff := cmp.Diff(enabledForAnonymous, names(toggles(t, body))); diff != "" {
		t.Errorf("userId= (-want +got):\n%s", diff)
	}
}

// checkToggleHeaders checks the headers the reference sends with toggles.
func checkToggleHeaders(t *testing.T, resp *http.Response) {
	t.Helper()
	h := resp.Header
	if got := h.Get("Cache-Control"); got != "public, max-age=2" {
		t.Errorf("Cache-Control %q", got)
	}
	if got := h.Get("Content-Type"); got != "application/json; charset=utf-8" {
		t.Errorf("Content-Type %q", got)
	}
	if got := h.Get("ETag"); !strings.HasPrefix(got, `W/"`) {
		t.Errorf("ETag %q, want a weak tag", got)
	}
	if !slices.ContainsFunc(h.Values("Vary"), func(v string) bool { return strings.Contains(v, "Accept-Encoding") }) {
		t.Errorf("Vary %q lacks Accept-Encoding", h.Values("Vary"))
	}
	if h.Get("Access-Control-Allow-Origin") != "*" || h.Get("Access-Control-Expose-Headers") != "ETag" {
		t.Errorf("CORS headers: %v", h)
	}
}

func TestETagAnswers304(t *testing.T) {
	up := newFakeUpstream(t)
	h := startProxy(t, testConfig(t, up.url()))
	h.waitReady(t)
	// A fixed sessionId makes the answer deterministic.
	resp, body := h.do(t, "GET", "/proxy?sessionId=s1", "")
	etag := resp.Header.Get("ETag")
	resp2, body2 := h.do(t, "GET", "/proxy?sessionId=s1", "", "If-None-Match", etag)
	expectStatus(t, resp2, body2, http.StatusNotModified)
	if len(body2) != 0 {
		t.Errorf("304 with a body: %s", body2)
	}
	// The strong form of the same tag matches too; another tag does not.
	resp3, _ := h.do(t, "GET", "/proxy?sessionId=s1", "", "If-None-Match", strings.TrimPrefix(etag, "W/"))
	resp4, body4 := h.do(t, "GET", "/proxy?sessionId=s1", "", "If-None-Match", `W/"other"`)
	if resp3.StatusCode != 304 || resp4.StatusCode != 200 || string(body4) != string(body) {
		t.Errorf("strong form %d, other tag %d", resp3.StatusCode, resp4.StatusCode)
	}
}

func TestPostProxy(t *testing.T) {
	up := newFakeUpstream(t)
	h := startProxy(t, testConfig(t, up.url()))
	h.waitReady(t)

	// With a toggles list: exactly those, in order, on or off or unknown.
	resp, body := h.do(t, "POST", "/proxy", `{"context":{"userId":"bob","appName":"web","sessionId":"s"},"toggles":["leak-alice-only","on-default","no-such-flag"]}`)
	expectStatus(t, resp, body, http.StatusOK)
	checkToggleHeaders(t, resp)
	want := []clientapi.ToggleResult{
		{Name: "leak-alice-only", Enabled: false, Variant: clientapi.VariantResult{Name: "disabled"}},
		{Name: "on-default", Enabled: true, ImpressionData: true, Variant: clientapi.VariantResult{Name: "disabled", FeatureEnabled: true, FeatureEnabled2: true}},
		{Name: "no-such-flag", Enabled: false, Variant: clientapi.VariantResult{Name: "disabled"}},
	}
	if diff := cmp.Diff(want, toggles(t, body)); diff != "" {
		t.Errorf("toggles list (-want +got):\n%s", diff)
	}
	// impressionData is present on every entry.
	var raw struct{ Toggles []map[string]json.RawMessage }
	_ = json.Unmarshal(body, &raw)
	for _, m := range raw.Toggles {
		if _, ok := m["impressionData"]; !ok {
			t.Errorf("entry without impressionData: %v", m)
		}
	}

	// Without a list, an empty list, an empty body or no body: enabled flags.
	for _, b := range []string{`{"context":{}}`, `{"toggles":[]}`, `{}`, ``, `{"context":null,"toggles":null}`} {
		resp, body := h.do(t, "POST", "/proxy", b)
		expectStatus(t, resp, body, http.StatusOK)
		if diff := cmp.Diff(enabledForAnonymous, names(toggles(t, body))); diff != "" {
			t.Errorf("body %q (-want +got):\n%s", b, diff)
		}
	}
	// No Content-Type with a JSON body is read as JSON.
	resp, body = h.do(t, "POST", "/proxy", `{"context":{"userId":"alice"}}`, "Content-Type", "")
	expectStatus(t, resp, body, http.StatusOK)
	if _, ok := find(toggles(t, body), "leak-alice-only"); !ok {
		t.Errorf("body without Content-Type was not read: %s", body)
	}
	// Unknown top-level context members become properties; properties wins.
	_, body = h.do(t, "POST", "/proxy", `{"context":{"leakTierField":"leakGoldValue"},"toggles":["leak-gold-tier"]}`)
	if ts := toggles(t, body); !ts[0].Enabled {
		t.Errorf("unknown context member not a property: %s", body)
	}
	_, body = h.do(t, "POST", "/proxy", `{"context":{"leakTierField":"leakGoldValue","properties":{"leakTierField":"x"}},"toggles":["leak-gold-tier"]}`)
	if ts := toggles(t, body); ts[0].Enabled {
		t.Errorf("properties should win over a top-level member: %s", body)
	}
	// Numbers and booleans are taken as their text.
	_, body = h.do(t, "POST", "/proxy", `{"context":{"properties":{"leakTierField":"leakGoldValue","n":5,"b":true}},"toggles":["leak-gold-tier"]}`)
	if ts := toggles(t, body); !ts[0].Enabled {
		t.Errorf("properties object not read: %s", body)
	}
	// Empty top-level fields are dropped: userId "" never matches.
	_, body = h.do(t, "POST", "/proxy", `{"context":{"userId":""},"toggles":["leak-alice-only"]}`)
	if ts := toggles(t, body); ts[0].Enabled {
		t.Errorf("empty userId matched: %s", body)
	}
	// POST never answers 304 (Express checks freshness on GET and HEAD only).
	resp, _ = h.do(t, "POST", "/proxy", `{"context":{"sessionId":"a"},"toggles":["on-default"]}`)
	resp2, _ := h.do(t, "POST", "/proxy", `{"context":{"sessionId":"a"},"toggles":["on-default"]}`, "If-None-Match", resp.Header.Get("ETag"))
	if resp2.StatusCode != http.StatusOK {
		t.Errorf("POST with a matching If-None-Match: %d", resp2.StatusCode)
	}
}

func TestPostProxyBadRequests(t *testing.T) {
	up := newFakeUpstream(t)
	cfg := testConfig(t, up.url())
	cfg.MaxBodyBytes = 1024
	h := startProxy(t, cfg)
	h.waitReady(t)
	for _, tc := range []struct {
		name, body, ctype string
		status            int
		validation        bool
	}{
		{"malformed JSON", `{"context":`, "application/json", 400, false},
		{"trailing garbage", `{} x`, "application/json", 400, false},
		{"context not an object", `{"context":"alice"}`, "application/json", 400, true},
		{"context an array", `{"context":[1]}`, "application/json", 400, true},
		{"toggles not an array", `{"toggles":"on-default"}`, "application/json", 400, true},
		{"toggles of numbers", `{"toggles":[1,2]}`, "application/json", 400, true},
		{"properties not an object", `{"context":{"properties":[1]}}`, "application/json", 400, true},
		{"userId an object", `{"context":{"userId":{"a":1}}}`, "application/json", 400, true},
		{"body an array", `[]`, "application/json", 400, true},
		{"text/plain", `{}`, "text/plain", 415, false},
		{"form", `a=b`, "application/x-www-form-urlencoded", 415, false},
		{"too large", `{"context":{"userId":"` + strings.Repeat("x", 2000) + `"}}`, "application/json", 413, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, body := h.do(t, "POST", "/proxy", tc.body, "Content-Type", tc.ctype)
			expectStatus(t, resp, body, tc.status)
			var eb struct {
				Error      string            `json:"error"`
				Validation []json.RawMessage `json:"validation"`
			}
			if err := json.Unmarshal(body, &eb); err != nil || eb.Error == "" {
				t.Fatalf("error body %s: %v", body, err)
			}
			if tc.validation && len(eb.Validation) == 0 {
				t.Errorf("no validation list: %s", body)
			}
			if !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
				t.Errorf("Content-Type %q", resp.Header.Get("Content-Type"))
			}
		})
	}
}

func TestAllEndpoint(t *testing.T) {
	up := newFakeUpstream(t)
	t.Run("disabled", func(t *testing.T) {
		h := startProxy(t, testConfig(t, up.url()))
		h.waitReady(t)
		for _, m := range []string{"GET", "POST"} {
			resp, body := h.do(t, m, "/proxy/all", "")
			expectStatus(t, resp, body, http.StatusNotImplemented)
			var eb errorBody
			if err := json.Unmarshal(body, &eb); err != nil || !strings.Contains(eb.Error, "ENABLE_ALL_ENDPOINT") {
				t.Errorf("%s 501 body %s", m, body)
			}
			// The key is checked first: a wrong or missing key hears
			// 401, not that the endpoint is turned off.
			for _, key := range []string{"wrong", ""} {
				resp, body := h.do(t, m, "/proxy/all", "", "Authorization", key)
				expectStatus(t, resp, body, http.StatusUnauthorized)
			}
		}
	})
	t.Run("enabled", func(t *testing.T) {
		cfg := testConfig(t, up.url())
		cfg.EnableAllEndpoint = true
		h := startProxy(t, cfg)
		h.waitReady(t)
		var want []string
		var payload clientapi.Features
		_ = json.Unmarshal([]byte(testPayload), &payload)
		for _, f := range payload.Features {
			want = append(want, f.Name)
		}
		for _, tc := range []struct{ method, body string }{{"GET", ""}, {"POST", `{"context":{}}`}} {
			resp, body := h.do(t, tc.method, "/proxy/all", tc.body)
			expectStatus(t, resp, body, http.StatusOK)
			ts := toggles(t, body)
			if diff := cmp.Diff(want, names(ts)); diff != "" {
				t.Errorf("%s /proxy/all (-want +got):\n%s", tc.method, diff)
			}
			if off, _ := find(ts, "leak-off-flag"); off.Enabled {
				t.Errorf("leak-off-flag enabled")
			}
		}
		resp, _ := h.do(t, "GET", "/proxy/all", "", "Authorization", "wrong")
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("/proxy/all without key: %d", resp.StatusCode)
		}
	})
}

func TestHealth(t *testing.T) {
	up := newFakeUpstream(t)
	h := startProxy(t, testConfig(t, up.url()))
	h.waitReady(t)
	resp, body := h.do(t, "GET", "/proxy/health", "", "Authorization", "")
	expectStatus(t, resp, body, http.StatusOK)
	if string(body) != "ok" || resp.Header.Get("Content-Type") != "text/html; charset=utf-8" ||
		resp.Header.Get("Content-Length") != "2" || !strings.HasPrefix(resp.Header.Get("ETag"), `W/"`) {
		t.Errorf("health: %q %v", body, resp.Header)
	}
}

func TestClientKeys(t *testing.T) {
	up := newFakeUpstream(t)
	cfg := testConfig(t, up.url())
	cfg.ClientKeys = []string{"key-a", "key-b"}
	h := startProxy(t, cfg)
	h.waitReady(t)
	for _, tc := range []struct {
		key  string
		want int
	}{
		{"key-a", 200}, {"key-b", 200}, {"", 401}, {"key-c", 401}, {"Bearer key-a", 401},
		{"key-a ", 200}, // net/http trims the value's outer spaces, as Node does
		{testToken, 401},
	} {
		for _, m := range []string{"GET", "POST"} {
			resp, body := h.do(t, m, "/proxy", "", "Authorization", tc.key)
			if resp.StatusCode != tc.want {
				t.Errorf("%s with key %q: %d, want %d", m, tc.key, resp.StatusCode, tc.want)
			}
			if tc.want == 401 {
				if string(body) != "Unauthorized" || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain") {
					t.Errorf("401 body %q", body)
				}
				if resp.Header.Get("Access-Control-Allow-Origin") != "*" {
					t.Errorf("401 without CORS headers")
				}
			}
		}
	}
}

func TestProxySecretsAlias(t *testing.T) {
	up := newFakeUpstream(t)
	cfg := testConfig(t, up.url())
	cfg.ClientKeys = nil
	cfg.ProxySecrets = []string{"old-secret"}
	h := startProxy(t, cfg)
	h.waitReady(t)
	resp, body := h.do(t, "GET", "/proxy", "", "Authorization", "old-secret")
	expectStatus(t, resp, body, http.StatusOK)
}

func TestClientKeysHeaderName(t *testing.T) {
	up := newFakeUpstream(t)
	cfg := testConfig(t, up.url())
	cfg.ClientKeysHeaderName = "X-Proxy-Key"
	h := startProxy(t, cfg)
	h.waitReady(t)
	resp, body := h.do(t, "GET", "/proxy", "", "Authorization", "", "x-proxy-key", testClientKey)
	expectStatus(t, resp, body, http.StatusOK)
	// The key in Authorization no longer counts.
	resp, body = h.do(t, "GET", "/proxy", "")
	expectStatus(t, resp, body, http.StatusUnauthorized)
}

func TestUnknownPathsAndMethods(t *testing.T) {
	up := newFakeUpstream(t)
	h := startProxy(t, testConfig(t, up.url()))
	h.waitReady(t)
	for _, tc := range []struct{ method, path string }{
		{"GET", "/"}, {"GET", "/proxyx"}, {"GET", "/proxy/nope"}, {"PUT", "/proxy"}, {"DELETE", "/proxy"},
		{"GET", "/proxy/client/metrics"}, {"GET", "/proxy/client/register"}, {"POST", "/proxy/health"},
		{"GET", "/docs/openapi.json"}, {"GET", "/docs/openapi/"}, // OAS is off
	} {
		resp, body := h.do(t, tc.method, tc.path, "")
		if resp.StatusCode != http.StatusNotFound {
			t.Errorf("%s %s: %d %s, want 404", tc.method, tc.path, resp.StatusCode, body)
		}
	}
	// Express routing: case-insensitive, optional trailing slash.
	for _, p := range []string{"/PROXY", "/proxy/", "/Proxy/Health"} {
		resp, body := h.do(t, "GET", p, "")
		expectStatus(t, resp, body, http.StatusOK)
	}
}

func TestBasePath(t *testing.T) {
	up := newFakeUpstream(t)
	cfg := testConfig(t, up.url())
	cfg.ProxyBasePath = "base/path"
	h := startProxy(t, cfg)
	h.waitReady(t)
	resp, body := h.do(t, "GET", "/base/path/proxy", "")
	expectStatus(t, resp, body, http.StatusOK)
	resp, body = h.do(t, "GET", "/base/path/proxy/health", "")
	expectStatus(t, resp, body, http.StatusOK)
	for _, p := range []string{"/proxy", "/base/proxy", "/base/pathproxy"} {
		resp, _ := h.do(t, "GET", p, "")
		if resp.StatusCode != http.StatusNotFound {
			t.Errorf("%s with a base path: %d, want 404", p, resp.StatusCode)
		}
	}
}

func TestClientFeaturesForServerSideTokens(t *testing.T) {
	up := newFakeUpstream(t)
	cfg := testConfig(t, up.url())
	cfg.ExpServerSideSDKConfig.Tokens = []string{"server-token"}
	h := startProxy(t, cfg)
	h.waitReady(t)
	resp, body := h.do(t, "GET", "/proxy/client/features", "", "Authorization", "server-token")
	expectStatus(t, resp, body, http.StatusOK)
	var f clientapi.Features
	if err := json.Unmarshal(body, &f); err != nil || len(f.Features) != 10 || len(f.Segments) != 1 {
		t.Fatalf("features answer: %v %s", err, body)
	}
	for _, key := range []string{testClientKey, "", testToken} {
		resp, body := h.do(t, "GET", "/proxy/client/features", "", "Authorization", key)
		expectStatus(t, resp, body, http.StatusUnauthorized)
	}
	// Server-side tokens may post metrics and registrations but get no
	// evaluations.
	resp, body = h.do(t, "GET", "/proxy", "", "Authorization", "server-token")
	expectStatus(t, resp, body, http.StatusUnauthorized)
}

func TestClientFeaturesWithoutTokens(t *testing.T) {
	up := newFakeUpstream(t)
	h := startProxy(t, testConfig(t, up.url()))
	h.waitReady(t)
	resp, body := h.do(t, "GET", "/proxy/client/features", "")
	expectStatus(t, resp, body, http.StatusUnauthorized)
}

func TestPrometheus(t *testing.T) {
	up := newFakeUpstream(t)
	h := startProxy(t, testConfig(t, up.url()))
	h.waitReady(t)
	h.do(t, "GET", "/proxy", "")
	resp, body := h.do(t, "GET", "/proxy/internal-backstage/prometheus", "", "Authorization", "")
	expectStatus(t, resp, body, http.StatusOK)
	for _, want := range []string{"signalbox_proxy_ready 1", "signalbox_proxy_flags 10", "go_goroutines",
		`http_requests_total{method="GET",route="GET /proxy",status="200"}`, "signalbox_proxy_upstream_fetches_total"} {
		if !strings.Contains(string(body), want) {
			t.Errorf("prometheus text lacks %q", want)
		}
	}
}

func TestOpenAPI(t *testing.T) {
	up := newFakeUpstream(t)
	cfg := testConfig(t, up.url())
	cfg.EnableOAS = true
	cfg.ProxyBasePath = "/edge"
	cfg.ClientKeysHeaderName = "x-key"
	h := startProxy(t, cfg)
	h.waitReady(t)
	resp, body := h.do(t, "GET", "/edge/docs/openapi.json", "", "Authorization", "")
	expectStatus(t, resp, body, http.StatusOK)
	var doc struct {
		OpenAPI string                     `json:"openapi"`
		Servers []struct{ URL string }     `json:"servers"`
		Paths   map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(doc.OpenAPI, "3.") || len(doc.Servers) != 1 || doc.Servers[0].URL != "/edge" {
		t.Errorf("document head: %+v", doc)
	}
	for _, p := range []string{"/proxy", "/proxy/all", "/proxy/health", "/proxy/client/metrics", "/proxy/client/register",
		"/proxy/client/features", "/proxy/internal-backstage/prometheus"} {
		if _, ok := doc.Paths[p]; !ok {
			t.Errorf("document lacks %s", p)
		}
	}
	if !strings.Contains(string(body), `"name":"x-key"`) {
		t.Errorf("document does not name the configured key header")
	}
	resp, _ = h.do(t, "GET", "/edge/docs/openapi", "")
	if resp.StatusCode != http.StatusMovedPermanently || resp.Header.Get("Location") != "/edge/docs/openapi/" {
		t.Errorf("/docs/openapi: %d %v", resp.StatusCode, resp.Header)
	}
	resp, body = h.do(t, "GET", "/edge/docs/openapi/", "")
	expectStatus(t, resp, body, http.StatusOK)
	if !strings.Contains(string(body), "/edge/docs/openapi.json") || !strings.Contains(resp.Header.Get("Content-Type"), "text/html") {
		t.Errorf("Swagger UI page: %s", body)
	}
	// The page cannot be framed and runs only its own scripts.
	if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "frame-ancestors 'none'") || !strings.Contains(csp, "script-src 'self';") ||
		resp.Header.Get("X-Frame-Options") != "DENY" || resp.Header.Get("X-Content-Type-Options") != "nosniff" {
		t.Errorf("Swagger UI page headers: %v", resp.Header)
	}
	// Its assets come from the binary.
	resp, body = h.do(t, "GET", "/edge/docs/openapi/swagger-ui-bundle.js", "")
	expectStatus(t, resp, body, http.StatusOK)
	if len(body) < 10000 {
		t.Errorf("UI bundle is %d bytes", len(body))
	}
}
