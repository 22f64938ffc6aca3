package server

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/signalbox/signalbox/internal/apierr"
	"github.com/signalbox/signalbox/store"
)

// Password reset links, after Unleash's: an admin asks for a link for a
// user (POST /api/admin/user-admin/reset-password) and hands it over; the
// link's page checks it (GET /auth/reset/validate) and sets a new password
// with it (POST /auth/reset/password), which ends the user's sessions. A
// link works once, within 24 hours, and only the newest link of a user
// works. The store keeps only the hash of its token.
//
// Signalbox sends no e-mail, so a person who forgot their password and asks
// for a link themselves (POST /auth/reset/password-email) gets the answer
// Unleash gives when its mail is not configured, 200 whether or not the
// address is known, and no link is made: nobody could receive it. An admin
// makes one instead.

// resetLinkTTL is how long a reset link works, as in Unleash.
const resetLinkTTL = 24 * time.Hour

func registerPasswordReset(s *Server, m mux) {
	m.public("GET /auth/reset/validate", s.handleValidateResetToken)
	m.public("POST /auth/reset/password", s.handleResetPassword)
	m.public("POST /auth/reset/password-email", s.handleRequestResetLink)
	m.admin("POST /api/admin/user-admin/reset-password", PermAdmin, s.handleCreateResetLink)
}

// tokenUserJSON is Unleash's tokenUserSchema: whose link it is.
type tokenUserJSON struct {
	ID        int          `json:"id"`
	Name      string       `json:"name"`
	Email     string       `json:"email"`
	Token     string       `json:"token"`
	CreatedBy *string      `json:"createdBy"`
	Role      rootRoleJSON `json:"role"`
}

// errBadResetToken is the one answer for a token that is unknown, used,
// replaced or expired, or whose user is gone: which one is nobody's
// business.
func errBadResetToken() error {
	return apierr.New(apierr.InvalidToken, "this password reset link does not work: it is unknown, used or expired; ask an admin for a new one")
}

// handleValidateResetToken is Unleash's validateToken: the user a working
// reset link is for.
func (s *Server) handleValidateResetToken(w http.ResponseWriter, r *http.Request) error {
	token := r.URL.Query().Get("token")
	if err := checkLinkSecret("token", token); err != nil {
		return err
	}
	attempt, err := s.reserveLinkCheck(w, r, "reset", token)
	if err != nil {
		return err
	}
	var out tokenUserJSON
	err = s.view(r.Context(), func(rd store.Reader) error {
		rt, err := rd.GetResetToken(r.Context(), store.HashSecret(token))
		if err != nil || !rt.ExpiresAt.After(s.now()) {
			return errBadResetToken()
		}
		u, err := rd.GetUser(r.Context(), rt.UserID)
		if err != nil {
			return errBadResetToken()
		}
		role, err := rd.GetRole(r.Context(), u.RootRole)
		if err != nil {
			return err
		}
		out = tokenUserJSON{ID: u.ID, Name: u.Name, Email: u.Email, Token: token, CreatedBy: nullable(rt.CreatedBy), Role: roleResponse(role)}
		return nil
	})
	attempt.done(err == nil)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, out)
}

// handleResetPassword is Unleash's changePassword: a working reset link
// sets a new password once. The link is used up, the user's sessions end
// and one user-updated event records it, all in one transaction.
func (s *Server) handleResetPassword(w http.ResponseWriter, r *http.Request) error {
	if err := s.checkOrigin(r); err != nil {
		return err
	}
	var body struct {
		Token    string `json:"token"`
		Password string `json:"password"`
	}
	if err := decode(w, r, &body); err != nil {
		return err
	}
	if err := checkLinkSecret("token", body.Token); err != nil {
		return err
	}
	// The rules first: a weak password costs no guess and keeps the link.
	if err := checkNewPassword("password", body.Password); err != nil {
		return err
	}
	attempt, err := s.reserveLinkCheck(w, r, "reset", body.Token)
	if err != nil {
		return err
	}
	// Hashing takes a while: do it before the transaction, not inside.
	hash, err := HashPassword(body.Password)
	if err != nil {
		attempt.done(true)
		return err
	}
	ctx := r.Context()
	err = s.change(ctx, func(tx store.Tx) ([]store.Event, error) {
		rt, err := tx.UseResetToken(ctx, store.HashSecret(body.Token), s.now())
		if apierr.Is(err, apierr.NotFound) {
			return nil, errBadResetToken()
		} else if err != nil {
			return nil, err
		}
		u, err := tx.GetUser(ctx, rt.UserID)
		if apierr.Is(err, apierr.NotFound) {
			return nil, errBadResetToken()
		} else if err != nil {
			return nil, err
		}
		if err := replacePassword(ctx, tx, u.ID, hash, ""); err != nil {
			return nil, err
		}
		data := struct {
			passwordChanged
			ResetLinkUsed bool `json:"resetLinkUsed"`
		}{passwordChanged{userResponse(u), true}, true}
		return []store.Event{{Type: "user-updated", CreatedBy: (&Principal{User: &u}).Name(), CreatedByUserID: u.ID, Data: eventData(data)}}, nil
	})
	attempt.done(!apierr.Is(err, apierr.InvalidToken))
	if err != nil {
		return err
	}
	w.WriteHeader(http.StatusOK)
	return nil
}

// handleRequestResetLink is Unleash's sendResetPasswordEmail without a mail
// server: the same empty 200 whatever the address, so that it tells nobody
// which addresses have accounts. Requests count like failed link checks
// (per address asked for and per client), so that it cannot be used to
// flood the log.
func (s *Server) handleRequestResetLink(w http.ResponseWriter, r *http.Request) error {
	if err := s.checkOrigin(r); err != nil {
		return err
	}
	var body struct {
		Email string `json:"email"`
	}
	if err := decode(w, r, &body); err != nil {
		return err
	}
	email := strings.TrimSpace(body.Email)
	switch {
	case email == "":
		return apierr.Invalid("email", "email is required")
	case utf8.RuneCountInString(email) > maxLoginNameRunes:
		return apierr.Invalid("email", "the e-mail must be at most %d characters long", maxLoginNameRunes)
	}
	attempt, err := s.reserveLinkCheck(w, r, "reset-request", strings.ToLower(email))
	if err != nil {
		return err
	}
	attempt.done(false)
	var u store.User
	err = s.view(r.Context(), func(rd store.Reader) (err error) {
		u, err = rd.GetUserByLogin(r.Context(), email)
		return err
	})
	switch {
	case err == nil:
		s.log.Info("a password reset link was asked for, but no mail server is configured: an admin can make one (POST /api/admin/user-admin/reset-password)", "userId", u.ID)
	case !apierr.Is(err, apierr.NotFound):
		return err
	}
	w.WriteHeader(http.StatusOK)
	return nil
}

// handleCreateResetLink is Unleash's resetUserPassword: an admin gets a
// reset link for a user, to hand over. id is the user's e-mail, as Unleash
// sends it; a username or a numeric user id also works. A new link replaces
// the user's previous one.
func (s *Server) handleCreateResetLink(w http.ResponseWriter, r *http.Request) error {
	var body struct {
		ID *string `json:"id"`
	}
	if err := decode(w, r, &body); err != nil {
		return err
	}
	if body.ID == nil || strings.TrimSpace(*body.ID) == "" {
		return apierr.Invalid("id", "id is required: the e-mail of the user whose password is to be reset")
	}
	id := strings.TrimSpace(*body.ID)
	if utf8.RuneCountInString(id) > maxLoginNameRunes {
		return apierr.Invalid("id", "id must be at most %d characters long", maxLoginNameRunes)
	}
	ctx := r.Context()
	token := randomSecret(32)
	err := s.change(ctx, func(tx store.Tx) ([]store.Event, error) {
		u, err := findUser(ctx, tx, id)
		if err != nil {
			return nil, err
		}
		if u.AccountType == store.AccountService {
			return nil, apierr.New(apierr.BadData, "%s is a service account, which has no password", id)
		}
		now := s.now()
		_, err = tx.CreateResetToken(ctx, store.ResetToken{
			Hash: store.HashSecret(token), UserID: u.ID, CreatedBy: principalFrom(ctx).Name(),
			CreatedAt: now, ExpiresAt: now.Add(resetLinkTTL),
		})
		if err != nil {
			return nil, err
		}
		data := struct {
			UserJSON
			ResetLinkCreated bool `json:"resetLinkCreated"`
		}{userResponse(u), true}
		return []store.Event{{Type: "user-updated", Data: eventData(data)}}, nil
	})
	if err != nil {
		return err
	}
	link := s.publicBase(r) + "/reset-password?token=" + url.QueryEscape(token)
	return writeJSON(w, http.StatusOK, map[string]string{"resetPasswordUrl": link})
}

// findUser finds the user an admin names by e-mail, username or id.
func findUser(ctx context.Context, rd store.Reader, id string) (store.User, error) {
	u, err := rd.GetUserByLogin(ctx, id)
	if apierr.Is(err, apierr.NotFound) {
		if n, convErr := strconv.Atoi(id); convErr == nil && n > 0 {
			u, err = rd.GetUser(ctx, n)
		}
	}
	if apierr.Is(err, apierr.NotFound) {
		return store.User{}, apierr.New(apierr.NotFound, "there is no user %q", id)
	}
	return u, err
}
