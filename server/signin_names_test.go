package server

import (
	"net/http"
	"strconv"
	"testing"
	"time"
)

// TestSignInNameSquatting checks that no string becomes the sign-in name
// of two users: a username taken through an invite link cannot be a
// user's e-mail, before or after that user exists, and the admin API
// refuses the same on create and update; refusals change nothing.
func TestSignInNameSquatting(t *testing.T) {
	ts := newTestServer(t)
	c := newOAChecker(t, ts)
	link := createInvite(t, c, "Team", time.Now().Add(24*time.Hour))
	signup := "/invite/" + link.Secret + "/signup"

	var olga struct{ ID int }
	ts.admin("POST", "/api/admin/user-admin", map[string]any{"email": "olga@example.com", "name": "Olga", "rootRole": "Viewer", "password": strongPassword}).
		must(t, http.StatusCreated).Decode(t, &olga)

	// Olga's e-mail, in another case, as the username of someone invited.
	mark := auditMark(t, ts)
	mustErrorRecord(t, c.do("POST", signup, "", map[string]any{"email": "sq@example.com", "username": "OLGA@example.com", "name": "Sq", "password": strongPassword}, http.StatusConflict),
		http.StatusConflict, "NameExistsError", "")
	mustNoAudit(t, ts, mark)

	// Someone invited takes a username that is nobody's e-mail yet; a user
	// later given that e-mail, or a username equal to their e-mail, is
	// refused rather than left unable to sign in. The user admin API
	// answers a taken name with 400, as Unleash's does.
	c.do("POST", signup, "", map[string]any{"email": "sq@example.com", "username": "future@example.com", "name": "Sq", "password": strongPassword}, http.StatusOK)
	mark = auditMark(t, ts)
	for _, body := range []map[string]any{
		{"email": "Future@Example.com", "name": "Fay", "rootRole": "Viewer"},
		{"username": "SQ@example.com", "name": "Sam", "rootRole": "Viewer"},
	} {
		mustErrorRecord(t, ts.admin("POST", "/api/admin/user-admin", body), http.StatusBadRequest, "BadDataError", "")
	}
	path := "/api/admin/user-admin/" + strconv.Itoa(olga.ID)
	mustErrorRecord(t, ts.admin("PUT", path, map[string]any{"username": "future@EXAMPLE.com"}), http.StatusBadRequest, "BadDataError", "")
	mustErrorRecord(t, ts.admin("PUT", path, map[string]any{"email": "sq@example.com"}), http.StatusBadRequest, "BadDataError", "")
	mustNoAudit(t, ts, mark)

	// Olga still signs in with her e-mail, as herself.
	session := signIn(t, ts, "Olga@example.com", strongPassword)
	var me struct{ User UserJSON }
	ts.asSession(session, "GET", "/api/admin/user", nil).must(t, http.StatusOK).Decode(t, &me)
	if me.User.ID != olga.ID {
		t.Errorf("signed in as user %d, want %d", me.User.ID, olga.ID)
	}
	// A user's own e-mail as their own username is no conflict.
	ts.admin("PUT", path, map[string]any{"username": "olga@example.com"}).must(t, http.StatusOK)
}
