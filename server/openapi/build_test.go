package openapi

import (
	"strings"
	"testing"
)

func TestOpenAPIPatterns(t *testing.T) {
	for _, tt := range []struct{ pattern, method, path, id, tag string }{
		{"GET /api/client/features", "get", "/api/client/features", "getClientFeatures", "Client API"},
		{"POST /api/admin/projects/{projectId}/features", "post", "/api/admin/projects/{projectId}/features", "postAdminProjectsByProjectIdFeatures", "Features"},
		{"PUT /api/admin/projects/{projectId}", "put", "/api/admin/projects/{projectId}", "putAdminProjectsByProjectId", "Projects"},
		{"GET /api/admin/user/tokens", "get", "/api/admin/user/tokens", "getAdminUserTokens", "Personal access tokens"},
		{"GET /api/admin/search/events", "get", "/api/admin/search/events", "getAdminSearchEvents", "Events"},
		{"GET /api/admin/ui-config", "get", "/api/admin/ui-config", "getAdminUiConfig", "Ui config"},
		{"DELETE example.com/files/{path...}", "delete", "/files/{path}", "deleteFilesByPath", "Files"},
		{"GET /docs/{$}", "get", "/docs/", "getDocs", "Documentation"},
		{"/ready", "get", "/ready", "getReady", "Operational"},
	} {
		method, path := SplitPattern(tt.pattern)
		id, tag := oaGeneratedID(method, path), oaTagFor(path)
		if method != tt.method || path != tt.path || id != tt.id || tag != tt.tag {
			t.Errorf("%q: %s %s %s %q, want %s %s %s %q", tt.pattern, method, path, id, tag, tt.method, tt.path, tt.id, tt.tag)
		}
	}
}

func TestOpenAPIOpsTable(t *testing.T) {
	seen := map[string]string{}
	ids := map[string]string{}
	for pattern, op := range describedOps(Facts{}) {
		method, path := SplitPattern(pattern)
		if !strings.HasPrefix(pattern, strings.ToUpper(method)+" /") {
			t.Errorf("%q: want METHOD /path", pattern)
		}
		key := method + " " + Shape(path)
		if other, dup := seen[key]; dup {
			t.Errorf("%q and %q describe the same route", pattern, other)
		}
		seen[key] = pattern
		if other, dup := ids[op.ID]; dup && op.ID != "" {
			t.Errorf("%q and %q share operationId %s", pattern, other, op.ID)
		}
		ids[op.ID] = pattern
	}
}
