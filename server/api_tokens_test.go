package server

import (
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/signalbox/signalbox/store"
)

func TestCreateAPITokens(t *testing.T) {
	ts := newTestServer(t)
	ts.admin("POST", "/api/admin/projects", map[string]any{"id": "tok-extra", "name": "Extra"}).must(t, http.StatusCreated)
	tests := []struct {
		name   string
		body   map[string]any
		secret string
		typ    string
		env    string
	}{
		{"client", map[string]any{"type": "client", "tokenName": "sdk", "environment": "development", "project": "default"}, `^default:development\.[0-9a-f]{56}$`, "client", "development"},
		{"upper-case CLIENT, legacy username", map[string]any{"type": "CLIENT", "username": "legacy", "environment": "production"}, `^\*:production\.[0-9a-f]{56}$`, "client", "production"},
		{"backend means client", map[string]any{"type": "backend", "tokenName": "be"}, `^\*:development\.[0-9a-f]{56}$`, "client", "development"},
		{"frontend", map[string]any{"type": "FRONTEND", "tokenName": "web", "projects": []string{"default"}}, `^default:development\.[0-9a-f]{56}$`, "frontend", "development"},
		{"several projects", map[string]any{"type": "client", "tokenName": "multi", "projects": []string{"default", "tok-extra"}}, `^\[\]:development\.[0-9a-f]{56}$`, "client", "development"},
		{"admin", map[string]any{"type": "ADMIN", "tokenName": "ops"}, `^\*:\*\.[0-9a-f]{56}$`, "admin", "*"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mark := auditMark(t, ts)
			res := ts.admin("POST", "/api/admin/api-tokens", tt.body).must(t, http.StatusCreated)
			var tok TokenJSON
			res.Decode(t, &tok)
			if !regexp.MustCompile(tt.secret).MatchString(tok.Secret) || tok.Type != tt.typ || tok.Environment != tt.env || !tok.Secure {
				t.Fatalf("token %+v", tok)
			}
			e := mustOneAudit(t, ts, mark, "api-token-created")
			if strings.Contains(string(e.Data), tok.Secret) || strings.Contains(string(e.Data), tok.Secret[strings.Index(tok.Secret, ".")+1:]) {
				t.Errorf("the event holds the secret: %s", e.Data)
			}
			list := ts.admin("GET", "/api/admin/api-tokens", nil).must(t, http.StatusOK)
			events := ts.admin("GET", "/api/admin/events", nil).must(t, http.StatusOK)
			for _, body := range [][]byte{list.Body, events.Body} {
				if strings.Contains(string(body), tok.Secret[strings.Index(tok.Secret, ".")+1:]) {
					t.Errorf("the secret appears in a list: %s", body)
				}
			}
			if !strings.Contains(string(list.Body), `"tokenName":"`+tok.TokenName+`"`) {
				t.Errorf("list lacks the token: %s", list.Body)
			}
			switch tt.typ {
			case "client":
				ts.request("GET", "/api/client/features", tok.Secret, nil).must(t, http.StatusOK)
			case "frontend":
				ts.request("GET", "/api/frontend", tok.Secret, nil).must(t, http.StatusOK)
			case "admin":
				ts.request("GET", "/api/admin/projects", tok.Secret, nil).must(t, http.StatusOK)
			}
		})
	}
}

func TestCreateAPITokenValidation(t *testing.T) {
	ts := newTestServer(t)
	tests := []struct {
		name string
		body any
		path string
	}{
		{"no type", map[string]any{"tokenName": "a"}, "type"},
		{"unknown type", map[string]any{"type": "root", "tokenName": "a"}, "type"},
		{"no name", map[string]any{"type": "client"}, "tokenName"},
		{"unknown environment", map[string]any{"type": "client", "tokenName": "a", "environment": "staging"}, "environment"},
		{"unknown project", map[string]any{"type": "client", "tokenName": "a", "project": "nope"}, "projects"},
		{"project and projects", map[string]any{"type": "client", "tokenName": "a", "project": "default", "projects": []string{"default"}}, "projects"},
		{"admin in one environment", map[string]any{"type": "admin", "tokenName": "a", "environment": "development"}, "environment"},
		{"admin in one project", map[string]any{"type": "admin", "tokenName": "a", "project": "default"}, "projects"},
		{"expired", map[string]any{"type": "client", "tokenName": "a", "expiresAt": "2001-01-01T00:00:00Z"}, "expiresAt"},
		{"bad date", map[string]any{"type": "client", "tokenName": "a", "expiresAt": "soon"}, "expiresAt"},
		{"projects not a list", map[string]any{"type": "client", "tokenName": "a", "projects": "default"}, "projects"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mark := auditMark(t, ts)
			mustErrorRecord(t, ts.admin("POST", "/api/admin/api-tokens", tt.body), http.StatusBadRequest, "ValidationError", tt.path)
			mustNoAudit(t, ts, mark)
		})
	}
	mustErrorRecord(t, ts.request("POST", "/api/admin/api-tokens", testAdminToken, `{"type":"client"}`, "Content-Type", "application/x-www-form-urlencoded"),
		http.StatusUnsupportedMediaType, "ContentTypeError", "")
}

func TestAPITokenPermissions(t *testing.T) {
	ts := newTestServer(t)
	createTestUser(t, ts, "eddie", "Editor", strongPassword)
	editor := signIn(t, ts, "eddie", strongPassword)
	res := ts.asSession(editor, "POST", "/api/admin/api-tokens", map[string]any{"type": "admin", "tokenName": "sneaky"})
	mustErrorRecord(t, res, http.StatusForbidden, "NoAccessError", "")
	if !strings.Contains(string(res.Body), "ADMIN") {
		t.Errorf("message should name ADMIN: %s", res.Body)
	}
	// Editors create client tokens for the projects they hold a role in
	// (here one they created, and so own), not for all projects.
	mustForbid(t, ts.asSession(editor, "POST", "/api/admin/api-tokens", map[string]any{"type": "client", "tokenName": "all"}), "Admin")
	ts.asSession(editor, "POST", "/api/admin/projects", map[string]any{"id": "eddies"}).must(t, http.StatusCreated)
	ts.asSession(editor, "POST", "/api/admin/api-tokens", map[string]any{"type": "client", "tokenName": "fine", "projects": []string{"eddies"}}).must(t, http.StatusCreated)
	list := ts.asSession(editor, "GET", "/api/admin/api-tokens", nil).must(t, http.StatusOK)
	if strings.Contains(string(list.Body), `"type":"admin"`) || !strings.Contains(string(list.Body), `"fine"`) {
		t.Errorf("editors see client tokens, not admin ones: %s", list.Body)
	}
	var admin TokenJSON
	ts.admin("GET", "/api/admin/api-tokens/init-admin", nil).must(t, http.StatusOK)
	var all struct{ Tokens []TokenJSON }
	ts.admin("GET", "/api/admin/api-tokens", nil).must(t, http.StatusOK).Decode(t, &all)
	for _, tok := range all.Tokens {
		if tok.Type == "admin" {
			admin = tok
		}
	}
	mustErrorRecord(t, ts.asSession(editor, "DELETE", "/api/admin/api-tokens/"+url.PathEscape(admin.Secret), nil), http.StatusForbidden, "NoAccessError", "")
	ts.request("GET", "/api/admin/api-tokens", testClientToken, nil).must(t, http.StatusForbidden)
}

func TestAPITokenReadUpdateDelete(t *testing.T) {
	ts := newTestServer(t)
	var tok TokenJSON
	ts.admin("POST", "/api/admin/api-tokens", map[string]any{"type": "client", "tokenName": "short-lived"}).must(t, http.StatusCreated).Decode(t, &tok)
	// Another scope, so the two shown forms differ.
	ts.admin("POST", "/api/admin/api-tokens", map[string]any{"type": "client", "tokenName": "short-lived", "environment": "production"}).must(t, http.StatusCreated)
	var byName struct{ Tokens []TokenJSON }
	ts.admin("GET", "/api/admin/api-tokens/short-lived", nil).must(t, http.StatusOK).Decode(t, &byName)
	// Lists answer the shown form of each secret, never the whole one.
	if len(byName.Tokens) != 2 || !strings.HasSuffix(byName.Tokens[0].Secret, "…") || byName.Tokens[0].Secret == tok.Secret ||
		!strings.HasPrefix(tok.Secret, strings.TrimSuffix(byName.Tokens[0].Secret, "…")) {
		t.Errorf("by name %+v", byName)
	}
	shown := byName.Tokens[0].Secret
	ts.admin("GET", "/api/admin/api-tokens/nobody", nil).must(t, http.StatusOK).Decode(t, &byName)
	if len(byName.Tokens) != 0 {
		t.Errorf("unknown name %+v", byName)
	}

	// The shown form names the token in paths.
	path := "/api/admin/api-tokens/" + url.PathEscape(shown)
	later := time.Now().Add(48 * time.Hour).UTC().Truncate(time.Second)
	mark := auditMark(t, ts)
	var updated TokenJSON
	ts.admin("PUT", path, map[string]any{"expiresAt": later.Format(time.RFC3339)}).must(t, http.StatusOK).Decode(t, &updated)
	if updated.ExpiresAt == nil || !updated.ExpiresAt.Equal(later) || updated.Secret != shown {
		t.Errorf("updated %+v", updated)
	}
	e := mustOneAudit(t, ts, mark, "api-token-updated")
	if e.PreData == nil || strings.Contains(string(e.Data), tok.Secret) {
		t.Errorf("event %s / %s", e.Data, e.PreData)
	}
	ts.request("GET", "/api/client/features", tok.Secret, nil).must(t, http.StatusOK)
	mustErrorRecord(t, ts.admin("PUT", path, map[string]any{}), http.StatusBadRequest, "ValidationError", "expiresAt")
	mustErrorRecord(t, ts.admin("PUT", "/api/admin/api-tokens/9999", map[string]any{"expiresAt": later}), http.StatusNotFound, "NotFoundError", "")
	// A time in the past ends the token at once.
	ts.admin("PUT", path, map[string]any{"expiresAt": "2001-01-01T00:00:00Z"}).must(t, http.StatusOK)
	ts.request("GET", "/api/client/features", tok.Secret, nil).must(t, http.StatusUnauthorized)

	mark = auditMark(t, ts)
	ts.admin("DELETE", path, nil).must(t, http.StatusOK)
	mustOneAudit(t, ts, mark, "api-token-deleted")
	ts.admin("DELETE", path, nil).must(t, http.StatusNotFound)

	// Unleash's paths name the token by its secret; that works too and the
	// secret stays out of the error.
	var other TokenJSON
	ts.admin("POST", "/api/admin/api-tokens", map[string]any{"type": "frontend", "tokenName": "by-secret"}).must(t, http.StatusCreated).Decode(t, &other)
	ts.admin("DELETE", "/api/admin/api-tokens/"+other.Secret, nil).must(t, http.StatusOK)
	ts.request("GET", "/api/frontend", other.Secret, nil).must(t, http.StatusUnauthorized)
	res := ts.admin("DELETE", "/api/admin/api-tokens/"+other.Secret, nil).must(t, http.StatusNotFound)
	if strings.Contains(string(res.Body), other.Secret) {
		t.Errorf("the error echoes the secret: %s", res.Body)
	}
}

// Shown forms keep a few characters of a secret, so two tokens may share
// one: then it names neither, and the whole secret still works.
func TestAPITokenSharedShownForm(t *testing.T) {
	ts := newTestServer(t)
	const shown = "*:development.abcd…"
	secrets := []string{"*:development.abcd01", "*:development.abcd02"}
	err := ts.srv.store.Update(t.Context(), func(tx store.Tx) error {
		for i, secret := range secrets {
			_, err := tx.CreateAPIToken(t.Context(), store.APIToken{SecretHash: store.HashSecret(secret), Prefix: shown,
				TokenName: "twin-" + strconv.Itoa(i), Type: store.TokenClient, Projects: []string{"*"}, Environment: "development"})
			if err != nil {
				return err
			}
		}
		_, err := tx.AppendEvent(t.Context(), store.Event{Type: "api-token-created", CreatedBy: "test"})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	res := ts.admin("DELETE", "/api/admin/api-tokens/"+url.PathEscape(shown), nil)
	mustErrorRecord(t, res, http.StatusConflict, "ConflictError", "")
	if !strings.Contains(string(res.Body), "whole secret") {
		t.Errorf("the answer does not say how to name the token: %s", res.Body)
	}
	ts.admin("DELETE", "/api/admin/api-tokens/"+url.PathEscape(secrets[0]), nil).must(t, http.StatusOK)
	ts.admin("DELETE", "/api/admin/api-tokens/"+url.PathEscape(shown), nil).must(t, http.StatusOK)
	var left struct{ Tokens []TokenJSON }
	ts.admin("GET", "/api/admin/api-tokens", nil).must(t, http.StatusOK).Decode(t, &left)
	for _, tok := range left.Tokens {
		if strings.HasPrefix(tok.TokenName, "twin-") {
			t.Errorf("%s is left", tok.TokenName)
		}
	}
}

func TestPersonalAccessTokens(t *testing.T) {
	ts := newTestServer(t)
	cookie := viewerSession(t, ts)
	expires := time.Now().Add(24 * time.Hour).UTC().Format(time.RFC3339)

	mark := auditMark(t, ts)
	res := ts.asSession(cookie, "POST", "/api/admin/user/tokens", map[string]any{"description": "ci", "expiresAt": expires}).must(t, http.StatusCreated)
	var pat struct {
		ID          int64  `json:"id"`
		Secret      string `json:"secret"`
		Description string `json:"description"`
		UserID      int    `json:"userId"`
	}
	res.Decode(t, &pat)
	if !regexp.MustCompile(`^user:[0-9a-f]{56}$`).MatchString(pat.Secret) || pat.Description != "ci" || pat.UserID == 0 {
		t.Fatalf("pat %s", res.Body)
	}
	if e := mustOneAudit(t, ts, mark, "pat-created"); strings.Contains(string(e.Data), pat.Secret) {
		t.Errorf("event holds the secret: %s", e.Data)
	}

	// The token acts as its user: a Viewer's profile, and a Viewer's 403.
	profile := ts.request("GET", "/api/admin/user/profile", pat.Secret, nil).must(t, http.StatusOK).Object()
	if role, _ := profile["rootRole"].(map[string]any); role["name"] != "Viewer" {
		t.Errorf("profile through the PAT %v", profile)
	}
	mustErrorRecord(t, ts.request("POST", "/api/admin/projects", pat.Secret, map[string]any{"id": "nope"}), http.StatusForbidden, "NoAccessError", "")
	ts.request("GET", "/api/admin/projects", "Bearer "+pat.Secret, nil).must(t, http.StatusOK)
	ts.request("GET", "/api/client/features", pat.Secret, nil).must(t, http.StatusForbidden)

	list := ts.asSession(cookie, "GET", "/api/admin/user/tokens", nil).must(t, http.StatusOK)
	if strings.Contains(string(list.Body), pat.Secret) || !strings.Contains(string(list.Body), `"description":"ci"`) {
		t.Errorf("pat list %s", list.Body)
	}
	if strings.Contains(string(ts.admin("GET", "/api/admin/api-tokens", nil).Body), `"ci"`) {
		t.Error("personal tokens must not be listed with API tokens")
	}

	bad := []struct {
		body   map[string]any
		status int
		kind   string
	}{
		{map[string]any{"description": "ci", "expiresAt": expires}, 409, "NameExistsError"},
		{map[string]any{"description": "", "expiresAt": expires}, 400, "ValidationError"},
		{map[string]any{"description": "old", "expiresAt": "2001-01-01T00:00:00Z"}, 400, "ValidationError"},
		{map[string]any{"description": "none"}, 400, "ValidationError"},
	}
	for _, tt := range bad {
		mustErrorRecord(t, ts.asSession(cookie, "POST", "/api/admin/user/tokens", tt.body), tt.status, tt.kind, "")
	}
	mustErrorRecord(t, ts.admin("POST", "/api/admin/user/tokens", map[string]any{"description": "x", "expiresAt": expires}), http.StatusForbidden, "NoAccessError", "")
	mustErrorRecord(t, ts.admin("GET", "/api/admin/user/tokens", nil), http.StatusForbidden, "NoAccessError", "")

	// Another user cannot delete it.
	admin := signIn(t, ts, "admin", testAdminPassword)
	ts.asSession(admin, "DELETE", "/api/admin/user/tokens/"+strconv.FormatInt(pat.ID, 10), nil).must(t, http.StatusNotFound)

	mark = auditMark(t, ts)
	ts.asSession(cookie, "DELETE", "/api/admin/user/tokens/"+strconv.FormatInt(pat.ID, 10), nil).must(t, http.StatusOK)
	mustOneAudit(t, ts, mark, "pat-deleted")
	ts.request("GET", "/api/admin/projects", pat.Secret, nil).must(t, http.StatusUnauthorized)
	mustErrorRecord(t, ts.asSession(cookie, "DELETE", "/api/admin/user/tokens/x", nil), http.StatusBadRequest, "ValidationError", "id")
}

func FuzzCreateAPIToken(f *testing.F) {
	for _, seed := range []string{
		`{"type":"client","tokenName":"a"}`, `{"type":"ADMIN","username":"b"}`, `{"type":"frontend","tokenName":"c","projects":["default","default"]}`,
		`{"type":"client","tokenName":"d","environment":"*"}`, `{"type":"client","tokenName":"\u0000"}`, `{"type":"client","tokenName":"e","expiresAt":"2999-01-01"}`,
		`{"type":"client","tokenName":"f","projects":[null]}`, `{"type":7}`, `[]`, `""`,
	} {
		f.Add([]byte(seed))
	}
	h := newFuzzServer(f)
	f.Fuzz(func(t *testing.T, body []byte) { fuzzPost(t, h, "/api/admin/api-tokens", body) })
}
