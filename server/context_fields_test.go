package server

import (
	"net/http"
	"testing"

	"github.com/signalbox/signalbox/clientapi"
	"github.com/signalbox/signalbox/store"
)

func TestContextFields(t *testing.T) {
	ts := newTestServer(t)
	var list []contextFieldJSON
	ts.admin("GET", "/api/admin/context", nil).must(t, http.StatusOK).Decode(t, &list)
	names := map[string]bool{}
	for _, c := range list {
		names[c.Name] = true
	}
	for _, b := range []string{"userId", "sessionId", "remoteAddress", "environment", "appName", "currentTime"} {
		if !names[b] {
			t.Errorf("built-in %s not listed: %+v", b, list)
		}
	}

	mark := auditMark(t, ts)
	res := ts.admin("POST", "/api/admin/context", map[string]any{
		"name": "tenant", "description": "Customer", "stickiness": true,
		"legalValues": []map[string]string{{"value": "acme", "description": "Acme Inc."}, {"value": "globex"}},
	}).must(t, http.StatusCreated)
	var c contextFieldJSON
	res.Decode(t, &c)
	if c.Name != "tenant" || !c.Stickiness || len(c.LegalValues) != 2 || c.CreatedAt == nil || res.Header.Get("Location") != "/api/admin/context/tenant" {
		t.Errorf("created %s", res.Body)
	}
	mustOneAudit(t, ts, mark, "context-field-created")

	for _, tt := range []struct {
		name string
		body any
		code int
		kind string
	}{
		{"taken", map[string]any{"name": "tenant"}, 409, "NameExistsError"},
		{"built-in", map[string]any{"name": "sessionId"}, 409, "NameExistsError"},
		{"not URL-friendly", map[string]any{"name": "a b"}, 400, "ValidationError"},
		{"no name", map[string]any{"description": "x"}, 400, "ValidationError"},
		{"legal value twice", map[string]any{"name": "x", "legalValues": []map[string]string{{"value": "a"}, {"value": "a"}}}, 400, "ValidationError"},
		{"empty legal value", map[string]any{"name": "y", "legalValues": []map[string]string{{"value": ""}}}, 400, "ValidationError"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			mark := auditMark(t, ts)
			mustErrorRecord(t, ts.admin("POST", "/api/admin/context", tt.body), tt.code, tt.kind, "")
			mustNoAudit(t, ts, mark)
		})
	}

	ts.admin("GET", "/api/admin/context/tenant", nil).must(t, http.StatusOK)
	ts.admin("GET", "/api/admin/context/currentTime", nil).must(t, http.StatusOK)
	mustErrorRecord(t, ts.admin("GET", "/api/admin/context/nope", nil), 404, "NotFoundError", "")

	mark = auditMark(t, ts)
	ts.admin("PUT", "/api/admin/context/tenant", map[string]any{"description": "Paying customer"}).must(t, http.StatusOK).Decode(t, &c)
	if c.Description != "Paying customer" || !c.Stickiness || len(c.LegalValues) != 2 {
		t.Errorf("only the fields sent change: %+v", c)
	}
	mustOneAudit(t, ts, mark, "context-field-updated")
	// A built-in that is only listed gets stored by its first change.
	mark = auditMark(t, ts)
	ts.admin("PUT", "/api/admin/context/sessionId", map[string]any{"stickiness": true}).must(t, http.StatusOK).Decode(t, &c)
	if !c.Stickiness || c.CreatedAt == nil {
		t.Errorf("sessionId %+v", c)
	}
	mustOneAudit(t, ts, mark, "context-field-updated")
	mustErrorRecord(t, ts.admin("PUT", "/api/admin/context/nope", map[string]any{"description": "x"}), 404, "NotFoundError", "")

	ts.admin("POST", "/api/admin/context/validate", map[string]any{"name": "region"}).must(t, http.StatusOK)
	mustErrorRecord(t, ts.admin("POST", "/api/admin/context/validate", map[string]any{"name": "tenant"}), 409, "NameExistsError", "")
	mustErrorRecord(t, ts.admin("POST", "/api/admin/context/validate", map[string]any{"name": "userId"}), 409, "NameExistsError", "")
	mustErrorRecord(t, ts.admin("POST", "/api/admin/context/validate", map[string]any{"name": ""}), 400, "ValidationError", "name")

	plantFlag(t, ts, "default", "tenant-flag")
	plantStrategy(t, ts, store.Strategy{Feature: "tenant-flag", Name: "default",
		Constraints: []clientapi.Constraint{{ContextName: "tenant", Operator: "IN", Values: []string{"acme"}}}})
	ts.admin("GET", "/api/admin/context/tenant", nil).must(t, http.StatusOK).Decode(t, &c)
	if c.UsedInFeatures != 1 || c.UsedInProjects != 1 {
		t.Errorf("usage %+v", c)
	}

	mustErrorRecord(t, ts.admin("DELETE", "/api/admin/context/userId", nil), 400, "BadDataError", "")
	mark = auditMark(t, ts)
	ts.admin("DELETE", "/api/admin/context/tenant", nil).must(t, http.StatusOK)
	mustOneAudit(t, ts, mark, "context-field-deleted")
	ts.admin("DELETE", "/api/admin/context/tenant", nil).must(t, http.StatusNotFound)
}
