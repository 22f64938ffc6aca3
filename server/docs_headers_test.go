package server

import (
	"net/http"
	"regexp"
	"strings"
	"testing"
)

// TestDocsSecurityHeaders: the Swagger UI page and its assets cannot be
// framed or sniffed, and the page's policy lets only its own origin's
// script files run.
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
	// The page's scripts are all files of its own origin: the policy
	// allows those and nothing inline.
	csp := page.Header.Get("Content-Security-Policy")
	if scripts := regexp.MustCompile(`(?s)<script>(.*?)</script>`).FindAllSubmatch(page.Body, -1); len(scripts) > 0 {
		t.Errorf("the page has %d inline scripts", len(scripts))
	}
	if !strings.Contains(csp, "script-src 'self';") {
		t.Errorf("CSP %q allows scripts from elsewhere than the page's origin", csp)
	}
	if strings.Contains(csp, "script-src 'self' 'unsafe-inline'") || strings.Contains(csp, "unsafe-eval") {
		t.Errorf("CSP lets any script run: %q", csp)
	}
}
