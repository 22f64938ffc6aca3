package server

import (
	"net/http"
	"strings"
	"testing"
)

func TestProjectAPITokens(t *testing.T) {
	ts := newTestServer(t)
	ts.admin("POST", "/api/admin/projects", map[string]any{"id": "web", "name": "Web"}).must(t, http.StatusCreated)
	const path = "/api/admin/projects/web/api-tokens"

	mark := auditMark(t, ts)
	res := ts.admin("POST", path, map[string]any{"type": "backend", "tokenName": "web-sdk", "environment": "production"}).must(t, http.StatusCreated)
	var tok struct{ Secret, Type string }
	res.Decode(t, &tok)
	if !strings.HasPrefix(tok.Secret, "web:production.") || tok.Type != "client" {
		t.Errorf("token %+v", tok)
	}
	if ev := auditAfter(t, ts, mark); len(ev) != 1 || ev[0].Type != "api-token-created" || strings.Contains(string(ev[0].Data), tok.Secret) {
		t.Errorf("events %+v", ev)
	}
	ts.request("GET", "/api/client/features", tok.Secret, nil).must(t, http.StatusOK)
	ts.admin("POST", "/api/admin/api-tokens", map[string]any{"type": "client", "tokenName": "both", "projects": []string{"web", "default"}}).must(t, http.StatusCreated)
	var other struct{ Secret string }
	ts.admin("POST", "/api/admin/api-tokens", map[string]any{"type": "client", "tokenName": "default-only", "project": "default"}).must(t, http.StatusCreated).Decode(t, &other)

	res = ts.admin("GET", path, nil).must(t, http.StatusOK)
	if strings.Contains(string(res.Body), tok.Secret) {
		t.Error("list shows a secret")
	}
	var list struct{ Tokens []struct{ TokenName string } }
	res.Decode(t, &list)
	if len(list.Tokens) != 1 || list.Tokens[0].TokenName != "web-sdk" {
		t.Errorf("tokens %+v", list.Tokens)
	}

	for _, tt := range []struct {
		name, method, path string
		body               any
		want               int
	}{
		{"admin type", "POST", path, map[string]any{"type": "admin", "tokenName": "x"}, 400},
		{"other project in body", "POST", path, map[string]any{"type": "client", "tokenName": "x", "projects": []string{"default"}}, 400},
		{"unknown environment", "POST", path, map[string]any{"type": "client", "tokenName": "x", "environment": "nope"}, 400},
		{"unknown project", "POST", "/api/admin/projects/nope/api-tokens", map[string]any{"type": "client", "tokenName": "x"}, 404},
		{"token of another project", "DELETE", path + "/" + other.Secret, nil, 404},
		{"list of unknown project", "GET", "/api/admin/projects/nope/api-tokens", nil, 404},
	} {
		t.Run(tt.name, func(t *testing.T) {
			mark := auditMark(t, ts)
			res := ts.admin(tt.method, tt.path, tt.body)
			if res.Status != tt.want && !(tt.want == 400 && res.Status == 404) {
				t.Fatalf("status %d, want %d: %s", res.Status, tt.want, res.Body)
			}
			if ev := auditAfter(t, ts, mark); len(ev) != 0 {
				t.Errorf("events %+v", ev)
			}
		})
	}

	mark = auditMark(t, ts)
	ts.admin("DELETE", path+"/"+tok.Secret, nil).must(t, http.StatusOK)
	ts.admin("DELETE", path+"/"+tok.Secret, nil).must(t, http.StatusOK)
	if ev := auditAfter(t, ts, mark); len(ev) != 1 || ev[0].Type != "api-token-deleted" {
		t.Errorf("events %+v", ev)
	}
	ts.request("GET", "/api/client/features", tok.Secret, nil).must(t, http.StatusUnauthorized)

	ts.request("GET", path, "", nil).must(t, http.StatusUnauthorized)
	createTestUser(t, ts, "vic", "Viewer", strongPassword)
	cookie := signIn(t, ts, "vic", strongPassword)
	ts.asSession(cookie, "POST", path, map[string]any{"type": "client", "tokenName": "x"}).must(t, http.StatusForbidden)
}
