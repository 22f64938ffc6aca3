package proxy

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/signalbox/signalbox/clientapi"
)

// secretsOf lists what a client-key holder must never read in an answer:
// every strategy, constraint, segment and parameter name and value of the
// configuration, and the names of flags that are off for an anonymous
// caller. Words shared with the public API (context field names such as
// environment or appName, the strategy "default") are left out; the
// payload marks everything else with a "leak" prefix or a unique value.
func secretsOf(t *testing.T, payload string) []string {
	t.Helper()
	var f clientapi.Features
	if err := json.Unmarshal([]byte(payload), &f); err != nil {
		t.Fatal(err)
	}
	public := map[string]bool{"default": true, "environment": true, "appName": true, "remoteAddress": true,
		"production": true, "100": true, "rollout": true, "stickiness": true, "IN": true}
	var out []string
	add := func(s ...string) {
		for _, v := range s {
			if v != "" && !public[v] {
				out = append(out, v)
			}
		}
	}
	addConstraints := func(cs []clientapi.Constraint) {
		for _, c := range cs {
			add(c.ContextName, c.Value)
			add(c.Values...)
		}
	}
	for _, ft := range f.Features {
		if !slices.Contains(enabledForAnonymous, ft.Name) {
			add(ft.Name)
		}
		for _, s := range ft.Strategies {
			add(s.Name)
			addConstraints(s.Constraints)
			for k, v := range s.Parameters {
				add(k)
				for part := range strings.SplitSeq(v, ",") {
					add(part)
				}
			}
		}
	}
	for _, s := range f.Segments {
		add(s.Name)
		addConstraints(s.Constraints)
	}
	return out
}

// containsWord reports whether s occurs in text as a whole word: "IPs"
// must not match inside "ZIPs".
func containsWord(text, s string) bool {
	isWord := func(c byte) bool {
		return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
	}
	for off := 0; ; {
		i := strings.Index(text[off:], s)
		if i < 0 {
			return false
		}
		start, end := off+i, off+i+len(s)
		if (start == 0 || !isWord(text[start-1])) && (end == len(text) || !isWord(text[end])) {
			return true
		}
		off = start + 1
	}
}

// structural are words that only a configuration contains, but that the
// static API description may use to describe the API itself.
var structural = []string{"constraints", "segments", "parameters", "userWithId", "flexibleRollout", "groupId", "weightType"}

// TestNoConfigurationLeaks walks every endpoint a client key (or no key)
// can reach, before and after readiness, and checks that no answer body
// or header contains any part of the configuration.
func TestNoConfigurationLeaks(t *testing.T) {
	secrets := secretsOf(t, testPayload)
	if len(secrets) < 20 {
		t.Fatalf("secret list too short to prove anything: %v", secrets)
	}
	up := newFakeUpstream(t)
	cfg := testConfig(t, up.url())
	cfg.EnableOAS = true
	cfg.ExpServerSideSDKConfig.Tokens = []string{"server-token"}
	h := startProxy(t, cfg)
	h.waitReady(t)
	cfgOff := testConfig(t, deadURL(t))
	notReady := startProxy(t, cfgOff)

	type req struct {
		h                  *harness
		method, path, body string
		headers            []string
	}
	metrics := `{"appName":"web","instanceId":"i","bucket":{"start":"2026-01-01T00:00:00Z","stop":"2026-01-01T00:01:00Z","toggles":{"on-default":{"yes":1,"no":0}}}}`
	register := `{"appName":"web","interval":1000,"started":"2026-01-01T00:00:00Z","strategies":["default"]}`
	var reqs []req
	for _, hh := range []*harness{h, notReady} {
		for _, key := range []string{testClientKey, "", "wrong", testToken} {
			auth := []string{"Authorization", key}
			reqs = append(reqs,
				req{hh, "GET", "/proxy", "", auth},
				req{hh, "GET", "/proxy?userId=bob&sessionId=1&properties[x]=y&unknown=z", "", auth},
				req{hh, "POST", "/proxy", `{"context":{"userId":"bob"}}`, auth},
				req{hh, "POST", "/proxy", `{"context":{"userId":"bob"},"toggles":["on-default","ghost","with-variants"]}`, auth},
				req{hh, "POST", "/proxy", `{"context":`, auth},
				req{hh, "POST", "/proxy", `{"toggles":"x"}`, auth},
				req{hh, "POST", "/proxy", `{}`, append([]string{"Content-Type", "text/plain"}, auth...)},
				req{hh, "GET", "/proxy/all", "", auth},
				req{hh, "POST", "/proxy/all", "{}", auth},
				req{hh, "GET", "/proxy/health", "", auth},
				req{hh, "POST", "/proxy/client/metrics", metrics, auth},
				req{hh, "POST", "/proxy/client/metrics", `{"bucket":1}`, auth},
				req{hh, "POST", "/proxy/client/register", register, auth},
				req{hh, "POST", "/proxy/client/register", `{}`, auth},
				req{hh, "GET", "/proxy/client/features", "", auth},
				req{hh, "GET", "/proxy/internal-backstage/prometheus", "", auth},
				req{hh, "GET", "/docs/openapi.json", "", auth},
				req{hh, "GET", "/docs/openapi/", "", auth},
				req{hh, "GET", "/docs/openapi", "", auth},
				req{hh, "GET", "/unknown/path", "", auth},
				req{hh, "DELETE", "/proxy", "", auth},
				req{hh, "OPTIONS", "/proxy", "", append([]string{"Origin", "https://x", "Access-Control-Request-Method", "POST"}, auth...)},
			)
		}
	}
	if !containsWord(`{"name":"leak-off-flag"}`, "leak-off-flag") || containsWord("ZIPs", "IPs") || !containsWord("IPs", "IPs") {
		t.Fatal("containsWord is broken")
	}
	specific := secrets
	all := append(slices.Clone(secrets), structural...)
	checked := 0
	for _, r := range reqs {
		resp, body := r.h.do(t, r.method, r.path, r.body, r.headers...)
		var hdr strings.Builder
		_ = resp.Header.Write(&hdr)
		check := all
		if strings.HasPrefix(r.path, "/docs/") {
			// The API description is static and names the API's concepts.
			check = specific
		}
		for _, s := range check {
			if containsWord(string(body), s) || containsWord(hdr.String(), s) {
				t.Errorf("%s %s (key %q) answer %d reveals %q:\n%.300s", r.method, r.path, r.headers, resp.StatusCode, s, body)
			}
		}
		checked++
	}
	// The walk must have reached answers with flags in them.
	_, body := h.do(t, "POST", "/proxy", `{"context":{"userId":"bob"},"toggles":["on-default","ghost","with-variants"]}`)
	if !strings.Contains(string(body), "with-variants") {
		t.Fatalf("walk did not see evaluated flags: %s", body)
	}
	t.Logf("checked %d answers against %d secrets", checked, len(secrets))

	// The one deliberate exception: a server-side token reads the raw
	// configuration, which must then be complete.
	_, body = h.do(t, "GET", "/proxy/client/features", "", "Authorization", "server-token")
	if !strings.Contains(string(body), "leakSegmentName") {
		t.Errorf("server-side configuration lacks segments")
	}
}
