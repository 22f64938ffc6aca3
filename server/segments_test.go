package server

import (
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/signalbox/signalbox/store"
)

func inConstraint(field string, values ...string) map[string]any {
	return map[string]any{"contextName": field, "operator": "IN", "values": values}
}

func TestSegmentsCRUD(t *testing.T) {
	ts := newTestServer(t)
	mark := auditMark(t, ts)
	res := ts.admin("POST", "/api/admin/segments", map[string]any{
		"name": "beta-testers", "description": "Early birds", "constraints": []any{inConstraint("userId", "1", "2")},
	}).must(t, http.StatusCreated)
	var sg segmentJSON
	res.Decode(t, &sg)
	if sg.ID == 0 || sg.Name != "beta-testers" || *sg.CreatedBy != "init-admin" || len(sg.Constraints) != 1 || sg.Project != nil ||
		*sg.UsedInFeatures != 0 || res.Header.Get("Location") != "/api/admin/segments/"+strconv.Itoa(sg.ID) {
		t.Fatalf("created %s", res.Body)
	}
	mustOneAudit(t, ts, mark, "segment-created")
	path := "/api/admin/segments/" + strconv.Itoa(sg.ID)

	var list struct{ Segments []segmentJSON }
	ts.admin("GET", "/api/admin/segments", nil).must(t, http.StatusOK).Decode(t, &list)
	if len(list.Segments) != 1 || list.Segments[0].Name != "beta-testers" {
		t.Errorf("list %+v", list)
	}
	ts.admin("GET", path, nil).must(t, http.StatusOK)
	mustErrorRecord(t, ts.admin("GET", "/api/admin/segments/abc", nil), 400, "ValidationError", "id")
	mustErrorRecord(t, ts.admin("GET", "/api/admin/segments/999", nil), 404, "NotFoundError", "")

	mark = auditMark(t, ts)
	ts.admin("PUT", path, map[string]any{"name": "beta", "project": "default", "constraints": []any{inConstraint("userId", "3")}}).must(t, http.StatusNoContent)
	e := mustOneAudit(t, ts, mark, "segment-updated")
	if e.Project != "default" || !strings.Contains(string(e.PreData), "beta-testers") {
		t.Errorf("event %+v", e)
	}
	if got := ts.admin("GET", path, nil).must(t, http.StatusOK).Object(); got["name"] != "beta" || got["project"] != "default" {
		t.Errorf("after update %v", got)
	}
	mustErrorRecord(t, ts.admin("PUT", "/api/admin/segments/999", map[string]any{"name": "x", "constraints": []any{}}), 404, "NotFoundError", "")

	ts.admin("POST", "/api/admin/segments", map[string]any{"name": "other", "constraints": []any{}}).must(t, http.StatusCreated)
	mustErrorRecord(t, ts.admin("POST", "/api/admin/segments", map[string]any{"name": "beta", "constraints": []any{}}), 409, "NameExistsError", "")
	mustErrorRecord(t, ts.admin("PUT", path, map[string]any{"name": "other", "constraints": []any{}}), 409, "NameExistsError", "")

	ts.admin("POST", "/api/admin/segments/validate", map[string]any{"name": "free-name"}).must(t, http.StatusNoContent)
	mustErrorRecord(t, ts.admin("POST", "/api/admin/segments/validate", map[string]any{"name": "beta"}), 409, "NameExistsError", "")
	mustErrorRecord(t, ts.admin("POST", "/api/admin/segments/validate", map[string]any{}), 400, "ValidationError", "name")

	mark = auditMark(t, ts)
	ts.admin("DELETE", path, nil).must(t, http.StatusNoContent)
	mustOneAudit(t, ts, mark, "segment-deleted")
	ts.admin("DELETE", path, nil).must(t, http.StatusNotFound)
}

func TestSegmentValidation(t *testing.T) {
	ts := newTestServer(t)
	tests := []struct {
		name string
		body any
		path string
	}{
		{"no name", map[string]any{"constraints": []any{}}, "name"},
		{"no context name", map[string]any{"name": "s", "constraints": []any{map[string]any{"operator": "IN", "values": []string{"a"}}}}, "constraints[0].contextName"},
		{"unknown operator", map[string]any{"name": "s", "constraints": []any{map[string]any{"contextName": "userId", "operator": "EQUALS"}}}, "constraints[0].operator"},
		{"number expected", map[string]any{"name": "s", "constraints": []any{map[string]any{"contextName": "age", "operator": "NUM_GT", "value": "old"}}}, "constraints[0].value"},
		{"date expected", map[string]any{"name": "s", "constraints": []any{map[string]any{"contextName": "currentTime", "operator": "DATE_AFTER", "value": "tomorrow"}}}, "constraints[0].value"},
		{"semver expected", map[string]any{"name": "s", "constraints": []any{map[string]any{"contextName": "version", "operator": "SEMVER_GT", "value": "v1"}}}, "constraints[0].value"},
		{"bad regex", map[string]any{"name": "s", "constraints": []any{map[string]any{"contextName": "email", "operator": "REGEX", "value": "(("}}}, "constraints[0].value"},
		{"unknown project", map[string]any{"name": "s", "project": "nope", "constraints": []any{}}, "project"},
		{"too many values", map[string]any{"name": "s", "constraints": []any{inConstraint("userId", make([]string, 1001)...)}}, "constraints"},
		{"constraints not a list", map[string]any{"name": "s", "constraints": "all"}, "constraints"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mark := auditMark(t, ts)
			mustErrorRecord(t, ts.admin("POST", "/api/admin/segments", tt.body), 400, "ValidationError", tt.path)
			mustNoAudit(t, ts, mark)
		})
	}
	for _, c := range []map[string]any{
		{"contextName": "age", "operator": "NUM_GTE", "value": "18.5"},
		{"contextName": "currentTime", "operator": "DATE_BEFORE", "value": "2030-01-01T00:00:00.000Z"},
		{"contextName": "version", "operator": "SEMVER_LT", "value": "2.0.0-beta.1"},
		{"contextName": "email", "operator": "STR_ENDS_WITH", "values": []string{"@example.com"}, "caseInsensitive": true},
	} {
		ts.admin("POST", "/api/admin/segments", map[string]any{"name": "ok-" + c["operator"].(string), "constraints": []any{c}}).must(t, http.StatusCreated)
	}
	mustErrorRecord(t, ts.request("POST", "/api/admin/segments", testAdminToken, `{"name":"s"}`, "Content-Type", "text/plain"), 415, "ContentTypeError", "")
}

func TestSegmentInUse(t *testing.T) {
	ts := newTestServer(t)
	var sg segmentJSON
	ts.admin("POST", "/api/admin/segments", map[string]any{"name": "used", "constraints": []any{inConstraint("userId", "1")}}).must(t, http.StatusCreated).Decode(t, &sg)
	path := "/api/admin/segments/" + strconv.Itoa(sg.ID)
	plantFlag(t, ts, "default", "gated-flag")
	plantStrategy(t, ts, store.Strategy{Feature: "gated-flag", Name: "default", Segments: []int{sg.ID}})

	var used struct {
		Strategies []map[string]any `json:"strategies"`
	}
	ts.admin("GET", path+"/strategies", nil).must(t, http.StatusOK).Decode(t, &used)
	if len(used.Strategies) != 1 || used.Strategies[0]["featureName"] != "gated-flag" || used.Strategies[0]["projectId"] != "default" ||
		used.Strategies[0]["environment"] != "development" || used.Strategies[0]["strategyName"] != "default" {
		t.Errorf("strategies %+v", used)
	}
	ts.admin("GET", "/api/admin/segments/999/strategies", nil).must(t, http.StatusNotFound)
	if got := ts.admin("GET", path, nil).must(t, http.StatusOK).Object(); got["usedInFeatures"] != float64(1) || got["usedInProjects"] != float64(1) {
		t.Errorf("usage %v", got)
	}

	mark := auditMark(t, ts)
	res := ts.admin("DELETE", path, nil)
	mustErrorRecord(t, res, http.StatusConflict, "ConflictError", "")
	if !strings.Contains(string(res.Body), "gated-flag") {
		t.Errorf("message should name the flag: %s", res.Body)
	}
	mustNoAudit(t, ts, mark)
	ts.admin("POST", "/api/admin/projects", map[string]any{"id": "elsewhere", "name": "Elsewhere"}).must(t, http.StatusCreated)
	mark = auditMark(t, ts)
	mustErrorRecord(t, ts.admin("PUT", path, map[string]any{"name": "used", "project": "elsewhere", "constraints": []any{}}), 400, "ValidationError", "project")
	mustNoAudit(t, ts, mark)
}
