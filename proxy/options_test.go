package proxy

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/signalbox/signalbox/engine"
	"github.com/signalbox/signalbox/internal/clientip"
)

// contextEcho is a payload whose flags reveal the context the proxy built:
// one flag per value that a field may take.
const contextEcho = `{"version":2,"features":[
 {"name":"env-default","enabled":true,"strategies":[{"name":"default","constraints":[{"contextName":"environment","operator":"IN","values":["default"]}],"parameters":{}}]},
 {"name":"env-production","enabled":true,"strategies":[{"name":"default","constraints":[{"contextName":"environment","operator":"IN","values":["production"]}],"parameters":{}}]},
 {"name":"env-staging","enabled":true,"strategies":[{"name":"default","constraints":[{"contextName":"environment","operator":"IN","values":["staging"]}],"parameters":{}}]},
 {"name":"app-proxy","enabled":true,"strategies":[{"name":"default","constraints":[{"contextName":"appName","operator":"IN","values":["test-proxy"]}],"parameters":{}}]},
 {"name":"app-web","enabled":true,"strategies":[{"name":"default","constraints":[{"contextName":"appName","operator":"IN","values":["web"]}],"parameters":{}}]},
 {"name":"ip-client","enabled":true,"strategies":[{"name":"remoteAddress","constraints":[],"parameters":{"IPs":"198.51.100.9"}}]},
 {"name":"ip-loopback","enabled":true,"strategies":[{"name":"remoteAddress","constraints":[],"parameters":{"IPs":"127.0.0.1"}}]},
 {"name":"has-session","enabled":true,"strategies":[{"name":"default","constraints":[{"contextName":"sessionId","operator":"STR_STARTS_WITH","values":["0."]}],"parameters":{}}]},
 {"name":"enriched","enabled":true,"strategies":[{"name":"default","constraints":[{"contextName":"enrichedBy","operator":"IN","values":["go"]}],"parameters":{}}]},
 {"name":"custom","enabled":true,"strategies":[{"name":"companyStrategy","constraints":[],"parameters":{"team":"core"}}]},
 {"name":"next-century","enabled":true,"strategies":[{"name":"default","constraints":[{"contextName":"currentTime","operator":"DATE_AFTER","value":"2100-01-01T00:00:00.000Z"}],"parameters":{}}]}
]}`

func echoProxy(t *testing.T, mod func(*Config)) *harness {
	t.Helper()
	up := newFakeUpstream(t)
	up.set(func(f *fakeUpstream) { f.payload = []byte(contextEcho) })
	cfg := testConfig(t, up.url())
	if mod != nil {
		mod(&cfg)
	}
	h := startProxy(t, cfg)
	h.waitReady(t)
	return h
}

func enabledNames(t *testing.T, h *harness, method, path, body string, headers ...string) []string {
	t.Helper()
	resp, b := h.do(t, method, path, body, headers...)
	expectStatus(t, resp, b, http.StatusOK)
	var out []string
	for _, tr := range toggles(t, b) {
		if tr.Enabled {
			out = append(out, tr.Name)
		}
	}
	return out
}

// TestContextDefaults: appName = serviceAppName, environment = default,
// remoteAddress = the caller, a random sessionId for GET and POST without a
// list, none for POST with a list.
func TestContextDefaults(t *testing.T) {
	h := echoProxy(t, nil)
	got := enabledNames(t, h, "GET", "/proxy", "")
	for _, want := range []string{"env-default", "app-proxy", "ip-loopback", "has-session"} {
		if !slices.Contains(got, want) {
			t.Errorf("GET defaults: %s missing from %v", want, got)
		}
	}
	got = enabledNames(t, h, "POST", "/proxy", `{"context":{}}`)
	if !slices.Contains(got, "has-session") {
		t.Errorf("POST without list got no random session: %v", got)
	}
	got = enabledNames(t, h, "POST", "/proxy", `{"toggles":["has-session","app-proxy"]}`)
	if slices.Contains(got, "has-session") || !slices.Contains(got, "app-proxy") {
		t.Errorf("POST with list: %v", got)
	}
	// Callers may override appName, environment, sessionId and remoteAddress.
	got = enabledNames(t, h, "GET", "/proxy?appName=web&environment=staging&sessionId=abc&remoteAddress=198.51.100.9", "")
	if !slices.Equal(got, []string{"env-staging", "app-web", "ip-client"}) {
		t.Errorf("overrides: %v", got)
	}
}

// TestCurrentTime: currentTime from the query or the body moves the clock
// of date constraints; one that does not parse is ignored.
func TestCurrentTime(t *testing.T) {
	h := echoProxy(t, nil)
	for _, tc := range []struct {
		method, path, body string
		want               bool
	}{
		{"GET", "/proxy", "", false},
		{"GET", "/proxy?currentTime=2101-06-01T00:00:00Z", "", true},
		{"GET", "/proxy?currentTime=someday", "", false},
		{"POST", "/proxy", `{"context":{"currentTime":"2101-06-01T00:00:00.000Z"},"toggles":["next-century"]}`, true},
		{"POST", "/proxy", `{"context":{"currentTime":"garbage"},"toggles":["next-century"]}`, false},
	} {
		got := slices.Contains(enabledNames(t, h, tc.method, tc.path, tc.body), "next-century")
		if got != tc.want {
			t.Errorf("%s %s %s: next-century %v, want %v", tc.method, tc.path, tc.body, got, tc.want)
		}
	}
}

// TestEnvironmentPinned: the environment option fixes the context's
// environment; neither the query nor the body can change it.
func TestEnvironmentPinned(t *testing.T) {
	h := echoProxy(t, func(c *Config) { c.Environment = "production" })
	for _, tc := range []struct{ method, path, body string }{
		{"GET", "/proxy", ""},
		{"GET", "/proxy?environment=staging", ""},
		{"POST", "/proxy", `{"context":{"environment":"staging"}}`},
		{"POST", "/proxy", `{"context":{"environment":"staging"},"toggles":["env-production","env-staging"]}`},
	} {
		got := enabledNames(t, h, tc.method, tc.path, tc.body)
		if !slices.Contains(got, "env-production") || slices.Contains(got, "env-staging") || slices.Contains(got, "env-default") {
			t.Errorf("%s %s %s: %v", tc.method, tc.path, tc.body, got)
		}
	}
}

// TestTrustProxy: X-Forwarded-For sets remoteAddress only when the hop is
// trusted.
func TestTrustProxy(t *testing.T) {
	xff := []string{"X-Forwarded-For", "198.51.100.9"}
	for _, tc := range []struct {
		trust string
		want  string
	}{
		{"false", "ip-loopback"},
		{"true", "ip-client"},
		{"127.0.0.1", "ip-client"},
		{"10.0.0.0/8", "ip-loopback"}, // the loopback peer is not trusted
		{"10.0.0.0/8, 127.0.0.0/8", "ip-client"},
	} {
		t.Run(tc.trust, func(t *testing.T) {
			h := echoProxy(t, func(c *Config) { c.TrustProxy = clientip.MustParse(tc.trust) })
			got := enabledNames(t, h, "GET", "/proxy", "", xff...)
			if !slices.Contains(got, tc.want) {
				t.Errorf("trust %s: want %s in %v", tc.trust, tc.want, got)
			}
			got = enabledNames(t, h, "POST", "/proxy", `{"toggles":["ip-client","ip-loopback"]}`, xff...)
			if !slices.Equal(got, []string{tc.want}) {
				t.Errorf("trust %s POST: %v", tc.trust, got)
			}
		})
	}
}

// TestCustomStrategiesAndEnrichers: Go strategies and enrichers from the
// Config are used, and the strategy is announced upstream.
func TestCustomStrategiesAndEnrichers(t *testing.T) {
	h := echoProxy(t, func(c *Config) {
		c.CustomStrategies = map[string]engine.CustomStrategy{
			"companyStrategy": engine.CustomStrategyFunc(func(p map[string]string, ctx *engine.Context) bool {
				return p["team"] == "core" && ctx.UserID == "carol"
			}),
		}
		c.Enrichers = []func(*engine.Context){
			func(ctx *engine.Context) {
				if ctx.Properties == nil {
					ctx.Properties = map[string]string{}
				}
				ctx.Properties["enrichedBy"] = "go"
			},
			func(ctx *engine.Context) { ctx.Environment = "staging" },
		}
		c.Environment = "production"
	})
	got := enabledNames(t, h, "GET", "/proxy?userId=carol", "")
	for _, want := range []string{"custom", "enriched", "env-production"} {
		if !slices.Contains(got, want) {
			t.Errorf("%s missing from %v", want, got)
		}
	}
	if slices.Contains(got, "env-staging") {
		t.Errorf("an enricher overrode the fixed environment")
	}
	if got := enabledNames(t, h, "GET", "/proxy?userId=dave", ""); slices.Contains(got, "custom") {
		t.Errorf("custom strategy on for dave")
	}
	if !slices.Contains(h.p.strategies, "companyStrategy") {
		t.Errorf("custom strategy not announced: %v", h.p.strategies)
	}
}

func TestLoggerOptions(t *testing.T) {
	var buf bytes.Buffer
	NewLogger(&buf, true, "info").Info("hello", "k", 1)
	var rec map[string]any
	if err := json.Unmarshal(buf.Bytes(), &rec); err != nil || rec["msg"] != "hello" {
		t.Errorf("JSON logger wrote %q", buf.String())
	}
	buf.Reset()
	NewLogger(&buf, false, "warn").Info("hidden")
	NewLogger(&buf, false, "warn").Warn("shown")
	if strings.Contains(buf.String(), "hidden") || !strings.Contains(buf.String(), "shown") || strings.HasPrefix(buf.String(), "{") {
		t.Errorf("text logger at warn wrote %q", buf.String())
	}
	buf.Reset()
	NewLogger(&buf, false, "fatal").Error("not fatal")
	if buf.Len() != 0 {
		t.Errorf("fatal level shows errors: %q", buf.String())
	}
	buf.Reset()
	NewLogger(&buf, false, "debug").Debug("dbg")
	if !strings.Contains(buf.String(), "dbg") {
		t.Errorf("debug level hides debug")
	}

	// A custom logger receives the proxy's records.
	var custom syncBuffer
	cfg := testConfig(t, deadURL(t))
	cfg.Logger = slog.New(slog.NewTextHandler(&custom, nil))
	startProxy(t, cfg)
	waitFor(t, "a log record", func() bool { return strings.Contains(custom.String(), "cannot fetch the configuration") })
}
