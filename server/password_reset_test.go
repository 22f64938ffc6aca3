package server

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/signalbox/signalbox/store"
)

// resetLink asks, as the admin, for a reset link for id and returns its
// token, checking the answer and its one event.
func resetLink(t *testing.T, ts *testServer, c *oaChecker, id string) string {
	t.Helper()
	mark := auditMark(t, ts)
	var out struct{ ResetPasswordURL string }
	c.do("POST", "/api/admin/user-admin/reset-password", testAdminToken, map[string]any{"id": id}, http.StatusOK).Decode(t, &out)
	ev := mustOneAudit(t, ts, mark, "user-updated")
	if !strings.Contains(string(ev.Data), `"resetLinkCreated":true`) {
		t.Errorf("event data %s", ev.Data)
	}
	u, err := url.Parse(out.ResetPasswordURL)
	if err != nil || out.ResetPasswordURL != ts.url+"/reset-password?token="+u.Query().Get("token") {
		t.Fatalf("resetPasswordUrl %q", out.ResetPasswordURL)
	}
	token := u.Query().Get("token")
	if len(token) < 40 || strings.Contains(string(ev.Data), token) {
		t.Fatalf("token %q (event %s)", token, ev.Data)
	}
	return token
}

func TestPasswordResetLink(t *testing.T) {
	ts := newTestServer(t)
	c := newOAChecker(t, ts)
	var rita struct{ ID int }
	ts.admin("POST", "/api/admin/user-admin", map[string]any{"email": "rita@example.com", "name": "Rita", "rootRole": "Viewer", "password": strongPassword}).
		must(t, http.StatusCreated).Decode(t, &rita)
	session := signIn(t, ts, "rita@example.com", strongPassword)
	ts.asSession(session, "GET", "/api/admin/user", nil).must(t, http.StatusOK)

	token := resetLink(t, ts, c, "rita@example.com")
	var who tokenUserJSON
	c.do("GET", "/auth/reset/validate?token="+url.QueryEscape(token), "", nil, http.StatusOK).Decode(t, &who)
	if who.ID != rita.ID || who.Email != "rita@example.com" || who.Name != "Rita" || who.Token != token || who.Role.Name != "Viewer" || who.CreatedBy == nil {
		t.Fatalf("validate answered %+v", who)
	}

	// A weak password is refused and keeps the link.
	c.do("POST", "/auth/reset/password", "", map[string]any{"token": token, "password": "short"}, http.StatusBadRequest)
	c.do("GET", "/auth/reset/validate?token="+url.QueryEscape(token), "", nil, http.StatusOK)

	const newPassword = "Fresh-Meadow-Lamp-7"
	mark := auditMark(t, ts)
	c.do("POST", "/auth/reset/password", "", map[string]any{"token": token, "password": newPassword}, http.StatusOK)
	ev := mustOneAudit(t, ts, mark, "user-updated")
	var data map[string]any
	if err := json.Unmarshal(ev.Data, &data); err != nil || data["passwordChanged"] != true || data["resetLinkUsed"] != true ||
		ev.CreatedByUserID != rita.ID || strings.Contains(string(ev.Data), token) {
		t.Errorf("event %+v data %s", ev, ev.Data)
	}
	// The old session is over; the new password signs in, the old does not.
	ts.asSession(session, "GET", "/api/admin/user", nil).must(t, http.StatusUnauthorized)
	signIn(t, ts, "rita@example.com", newPassword)
	ts.login("rita@example.com", strongPassword).must(t, http.StatusUnauthorized)

	// Used once, the link works no more.
	mustErrorRecord(t, ts.request("POST", "/auth/reset/password", "", map[string]any{"token": token, "password": "Another-Good-Pass-8"}),
		http.StatusUnauthorized, "InvalidTokenError", "")
	mustErrorRecord(t, ts.request("GET", "/auth/reset/validate?token="+url.QueryEscape(token), "", nil), http.StatusUnauthorized, "InvalidTokenError", "")
	signIn(t, ts, "rita@example.com", newPassword)
}

func TestPasswordResetLinkErrors(t *testing.T) {
	ts := newTestServer(t)
	c := newOAChecker(t, ts)
	id := createTestUser(t, ts, "sam", "Editor", strongPassword)
	plantInStore(t, ts, func(ctx context.Context, tx store.Tx) error {
		_, err := tx.CreateUser(ctx, store.User{Username: "robot", RootRole: store.RoleViewer, AccountType: store.AccountService})
		return err
	})
	// A newer link replaces an older one; by username and by id alike.
	replaced := resetLink(t, ts, c, "sam")
	current := resetLink(t, ts, c, itoa(id))
	expired := resetLink(t, ts, c, "admin")
	later := time.Now().Add(resetLinkTTL + time.Minute)
	ts.srv.now = func() time.Time { return later }
	defer func() { ts.srv.now = time.Now }()

	for _, tt := range []struct {
		name, method, path, token string
		body                      any
		status                    int
		kind                      string
	}{
		{"validate: no token", "GET", "/auth/reset/validate", "", nil, http.StatusBadRequest, "ValidationError"},
		{"validate: too long", "GET", "/auth/reset/validate?token=" + strings.Repeat("x", 200), "", nil, http.StatusBadRequest, "ValidationError"},
		{"validate: unknown", "GET", "/auth/reset/validate?token=nope", "", nil, http.StatusUnauthorized, "InvalidTokenError"},
		{"validate: replaced", "GET", "/auth/reset/validate?token=" + replaced, "", nil, http.StatusUnauthorized, "InvalidTokenError"},
		{"validate: expired", "GET", "/auth/reset/validate?token=" + expired, "", nil, http.StatusUnauthorized, "InvalidTokenError"},
		{"reset: unknown", "POST", "/auth/reset/password", "", map[string]any{"token": "nope", "password": "Fresh-Meadow-Lamp-7"}, http.StatusUnauthorized, "InvalidTokenError"},
		{"reset: expired", "POST", "/auth/reset/password", "", map[string]any{"token": expired, "password": "Fresh-Meadow-Lamp-7"}, http.StatusUnauthorized, "InvalidTokenError"},
		{"reset: no token", "POST", "/auth/reset/password", "", map[string]any{"password": "Fresh-Meadow-Lamp-7"}, http.StatusBadRequest, "ValidationError"},
		{"reset: weak password", "POST", "/auth/reset/password", "", map[string]any{"token": current, "password": "password"}, http.StatusBadRequest, "ValidationError"},
		{"link: unknown user", "POST", "/api/admin/user-admin/reset-password", testAdminToken, map[string]any{"id": "nobody@example.com"}, http.StatusNotFound, "NotFoundError"},
		{"link: no id", "POST", "/api/admin/user-admin/reset-password", testAdminToken, map[string]any{}, http.StatusBadRequest, "ValidationError"},
		{"link: service account", "POST", "/api/admin/user-admin/reset-password", testAdminToken, map[string]any{"id": "robot"}, http.StatusBadRequest, "BadDataError"},
		{"link: a client token", "POST", "/api/admin/user-admin/reset-password", testClientToken, map[string]any{"id": "sam"}, http.StatusForbidden, "NoAccessError"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			mark := auditMark(t, ts)
			mustErrorRecord(t, ts.request(tt.method, tt.path, tt.token, tt.body), tt.status, tt.kind, "")
			mustNoAudit(t, ts, mark)
		})
	}
	// The link that was neither replaced nor expired still works (it
	// expires at creation plus 24 hours, later than the clock now set).
	ts.srv.now = time.Now
	c.do("POST", "/auth/reset/password", "", map[string]any{"token": current, "password": "Fresh-Meadow-Lamp-7"}, http.StatusOK)
	signIn(t, ts, "sam", "Fresh-Meadow-Lamp-7")
}

func TestResetPasswordEmailRevealsNothing(t *testing.T) {
	ts := newTestServer(t)
	c := newOAChecker(t, ts)
	ts.admin("POST", "/api/admin/user-admin", map[string]any{"email": "kim@example.com", "rootRole": "Viewer"}).must(t, http.StatusCreated)
	mark := auditMark(t, ts)
	var bodies []string
	for _, email := range []string{"kim@example.com", "KIM@example.com", "nobody@example.com"} {
		res := c.do("POST", "/auth/reset/password-email", "", map[string]any{"email": email}, http.StatusOK)
		bodies = append(bodies, string(res.Body))
	}
	if bodies[0] != "" || bodies[1] != "" || bodies[2] != "" {
		t.Errorf("answers %q", bodies)
	}
	mustNoAudit(t, ts, mark)
	for _, body := range []any{map[string]any{}, map[string]any{"email": strings.Repeat("a", 300) + "@example.com"}} {
		mustErrorRecord(t, ts.request("POST", "/auth/reset/password-email", "", body), http.StatusBadRequest, "ValidationError", "email")
	}
	// From a browser, only this server's pages may ask.
	ts.request("POST", "/auth/reset/password-email", "", map[string]any{"email": "kim@example.com"},
		"Origin", "https://evil.example", "Sec-Fetch-Site", "cross-site").must(t, http.StatusForbidden)
}

// Guesses at reset and invite links are limited per client address, like
// sign-ins: after 30 misses the next check waits, whatever link it tries,
// while sign-ins are counted apart.
func TestLinkGuessesLimited(t *testing.T) {
	ts := newTestServer(t)
	for i := range addressLimit.free {
		path := "/auth/reset/validate?token=guess-" + itoa(i)
		if i%2 == 1 {
			path = "/invite/guess-" + itoa(i) + "/validate"
		}
		if res := ts.request("GET", path, "", nil); res.Status != http.StatusUnauthorized && res.Status != http.StatusBadRequest {
			t.Fatalf("guess %d: status %d %s", i, res.Status, res.Body)
		}
	}
	for _, tt := range []struct {
		method, path string
		body         any
	}{
		{"GET", "/auth/reset/validate?token=one-more", nil},
		{"POST", "/auth/reset/password", map[string]any{"token": "one-more", "password": "Fresh-Meadow-Lamp-7"}},
		{"GET", "/invite/one-more/validate", nil},
		{"POST", "/invite/one-more/signup", map[string]any{"email": "x@example.com", "name": "X", "password": "Fresh-Meadow-Lamp-7"}},
	} {
		res := ts.request(tt.method, tt.path, "", tt.body)
		mustErrorRecord(t, res, http.StatusTooManyRequests, "TooManyRequestsError", "")
		if res.Header.Get("Retry-After") == "" {
			t.Errorf("%s %s: no Retry-After", tt.method, tt.path)
		}
	}
	signIn(t, ts, "admin", testAdminPassword)
}
