package server

import (
	"net/http"
	"strconv"
	"testing"
)

func TestEventAndFlagCreators(t *testing.T) {
	ts := newTestServer(t)
	ref := unleashReference(t)
	ts.admin("POST", "/api/admin/projects", map[string]any{"id": "web", "name": "Web"}).must(t, http.StatusCreated)
	ts.admin("POST", "/api/admin/projects/web/features", map[string]any{"name": "by-token"}).must(t, http.StatusCreated)
	ed := createTestUser(t, ts, "ed", "Editor", strongPassword)
	ts.admin("PUT", "/api/admin/user-admin/"+strconv.Itoa(ed), map[string]any{"name": "Ed Wood"}).must(t, http.StatusOK)
	al := createTestUser(t, ts, "al", "Editor", strongPassword)
	edCookie, alCookie := signIn(t, ts, "ed", strongPassword), signIn(t, ts, "al", strongPassword)
	ts.asSession(edCookie, "POST", "/api/admin/projects/web/features", map[string]any{"name": "by-ed"}).must(t, http.StatusCreated)
	ts.asSession(edCookie, "POST", "/api/admin/projects/web/features", map[string]any{"name": "by-ed-2"}).must(t, http.StatusCreated)
	ts.asSession(alCookie, "POST", "/api/admin/projects/default/features", map[string]any{"name": "by-al"}).must(t, http.StatusCreated)
	ts.admin("DELETE", "/api/admin/user-admin/"+strconv.Itoa(al), nil).must(t, http.StatusOK)

	type creator struct {
		ID   int
		Name string
	}
	var list []creator
	res := ts.admin("GET", "/api/admin/projects/web/flag-creators", nil).must(t, http.StatusOK)
	matchesUnleash(t, ref, "projectFlagCreatorsSchema", res.Body)
	res.Decode(t, &list)
	if len(list) != 1 || list[0] != (creator{ed, "Ed Wood"}) {
		t.Errorf("web flag creators %+v", list)
	}
	ts.admin("GET", "/api/admin/projects/default/flag-creators", nil).must(t, http.StatusOK).Decode(t, &list)
	if len(list) != 1 || list[0] != (creator{al, "al"}) {
		t.Errorf("default flag creators %+v", list)
	}
	ts.admin("GET", "/api/admin/projects/nope/flag-creators", nil).must(t, http.StatusNotFound)

	// The admin token's changes have no person; ed's and al's do, and al's
	// stay listed after al was deleted.
	res = ts.admin("GET", "/api/admin/event-creators", nil).must(t, http.StatusOK)
	matchesUnleash(t, ref, "eventCreatorsSchema", res.Body)
	res.Decode(t, &list)
	if len(list) != 2 || list[0] != (creator{ed, "Ed Wood"}) || list[1] != (creator{al, "al"}) {
		t.Errorf("event creators %+v", list)
	}
	for _, path := range []string{"/api/admin/event-creators", "/api/admin/projects/web/flag-creators"} {
		ts.request("GET", path, "", nil).must(t, http.StatusUnauthorized)
		ts.request("GET", path, testClientToken, nil).must(t, http.StatusForbidden)
	}
}
