package server

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// createInvite makes an invite link as the admin and returns it.
func createInvite(t *testing.T, c *oaChecker, name string, expires time.Time) inviteLinkJSON {
	t.Helper()
	var link inviteLinkJSON
	res := c.do("POST", inviteLinksPath, testAdminToken, map[string]any{"name": name, "expiresAt": expires.Format(time.RFC3339)}, http.StatusCreated)
	res.Decode(t, &link)
	if res.Header.Get("Location") != inviteLinksPath+"/"+link.Secret {
		t.Errorf("Location %q", res.Header.Get("Location"))
	}
	return link
}

func TestInviteLinkSignup(t *testing.T) {
	ts := newTestServer(t)
	c := newOAChecker(t, ts)
	mark := auditMark(t, ts)
	link := createInvite(t, c, "Team", time.Now().Add(7*24*time.Hour))
	ev := mustOneAudit(t, ts, mark, "public-signup-token-created")
	if len(link.Secret) != 32 || link.URL != ts.url+"/new-user?invite="+link.Secret || !link.Enabled || link.Name != "Team" ||
		link.Role.Name != "Viewer" || len(link.Users) != 0 || link.CreatedBy == nil {
		t.Fatalf("created %+v", link)
	}
	if strings.Contains(string(ev.Data), link.Secret) {
		t.Errorf("the event shows the secret: %s", ev.Data)
	}
	c.do("GET", "/invite/"+link.Secret+"/validate", "", nil, http.StatusOK)

	mark = auditMark(t, ts)
	var joined UserJSON
	c.do("POST", "/invite/"+link.Secret+"/signup", "", map[string]any{"email": "nia@example.com", "name": "Nia", "password": strongPassword}, http.StatusOK).
		Decode(t, &joined)
	ev = mustOneAudit(t, ts, mark, "public-signup-token-user-added")
	if joined.RootRole != 3 || joined.Email != "nia@example.com" || ev.CreatedByUserID != joined.ID || !strings.Contains(string(ev.Data), `"inviteLink":"Team"`) {
		t.Fatalf("joined %+v, event %+v %s", joined, ev, ev.Data)
	}
	// The new person signs in and is a Viewer.
	session := signIn(t, ts, "nia@example.com", strongPassword)
	var me struct{ User UserJSON }
	ts.asSession(session, "GET", "/api/admin/user", nil).must(t, http.StatusOK).Decode(t, &me)
	if me.User.ID != joined.ID || me.User.RootRole != 3 {
		t.Errorf("signed in as %+v", me.User)
	}
	var got inviteLinkJSON
	c.do("GET", inviteLinksPath+"/"+link.Secret, testAdminToken, nil, http.StatusOK).Decode(t, &got)
	if len(got.Users) != 1 || got.Users[0].ID != joined.ID {
		t.Errorf("the link's users %+v", got.Users)
	}
	var all struct{ Tokens []inviteLinkJSON }
	c.do("GET", inviteLinksPath, testAdminToken, nil, http.StatusOK).Decode(t, &all)
	if len(all.Tokens) != 1 || all.Tokens[0].Secret != link.Secret || len(all.Tokens[0].Users) != 1 {
		t.Errorf("list %+v", all.Tokens)
	}

	for _, tt := range []struct {
		name   string
		body   map[string]any
		status int
	}{
		{"e-mail taken", map[string]any{"email": "NIA@example.com", "name": "Nia 2", "password": strongPassword}, http.StatusConflict},
		{"weak password", map[string]any{"email": "ola@example.com", "name": "Ola", "password": "password1"}, http.StatusBadRequest},
		{"no name", map[string]any{"email": "ola@example.com", "password": strongPassword}, http.StatusBadRequest},
		{"no e-mail", map[string]any{"name": "Ola", "password": strongPassword}, http.StatusBadRequest},
		{"bad e-mail", map[string]any{"email": "ola at example", "name": "Ola", "password": strongPassword}, http.StatusBadRequest},
	} {
		t.Run(tt.name, func(t *testing.T) {
			mark := auditMark(t, ts)
			c.do("POST", "/invite/"+link.Secret+"/signup", "", tt.body, tt.status)
			mustNoAudit(t, ts, mark)
		})
	}
}

func TestInviteLinkChanges(t *testing.T) {
	ts := newTestServer(t)
	c := newOAChecker(t, ts)
	link := createInvite(t, c, "Partners", time.Now().Add(time.Hour))
	item := inviteLinksPath + "/" + link.Secret
	signup := map[string]any{"email": "pat@example.com", "name": "Pat", "password": strongPassword}

	mark := auditMark(t, ts)
	var got inviteLinkJSON
	c.do("PUT", item, testAdminToken, map[string]any{"enabled": false}, http.StatusOK).Decode(t, &got)
	ev := mustOneAudit(t, ts, mark, "public-signup-token-updated")
	if got.Enabled || !strings.Contains(string(ev.Data), `"enabled":false`) || !strings.Contains(string(ev.PreData), `"enabled":true`) {
		t.Fatalf("disabled: %+v, event %s / %s", got, ev.Data, ev.PreData)
	}
	mustErrorRecord(t, ts.request("GET", "/invite/"+link.Secret+"/validate", "", nil), http.StatusBadRequest, "BadDataError", "")
	mark = auditMark(t, ts)
	mustErrorRecord(t, ts.request("POST", "/invite/"+link.Secret+"/signup", "", signup), http.StatusBadRequest, "BadDataError", "")
	mustNoAudit(t, ts, mark)

	// Enabled again but past its expiry: it answers enabled false and
	// does not work.
	c.do("PUT", item, testAdminToken, map[string]any{"enabled": true, "expiresAt": time.Now().Add(-time.Minute).Format(time.RFC3339)}, http.StatusOK).Decode(t, &got)
	if got.Enabled {
		t.Errorf("an expired link answers enabled")
	}
	mustErrorRecord(t, ts.request("POST", "/invite/"+link.Secret+"/signup", "", signup), http.StatusBadRequest, "BadDataError", "")
	// A new expiry revives it.
	c.do("PUT", item, testAdminToken, map[string]any{"expiresAt": time.Now().Add(time.Hour).Format(time.RFC3339)}, http.StatusOK).Decode(t, &got)
	if !got.Enabled {
		t.Errorf("a link with a future expiry answers disabled")
	}
	c.do("POST", "/invite/"+link.Secret+"/signup", "", signup, http.StatusOK)

	viewer := viewerSession(t, ts)
	future := time.Now().Add(time.Hour).Format(time.RFC3339)
	for _, tt := range []struct {
		name, method, path string
		body               any
		status             int
	}{
		{"create: no name", "POST", inviteLinksPath, map[string]any{"expiresAt": future}, http.StatusBadRequest},
		{"create: no expiry", "POST", inviteLinksPath, map[string]any{"name": "x"}, http.StatusBadRequest},
		{"create: past expiry", "POST", inviteLinksPath, map[string]any{"name": "x", "expiresAt": "2020-01-01T00:00:00Z"}, http.StatusBadRequest},
		{"create: not a date", "POST", inviteLinksPath, map[string]any{"name": "x", "expiresAt": "soon"}, http.StatusBadRequest},
		{"update: nothing", "PUT", item, map[string]any{}, http.StatusBadRequest},
		{"update: unknown", "PUT", inviteLinksPath + "/nope", map[string]any{"enabled": false}, http.StatusNotFound},
		{"get: unknown", "GET", inviteLinksPath + "/nope", nil, http.StatusNotFound},
		{"validate: unknown", "GET", "/invite/nope/validate", nil, http.StatusBadRequest},
		{"signup: unknown", "POST", "/invite/nope/signup", signup, http.StatusBadRequest},
		{"a viewer lists", "GET", inviteLinksPath, nil, http.StatusForbidden},
		{"a viewer creates", "POST", inviteLinksPath, map[string]any{"name": "x", "expiresAt": future}, http.StatusForbidden},
	} {
		t.Run(tt.name, func(t *testing.T) {
			mark := auditMark(t, ts)
			var res response
			if strings.HasPrefix(tt.name, "a viewer") {
				res = ts.request(tt.method, tt.path, "", tt.body, "Cookie", viewer)
			} else {
				res = ts.request(tt.method, tt.path, testAdminToken, tt.body)
			}
			res.must(t, tt.status)
			if res.Object()["name"] == nil {
				t.Errorf("no Error record: %s", res.Body)
			}
			mustNoAudit(t, ts, mark)
		})
	}
}
