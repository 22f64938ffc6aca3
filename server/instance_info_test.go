package server

import (
	"net/http"
	"testing"
)

// TestInstanceInfo checks that administrators see the kind of database
// the server runs on, and that others are refused.
func TestInstanceInfo(t *testing.T) {
	tests := []struct {
		name string
		ts   func(*testing.T) *testServer
		want string
	}{
		{"sqlite", newTestServer, "sqlite"},
		{"postgres", newPostgresTestServer, "postgres"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ts := tc.ts(t)
			var info struct {
				Version  string `json:"version"`
				Database string `json:"database"`
			}
			ts.admin("GET", "/api/admin/instance-admin/info", nil).must(t, http.StatusOK).Decode(t, &info)
			if info.Database != tc.want || info.Version == "" {
				t.Errorf("info %+v, want database %s", info, tc.want)
			}
			viewer := crUser(t, ts, "info-viewer", "Viewer")
			ts.as(viewer, "GET", "/api/admin/instance-admin/info", nil).must(t, http.StatusForbidden)
		})
	}
}
