package server

import (
	"net/http"
	"slices"
	"strconv"
	"testing"
)

func TestStrategySegments(t *testing.T) {
	ts := newTestServer(t)
	ref := unleashReference(t)
	ts.admin("POST", "/api/admin/projects", map[string]any{"id": "web", "name": "Web"}).must(t, http.StatusCreated)
	seg := func(body map[string]any) int {
		t.Helper()
		var s struct{ ID int }
		body["constraints"] = []any{}
		ts.admin("POST", "/api/admin/segments", body).must(t, http.StatusCreated).Decode(t, &s)
		return s.ID
	}
	a, b, webOnly := seg(map[string]any{"name": "a"}), seg(map[string]any{"name": "b"}), seg(map[string]any{"name": "w", "project": "web"})
	ts.admin("POST", "/api/admin/projects/default/features", map[string]any{"name": "f"}).must(t, http.StatusCreated)
	var st struct{ ID string }
	ts.admin("POST", "/api/admin/projects/default/features/f/environments/development/strategies", map[string]any{"name": "default", "segments": []int{a}}).must(t, http.StatusOK).Decode(t, &st)

	segments := func() []string {
		t.Helper()
		res := ts.admin("GET", "/api/admin/segments/strategies/"+st.ID, nil).must(t, http.StatusOK)
		matchesUnleash(t, ref, "segmentsSchema", res.Body)
		var l struct{ Segments []struct{ Name string } }
		res.Decode(t, &l)
		var out []string
		for _, s := range l.Segments {
			out = append(out, s.Name)
		}
		return out
	}
	if got := segments(); !slices.Equal(got, []string{"a"}) {
		t.Fatalf("segments %v", got)
	}
	body := func(ids ...int) map[string]any {
		if ids == nil {
			ids = []int{}
		}
		return map[string]any{"projectId": "default", "strategyId": st.ID, "environmentId": "development", "segmentIds": ids}
	}
	mark := auditMark(t, ts)
	res := ts.admin("POST", "/api/admin/segments/strategies", body(b, b)).must(t, http.StatusCreated)
	matchesUnleash(t, ref, "updateFeatureStrategySegmentsSchema", res.Body)
	if got := segments(); !slices.Equal(got, []string{"b"}) {
		t.Errorf("segments after set %v", got)
	}
	if ev := auditAfter(t, ts, mark); len(ev) != 1 || ev[0].Type != "feature-strategy-update" {
		t.Errorf("events %+v", ev)
	}
	ts.admin("POST", "/api/admin/segments/strategies", body()).must(t, http.StatusCreated)
	if got := segments(); len(got) != 0 {
		t.Errorf("segments after clearing %v", got)
	}
	var empty struct{ Segments []any }
	ts.admin("GET", "/api/admin/segments/strategies/nope", nil).must(t, http.StatusOK).Decode(t, &empty)
	if len(empty.Segments) != 0 {
		t.Errorf("unknown strategy %+v", empty)
	}

	wrongEnv := body(a)
	wrongEnv["environmentId"] = "production"
	wrongProject := body(a)
	wrongProject["projectId"] = "web"
	unknown := body(a)
	unknown["strategyId"] = "nope"
	for _, tt := range []struct {
		name string
		body any
		want int
	}{
		{"unknown segment", body(999), 400},
		{"segment of another project", body(webOnly), 400},
		{"wrong environment", wrongEnv, 404},
		{"wrong project", wrongProject, 404},
		{"unknown strategy", unknown, 404},
		{"no segmentIds", map[string]any{"projectId": "default", "strategyId": st.ID, "environmentId": "development"}, 400},
		{"no strategyId", map[string]any{"projectId": "default", "environmentId": "development", "segmentIds": []int{}}, 400},
	} {
		t.Run(tt.name, func(t *testing.T) {
			mark := auditMark(t, ts)
			ts.admin("POST", "/api/admin/segments/strategies", tt.body).must(t, tt.want)
			if ev := auditAfter(t, ts, mark); len(ev) != 0 {
				t.Errorf("events %+v", ev)
			}
		})
	}
	// Other paths of that shape are unknown; a segment's strategies are
	// still served.
	ts.admin("GET", "/api/admin/segments/1/nothing", nil).must(t, http.StatusNotFound)
	ts.admin("GET", "/api/admin/segments/"+strconv.Itoa(a)+"/strategies", nil).must(t, http.StatusOK)
	ts.request("GET", "/api/admin/segments/strategies/"+st.ID, "", nil).must(t, http.StatusUnauthorized)
	ts.request("POST", "/api/admin/segments/strategies", "", body(a)).must(t, http.StatusUnauthorized)
	createTestUser(t, ts, "vic", "Viewer", strongPassword)
	cookie := signIn(t, ts, "vic", strongPassword)
	ts.asSession(cookie, "POST", "/api/admin/segments/strategies", body(a)).must(t, http.StatusForbidden)
	ts.asSession(cookie, "GET", "/api/admin/segments/strategies/"+st.ID, nil).must(t, http.StatusOK)
}
