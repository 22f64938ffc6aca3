package server

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/signalbox/signalbox/clientapi"
	"github.com/signalbox/signalbox/internal/clientip"
	"github.com/signalbox/signalbox/store"
	"github.com/signalbox/signalbox/store/sqlstore"
)

func TestGeneratePassword(t *testing.T) {
	seen := map[string]bool{}
	for i := 0; i < 200; i++ {
		pw := GeneratePassword()
		if err := checkNewPassword("password", pw); err != nil {
			t.Fatalf("%q breaks the password rules: %v", pw, err)
		}
		if len(pw) < 20 {
			t.Fatalf("%q is short", pw)
		}
		if seen[pw] {
			t.Fatalf("%q generated twice", pw)
		}
		seen[pw] = true
	}
}

// TestResetPassword: the reset works on the store alone, replaces the
// password, ends the user's sessions and is audited without the secret.
func TestResetPassword(t *testing.T) {
	ts := newTestServer(t)
	ctx := context.Background()
	oldSession := signIn(t, ts, "admin", testAdminPassword)

	generated, err := ResetPassword(ctx, ts.srv.store, "admin", "")
	if err != nil {
		t.Fatal(err)
	}
	if generated == "" || checkNewPassword("password", generated) != nil {
		t.Fatalf("generated password %q", generated)
	}
	ts.request("POST", "/auth/simple/login", "", map[string]string{"username": "admin", "password": testAdminPassword}).must(t, http.StatusUnauthorized)
	ts.asSession(oldSession, "GET", "/api/admin/user", nil).must(t, http.StatusUnauthorized)
	signIn(t, ts, "admin", generated)

	// A given password is kept as is, and must follow the rules.
	if got, err := ResetPassword(ctx, ts.srv.store, "ADMIN", strongPassword); err != nil || got != "" {
		t.Fatalf("given password: %q %v", got, err)
	}
	signIn(t, ts, "admin", strongPassword)
	if _, err := ResetPassword(ctx, ts.srv.store, "admin", "short"); err == nil {
		t.Error("a password breaking the rules was accepted")
	}
	if _, err := ResetPassword(ctx, ts.srv.store, "nobody", ""); err == nil || !strings.Contains(err.Error(), "nobody") {
		t.Errorf("unknown user: %v", err)
	}

	var events []store.Event
	err = ts.srv.store.View(ctx, func(r store.Reader) error {
		var err error
		events, err = r.ListEvents(ctx, store.EventFilter{Type: "user-updated"})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(events) != 2 {
		t.Fatalf("%d user-updated events, want 2", len(events))
	}
	for _, e := range events {
		if e.CreatedBy != "signalbox-admin-reset-password" || !strings.Contains(string(e.Data), `"passwordChanged":true`) {
			t.Errorf("event by %q with data %s", e.CreatedBy, e.Data)
		}
		if strings.Contains(string(e.Data), generated) || strings.Contains(string(e.Data), strongPassword) {
			t.Errorf("event shows the password: %s", e.Data)
		}
	}
}

// TestFrontendRemoteAddressBehindProxy: the frontend API's remoteAddress
// is the address X-Forwarded-For names only when the hop that sent it is
// trusted; otherwise it is the socket peer, whatever the header says.
func TestFrontendRemoteAddressBehindProxy(t *testing.T) {
	for _, tc := range []struct {
		trust string
		want  bool // the flag for 203.0.113.7 is on
	}{
		{"", false},
		{"loopback", true},
		{"10.0.0.0/8", false},
	} {
		t.Run("trust="+tc.trust, func(t *testing.T) {
			ctx := context.Background()
			st, err := sqlstore.Open(ctx, filepath.Join(t.TempDir(), "signalbox.db"))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { st.Close() })
			if _, err := Bootstrap(ctx, st, BootstrapConfig{AdminTokens: []string{testAdminToken}, FrontendTokens: []string{testFrontendToken}, AdminPassword: testAdminPassword}); err != nil {
				t.Fatal(err)
			}
			srv, err := New(ctx, st, Config{Log: slog.New(slog.NewTextHandler(io.Discard, nil)), TrustProxy: clientip.MustParse(tc.trust)})
			if err != nil {
				t.Fatal(err)
			}
			hs := httptest.NewServer(srv.Handler())
			t.Cleanup(hs.Close)
			ts := &testServer{t: t, srv: srv, url: hs.URL}
			seedFlag(t, ts, "office", store.Strategy{Name: "remoteAddress", Parameters: clientapi.Parameters{"IPs": "203.0.113.7"}})

			res := ts.request("GET", "/api/frontend", testFrontendToken, nil, "X-Forwarded-For", "203.0.113.7").must(t, http.StatusOK)
			var got clientapi.Toggles
			if err := json.Unmarshal(res.Body, &got); err != nil {
				t.Fatal(err)
			}
			if on := len(got.Toggles) == 1; on != tc.want {
				t.Errorf("flag on = %v, want %v (%s)", on, tc.want, res.Body)
			}
		})
	}
}
