package server

import (
	"net/http"
	"slices"
	"strings"
	"testing"
)

func TestStaleFeatures(t *testing.T) {
	ts := newTestServer(t)
	ts.admin("POST", "/api/admin/projects", map[string]any{"id": "web", "name": "Web"}).must(t, http.StatusCreated)
	for _, n := range []string{"a", "b", "c"} {
		ts.admin("POST", "/api/admin/projects/default/features", map[string]any{"name": n}).must(t, http.StatusCreated)
	}
	ts.admin("POST", "/api/admin/projects/web/features", map[string]any{"name": "w"}).must(t, http.StatusCreated)
	stale := func(name string) bool {
		t.Helper()
		var f struct{ Stale bool }
		ts.admin("GET", "/api/admin/features/"+name, nil).must(t, http.StatusOK).Decode(t, &f)
		return f.Stale
	}
	const path = "/api/admin/projects/default/stale"
	mark := auditMark(t, ts)
	// w is in another project and nope does not exist: both are ignored.
	ts.admin("POST", path, map[string]any{"features": []string{"a", "b", "w", "nope", "a"}, "stale": true}).must(t, http.StatusAccepted)
	if !stale("a") || !stale("b") || stale("c") || stale("w") {
		t.Fatal("wrong flags marked")
	}
	var types []string
	for _, e := range auditAfter(t, ts, mark) {
		types = append(types, e.Type+":"+e.FeatureName)
	}
	if want := []string{"feature-metadata-updated:a", "feature-stale-on:a", "feature-metadata-updated:b", "feature-stale-on:b"}; !slices.Equal(types, want) {
		t.Errorf("events %v, want %v", types, want)
	}
	// Marking again changes nothing and records nothing.
	mark = auditMark(t, ts)
	ts.admin("POST", path, map[string]any{"features": []string{"a"}, "stale": true}).must(t, http.StatusAccepted)
	if ev := auditAfter(t, ts, mark); len(ev) != 0 {
		t.Errorf("events %+v", ev)
	}
	ts.admin("POST", path, map[string]any{"features": []string{"a", "b"}, "stale": false}).must(t, http.StatusAccepted)
	if stale("a") || stale("b") {
		t.Fatal("not unmarked")
	}

	for _, tt := range []struct {
		name, path string
		body       any
		want       int
	}{
		{"no stale", path, map[string]any{"features": []string{"a"}}, 400},
		{"no features", path, map[string]any{"stale": true}, 400},
		{"too many", path, map[string]any{"features": make([]string, maxBulkFlags+1), "stale": true}, 400},
		{"NUL in a name", path, map[string]any{"features": []string{"a\x00"}, "stale": true}, 400},
		{"unknown project", "/api/admin/projects/nope/stale", map[string]any{"features": []string{"a"}, "stale": true}, 404},
	} {
		t.Run(tt.name, func(t *testing.T) {
			mark := auditMark(t, ts)
			ts.admin("POST", tt.path, tt.body).must(t, tt.want)
			if ev := auditAfter(t, ts, mark); len(ev) != 0 {
				t.Errorf("events %+v", ev)
			}
		})
	}
	body := map[string]any{"features": []string{"a"}, "stale": true}
	ts.request("POST", path, "", body).must(t, http.StatusUnauthorized)
	ts.request("POST", path, testClientToken, body).must(t, http.StatusForbidden)
	createTestUser(t, ts, "vic", "Viewer", strongPassword)
	cookie := signIn(t, ts, "vic", strongPassword)
	ts.asSession(cookie, "POST", path, body).must(t, http.StatusForbidden)
}

func TestTagFeatures(t *testing.T) {
	ts := newTestServer(t)
	ts.admin("POST", "/api/admin/projects", map[string]any{"id": "web", "name": "Web"}).must(t, http.StatusCreated)
	for _, n := range []string{"a", "b"} {
		ts.admin("POST", "/api/admin/projects/default/features", map[string]any{"name": n}).must(t, http.StatusCreated)
	}
	ts.admin("POST", "/api/admin/projects/web/features", map[string]any{"name": "w"}).must(t, http.StatusCreated)
	ts.admin("POST", "/api/admin/features/a/tags", map[string]any{"type": "simple", "value": "old"}).must(t, http.StatusCreated)
	tags := func(name string) string {
		t.Helper()
		var l tagList
		ts.admin("GET", "/api/admin/features/"+name+"/tags", nil).must(t, http.StatusOK).Decode(t, &l)
		var out []string
		for _, tg := range l.Tags {
			out = append(out, tg.Type+":"+tg.Value)
		}
		return strings.Join(out, ",")
	}
	const path = "/api/admin/projects/default/tags"
	mark := auditMark(t, ts)
	res := ts.admin("PUT", path, map[string]any{"features": []string{"a", "b"}, "tags": map[string]any{
		"addedTags": []map[string]string{{"type": "simple", "value": "new"}, {"value": "shop"}}, "removedTags": []map[string]string{{"type": "simple", "value": "old"}}}}).must(t, http.StatusOK)
	if len(res.Body) != 0 {
		t.Errorf("body %s", res.Body)
	}
	if a, b := tags("a"), tags("b"); a != "simple:new,simple:shop" || b != "simple:new,simple:shop" {
		t.Errorf("tags a=%s b=%s", a, b)
	}
	var types []string
	for _, e := range auditAfter(t, ts, mark) {
		types = append(types, e.Type+":"+e.FeatureName)
	}
	if want := []string{"feature-tagged:a", "feature-tagged:a", "feature-untagged:a", "feature-tagged:b", "feature-tagged:b"}; !slices.Equal(types, want) {
		t.Errorf("events %v, want %v", types, want)
	}

	empty := map[string]any{"addedTags": []any{}, "removedTags": []any{}}
	for _, tt := range []struct {
		name, path string
		body       any
		want       int
	}{
		{"flag of another project", path, map[string]any{"features": []string{"a", "w"}, "tags": map[string]any{"addedTags": []map[string]string{{"value": "x1"}}, "removedTags": []any{}}}, 404},
		{"unknown flag", path, map[string]any{"features": []string{"nope"}, "tags": empty}, 404},
		{"unknown project", "/api/admin/projects/nope/tags", map[string]any{"features": []string{"a"}, "tags": empty}, 404},
		{"unknown tag type", path, map[string]any{"features": []string{"a"}, "tags": map[string]any{"addedTags": []map[string]string{{"type": "color", "value": "red"}}, "removedTags": []any{}}}, 400},
		{"short tag", path, map[string]any{"features": []string{"a"}, "tags": map[string]any{"addedTags": []map[string]string{{"value": "x"}}, "removedTags": []any{}}}, 400},
		{"no tags", path, map[string]any{"features": []string{"a"}}, 400},
		{"no removedTags", path, map[string]any{"features": []string{"a"}, "tags": map[string]any{"addedTags": []any{}}}, 400},
		{"no features", path, map[string]any{"tags": empty}, 400},
	} {
		t.Run(tt.name, func(t *testing.T) {
			mark := auditMark(t, ts)
			ts.admin("PUT", tt.path, tt.body).must(t, tt.want)
			if ev := auditAfter(t, ts, mark); len(ev) != 0 {
				t.Errorf("events %+v", ev)
			}
		})
	}
	if a := tags("a"); a != "simple:new,simple:shop" {
		t.Errorf("a refused request changed tags: %s", a)
	}
	body := map[string]any{"features": []string{"a"}, "tags": empty}
	ts.request("PUT", path, "", body).must(t, http.StatusUnauthorized)
	ts.request("PUT", path, testClientToken, body).must(t, http.StatusForbidden)
}
