package server

import (
	"net/http"
	"strings"
	"testing"
)

func TestTagTypes(t *testing.T) {
	ts := newTestServer(t)
	var list struct {
		Version  int
		TagTypes []tagTypeJSON
	}
	ts.admin("GET", "/api/admin/tag-types", nil).must(t, http.StatusOK).Decode(t, &list)
	if list.Version != 1 || len(list.TagTypes) != 1 || list.TagTypes[0].Name != "simple" {
		t.Fatalf("list %+v", list)
	}

	mark := auditMark(t, ts)
	res := ts.admin("POST", "/api/admin/tag-types", map[string]any{"name": "team", "description": "Owning team", "icon": "people", "color": "#aabbcc"}).must(t, http.StatusCreated)
	if got := res.Object(); got["name"] != "team" || got["icon"] != "people" || res.Header.Get("Location") != "/api/admin/tag-types/team" {
		t.Errorf("created %s", res.Body)
	}
	mustOneAudit(t, ts, mark, "tag-type-created")

	for _, tt := range []struct {
		name string
		body any
		code int
		kind string
	}{
		{"one character", map[string]any{"name": "x"}, 400, "ValidationError"},
		{"51 characters", map[string]any{"name": strings.Repeat("x", 51)}, 400, "ValidationError"},
		{"not URL-friendly", map[string]any{"name": "team/a"}, 400, "ValidationError"},
		{"bad color", map[string]any{"name": "colored", "color": "red"}, 400, "ValidationError"},
		{"taken", map[string]any{"name": "team"}, 409, "NameExistsError"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			mark := auditMark(t, ts)
			mustErrorRecord(t, ts.admin("POST", "/api/admin/tag-types", tt.body), tt.code, tt.kind, "")
			mustNoAudit(t, ts, mark)
		})
	}

	valid := ts.admin("POST", "/api/admin/tag-types/validate", map[string]any{"name": "region"}).must(t, http.StatusOK).Object()
	if valid["valid"] != true || valid["tagType"].(map[string]any)["name"] != "region" {
		t.Errorf("validate %v", valid)
	}
	mustErrorRecord(t, ts.admin("POST", "/api/admin/tag-types/validate", map[string]any{"name": "team"}), 409, "NameExistsError", "")
	mustErrorRecord(t, ts.admin("POST", "/api/admin/tag-types/validate", map[string]any{"name": "r"}), 400, "ValidationError", "name")

	got := ts.admin("GET", "/api/admin/tag-types/team", nil).must(t, http.StatusOK).Object()
	if got["name"] != "team" || got["version"] != float64(1) || got["tagType"].(map[string]any)["description"] != "Owning team" {
		t.Errorf("get %v", got)
	}
	mustErrorRecord(t, ts.admin("GET", "/api/admin/tag-types/nope", nil), 404, "NotFoundError", "")

	mark = auditMark(t, ts)
	got = ts.admin("PUT", "/api/admin/tag-types/team", map[string]any{"description": "Who owns it"}).must(t, http.StatusOK).Object()
	if got["description"] != "Who owns it" || got["icon"] != "people" {
		t.Errorf("only the fields sent change: %v", got)
	}
	mustOneAudit(t, ts, mark, "tag-type-updated")
	mustErrorRecord(t, ts.admin("PUT", "/api/admin/tag-types/nope", map[string]any{"description": "x"}), 404, "NotFoundError", "")

	mark = auditMark(t, ts)
	ts.admin("DELETE", "/api/admin/tag-types/team", nil).must(t, http.StatusOK)
	mustOneAudit(t, ts, mark, "tag-type-deleted")
	ts.admin("DELETE", "/api/admin/tag-types/team", nil).must(t, http.StatusNotFound)
}
