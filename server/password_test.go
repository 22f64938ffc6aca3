package server

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/signalbox/signalbox/internal/apierr"
	"github.com/signalbox/signalbox/store"
	"github.com/signalbox/signalbox/store/sqlstore"
)

// Each rule, when it is the one broken, is named in the message.
func TestPasswordRules(t *testing.T) {
	tests := []struct {
		password string
		says     string // "" for accepted
	}{
		{"Sturdy-Lantern-42", ""},
		{"Ünïcödé-Pässwörd-1", ""},
		{"Aa1-aa1-aa1", ""},
		{"Short-1a", "at least 10 characters"},
		{"", "at least 10 characters"},
		{"Long-Password-1" + strings.Repeat("x1", 30), "at most 72 bytes"},
		{"ALL-UPPER-CASE-1", "a lower-case letter"},
		{"all-lower-case-1", "an upper-case letter"},
		{"No-Digits-Here", "a digit"},
		{"NoSymbols1234", "a symbol"},
		{"nosymbolsordigits", "an upper-case letter, a digit and a symbol"},
		{"Triple-aaa-letter-1", `three times in a row ("aaa")`},
	}
	for _, tt := range tests {
		err := CheckPassword(tt.password)
		switch {
		case tt.says == "" && err != nil:
			t.Errorf("%q refused: %v", tt.password, err)
		case tt.says != "" && (!apierr.Is(err, apierr.Validation) || !strings.Contains(err.Error(), tt.says)):
			t.Errorf("%q: %v, want a ValidationError saying %q", tt.password, err, tt.says)
		}
	}
}

// The rules apply wherever a password is set: an admin creating a user or
// setting a password, the user changing their own, and the validation
// endpoint.
func TestPasswordRulesApplyEverywhere(t *testing.T) {
	ts := newTestServer(t)
	const weak = "password123"
	mark := auditMark(t, ts)
	res := ts.admin("POST", "/api/admin/user-admin", map[string]any{"username": "weakling", "rootRole": "Viewer", "password": weak})
	mustErrorRecord(t, res, http.StatusBadRequest, "ValidationError", "password")
	if !strings.Contains(string(res.Body), "an upper-case letter and a symbol") {
		t.Errorf("message does not name the rule: %s", res.Body)
	}
	mustNoAudit(t, ts, mark)

	id := createTestUser(t, ts, "sturdy", "Viewer", strongPassword)
	mustErrorRecord(t, ts.admin("POST", "/api/admin/user-admin/"+strconv.Itoa(id)+"/change-password", map[string]any{"password": weak}),
		http.StatusBadRequest, "ValidationError", "password")
	cookie := signIn(t, ts, "sturdy", strongPassword)
	mustErrorRecord(t, ts.asSession(cookie, "POST", "/api/admin/user/change-password", map[string]any{"password": weak, "oldPassword": strongPassword}),
		http.StatusBadRequest, "ValidationError", "password")
	mustErrorRecord(t, ts.admin("POST", "/api/admin/user-admin/validate-password", map[string]any{"password": weak}),
		http.StatusBadRequest, "ValidationError", "password")
	signIn(t, ts, "sturdy", strongPassword)
}

// bootstrapStore is a fresh SQLite store.
func bootstrapStore(t *testing.T) store.Store {
	t.Helper()
	st, err := sqlstore.Open(context.Background(), filepath.Join(t.TempDir(), "signalbox.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// A weak initial admin password stops the first start with a message that
// names the setting and the rule, before anything is created; once the
// admin exists, the setting is not read.
func TestBootstrapAdminPasswordRules(t *testing.T) {
	ctx := context.Background()
	st := bootstrapStore(t)
	_, err := Bootstrap(ctx, st, BootstrapConfig{AdminTokens: []string{testAdminToken}, AdminPassword: "admin"})
	if err == nil || !strings.Contains(err.Error(), "ADMIN_PASSWORD") || !strings.Contains(err.Error(), "at least 10 characters") {
		t.Fatalf("weak admin password: %v", err)
	}
	if rev, err := st.Revision(ctx); err != nil || rev != 0 {
		t.Fatalf("something was created before the password was refused: revision %d, %v", rev, err)
	}

	if _, err := Bootstrap(ctx, st, BootstrapConfig{AdminPassword: testAdminPassword}); err != nil {
		t.Fatal(err)
	}
	if _, err := Bootstrap(ctx, st, BootstrapConfig{AdminPassword: "admin"}); err != nil {
		t.Fatalf("a restart with the admin in place: %v", err)
	}
}

// Generated passwords, the first admin's included, follow the rules.
func TestGeneratedPasswordsFollowTheRules(t *testing.T) {
	for range 500 {
		if pw := GeneratePassword(); CheckPassword(pw) != nil {
			t.Fatalf("generated %q: %v", pw, CheckPassword(pw))
		}
	}
	ctx := context.Background()
	st := bootstrapStore(t)
	generated, err := Bootstrap(ctx, st, BootstrapConfig{})
	if err != nil || CheckPassword(generated) != nil {
		t.Fatalf("generated admin password %q: %v", generated, err)
	}
	srv, err := New(ctx, st, Config{Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(hs.Close)
	ts := &testServer{t: t, srv: srv, url: hs.URL}
	ts.login("admin", generated).must(t, http.StatusOK)
}
