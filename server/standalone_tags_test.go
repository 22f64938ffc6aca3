package server

import (
	"net/http"
	"testing"
)

func TestCreateTag(t *testing.T) {
	ts := newTestServer(t)
	ref := unleashReference(t)
	ts.admin("POST", "/api/admin/tag-types", map[string]any{"name": "team"}).must(t, http.StatusCreated)
	ts.admin("POST", "/api/admin/projects/default/features", map[string]any{"name": "a"}).must(t, http.StatusCreated)
	ts.admin("POST", "/api/admin/features/a/tags", map[string]any{"type": "simple", "value": "used"}).must(t, http.StatusCreated)

	mark := auditMark(t, ts)
	res := ts.admin("POST", "/api/admin/tags", map[string]any{"type": "team", "value": "payments"}).must(t, http.StatusCreated)
	matchesUnleash(t, ref, "tagWithVersionSchema", res.Body)
	if loc := res.Header.Get("Location"); loc != "/api/admin/tags/team/payments" {
		t.Errorf("Location %q", loc)
	}
	ev := auditAfter(t, ts, mark)
	if len(ev) != 1 || ev[0].Type != "tag-created" {
		t.Fatalf("events %+v", ev)
	}
	ts.admin("POST", "/api/admin/tags", map[string]any{"value": "lonely"}).must(t, http.StatusCreated)

	names := func(path string) []string {
		t.Helper()
		var l tagList
		ts.admin("GET", path, nil).must(t, http.StatusOK).Decode(t, &l)
		var out []string
		for _, tg := range l.Tags {
			out = append(out, tg.Type+":"+tg.Value)
		}
		return out
	}
	if got := names("/api/admin/tags"); len(got) != 3 || got[0] != "simple:lonely" || got[1] != "simple:used" || got[2] != "team:payments" {
		t.Errorf("tags %v", got)
	}
	if got := names("/api/admin/tags/team"); len(got) != 1 || got[0] != "team:payments" {
		t.Errorf("team tags %v", got)
	}
	ts.admin("GET", "/api/admin/tags/team/payments", nil).must(t, http.StatusOK)

	for _, tt := range []struct {
		name string
		body any
		want int
	}{
		{"exists on its own", map[string]any{"type": "team", "value": "payments"}, 409},
		{"exists on a flag", map[string]any{"type": "simple", "value": "used"}, 409},
		{"unknown type", map[string]any{"type": "color", "value": "red"}, 400},
		{"short", map[string]any{"value": "x"}, 400},
		{"not JSON", "{", 400},
	} {
		t.Run(tt.name, func(t *testing.T) {
			mark := auditMark(t, ts)
			ts.admin("POST", "/api/admin/tags", tt.body).must(t, tt.want)
			if ev := auditAfter(t, ts, mark); len(ev) != 0 {
				t.Errorf("events %+v", ev)
			}
		})
	}

	// Deleting it removes it; tagging a flag with it afterwards works.
	mark = auditMark(t, ts)
	ts.admin("DELETE", "/api/admin/tags/team/payments", nil).must(t, http.StatusOK)
	if ev := auditAfter(t, ts, mark); len(ev) != 1 || ev[0].Type != "tag-deleted" {
		t.Errorf("events %+v", ev)
	}
	ts.admin("GET", "/api/admin/tags/team/payments", nil).must(t, http.StatusNotFound)
	// Deleting a tag type drops its tags created on their own.
	ts.admin("POST", "/api/admin/tags", map[string]any{"type": "team", "value": "growth"}).must(t, http.StatusCreated)
	ts.admin("DELETE", "/api/admin/tag-types/team", nil).must(t, http.StatusOK)
	if got := names("/api/admin/tags"); len(got) != 2 {
		t.Errorf("after deleting the type: %v", got)
	}

	ts.request("POST", "/api/admin/tags", "", map[string]any{"value": "zz"}).must(t, http.StatusUnauthorized)
	ts.request("POST", "/api/admin/tags", testClientToken, map[string]any{"value": "zz"}).must(t, http.StatusForbidden)
	createTestUser(t, ts, "vic", "Viewer", strongPassword)
	cookie := signIn(t, ts, "vic", strongPassword)
	ts.asSession(cookie, "POST", "/api/admin/tags", map[string]any{"value": "zz"}).must(t, http.StatusForbidden)
}
