package server

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

// A path that names a token by its secret is never repeated in an error,
// not even in part: not for a personal token's secret (which the API
// token routes do not find) nor for one that matches nothing.
func TestTokenErrorsDoNotEchoSecrets(t *testing.T) {
	ts := newTestServer(t)
	cookie := viewerSession(t, ts)
	var pat struct{ Secret string }
	ts.asSession(cookie, "POST", "/api/admin/user/tokens", map[string]any{"description": "ci", "expiresAt": time.Now().Add(time.Hour).UTC().Format(time.RFC3339)}).
		must(t, http.StatusCreated).Decode(t, &pat)
	secrets := []string{pat.Secret, "default:development.0123456789abcdef", "user:feedfacecafe0123", "no-scope-at-all-5678"}
	for _, secret := range secrets {
		path := "/api/admin/api-tokens/" + url.PathEscape(secret)
		for _, res := range []response{
			ts.admin("DELETE", path, nil),
			ts.admin("PUT", path, map[string]any{"expiresAt": "2040-01-01T00:00:00Z"}),
		} {
			mustErrorRecord(t, res, http.StatusNotFound, "NotFoundError", "")
			// The record's id is random hex: only its words are checked,
			// or a 4-character piece could match the id by chance.
			var words strings.Builder
			body := res.Object()
			words.WriteString(fmt.Sprint(body["message"], body["details"]))
			tail := secret[strings.LastIndexAny(secret, ".:")+1:]
			if strings.Contains(words.String(), tail[:4]) || strings.Contains(words.String(), tail[len(tail)-4:]) {
				t.Errorf("%s: the answer repeats part of the secret: %s", secret, res.Body)
			}
		}
	}
	// Nor is a secret sent in place of a personal token's id.
	res := ts.asSession(cookie, "DELETE", "/api/admin/user/tokens/"+url.PathEscape(pat.Secret), nil)
	mustErrorRecord(t, res, http.StatusBadRequest, "ValidationError", "id")
	if strings.Contains(string(res.Body), pat.Secret[5:13]) {
		t.Errorf("the answer repeats the secret: %s", res.Body)
	}
	// Numeric ids are not secrets and are named.
	res = ts.admin("DELETE", "/api/admin/api-tokens/987654", nil)
	mustErrorRecord(t, res, http.StatusNotFound, "NotFoundError", "")
	if !strings.Contains(string(res.Body), "987654") {
		t.Errorf("missing id not named: %s", res.Body)
	}
	// The personal token still works: the failed lookups did not touch it.
	ts.request("GET", "/api/admin/user", pat.Secret, nil).must(t, http.StatusOK)
}

// Readers of the event log see of a token event what they could see of the
// token itself; the stored events stay whole, and a search cannot find
// events through what is hidden.
func TestTokenEventsHiddenFromViewers(t *testing.T) {
	ts := newTestServer(t)
	var admin, client struct{ Secret string }
	ts.admin("POST", "/api/admin/api-tokens", map[string]any{"type": "admin", "tokenName": "deploy-robot"}).must(t, http.StatusCreated).Decode(t, &admin)
	ts.admin("POST", "/api/admin/api-tokens", map[string]any{"type": "client", "tokenName": "billing-service", "environment": "development"}).must(t, http.StatusCreated).Decode(t, &client)
	viewer := viewerSession(t, ts)
	var pat struct{ Secret string }
	ts.asSession(viewer, "POST", "/api/admin/user/tokens", map[string]any{"description": "vera-laptop", "expiresAt": time.Now().Add(time.Hour).UTC().Format(time.RFC3339)}).
		must(t, http.StatusCreated).Decode(t, &pat)
	createTestUser(t, ts, "otto-viewer", "Viewer", strongPassword)
	other := signIn(t, ts, "otto-viewer", strongPassword)

	// Lists and events show a token's secret in its shown form.
	adminShown, clientShown := redact(admin.Secret), redact(client.Secret)
	hidden := []string{"deploy-robot", "billing-service", adminShown, clientShown, strings.TrimSuffix(adminShown, "…")}
	reads := []struct{ method, path string }{
		{"GET", "/api/admin/events"},
		{"POST", "/api/admin/events/search"},
		{"GET", "/api/admin/search/events"},
		{"GET", "/api/admin/search/events?type=IS_ANY_OF:api-token-created,pat-created"},
	}
	for _, rd := range reads {
		var body any
		if rd.method == "POST" {
			body = map[string]any{}
		}
		res := ts.asSession(other, rd.method, rd.path, body).must(t, http.StatusOK)
		text := string(res.Body)
		if !strings.Contains(text, `"api-token-created"`) || !strings.Contains(text, hiddenText) {
			t.Errorf("%s %s: token events missing or not redacted: %s", rd.method, rd.path, text)
		}
		for _, h := range append(hidden, "vera-laptop") {
			if strings.Contains(text, h) {
				t.Errorf("%s %s shows %q to a Viewer", rd.method, rd.path, h)
			}
		}
		// Admins see everything.
		res = ts.admin(rd.method, rd.path, body).must(t, http.StatusOK)
		for _, h := range append(hidden[:4], "vera-laptop") {
			if !strings.Contains(string(res.Body), h) {
				t.Errorf("%s %s hides %q from an Admin", rd.method, rd.path, h)
			}
		}
	}
	// The owner of a personal token sees its description.
	if res := ts.asSession(viewer, "GET", "/api/admin/events", nil).must(t, http.StatusOK); !strings.Contains(string(res.Body), "vera-laptop") {
		t.Errorf("the owner does not see their token's description: %s", res.Body)
	}

	// Searching through hidden text finds nothing; through the type, the
	// redacted events.
	for _, q := range []string{"deploy-robot", "billing", strings.TrimSuffix(adminShown, "…"), "vera-laptop"} {
		var found struct {
			Events      []map[string]any
			TotalEvents int
		}
		ts.asSession(other, "POST", "/api/admin/events/search", map[string]any{"query": q}).must(t, http.StatusOK).Decode(t, &found)
		if len(found.Events) != 0 || found.TotalEvents != 0 {
			t.Errorf("query %q finds %d events (total %d) through hidden text", q, len(found.Events), found.TotalEvents)
		}
		var found2 struct {
			Events []map[string]any
			Total  int
		}
		ts.asSession(other, "GET", "/api/admin/search/events?query="+url.QueryEscape(q), nil).must(t, http.StatusOK).Decode(t, &found2)
		if len(found2.Events) != 0 || found2.Total != 0 {
			t.Errorf("query %q finds %d events (total %d) through hidden text", q, len(found2.Events), found2.Total)
		}
		ts.admin("POST", "/api/admin/events/search", map[string]any{"query": q}).must(t, http.StatusOK).Decode(t, &found)
		if found.TotalEvents == 0 {
			t.Errorf("query %q finds nothing for an Admin", q)
		}
	}
	var byType struct {
		Events      []map[string]any
		TotalEvents int
	}
	ts.asSession(other, "POST", "/api/admin/events/search", map[string]any{"query": "api-token-created", "limit": 1}).must(t, http.StatusOK).Decode(t, &byType)
	// Two start-up tokens of the harness, and the two made here.
	if len(byType.Events) != 1 || byType.TotalEvents < 2 {
		t.Errorf("search by type: %d events, total %d", len(byType.Events), byType.TotalEvents)
	}

	// The audit log itself is whole.
	var names []string
	for _, e := range auditAfter(t, ts, 0) {
		names = append(names, string(e.Data))
	}
	if all := strings.Join(names, "\n"); !strings.Contains(all, "deploy-robot") || !strings.Contains(all, adminShown) {
		t.Error("the stored events lost the token details")
	}
}
