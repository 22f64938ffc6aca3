package server

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/signalbox/signalbox/store"
)

func TestEdgeValidate(t *testing.T) {
	ts := newTestServer(t)
	c := newOAChecker(t, ts)
	ts.admin("POST", "/api/admin/projects", map[string]any{"id": "web", "name": "Web"}).must(t, http.StatusCreated)
	mk := func(body map[string]any) string {
		var tok struct {
			Secret string `json:"secret"`
		}
		ts.admin("POST", "/api/admin/api-tokens", body).must(t, http.StatusCreated).Decode(t, &tok)
		return tok.Secret
	}
	client := mk(map[string]any{"tokenName": "c", "type": "client", "projects": []string{"web", "default"}, "environment": "production"})
	frontend := mk(map[string]any{"tokenName": "f", "type": "frontend", "projects": []string{"*"}, "environment": "development"})
	expiring := mk(map[string]any{"tokenName": "x", "type": "client", "projects": []string{"*"}, "environment": "development",
		"expiresAt": time.Now().Add(time.Hour).Format(time.RFC3339)})
	ts.srv.now = func() time.Time { return time.Now().Add(2 * time.Hour) }

	type answer struct {
		Tokens []edgeToken `json:"tokens"`
	}
	var got answer
	asked := []string{client, "*:development.made-up", frontend, testAdminToken, expiring, client, ""}
	c.do("POST", "/edge/validate", "", map[string]any{"tokens": asked}, http.StatusOK).Decode(t, &got)
	want := answer{Tokens: []edgeToken{
		{Token: client, Type: store.TokenClient, Projects: []string{"web", "default"}, Environment: "production"},
		{Token: frontend, Type: store.TokenFrontend, Projects: []string{"*"}, Environment: "development"},
	}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("valid tokens (-want +got):\n%s", diff)
	}

	// Deleted tokens are no longer valid.
	ts.admin("DELETE", "/api/admin/api-tokens/"+client, nil).must(t, http.StatusOK)
	c.do("POST", "/edge/validate", "", map[string]any{"tokens": []string{client}}, http.StatusOK).Decode(t, &got)
	if len(got.Tokens) != 0 {
		t.Errorf("a deleted token is valid: %+v", got)
	}

	for _, tt := range []struct {
		name string
		body any
	}{
		{"no list", map[string]any{}},
		{"not strings", map[string]any{"tokens": []int{1}}},
		{"too many", map[string]any{"tokens": strings.Split(strings.Repeat("x,", maxEdgeTokens), ",")}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			mustErrorRecord(t, c.do("POST", "/edge/validate", "", tt.body, http.StatusBadRequest), http.StatusBadRequest, "ValidationError", "")
		})
	}
}
