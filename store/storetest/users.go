package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/signalbox/signalbox/internal/apierr"
	"github.com/signalbox/signalbox/store"
)

func testUsers(t *testing.T, s store.Store) {
	ctx := t.Context()
	alice := store.User{
		Name: "Alice", Email: "Alice@Example.com", Username: "alice", PasswordHash: "$2b$10$hash",
		RootRole: store.RoleAdmin, CreatedAt: t0, EmailSent: true, ImageURL: "https://img/a", AccountType: store.AccountUser,
	}
	var bot store.User
	update(t, s, func(tx store.Tx) error {
		got, err := tx.CreateUser(ctx, alice)
		if err != nil {
			return err
		}
		alice.ID = got.ID
		diff(t, "created user", alice, got)
		bot, err = tx.CreateUser(ctx, store.User{Username: "ci-bot", RootRole: store.RoleViewer, AccountType: store.AccountService})
		if bot.ID <= alice.ID || bot.Email != "" || bot.CreatedAt.IsZero() {
			t.Errorf("second user: %+v", bot)
		}
		return err
	})

	for _, login := range []string{"alice@example.com", "ALICE", "alice"} {
		got := get(t, s, func(ctx context.Context, r store.Reader) (store.User, error) { return r.GetUserByLogin(ctx, login) })
		if got.ID != alice.ID {
			t.Errorf("GetUserByLogin(%q) = user %d, want %d", login, got.ID, alice.ID)
		}
	}
	if got := get(t, s, func(ctx context.Context, r store.Reader) ([]store.User, error) {
		return r.ListUsers(ctx, store.UserFilter{AccountType: store.AccountService})
	}); len(got) != 1 || got[0].ID != bot.ID {
		t.Errorf("service accounts: %+v", got)
	}

	alice.Name, alice.Email, alice.RootRole, alice.EmailSent = "Alice B", "alice@example.org", store.RoleEditor, false
	update(t, s, func(tx store.Tx) error {
		got, err := tx.UpdateUser(ctx, alice)
		diff(t, "updated user", alice, got)
		if err != nil {
			return err
		}
		if err := tx.SetUserPassword(ctx, alice.ID, "$2b$10$new"); err != nil {
			return err
		}
		alice.PasswordHash = "$2b$10$new"
		return nil
	})

	// Login tracking is operational: no event needed.
	if err := s.Update(ctx, func(tx store.Tx) error {
		for want := 1; want <= 2; want++ {
			n, err := tx.RecordLogin(ctx, alice.ID, false, t0)
			if err != nil {
				return err
			}
			if n != want {
				t.Errorf("failed login %d: attempts = %d", want, n)
			}
		}
		n, err := tx.RecordLogin(ctx, alice.ID, true, t0)
		if n != 0 {
			t.Errorf("attempts after success = %d", n)
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	alice.SeenAt = ptr(t0)
	diff(t, "user after login", alice, get(t, s, func(ctx context.Context, r store.Reader) (store.User, error) {
		return r.GetUser(ctx, alice.ID)
	}))

	runErrCases(t, s, []errCase{
		{"e-mail taken, other case", func(ctx context.Context, tx store.Tx) error {
			_, err := tx.CreateUser(ctx, store.User{Email: "ALICE@example.org", RootRole: store.RoleViewer})
			return err
		}, apierr.NameExists},
		{"username taken", func(ctx context.Context, tx store.Tx) error {
			_, err := tx.CreateUser(ctx, store.User{Username: "CI-BOT", RootRole: store.RoleViewer})
			return err
		}, apierr.NameExists},
		{"update to taken username", func(ctx context.Context, tx store.Tx) error {
			u := alice
			u.Username = "ci-bot"
			_, err := tx.UpdateUser(ctx, u)
			return err
		}, apierr.NameExists},
		{"unknown role", func(ctx context.Context, tx store.Tx) error {
			_, err := tx.CreateUser(ctx, store.User{Username: "x", RootRole: 99})
			return err
		}, apierr.NotFound},
		{"update missing", func(ctx context.Context, tx store.Tx) error {
			_, err := tx.UpdateUser(ctx, store.User{ID: 9999, RootRole: store.RoleViewer})
			return err
		}, apierr.NotFound},
		{"unknown role id", func(ctx context.Context, tx store.Tx) error {
			_, err := tx.GetRole(ctx, 99)
			return err
		}, apierr.NotFound},
		{"unknown login", func(ctx context.Context, tx store.Tx) error {
			_, err := tx.GetUserByLogin(ctx, "nobody")
			return err
		}, apierr.NotFound},
	})

	// Deleting keeps the row, frees the login, and ends sessions and
	// personal tokens.
	update(t, s, func(tx store.Tx) error {
		if _, err := tx.CreateSession(ctx, store.Session{ID: "sess", UserID: alice.ID, ExpiresAt: t0.Add(time.Hour)}); err != nil {
			return err
		}
		if _, err := tx.CreateAPIToken(ctx, store.APIToken{SecretHash: "pat", TokenName: "pat", Type: store.TokenAdmin, UserID: alice.ID}); err != nil {
			return err
		}
		return tx.DeleteUser(ctx, alice.ID)
	})
	runErrCases(t, s, []errCase{
		{"get deleted", func(ctx context.Context, tx store.Tx) error {
			_, err := tx.GetUser(ctx, alice.ID)
			return err
		}, apierr.NotFound},
		{"delete again", func(ctx context.Context, tx store.Tx) error { return tx.DeleteUser(ctx, alice.ID) }, apierr.NotFound},
		{"session gone", func(ctx context.Context, tx store.Tx) error {
			_, err := tx.GetSession(ctx, "sess")
			return err
		}, apierr.NotFound},
		{"personal token gone", func(ctx context.Context, tx store.Tx) error {
			_, err := tx.GetAPITokenByHash(ctx, "pat")
			return err
		}, apierr.NotFound},
		{"login free again", func(ctx context.Context, tx store.Tx) error {
			_, err := tx.CreateUser(ctx, store.User{Email: alice.Email, Username: alice.Username, RootRole: store.RoleViewer})
			return err
		}, ""},
	})
	all := get(t, s, func(ctx context.Context, r store.Reader) ([]store.User, error) {
		return r.ListUsers(ctx, store.UserFilter{IncludeDeleted: true})
	})
	if len(all) != 3 || all[0].ID != alice.ID || all[0].DeletedAt == nil {
		t.Errorf("users including deleted: %+v", all)
	}
	if active := get(t, s, func(ctx context.Context, r store.Reader) ([]store.User, error) {
		return r.ListUsers(ctx, store.UserFilter{})
	}); len(active) != 2 {
		t.Errorf("active users: %+v", active)
	}
}

// testSignInNames checks that an e-mail or username is the sign-in name of
// at most one live user, across both columns and ignoring case, on create
// and on update; and that a name two users stored earlier share is found
// as the e-mail of one before the username of the other.
func testSignInNames(t *testing.T, s store.Store) {
	ctx := t.Context()
	var squatter, ann store.User
	update(t, s, func(tx store.Tx) error {
		var err error
		if squatter, err = tx.CreateUser(ctx, store.User{Username: "sq", RootRole: store.RoleViewer}); err != nil {
			return err
		}
		ann, err = tx.CreateUser(ctx, store.User{Email: "ann@example.com", Username: "ann", RootRole: store.RoleViewer})
		return err
	})
	runErrCases(t, s, []errCase{
		{"username equal to a user's e-mail", func(ctx context.Context, tx store.Tx) error {
			_, err := tx.CreateUser(ctx, store.User{Username: "ANN@example.com", RootRole: store.RoleViewer})
			return err
		}, apierr.NameExists},
		{"e-mail equal to a user's username", func(ctx context.Context, tx store.Tx) error {
			_, err := tx.CreateUser(ctx, store.User{Email: "Ann", RootRole: store.RoleViewer})
			return err
		}, apierr.NameExists},
		{"update username to a user's e-mail", func(ctx context.Context, tx store.Tx) error {
			u := squatter
			u.Username = "Ann@Example.com"
			_, err := tx.UpdateUser(ctx, u)
			return err
		}, apierr.NameExists},
		{"update e-mail to a user's username", func(ctx context.Context, tx store.Tx) error {
			u := squatter
			u.Email = "ANN"
			_, err := tx.UpdateUser(ctx, u)
			return err
		}, apierr.NameExists},
		{"a user's own e-mail as its username", func(ctx context.Context, tx store.Tx) error {
			u := ann
			u.Username = "ann@example.com"
			_, err := tx.UpdateUser(ctx, u)
			return err
		}, ""},
		{"a name of a deleted user is free", func(ctx context.Context, tx store.Tx) error {
			gone, err := tx.CreateUser(ctx, store.User{Username: "gone@example.com", RootRole: store.RoleViewer})
			if err != nil {
				return err
			}
			if err := tx.DeleteUser(ctx, gone.ID); err != nil {
				return err
			}
			_, err = tx.CreateUser(ctx, store.User{Email: "GONE@example.com", RootRole: store.RoleViewer})
			return err
		}, ""},
	})
	// A name refused leaves every user as it was.
	diff(t, "squatter after refused update", squatter, get(t, s, func(ctx context.Context, r store.Reader) (store.User, error) {
		return r.GetUser(ctx, squatter.ID)
	}))
	if got := get(t, s, func(ctx context.Context, r store.Reader) (store.User, error) {
		return r.GetUserByLogin(ctx, "ann@example.com")
	}); got.ID != ann.ID {
		t.Errorf("GetUserByLogin(ann@example.com) = user %d, want %d", got.ID, ann.ID)
	}
}
