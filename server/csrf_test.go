package server

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// rawRequest sends a request with a body sent as is and exactly the given
// headers (name, value pairs); no Content-Type unless given.
func (ts *testServer) rawRequest(method, path, body string, header ...string) response {
	ts.t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, ts.url+path, rd)
	if err != nil {
		ts.t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := client.Do(req)
	if err != nil {
		ts.t.Fatal(err)
	}
	defer res.Body.Close()
	data, _ := io.ReadAll(res.Body)
	return response{Status: res.StatusCode, Header: res.Header, Body: data}
}

// Writes authenticated by the session cookie must come from the server's
// own pages (or from outside a browser) and send JSON; writes with an API
// token work from anywhere.
func TestCookieWritesAreSameOriginJSON(t *testing.T) {
	ts := newTestServer(t)
	cookie := signIn(t, ts, "admin", testAdminPassword)
	pat := func() string {
		var p struct{ Secret string }
		ts.asSession(cookie, "POST", "/api/admin/user/tokens", map[string]any{"description": "script", "expiresAt": time.Now().Add(time.Hour).UTC().Format(time.RFC3339)}).
			must(t, http.StatusCreated).Decode(t, &p)
		return p.Secret
	}()
	const evil = "https://evil.example"
	json := "application/json"
	n := 0
	body := func() string {
		n++
		return `{"name":"tag-type-` + string(rune('a'+n)) + `"}`
	}
	cases := []struct {
		name   string
		auth   []string // Cookie or Authorization
		header []string
		ct     string
		status int
		kind   string
	}{
		{"cookie, same origin by Sec-Fetch-Site", []string{"Cookie", cookie}, []string{"Sec-Fetch-Site", "same-origin", "Origin", ts.url}, json, 201, ""},
		{"cookie, same origin by Origin", []string{"Cookie", cookie}, []string{"Origin", ts.url}, json, 201, ""},
		{"cookie, no browser headers (a script)", []string{"Cookie", cookie}, nil, json, 201, ""},
		{"cookie, JSON with charset", []string{"Cookie", cookie}, nil, "application/json; charset=utf-8", 201, ""},
		{"cookie, cross-site", []string{"Cookie", cookie}, []string{"Sec-Fetch-Site", "cross-site", "Origin", evil}, json, 403, "NoAccessError"},
		{"cookie, same-site but other origin", []string{"Cookie", cookie}, []string{"Sec-Fetch-Site", "same-site", "Origin", "https://other.example"}, json, 403, "NoAccessError"},
		{"cookie, other Origin without Sec-Fetch-Site", []string{"Cookie", cookie}, []string{"Origin", evil}, json, 403, "NoAccessError"},
		{"cookie, form", []string{"Cookie", cookie}, nil, "application/x-www-form-urlencoded", 415, "ContentTypeError"},
		{"cookie, text/plain", []string{"Cookie", cookie}, nil, "text/plain", 415, "ContentTypeError"},
		{"cookie, multipart", []string{"Cookie", cookie}, nil, "multipart/form-data; boundary=x", 415, "ContentTypeError"},
		{"cookie, no Content-Type", []string{"Cookie", cookie}, nil, "", 415, "ContentTypeError"},
		{"admin token, cross-site", []string{"Authorization", testAdminToken}, []string{"Sec-Fetch-Site", "cross-site", "Origin", evil}, json, 201, ""},
		{"admin token, no Content-Type", []string{"Authorization", testAdminToken}, nil, "", 201, ""},
		{"personal token, cross-site", []string{"Authorization", "Bearer " + pat}, []string{"Sec-Fetch-Site", "cross-site", "Origin", evil}, json, 201, ""},
		{"cookie and token, cross-site: the token authenticates", []string{"Authorization", testAdminToken, "Cookie", cookie}, []string{"Sec-Fetch-Site", "cross-site"}, json, 201, ""},
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			h := append(append([]string{}, tt.auth...), tt.header...)
			if tt.ct != "" {
				h = append(h, "Content-Type", tt.ct)
			}
			mark := auditMark(t, ts)
			res := ts.rawRequest("POST", "/api/admin/tag-types", body(), h...)
			if tt.kind != "" {
				mustErrorRecord(t, res, tt.status, tt.kind, "")
				if got := auditAfter(t, ts, mark); len(got) != 0 {
					t.Errorf("a refused write recorded %d events", len(got))
				}
				return
			}
			res.must(t, tt.status)
		})
	}

	// Reading stays open to any origin; deleting without a body needs no
	// Content-Type but the same origin.
	ts.rawRequest("GET", "/api/admin/tag-types", "", "Cookie", cookie, "Sec-Fetch-Site", "cross-site", "Origin", evil).must(t, http.StatusOK)
	mustErrorRecord(t, ts.rawRequest("DELETE", "/api/admin/tag-types/tag-type-b", "", "Cookie", cookie, "Sec-Fetch-Site", "cross-site", "Origin", evil),
		http.StatusForbidden, "NoAccessError", "")
	ts.rawRequest("DELETE", "/api/admin/tag-types/tag-type-b", "", "Cookie", cookie, "Sec-Fetch-Site", "same-origin").must(t, http.StatusOK)
}

// The public URL's origin counts as the server's own behind a proxy that
// passes another Host.
func TestCookieWritesFromThePublicURL(t *testing.T) {
	cop := newCrossOriginProtection("https://flags.example.com/some/path")
	req, _ := http.NewRequest("POST", "http://backend:4242/api/admin/tag-types", bytes.NewReader(nil))
	req.Header.Set("Sec-Fetch-Site", "cross-site")
	req.Header.Set("Origin", "https://flags.example.com")
	if err := cop.Check(req); err != nil {
		t.Fatalf("the public URL's origin is refused: %v", err)
	}
	req.Header.Set("Origin", "https://evil.example")
	if cop.Check(req) == nil {
		t.Fatal("another origin is accepted")
	}
}

// Signing out is a POST from the server's own pages; a link cannot do it.
func TestLogoutNeedsPostFromOwnPages(t *testing.T) {
	ts := newTestServer(t)
	cookie := signIn(t, ts, "admin", testAdminPassword)
	signedIn := func() bool {
		return ts.asSession(cookie, "GET", "/api/admin/user", nil).Status == http.StatusOK
	}

	if res := ts.rawRequest("GET", "/logout", "", "Cookie", cookie, "Accept", "text/html"); res.Status != http.StatusMethodNotAllowed || !strings.Contains(res.Header.Get("Allow"), "POST") {
		t.Errorf("GET /logout: %d %v", res.Status, res.Header)
	}
	for _, path := range []string{"/logout", "/auth/logout"} {
		mustErrorRecord(t, ts.rawRequest("POST", path, "", "Cookie", cookie, "Sec-Fetch-Site", "cross-site", "Origin", "https://evil.example"),
			http.StatusForbidden, "NoAccessError", "")
	}
	if !signedIn() {
		t.Fatal("the session ended without a same-origin POST")
	}

	// A page's form post (Unleash's UI signs out so) is sent to the start.
	res := ts.rawRequest("POST", "/logout", "", "Cookie", cookie, "Sec-Fetch-Site", "same-origin", "Accept", "text/html,application/xhtml+xml",
		"Content-Type", "application/x-www-form-urlencoded")
	if res.Status != http.StatusSeeOther || res.Header.Get("Location") != "/" {
		t.Fatalf("POST /logout from a page: %d %v", res.Status, res.Header)
	}
	if signedIn() {
		t.Fatal("the session survived POST /logout")
	}

	cookie = signIn(t, ts, "admin", testAdminPassword)
	ts.rawRequest("POST", "/auth/logout", "", "Cookie", cookie, "Sec-Fetch-Site", "same-origin").must(t, http.StatusOK)
	if signedIn() {
		t.Fatal("the session survived POST /auth/logout")
	}
}

// Another site cannot sign a browser in to an account of its choosing.
func TestLoginFromAnotherSiteIsRefused(t *testing.T) {
	ts := newTestServer(t)
	body := `{"username":"admin","password":"` + testAdminPassword + `"}`
	mustErrorRecord(t, ts.rawRequest("POST", "/auth/simple/login", body, "Sec-Fetch-Site", "cross-site", "Origin", "https://evil.example"),
		http.StatusForbidden, "NoAccessError", "")
	ts.rawRequest("POST", "/auth/simple/login", body, "Sec-Fetch-Site", "same-origin", "Content-Type", "application/json").must(t, http.StatusOK)
	ts.rawRequest("POST", "/auth/simple/login", body, "Content-Type", "application/json").must(t, http.StatusOK)
}
