package server

import (
	"net/http"
	"testing"
)

func TestHealthAndReady(t *testing.T) {
	ts := newTestServer(t)
	for _, path := range []string{"/health", "/ready"} {
		res := ts.request("GET", path, "", nil).must(t, http.StatusOK)
		if res.Object()["health"] != "GOOD" {
			t.Errorf("%s body %s", path, res.Body)
		}
	}
}

func TestAdminAuthentication(t *testing.T) {
	ts := newTestServer(t)
	tests := []struct {
		name   string
		token  string
		status int
		kind   string
	}{
		{"no token", "", http.StatusUnauthorized, "AuthenticationRequired"},
		{"unknown token", "*:*.nope", http.StatusUnauthorized, "AuthenticationRequired"},
		{"client token", testClientToken, http.StatusForbidden, "NoAccessError"},
		{"frontend token", testFrontendToken, http.StatusForbidden, "NoAccessError"},
		{"admin token, unknown path", testAdminToken, http.StatusNotFound, "NotFoundError"},
		{"admin token with Bearer, unknown path", "Bearer " + testAdminToken, http.StatusNotFound, "NotFoundError"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := ts.request("GET", "/api/admin/no-such-thing", tt.token, nil).must(t, tt.status)
			body := res.Object()
			if body["name"] != tt.kind || body["message"] == "" || body["id"] == "" {
				t.Errorf("body %s, want an Error record named %s", res.Body, tt.kind)
			}
			if tt.status == http.StatusUnauthorized && body["path"] != "/auth/simple/login" {
				t.Errorf("401 body should point to the login: %s", res.Body)
			}
		})
	}
}

func TestClientAPITokenKinds(t *testing.T) {
	ts := newTestServer(t)
	tests := []struct {
		token  string
		status int
	}{
		{"", http.StatusUnauthorized},
		{"default:development.wrong", http.StatusUnauthorized},
		{testAdminToken, http.StatusForbidden},
		{testFrontendToken, http.StatusForbidden},
		{testClientToken, http.StatusOK},
	}
	for _, tt := range tests {
		res := ts.request("GET", "/api/client/features", tt.token, nil)
		if res.Status != tt.status {
			t.Errorf("token %q: status %d, want %d (%s)", tt.token, res.Status, tt.status, res.Body)
		}
		if res.Status != http.StatusOK && res.Object()["message"] == nil {
			t.Errorf("token %q: error body without message: %s", tt.token, res.Body)
		}
	}
}

func TestClientFeaturesETag(t *testing.T) {
	ts := newTestServer(t)
	first := ts.request("GET", "/api/client/features", testClientToken, nil).must(t, http.StatusOK)
	etag := first.Header.Get("ETag")
	if etag == "" || etag[0] != '"' {
		t.Fatalf("strong ETag expected, got %q", etag)
	}
	body := first.Object()
	if body["version"] != float64(2) || body["features"] == nil {
		t.Errorf("payload %s", first.Body)
	}
	ts.request("GET", "/api/client/features", testClientToken, nil, "If-None-Match", etag).must(t, http.StatusNotModified)
	ts.request("GET", "/api/client/features", testClientToken, nil, "If-None-Match", "W/"+etag).must(t, http.StatusNotModified)
	ts.request("GET", "/api/client/features", testClientToken, nil, "If-None-Match", `"other"`).must(t, http.StatusOK)
}

func TestLogin(t *testing.T) {
	ts := newTestServer(t)
	ts.request("POST", "/auth/simple/login", "", map[string]string{"username": "admin", "password": "wrong"}).must(t, http.StatusUnauthorized)
	res := ts.request("POST", "/auth/simple/login", "", map[string]string{"username": "admin", "password": testAdminPassword}).must(t, http.StatusOK)
	var cookie string
	for _, c := range res.Header.Values("Set-Cookie") {
		cookie = c[:len(SessionCookie)+1+43]
	}
	if cookie == "" {
		t.Fatal("no session cookie")
	}
	ts.request("GET", "/api/admin/no-such-thing", "", nil, "Cookie", cookie).must(t, http.StatusNotFound)
	ts.request("POST", "/auth/logout", "", nil, "Cookie", cookie).must(t, http.StatusOK)
	ts.request("GET", "/api/admin/no-such-thing", "", nil, "Cookie", cookie).must(t, http.StatusUnauthorized)
}

func TestLoginRateLimit(t *testing.T) {
	ts := newTestServer(t)
	for range accountLimit.free {
		ts.request("POST", "/auth/simple/login", "", map[string]string{"username": "admin", "password": "guess"}).must(t, http.StatusUnauthorized)
	}
	ts.request("POST", "/auth/simple/login", "", map[string]string{"username": "admin", "password": testAdminPassword}).must(t, http.StatusTooManyRequests)
}

func TestNULInPathIsRefused(t *testing.T) {
	ts := newTestServer(t)
	for _, path := range []string{"/api/admin/projects/a%00b", "/api/client/features/x%00", "/api/admin/features/f%00/tags"} {
		res := ts.request("GET", path, testAdminToken, nil).must(t, http.StatusBadRequest)
		if res.Object()["name"] != "BadRequestError" {
			t.Errorf("%s: %s", path, res.Body)
		}
	}
}
