package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/signalbox/signalbox/internal/apierr"
	"github.com/signalbox/signalbox/store"
)

// testResetTokens: a user has one token at a time, a token works once and
// only before it expires, writes need an event, and deleting the user
// takes the token away.
func testResetTokens(t *testing.T, s store.Store) {
	ctx := t.Context()
	var ann, bob store.User
	update(t, s, func(tx store.Tx) (err error) {
		if ann, err = tx.CreateUser(ctx, store.User{Username: "ann", RootRole: store.RoleViewer}); err != nil {
			return err
		}
		bob, err = tx.CreateUser(ctx, store.User{Username: "bob", RootRole: store.RoleViewer})
		return err
	})
	first := store.ResetToken{Hash: "h1", UserID: ann.ID, CreatedBy: "admin", CreatedAt: t0, ExpiresAt: t0.Add(24 * time.Hour)}
	second := store.ResetToken{Hash: "h2", UserID: ann.ID, CreatedBy: "admin", CreatedAt: t0.Add(time.Minute), ExpiresAt: t0.Add(25 * time.Hour)}
	forBob := store.ResetToken{Hash: "h3", UserID: bob.ID, CreatedBy: "bob", CreatedAt: t0, ExpiresAt: t0.Add(time.Hour)}
	update(t, s, func(tx store.Tx) error {
		got, err := tx.CreateResetToken(ctx, first)
		diff(t, "created token", first, got)
		return err
	})
	update(t, s, func(tx store.Tx) error {
		for _, rt := range []store.ResetToken{second, forBob} {
			if _, err := tx.CreateResetToken(ctx, rt); err != nil {
				return err
			}
		}
		return nil
	})
	lookup := func(hash string) apierr.Kind {
		return readKind(t, s, func(ctx context.Context, r store.Reader) error {
			_, err := r.GetResetToken(ctx, hash)
			return err
		})
	}
	if k := lookup("h1"); k != apierr.NotFound {
		t.Errorf("the replaced token: kind %q, want NotFound", k)
	}
	diff(t, "the newest token", second, get(t, s, func(ctx context.Context, r store.Reader) (store.ResetToken, error) {
		return r.GetResetToken(ctx, "h2")
	}))

	use := func(hash string, at time.Time) func(ctx context.Context, tx store.Tx) error {
		return func(ctx context.Context, tx store.Tx) error {
			_, err := tx.UseResetToken(ctx, hash, at)
			return err
		}
	}
	runErrCases(t, s, []errCase{
		{"unknown user", func(ctx context.Context, tx store.Tx) error {
			_, err := tx.CreateResetToken(ctx, store.ResetToken{Hash: "hx", UserID: 9999, CreatedBy: "x", ExpiresAt: t0})
			return err
		}, apierr.NotFound},
		{"hash taken by another user", func(ctx context.Context, tx store.Tx) error {
			_, err := tx.CreateResetToken(ctx, store.ResetToken{Hash: "h2", UserID: bob.ID, CreatedBy: "x", ExpiresAt: t0})
			return err
		}, apierr.NameExists},
		{"unknown token", use("nope", t0), apierr.NotFound},
		{"expired token", use("h3", t0.Add(time.Hour)), apierr.NotFound},
		{"replaced token", use("h1", t0), apierr.NotFound},
	})
	if lookup("h3") != "" {
		t.Error("a failed use of an expired token removed it")
	}

	update(t, s, func(tx store.Tx) error {
		got, err := tx.UseResetToken(ctx, "h2", t0.Add(time.Hour))
		diff(t, "used token", second, got)
		return err
	})
	if k := kindOf(t, s, use("h2", t0.Add(time.Hour))); k != apierr.NotFound {
		t.Errorf("second use: kind %q, want NotFound", k)
	}
	if err := s.Update(ctx, func(tx store.Tx) error {
		_, err := tx.CreateResetToken(ctx, store.ResetToken{Hash: "h4", UserID: ann.ID, CreatedBy: "x", ExpiresAt: t0.Add(time.Hour)})
		return err
	}); err != store.ErrUnaudited {
		t.Errorf("CreateResetToken without an event: %v, want ErrUnaudited", err)
	}
	update(t, s, func(tx store.Tx) error { return tx.DeleteUser(ctx, bob.ID) })
	if k := lookup("h3"); k != apierr.NotFound {
		t.Errorf("the token of a deleted user: kind %q, want NotFound", k)
	}
}
