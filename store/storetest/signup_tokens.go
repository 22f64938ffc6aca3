package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/signalbox/signalbox/internal/apierr"
	"github.com/signalbox/signalbox/store"
)

// testSignupTokens: invite links are listed oldest first with the users
// who joined through them, change their name, state and expiry, and need
// an event for every write.
func testSignupTokens(t *testing.T, s store.Store) {
	ctx := t.Context()
	a := store.SignupToken{Secret: "sa", Name: "Team", RoleID: store.RoleViewer, Enabled: true, CreatedBy: "admin",
		CreatedAt: t0, ExpiresAt: t0.Add(7 * 24 * time.Hour), UserIDs: []int{}}
	b := store.SignupToken{Secret: "sb", Name: "Partners", RoleID: store.RoleEditor, Enabled: true, CreatedBy: "admin",
		CreatedAt: t0.Add(time.Second), ExpiresAt: t0.Add(time.Hour), UserIDs: []int{}}
	update(t, s, func(tx store.Tx) error {
		for _, st := range []store.SignupToken{b, a} {
			got, err := tx.CreateSignupToken(ctx, st)
			if err != nil {
				return err
			}
			diff(t, "created link", st, got)
		}
		return nil
	})
	var ann, bob store.User
	update(t, s, func(tx store.Tx) (err error) {
		if ann, err = tx.CreateUser(ctx, store.User{Username: "ann", RootRole: store.RoleViewer}); err != nil {
			return err
		}
		if bob, err = tx.CreateUser(ctx, store.User{Username: "bob", RootRole: store.RoleViewer}); err != nil {
			return err
		}
		return tx.AddSignupTokenUser(ctx, "sa", bob.ID)
	})
	update(t, s, func(tx store.Tx) error { return tx.AddSignupTokenUser(ctx, "sa", ann.ID) })
	list := func() []store.SignupToken {
		return get(t, s, func(ctx context.Context, r store.Reader) ([]store.SignupToken, error) { return r.ListSignupTokens(ctx) })
	}
	// Users come in the order they joined, not by id.
	a.UserIDs = []int{bob.ID, ann.ID}
	diff(t, "links", []store.SignupToken{a, b}, list())
	diff(t, "one link", a, get(t, s, func(ctx context.Context, r store.Reader) (store.SignupToken, error) {
		return r.GetSignupToken(ctx, "sa")
	}))

	runErrCases(t, s, []errCase{
		{"secret taken", func(ctx context.Context, tx store.Tx) error {
			_, err := tx.CreateSignupToken(ctx, store.SignupToken{Secret: "sa", Name: "x", RoleID: store.RoleViewer, CreatedBy: "x"})
			return err
		}, apierr.NameExists},
		{"unknown role", func(ctx context.Context, tx store.Tx) error {
			_, err := tx.CreateSignupToken(ctx, store.SignupToken{Secret: "sc", Name: "x", RoleID: 9999, CreatedBy: "x"})
			return err
		}, apierr.NotFound},
		{"update unknown", func(ctx context.Context, tx store.Tx) error {
			_, err := tx.UpdateSignupToken(ctx, store.SignupToken{Secret: "nope", Name: "x"})
			return err
		}, apierr.NotFound},
		{"user to unknown link", func(ctx context.Context, tx store.Tx) error { return tx.AddSignupTokenUser(ctx, "nope", ann.ID) }, apierr.NotFound},
		{"unknown user", func(ctx context.Context, tx store.Tx) error { return tx.AddSignupTokenUser(ctx, "sb", 9999) }, apierr.NotFound},
		{"user twice", func(ctx context.Context, tx store.Tx) error { return tx.AddSignupTokenUser(ctx, "sa", ann.ID) }, apierr.NameExists},
	})
	if k := readKind(t, s, func(ctx context.Context, r store.Reader) error {
		_, err := r.GetSignupToken(ctx, "nope")
		return err
	}); k != apierr.NotFound {
		t.Errorf("GetSignupToken of an unknown secret: kind %q", k)
	}

	b.Name, b.Enabled, b.ExpiresAt = "Old partners", false, t0.Add(2*time.Hour)
	b.CreatedBy, b.RoleID = "ignored", store.RoleAdmin
	update(t, s, func(tx store.Tx) error {
		got, err := tx.UpdateSignupToken(ctx, b)
		b.CreatedBy, b.RoleID = "admin", store.RoleEditor
		diff(t, "updated link", b, got)
		return err
	})
	diff(t, "links after update", []store.SignupToken{a, b}, list())
	for name, fn := range map[string]func(tx store.Tx) error{
		"CreateSignupToken": func(tx store.Tx) error {
			_, err := tx.CreateSignupToken(ctx, store.SignupToken{Secret: "sd", Name: "x", RoleID: store.RoleViewer, CreatedBy: "x"})
			return err
		},
		"UpdateSignupToken": func(tx store.Tx) error {
			_, err := tx.UpdateSignupToken(ctx, a)
			return err
		},
		"AddSignupTokenUser": func(tx store.Tx) error { return tx.AddSignupTokenUser(ctx, "sb", ann.ID) },
	} {
		if err := s.Update(ctx, fn); err != store.ErrUnaudited {
			t.Errorf("%s without an event: %v, want ErrUnaudited", name, err)
		}
	}
}
