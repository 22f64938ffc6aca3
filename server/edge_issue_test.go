package server

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/signalbox/signalbox/store"
)

type issuedTokens struct {
	Tokens []edgeToken
}

// issue asks for tokens with the given credential and answers them.
func issue(t *testing.T, ts *testServer, credential string, pairs ...edgeTokenRequest) issuedTokens {
	t.Helper()
	var out issuedTokens
	ts.request("POST", "/edge/issue-token", credential, map[string]any{"tokens": pairs}).must(t, http.StatusOK).Decode(t, &out)
	if len(out.Tokens) != len(pairs) {
		t.Fatalf("asked for %d tokens, got %+v", len(pairs), out)
	}
	return out
}

func TestEdgeIssueTokens(t *testing.T) {
	ts := newTestServer(t)
	ts.admin("POST", "/api/admin/projects", map[string]any{"id": "web", "name": "Web"}).must(t, http.StatusCreated)
	pairs := []edgeTokenRequest{
		{Environment: "development", Projects: []string{"web", "default"}},
		{Environment: "production", Projects: []string{"*"}},
	}

	mark := auditMark(t, ts)
	first := issue(t, ts, testAdminToken, pairs...)
	if ev := auditAfter(t, ts, mark); len(ev) != 2 || ev[0].Type != "api-token-created" || ev[1].Type != "api-token-created" {
		t.Errorf("events %+v, want one api-token-created per new token", ev)
	}
	for i, want := range []edgeToken{
		{Type: "client", Environment: "development", Projects: []string{"default", "web"}},
		{Type: "client", Environment: "production", Projects: []string{"*"}},
	} {
		got := first.Tokens[i]
		if got.Type != want.Type || got.Environment != want.Environment || strings.Join(got.Projects, ",") != strings.Join(want.Projects, ",") {
			t.Errorf("token %d: %+v, want %+v", i, got, want)
		}
		ts.request("GET", "/api/client/features", got.Token, nil).must(t, http.StatusOK)
	}
	if !strings.HasPrefix(first.Tokens[0].Token, "[]:development.") || !strings.HasPrefix(first.Tokens[1].Token, "*:production.") {
		t.Errorf("token scopes %q, %q", first.Tokens[0].Token, first.Tokens[1].Token)
	}

	// The same caller asking again, projects in another order, gets the
	// same tokens and nothing is created.
	mark = auditMark(t, ts)
	again := issue(t, ts, testAdminToken,
		edgeTokenRequest{Environment: "development", Projects: []string{"default", "web"}}, pairs[1], pairs[1])
	mustNoAudit(t, ts, mark)
	for i, want := range []string{first.Tokens[0].Token, first.Tokens[1].Token, first.Tokens[1].Token} {
		if again.Tokens[i].Token != want {
			t.Errorf("token %d asked again: %q, want %q", i, again.Tokens[i].Token, want)
		}
	}

	// Another caller gets tokens of its own.
	var other struct{ Secret string }
	ts.admin("POST", "/api/admin/api-tokens", map[string]any{"type": "admin", "tokenName": "edge-2"}).must(t, http.StatusCreated).Decode(t, &other)
	mark = auditMark(t, ts)
	theirs := issue(t, ts, other.Secret, pairs[1])
	mustOneAudit(t, ts, mark, "api-token-created")
	if theirs.Tokens[0].Token == first.Tokens[1].Token {
		t.Error("two callers share a token")
	}

	// A token an admin deletes stays deleted: the next request issues a
	// new secret.
	ts.admin("DELETE", "/api/admin/api-tokens/"+first.Tokens[1].Token, nil).must(t, http.StatusOK)
	renewed := issue(t, ts, testAdminToken, pairs[1])
	if renewed.Tokens[0].Token == first.Tokens[1].Token {
		t.Error("a deleted token came back")
	}
	ts.request("GET", "/api/client/features", first.Tokens[1].Token, nil).must(t, http.StatusUnauthorized)
	ts.request("GET", "/api/client/features", renewed.Tokens[0].Token, nil).must(t, http.StatusOK)

	// An expired token is not handed out again.
	err := ts.srv.store.Update(t.Context(), func(tx store.Tx) error {
		list, err := tx.ListAPITokens(t.Context(), store.APITokenFilter{Type: store.TokenClient})
		for _, tok := range list {
			if tok.SecretHash == store.HashSecret(renewed.Tokens[0].Token) {
				past := time.Now().Add(-time.Hour)
				tok.ExpiresAt = &past
				if _, err := tx.UpdateAPIToken(t.Context(), tok); err != nil {
					return err
				}
			}
		}
		_, aerr := tx.AppendEvent(t.Context(), store.Event{Type: "test"})
		if err == nil {
			err = aerr
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := issue(t, ts, testAdminToken, pairs[1]); got.Tokens[0].Token == renewed.Tokens[0].Token {
		t.Error("an expired token was handed out")
	}
}

func TestEdgeIssueTokenErrors(t *testing.T) {
	ts := newTestServer(t)
	ts.admin("POST", "/api/admin/projects", map[string]any{"id": "web", "name": "Web"}).must(t, http.StatusCreated)
	many := make([]edgeTokenRequest, maxEdgeIssue+1)
	for i := range many {
		many[i] = edgeTokenRequest{Environment: "development", Projects: []string{"default"}}
	}
	for _, tt := range []struct {
		name   string
		body   any
		status int
		kind   string
	}{
		{"no tokens", map[string]any{}, 400, "ValidationError"},
		{"not a list", map[string]any{"tokens": "x"}, 400, "ValidationError"},
		{"no environment", map[string]any{"tokens": []edgeTokenRequest{{Projects: []string{"default"}}}}, 400, "ValidationError"},
		{"unknown environment", map[string]any{"tokens": []edgeTokenRequest{{Environment: "nope", Projects: []string{"default"}}}}, 400, "ValidationError"},
		{"unknown project", map[string]any{"tokens": []edgeTokenRequest{{Environment: "development", Projects: []string{"nope"}}}}, 400, "ValidationError"},
		{"too many", map[string]any{"tokens": many}, 400, "ValidationError"},
		{"one bad among good", map[string]any{"tokens": []edgeTokenRequest{{Environment: "development", Projects: []string{"web"}}, {Environment: "nope", Projects: []string{"web"}}}}, 400, "ValidationError"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			mark := auditMark(t, ts)
			res := ts.admin("POST", "/edge/issue-token", tt.body)
			if res.Status != tt.status || res.Object()["name"] == nil {
				t.Fatalf("status %d, want %d: %s", res.Status, tt.status, res.Body)
			}
			mustNoAudit(t, ts, mark)
		})
	}

	// Who may ask: the permission to create client tokens for the projects.
	createTestUser(t, ts, "vic", "Viewer", strongPassword)
	member := createTestUser(t, ts, "mel", "Viewer", strongPassword)
	ts.admin("POST", "/api/admin/projects/web/access", map[string]any{"roles": []int{store.RoleMember}, "users": []map[string]int{{"id": member}}}).must(t, http.StatusOK)
	pat := func(user string) string {
		t.Helper()
		var tok struct{ Secret string }
		ts.asSession(signIn(t, ts, user, strongPassword), "POST", "/api/admin/user/tokens",
			map[string]any{"description": "edge", "expiresAt": time.Now().Add(time.Hour).UTC().Format(time.RFC3339)}).must(t, http.StatusCreated).Decode(t, &tok)
		return tok.Secret
	}
	web := map[string]any{"tokens": []edgeTokenRequest{{Environment: "development", Projects: []string{"web"}}}}
	all := map[string]any{"tokens": []edgeTokenRequest{{Environment: "development", Projects: []string{"*"}}}}
	mel := pat("mel")
	for _, tt := range []struct {
		name, credential string
		body             any
		status           int
	}{
		{"no credentials", "", web, http.StatusUnauthorized},
		{"client token", testClientToken, web, http.StatusForbidden},
		{"viewer", pat("vic"), web, http.StatusForbidden},
		{"member, own project", mel, web, http.StatusOK},
		{"member, all projects", mel, all, http.StatusForbidden},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ts.request("POST", "/edge/issue-token", tt.credential, tt.body).must(t, tt.status)
		})
	}
	// A session has no secret of its own to derive tokens from.
	cookie := signIn(t, ts, "admin", testAdminPassword)
	mustErrorRecord(t, ts.asSession(cookie, "POST", "/edge/issue-token", web), 400, "BadRequestError", "")
}
