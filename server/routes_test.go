package server

import (
	"net/http"
	"testing"
)

// TestWrongMethodIs405: a known admin path asked with a method it lacks
// answers 405 with the methods it has, not 404; unknown paths stay 404 and
// everything under the admin API still needs credentials first.
func TestWrongMethodIs405(t *testing.T) {
	ts := newTestServer(t)
	tests := []struct {
		method, path string
		token        string
		status       int
		allow        string
	}{
		{"DELETE", "/api/admin/projects", testAdminToken, http.StatusMethodNotAllowed, "GET, HEAD, POST"},
		{"PATCH", "/api/admin/projects/default/features", testAdminToken, http.StatusMethodNotAllowed, "GET, HEAD, POST"},
		{"PUT", "/api/admin/user", testAdminToken, http.StatusMethodNotAllowed, "GET, HEAD"},
		{"POST", "/api/admin/events", testAdminToken, http.StatusMethodNotAllowed, "GET, HEAD"},
		{"DELETE", "/api/admin/no-such-area", testAdminToken, http.StatusNotFound, ""},
		{"GET", "/api/admin/no-such-area", testAdminToken, http.StatusNotFound, ""},
		{"DELETE", "/api/admin/projects", "", http.StatusUnauthorized, ""},
		{"GET", "/api/admin/projects", testAdminToken, http.StatusOK, ""},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.path, func(t *testing.T) {
			res := ts.request(tt.method, tt.path, tt.token, nil)
			if res.Status != tt.status {
				t.Fatalf("status %d, want %d: %s", res.Status, tt.status, res.Body)
			}
			if got := res.Header.Get("Allow"); got != tt.allow {
				t.Errorf("Allow %q, want %q", got, tt.allow)
			}
			if tt.status == http.StatusMethodNotAllowed {
				if obj := res.Object(); obj["name"] == nil || obj["message"] == nil || obj["id"] == nil {
					t.Errorf("body is not an error record: %s", res.Body)
				}
			}
		})
	}
}
