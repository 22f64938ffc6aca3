package server

import (
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"regexp"
	"strings"
	"testing"
)

// TestDocsSecurityHeaders: the Swagger UI page and its assets cannot be
// framed or sniffed, and the page's policy lets exactly its own inline
// scripts run.
func TestDocsSecurityHeaders(t *testing.T) {
	ts := newTestServer(t)
	page := ts.request("GET", "/docs/openapi/", "", nil).must(t, http.StatusOK)
	asset := ts.request("GET", "/docs/openapi/swagger-ui-bundle.js", "", nil).must(t, http.StatusOK)
	for name, res := range map[string]response{"page": page, "asset": asset} {
		for h, want := range map[string]string{
			"X-Content-Type-Options": "nosniff", "X-Frame-Options": "DENY", "Referrer-Policy": "no-referrer",
		} {
			if got := res.Header.Get(h); got != want {
				t.Errorf("%s: %s = %q, want %q", name, h, got, want)
			}
		}
		csp := res.Header.Get("Content-Security-Policy")
		for _, want := range []string{"frame-ancestors 'none'", "default-src 'self'", "object-src 'none'"} {
			if !strings.Contains(csp, want) {
				t.Errorf("%s: CSP %q lacks %s", name, csp, want)
			}
		}
	}
	csp := page.Header.Get("Content-Security-Policy")
	scripts := regexp.MustCompile(`(?s)<script>(.*?)</script>`).FindAllSubmatch(page.Body, -1)
	if len(scripts) == 0 {
		t.Fatal("the page has no inline script; the test no longer checks the hashes")
	}
	for _, m := range scripts {
		sum := sha256.Sum256(m[1])
		if h := "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"; !strings.Contains(csp, h) {
			t.Errorf("CSP %q does not allow the inline script hashed %s", csp, h)
		}
	}
	if strings.Contains(csp, "script-src 'self' 'unsafe-inline'") || strings.Contains(csp, "unsafe-eval") {
		t.Errorf("CSP lets any script run: %q", csp)
	}
}
