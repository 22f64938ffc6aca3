package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/signalbox/signalbox/internal/apierr"
	"github.com/signalbox/signalbox/store"
)

func testSessions(t *testing.T, s store.Store) {
	ctx := t.Context()
	var u store.User
	update(t, s, func(tx store.Tx) error {
		var err error
		u, err = tx.CreateUser(ctx, store.User{Username: "u", RootRole: store.RoleViewer})
		return err
	})
	a := store.Session{ID: "a", UserID: u.ID, CreatedAt: t0, ExpiresAt: t0.Add(time.Hour)}
	b := store.Session{ID: "b", UserID: u.ID, CreatedAt: t0.Add(time.Minute), ExpiresAt: t0.Add(48 * time.Hour)}
	// Sessions are operational: plain Updates without events.
	op := func(fn func(tx store.Tx) error) {
		t.Helper()
		if err := s.Update(ctx, fn); err != nil {
			t.Fatal(err)
		}
	}
	op(func(tx store.Tx) error {
		got, err := tx.CreateSession(ctx, a)
		diff(t, "created session", a, got)
		if err != nil {
			return err
		}
		_, err = tx.CreateSession(ctx, b)
		return err
	})
	diff(t, "sessions", []store.Session{a, b}, get(t, s, func(ctx context.Context, r store.Reader) ([]store.Session, error) {
		return r.ListSessions(ctx, u.ID)
	}))
	op(func(tx store.Tx) error {
		n, err := tx.DeleteExpiredSessions(ctx, t0.Add(2*time.Hour))
		if n != 1 {
			t.Errorf("expired deleted = %d, want 1", n)
		}
		return err
	})
	diff(t, "after expiry", []store.Session{b}, get(t, s, func(ctx context.Context, r store.Reader) ([]store.Session, error) {
		return r.ListSessions(ctx, u.ID)
	}))
	runErrCases(t, s, []errCase{
		{"taken id", func(ctx context.Context, tx store.Tx) error {
			_, err := tx.CreateSession(ctx, b)
			return err
		}, apierr.NameExists},
		{"unknown user", func(ctx context.Context, tx store.Tx) error {
			_, err := tx.CreateSession(ctx, store.Session{ID: "c", UserID: 9999, ExpiresAt: t0})
			return err
		}, apierr.NotFound},
		{"delete missing is fine", func(ctx context.Context, tx store.Tx) error { return tx.DeleteSession(ctx, "zzz") }, ""},
		{"delete", func(ctx context.Context, tx store.Tx) error { return tx.DeleteSession(ctx, "b") }, ""},
		{"get deleted", func(ctx context.Context, tx store.Tx) error {
			_, err := tx.GetSession(ctx, "b")
			return err
		}, apierr.NotFound},
	})
	op(func(tx store.Tx) error {
		for _, id := range []string{"x", "y"} {
			if _, err := tx.CreateSession(ctx, store.Session{ID: id, UserID: u.ID, ExpiresAt: t0}); err != nil {
				return err
			}
		}
		n, err := tx.DeleteSessions(ctx, u.ID)
		if n != 2 {
			t.Errorf("DeleteSessions = %d, want 2", n)
		}
		return err
	})
}

func testAPITokens(t *testing.T, s store.Store) {
	ctx := t.Context()
	if h := store.HashSecret("*:*.secret"); len(h) != 64 || h != store.HashSecret("*:*.secret") || h == store.HashSecret("*:*.other") {
		t.Errorf("HashSecret = %q", h)
	}
	client := store.APIToken{
		SecretHash: store.HashSecret("default:production.abc"), Prefix: "default:production.ab…",
		TokenName: "backend", Type: store.TokenClient, Projects: []string{"default", "web"},
		Environment: "production", ExpiresAt: ptr(t0.Add(24 * time.Hour)), CreatedAt: t0,
	}
	var u store.User
	update(t, s, func(tx store.Tx) error {
		got, err := tx.CreateAPIToken(ctx, client)
		if err != nil {
			return err
		}
		client.ID = got.ID
		diff(t, "created token", client, got)
		if u, err = tx.CreateUser(ctx, store.User{Username: "u", RootRole: store.RoleAdmin}); err != nil {
			return err
		}
		_, err = tx.CreateAPIToken(ctx, store.APIToken{SecretHash: "h-pat", TokenName: "mine", Type: store.TokenAdmin,
			Projects: []string{"*"}, Environment: "*", UserID: u.ID})
		if err != nil {
			return err
		}
		// The user who created a token is kept with it.
		made, err := tx.CreateAPIToken(ctx, store.APIToken{SecretHash: "h-made", TokenName: "automation", Type: store.TokenAdmin,
			Projects: []string{"*"}, Environment: "*", CreatedByUserID: u.ID})
		if err != nil {
			return err
		}
		if again, err := tx.GetAPIToken(ctx, made.ID); err != nil || again.CreatedByUserID != u.ID || again.UserID != 0 {
			t.Errorf("token created by user %d: %+v, %v", u.ID, again, err)
		}
		return tx.DeleteAPIToken(ctx, made.ID)
	})
	diff(t, "by hash", client, get(t, s, func(ctx context.Context, r store.Reader) (store.APIToken, error) {
		return r.GetAPITokenByHash(ctx, client.SecretHash)
	}))
	if got := get(t, s, func(ctx context.Context, r store.Reader) ([]store.APIToken, error) {
		return r.ListAPITokens(ctx, store.APITokenFilter{UserID: u.ID})
	}); len(got) != 1 || got[0].TokenName != "mine" {
		t.Errorf("personal tokens: %+v", got)
	}
	if got := get(t, s, func(ctx context.Context, r store.Reader) ([]store.APIToken, error) {
		return r.ListAPITokens(ctx, store.APITokenFilter{Type: store.TokenClient})
	}); len(got) != 1 || got[0].ID != client.ID {
		t.Errorf("client tokens: %+v", got)
	}

	client.TokenName, client.ExpiresAt = "backend-2", nil
	update(t, s, func(tx store.Tx) error {
		got, err := tx.UpdateAPIToken(ctx, client)
		diff(t, "updated token", client, got)
		return err
	})
	// Seen stamps are operational.
	if err := s.Update(ctx, func(tx store.Tx) error {
		return tx.MarkAPITokensSeen(ctx, []string{client.SecretHash, "unknown"}, t0)
	}); err != nil {
		t.Fatal(err)
	}
	client.SeenAt = ptr(t0)
	diff(t, "seen token", client, get(t, s, func(ctx context.Context, r store.Reader) (store.APIToken, error) {
		return r.GetAPIToken(ctx, client.ID)
	}))

	runErrCases(t, s, []errCase{
		{"taken hash", func(ctx context.Context, tx store.Tx) error {
			_, err := tx.CreateAPIToken(ctx, store.APIToken{SecretHash: client.SecretHash, TokenName: "x", Type: store.TokenClient})
			return err
		}, apierr.NameExists},
		{"unknown owner", func(ctx context.Context, tx store.Tx) error {
			_, err := tx.CreateAPIToken(ctx, store.APIToken{SecretHash: "h2", TokenName: "x", Type: store.TokenAdmin, UserID: 9999})
			return err
		}, apierr.NotFound},
		{"unknown creator", func(ctx context.Context, tx store.Tx) error {
			_, err := tx.CreateAPIToken(ctx, store.APIToken{SecretHash: "h3", TokenName: "x", Type: store.TokenAdmin, CreatedByUserID: 9999})
			return err
		}, apierr.NotFound},
		{"update missing", func(ctx context.Context, tx store.Tx) error {
			_, err := tx.UpdateAPIToken(ctx, store.APIToken{ID: 9999})
			return err
		}, apierr.NotFound},
		{"unknown hash", func(ctx context.Context, tx store.Tx) error {
			_, err := tx.GetAPITokenByHash(ctx, "nope")
			return err
		}, apierr.NotFound},
		{"delete", func(ctx context.Context, tx store.Tx) error { return tx.DeleteAPIToken(ctx, client.ID) }, ""},
		{"delete missing", func(ctx context.Context, tx store.Tx) error { return tx.DeleteAPIToken(ctx, client.ID) }, apierr.NotFound},
	})
}
