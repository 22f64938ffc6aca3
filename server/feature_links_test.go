package server

import (
	"net/http"
	"strings"
	"testing"

	"github.com/signalbox/signalbox/store"
)

func TestFeatureLinks(t *testing.T) {
	ts := newTestServer(t)
	c := newOAChecker(t, ts)
	plantFlag(t, ts, store.DefaultProject, "linked")
	base := "/api/admin/projects/default/features/linked/link"
	links := func() []featureLinkJSON {
		var f adminFeature
		c.do("GET", "/api/admin/projects/default/features/linked", testAdminToken, nil, http.StatusOK).Decode(t, &f)
		return f.Links
	}
	if got := links(); len(got) != 0 {
		t.Fatalf("a new flag has links %+v", got)
	}
	mark := auditMark(t, ts)
	c.do("POST", base, testAdminToken, map[string]any{"url": "https://issues.example/42", "title": "Ship it"}, http.StatusNoContent)
	c.do("POST", base, testAdminToken, map[string]any{"url": "https://dash.example"}, http.StatusNoContent)
	got := links()
	if len(got) != 2 || got[0].URL != "https://issues.example/42" || *got[0].Title != "Ship it" || got[1].Title != nil || got[0].ID == "" {
		t.Fatalf("links %+v", got)
	}
	c.do("PUT", base+"/"+got[1].ID, testAdminToken, map[string]any{"url": "https://dash.example/v2", "title": "Dashboard"}, http.StatusNoContent)
	c.do("DELETE", base+"/"+got[0].ID, testAdminToken, nil, http.StatusNoContent)
	got = links()
	if len(got) != 1 || got[0].URL != "https://dash.example/v2" || *got[0].Title != "Dashboard" {
		t.Fatalf("after update and delete: %+v", got)
	}
	events := auditAfter(t, ts, mark)
	var types []string
	for _, e := range events {
		types = append(types, e.Type)
	}
	if strings.Join(types, ",") != "feature-link-added,feature-link-added,feature-link-updated,feature-link-removed" {
		t.Errorf("events %v", types)
	}

	for _, tt := range []struct {
		name, method, path string
		body               any
		status             int
	}{
		{"no url", "POST", base, map[string]any{"title": "x"}, http.StatusBadRequest},
		{"not http", "POST", base, map[string]any{"url": "javascript:alert(1)"}, http.StatusBadRequest},
		{"long title", "POST", base, map[string]any{"url": "https://x.example", "title": strings.Repeat("t", 101)}, http.StatusBadRequest},
		{"unknown link", "PUT", base + "/nope", map[string]any{"url": "https://x.example"}, http.StatusNotFound},
		{"unknown flag", "POST", "/api/admin/projects/default/features/nope/link", map[string]any{"url": "https://x.example"}, http.StatusNotFound},
		{"a client token", "POST", base, map[string]any{"url": "https://x.example"}, http.StatusForbidden},
	} {
		t.Run(tt.name, func(t *testing.T) {
			token := testAdminToken
			if tt.name == "a client token" {
				token = testClientToken
			}
			c.do(tt.method, tt.path, token, tt.body, tt.status)
		})
	}
}
