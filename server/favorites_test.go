package server

import (
	"net/http"
	"slices"
	"testing"
)

func TestFavorites(t *testing.T) {
	ts := newTestServer(t)
	for _, n := range []string{"a", "b", "c"} {
		ts.admin("POST", "/api/admin/projects/default/features", map[string]any{"name": n}).must(t, http.StatusCreated)
	}
	createTestUser(t, ts, "ed", "Editor", strongPassword)
	ed := signIn(t, ts, "ed", strongPassword)
	createTestUser(t, ts, "vic", "Viewer", strongPassword)
	vic := signIn(t, ts, "vic", strongPassword)

	mark := auditMark(t, ts)
	ts.asSession(ed, "POST", "/api/admin/projects/default/features/b/favorites", nil).must(t, http.StatusOK)
	ts.asSession(ed, "POST", "/api/admin/projects/default/features/b/favorites", nil).must(t, http.StatusOK)
	ts.asSession(vic, "POST", "/api/admin/projects/default/features/c/favorites", nil).must(t, http.StatusOK)
	ts.asSession(ed, "POST", "/api/admin/projects/default/favorites", nil).must(t, http.StatusOK)
	var types []string
	for _, e := range auditAfter(t, ts, mark) {
		types = append(types, e.Type)
	}
	if want := []string{"feature-favorited", "feature-favorited", "project-favorited"}; !slices.Equal(types, want) {
		t.Errorf("events %v, want %v", types, want)
	}

	search := func(cookie, query string) []string {
		t.Helper()
		var a searchAnswer
		ts.asSession(cookie, "GET", "/api/admin/search/features?sortBy=name&"+query, nil).must(t, http.StatusOK).Decode(t, &a)
		return a.names()
	}
	if got := search(ed, "favorite=IS:true"); !slices.Equal(got, []string{"b"}) {
		t.Errorf("ed's favorites %v", got)
	}
	if got := search(vic, "favorite=IS:true"); !slices.Equal(got, []string{"c"}) {
		t.Errorf("vic's favorites %v", got)
	}
	if got := search(ed, "favoritesFirst=true"); !slices.Equal(got, []string{"b", "a", "c"}) {
		t.Errorf("favorites first %v", got)
	}
	if got := search(ed, "favorite=IS:false"); !slices.Equal(got, []string{"a", "c"}) {
		t.Errorf("not favorites %v", got)
	}
	var o struct{ Favorite bool }
	ts.asSession(ed, "GET", "/api/admin/projects/default/overview", nil).must(t, http.StatusOK).Decode(t, &o)
	if !o.Favorite {
		t.Error("project not starred in the overview")
	}

	mark = auditMark(t, ts)
	ts.asSession(ed, "DELETE", "/api/admin/projects/default/features/b/favorites", nil).must(t, http.StatusOK)
	ts.asSession(ed, "DELETE", "/api/admin/projects/default/favorites", nil).must(t, http.StatusOK)
	ts.asSession(ed, "DELETE", "/api/admin/projects/default/favorites", nil).must(t, http.StatusOK)
	if ev := auditAfter(t, ts, mark); len(ev) != 2 || ev[0].Type != "feature-unfavorited" || ev[1].Type != "project-unfavorited" {
		t.Errorf("events %+v", ev)
	}
	if got := search(ed, "favorite=IS:true"); len(got) != 0 {
		t.Errorf("after unstarring %v", got)
	}

	ts.admin("POST", "/api/admin/projects/default/favorites", nil).must(t, http.StatusBadRequest)
	ts.asSession(ed, "POST", "/api/admin/projects/nope/favorites", nil).must(t, http.StatusNotFound)
	ts.asSession(ed, "POST", "/api/admin/projects/default/features/nope/favorites", nil).must(t, http.StatusNotFound)
	ts.request("POST", "/api/admin/projects/default/favorites", "", nil).must(t, http.StatusUnauthorized)
}
