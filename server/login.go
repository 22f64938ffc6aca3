package server

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"net/http"
	"strings"
	"time"

	"golang.org/x/crypto/bcrypt"

	"github.com/signalbox/signalbox/internal/apierr"
	"github.com/signalbox/signalbox/store"
)

// BcryptCost is the cost of new password hashes, as Unleash uses.
const BcryptCost = 10

// HashPassword returns a bcrypt hash of password.
func HashPassword(password string) (string, error) {
	b, err := bcrypt.GenerateFromPassword([]byte(password), BcryptCost)
	return string(b), err
}

// randomSecret returns n random bytes, URL-safe base64 encoded.
func randomSecret(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// handleLogin checks a username (or e-mail) and password and starts a
// session: a cookie whose value is a random secret; the store keeps only its
// hash. Failed attempts are counted on the user and rate-limited per login.
func (s *Server) handleLogin(w http.ResponseWriter, r *http.Request) error {
	var body struct {
		Username string `json:"username"`
		Email    string `json:"email"`
		Password string `json:"password"`
	}
	if err := decode(w, r, &body); err != nil {
		return err
	}
	login := strings.TrimSpace(body.Username)
	if login == "" {
		login = strings.TrimSpace(body.Email)
	}
	if login == "" || body.Password == "" {
		return apierr.Invalid("username", "username and password are required")
	}
	key := strings.ToLower(login)
	if !s.logins.allow(key) {
		return apierr.New(apierr.TooManyRequests, "too many failed sign-in attempts for %s; try again in a few minutes", login)
	}
	ctx := r.Context()
	var user store.User
	err := s.view(ctx, func(rd store.Reader) (err error) {
		user, err = rd.GetUserByLogin(ctx, login)
		return err
	})
	if err != nil && !apierr.Is(err, apierr.NotFound) {
		return err
	}
	ok := err == nil && user.PasswordHash != "" &&
		bcrypt.CompareHashAndPassword([]byte(user.PasswordHash), []byte(body.Password)) == nil
	if !ok {
		s.logins.fail(key)
		if err == nil {
			_ = s.store.Update(ctx, func(tx store.Tx) error {
				_, err := tx.RecordLogin(ctx, user.ID, false, s.now())
				return err
			})
		}
		return apierr.New(apierr.PasswordMismatch, "wrong username or password")
	}
	s.logins.succeed(key)
	var secret string
	now := s.now()
	err = s.store.Update(ctx, func(tx store.Tx) (err error) {
		secret, err = s.startSession(ctx, tx, user.ID, now)
		return err
	})
	if err != nil {
		return err
	}
	s.setSessionCookie(w, secret, now)
	user.SeenAt = &now
	user.LoginAttempts = 0
	return writeJSON(w, http.StatusOK, userResponse(user))
}

// startSession records a successful login of user and stores a new
// session for it in tx. It returns the session's secret, for the cookie;
// the store keeps only its hash. Both writes are operational.
func (s *Server) startSession(ctx context.Context, tx store.Tx, userID int, now time.Time) (string, error) {
	if _, err := tx.RecordLogin(ctx, userID, true, now); err != nil {
		return "", err
	}
	secret := randomSecret(32)
	_, err := tx.CreateSession(ctx, store.Session{ID: store.HashSecret(secret), UserID: userID, CreatedAt: now, ExpiresAt: now.Add(s.cfg.SessionTTL)})
	return secret, err
}

// setSessionCookie hands a session started at now to the browser.
func (s *Server) setSessionCookie(w http.ResponseWriter, secret string, now time.Time) {
	http.SetCookie(w, &http.Cookie{
		Name: SessionCookie, Value: secret, Path: "/", HttpOnly: true, Secure: s.cfg.SecureCookies,
		SameSite: http.SameSiteLaxMode, Expires: now.Add(s.cfg.SessionTTL),
	})
}

// handleLogout ends the session of the cookie, if any.
func (s *Server) handleLogout(w http.ResponseWriter, r *http.Request) error {
	if c, err := r.Cookie(SessionCookie); err == nil && c.Value != "" {
		err := s.store.Update(r.Context(), func(tx store.Tx) error {
			return tx.DeleteSession(r.Context(), store.HashSecret(c.Value))
		})
		if err != nil {
			return err
		}
	}
	http.SetCookie(w, &http.Cookie{Name: SessionCookie, Value: "", Path: "/", MaxAge: -1, HttpOnly: true})
	if r.Method == http.MethodGet {
		http.Redirect(w, r, "/", http.StatusFound)
		return nil
	}
	w.WriteHeader(http.StatusOK)
	return nil
}
