package server

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"golang.org/x/crypto/bcrypt"

	"github.com/signalbox/signalbox/internal/apierr"
	"github.com/signalbox/signalbox/store"
)

// BcryptCost is the cost of new password hashes, as Unleash uses.
const BcryptCost = 10

// bcryptCost is the cost in use: BcryptCost, except in this package's
// tests, which sign in thousands of times (under the race detector too) and
// check counts of comparisons, never their duration.
var bcryptCost = BcryptCost

// HashPassword returns a bcrypt hash of password.
func HashPassword(password string) (string, error) {
	b, err := bcrypt.GenerateFromPassword([]byte(password), bcryptCost)
	return string(b), err
}

// randomSecret returns n random bytes, URL-safe base64 encoded.
func randomSecret(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// Longest sign-in inputs. Longer ones are refused before they are looked up
// or counted, so that no request makes the limiter hold more than a short
// key.
const (
	maxLoginNameRunes = 256
	maxPasswordRunes  = 1024
)

// handleLogin checks a username (or e-mail) and password and starts a
// session: a cookie whose value is a random secret; the store keeps only its
// hash. Attempts are limited per account and per client address (see
// loginLimiter); failures are also counted on the user for admins to see.
func (s *Server) handleLogin(w http.ResponseWriter, r *http.Request) error {
	if err := s.checkOrigin(r); err != nil {
		return err
	}
	var body struct {
		Username string `json:"username"`
		Email    string `json:"email"`
		Password string `json:"password"`
	}
	if err := decode(w, r, &body); err != nil {
		return err
	}
	switch {
	case utf8.RuneCountInString(body.Username) > maxLoginNameRunes:
		return apierr.Invalid("username", "the username must be at most %d characters long", maxLoginNameRunes)
	case utf8.RuneCountInString(body.Email) > maxLoginNameRunes:
		return apierr.Invalid("email", "the e-mail must be at most %d characters long", maxLoginNameRunes)
	case utf8.RuneCountInString(body.Password) > maxPasswordRunes:
		return apierr.Invalid("password", "the password must be at most %d characters long", maxPasswordRunes)
	}
	login := strings.TrimSpace(body.Username)
	if login == "" {
		login = strings.TrimSpace(body.Email)
	}
	if login == "" || body.Password == "" {
		return apierr.Invalid("username", "username and password are required")
	}
	ctx := r.Context()
	var user store.User
	err := s.view(ctx, func(rd store.Reader) (err error) {
		user, err = rd.GetUserByLogin(ctx, login)
		return err
	})
	known := err == nil
	if err != nil && !apierr.Is(err, apierr.NotFound) {
		return err
	}
	key := unknownLoginKey(login)
	if known {
		key = accountKey(user.ID)
	}
	attempt, err := s.reservePasswordCheck(w, r, key)
	if err != nil {
		return err
	}
	hash := ""
	if known {
		hash = user.PasswordHash
	}
	ok := s.checkPassword(hash, body.Password)
	attempt.done(ok)
	if !ok {
		if known {
			_ = s.store.Update(ctx, func(tx store.Tx) error {
				_, err := tx.RecordLogin(ctx, user.ID, false, s.now())
				return err
			})
		}
		return apierr.New(apierr.PasswordMismatch, "wrong username or password")
	}
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

// reservePasswordCheck reserves a password check for the limiter key of an
// account from the request's client address; report its outcome with done.
// A refusal is a 429 that says how long to wait, in Retry-After too.
func (s *Server) reservePasswordCheck(w http.ResponseWriter, r *http.Request, key string) (*loginAttempt, error) {
	a, wait := s.logins.reserve(key, s.clientAddr(r))
	if a != nil {
		return a, nil
	}
	return nil, tooManyAttempts(w, wait, "too many failed sign-ins")
}

// tooManyAttempts is the 429 of a limiter that asks the caller to wait:
// what happened, and how long to wait, in words and in Retry-After.
func tooManyAttempts(w http.ResponseWriter, wait time.Duration, what string) error {
	secs := retryAfter(wait)
	w.Header().Set("Retry-After", strconv.Itoa(secs))
	unit := "seconds"
	if secs == 1 {
		unit = "second"
	}
	return apierr.New(apierr.TooManyRequests, "%s; try again in %d %s", what, secs, unit)
}

// dummyPasswordHash is what a password is checked against when there is no
// hash to check (no such user, or one who signs in by SAML only), so that
// such an attempt costs the same bcrypt time as any other and the time of
// an answer does not tell which names exist.
var dummyPasswordHash = sync.OnceValue(func() []byte {
	h, err := bcrypt.GenerateFromPassword([]byte(randomSecret(18)), bcryptCost)
	if err != nil {
		panic(err) // a 24-byte password at a valid cost cannot fail
	}
	return h
})

// checkPassword reports whether password matches hash ("" matches
// nothing). It always spends one bcrypt comparison.
func (s *Server) checkPassword(hash, password string) bool {
	s.passwordChecks.Add(1)
	if hash == "" {
		_ = bcrypt.CompareHashAndPassword(dummyPasswordHash(), []byte(password))
		return false
	}
	return bcrypt.CompareHashAndPassword([]byte(hash), []byte(password)) == nil
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

// handleLogout ends the session of the cookie, if any. Only POST signs
// out, and only from this server's own pages or from outside a browser (see
// checkOrigin), so that no link or other site can sign anyone out. A form
// posted by a browser page is sent back to the start page; other callers get
// 200.
func (s *Server) handleLogout(w http.ResponseWriter, r *http.Request) error {
	if err := s.checkOrigin(r); err != nil {
		return err
	}
	if c, err := r.Cookie(SessionCookie); err == nil && c.Value != "" {
		err := s.store.Update(r.Context(), func(tx store.Tx) error {
			return tx.DeleteSession(r.Context(), store.HashSecret(c.Value))
		})
		if err != nil {
			return err
		}
	}
	http.SetCookie(w, &http.Cookie{Name: SessionCookie, Value: "", Path: "/", MaxAge: -1, HttpOnly: true})
	if strings.Contains(r.Header.Get("Accept"), "text/html") {
		http.Redirect(w, r, "/", http.StatusSeeOther)
		return nil
	}
	w.WriteHeader(http.StatusOK)
	return nil
}
