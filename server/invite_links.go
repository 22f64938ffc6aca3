package server

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/signalbox/signalbox/internal/apierr"
	"github.com/signalbox/signalbox/store"
)

// Invite links (Unleash's public sign-up tokens): an admin makes a link
// with a name and an expiry; whoever has it may create an account with the
// Viewer role until it expires or an admin disables it. Admins list the
// links with the people who joined through each.

const (
	inviteLinksPath = "/api/admin/invite-link/tokens"
	maxInviteLinks  = 100
	maxInviteName   = 255
)

func registerInviteLinks(s *Server, m mux) {
	m.admin("GET "+inviteLinksPath, PermAdmin, s.handleListInviteLinks)
	m.admin("POST "+inviteLinksPath, PermAdmin, s.handleCreateInviteLink)
	m.admin("GET "+inviteLinksPath+"/{token}", PermAdmin, s.handleGetInviteLink)
	m.admin("PUT "+inviteLinksPath+"/{token}", PermAdmin, s.handleUpdateInviteLink)
	m.public("GET /invite/{token}/validate", s.handleValidateInviteLink)
	m.public("POST /invite/{token}/signup", s.handleInviteSignup)
}

// publicUserJSON is Unleash's userSchema, which, unlike our UserJSON,
// has no isAPI.
type publicUserJSON struct {
	ID            int        `json:"id"`
	Name          *string    `json:"name"`
	Email         string     `json:"email,omitempty"`
	Username      *string    `json:"username"`
	ImageURL      string     `json:"imageUrl"`
	LoginAttempts int        `json:"loginAttempts"`
	EmailSent     bool       `json:"emailSent"`
	RootRole      int        `json:"rootRole"`
	SeenAt        *time.Time `json:"seenAt"`
	CreatedAt     time.Time  `json:"createdAt"`
	AccountType   string     `json:"accountType"`
}

func publicUser(u store.User) publicUserJSON {
	j := userResponse(u)
	return publicUserJSON{ID: j.ID, Name: j.Name, Email: j.Email, Username: j.Username, ImageURL: j.ImageURL,
		LoginAttempts: j.LoginAttempts, EmailSent: j.EmailSent, RootRole: j.RootRole, SeenAt: j.SeenAt,
		CreatedAt: j.CreatedAt, AccountType: j.AccountType}
}

// inviteLinkJSON is Unleash's publicSignupTokenSchema.
type inviteLinkJSON struct {
	Secret    string           `json:"secret"`
	URL       string           `json:"url"`
	Name      string           `json:"name"`
	Enabled   bool             `json:"enabled"`
	ExpiresAt time.Time        `json:"expiresAt"`
	CreatedAt time.Time        `json:"createdAt"`
	CreatedBy *string          `json:"createdBy"`
	Users     []publicUserJSON `json:"users"`
	Role      rootRoleJSON     `json:"role"`
}

// inviteWorks reports whether a link lets people sign up at now.
func inviteWorks(t store.SignupToken, now time.Time) bool {
	return t.Enabled && t.ExpiresAt.After(now)
}

// inviteLinkViews answers links, with their users and roles read from rd.
// enabled is false for an expired link, as Unleash answers.
func (s *Server) inviteLinkViews(r *http.Request, rd store.Reader, links []store.SignupToken) ([]inviteLinkJSON, error) {
	ctx := r.Context()
	users, err := rd.ListUsers(ctx, store.UserFilter{})
	if err != nil {
		return nil, err
	}
	byID := map[int]store.User{}
	for _, u := range users {
		byID[u.ID] = u
	}
	roles, err := rd.ListRoles(ctx)
	if err != nil {
		return nil, err
	}
	roleByID := map[int]store.Role{}
	for _, role := range roles {
		roleByID[role.ID] = role
	}
	now, base := s.now(), s.publicBase(r)
	out := make([]inviteLinkJSON, 0, len(links))
	for _, t := range links {
		j := inviteLinkJSON{Secret: t.Secret, URL: base + "/new-user?invite=" + url.QueryEscape(t.Secret), Name: t.Name,
			Enabled: inviteWorks(t, now), ExpiresAt: t.ExpiresAt, CreatedAt: t.CreatedAt, CreatedBy: nullable(t.CreatedBy),
			Users: []publicUserJSON{}, Role: roleResponse(roleByID[t.RoleID])}
		for _, id := range t.UserIDs {
			// Deleted users are no longer listed.
			if u, ok := byID[id]; ok {
				j.Users = append(j.Users, publicUser(u))
			}
		}
		out = append(out, j)
	}
	return out, nil
}

// inviteEvent is the event data of a link: never its secret, since more
// people read the event log than may invite.
func inviteEvent(t store.SignupToken) []byte {
	return eventData(map[string]any{"name": t.Name, "enabled": t.Enabled, "expiresAt": t.ExpiresAt,
		"createdAt": t.CreatedAt, "createdBy": t.CreatedBy, "roleId": t.RoleID})
}

func (s *Server) handleListInviteLinks(w http.ResponseWriter, r *http.Request) error {
	var out []inviteLinkJSON
	err := s.view(r.Context(), func(rd store.Reader) error {
		links, err := rd.ListSignupTokens(r.Context())
		if err != nil {
			return err
		}
		out, err = s.inviteLinkViews(r, rd, links)
		return err
	})
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, map[string]any{"tokens": out})
}

// answerInviteLink reads the link with secret and answers it with status.
func (s *Server) answerInviteLink(w http.ResponseWriter, r *http.Request, status int, secret string) error {
	var out []inviteLinkJSON
	err := s.view(r.Context(), func(rd store.Reader) error {
		t, err := getInviteLink(r.Context(), rd, secret)
		if err != nil {
			return err
		}
		out, err = s.inviteLinkViews(r, rd, []store.SignupToken{t})
		return err
	})
	if err != nil {
		return err
	}
	return writeJSON(w, status, out[0])
}

// getInviteLink is GetSignupToken with a message for people.
func getInviteLink(ctx context.Context, rd store.Reader, secret string) (store.SignupToken, error) {
	t, err := rd.GetSignupToken(ctx, secret)
	if apierr.Is(err, apierr.NotFound) {
		return t, apierr.New(apierr.NotFound, "there is no such invite link")
	}
	return t, err
}

func (s *Server) handleGetInviteLink(w http.ResponseWriter, r *http.Request) error {
	return s.answerInviteLink(w, r, http.StatusOK, r.PathValue("token"))
}

// handleCreateInviteLink is Unleash's createPublicSignupToken: a new link
// for Viewers, with a random secret.
func (s *Server) handleCreateInviteLink(w http.ResponseWriter, r *http.Request) error {
	var body struct {
		Name      *string `json:"name"`
		ExpiresAt *string `json:"expiresAt"`
	}
	if err := decode(w, r, &body); err != nil {
		return err
	}
	if body.Name == nil || strings.TrimSpace(*body.Name) == "" {
		return apierr.Invalid("name", "name is required")
	}
	name := strings.TrimSpace(*body.Name)
	if err := checkText("name", name, maxInviteName); err != nil {
		return err
	}
	if body.ExpiresAt == nil {
		return apierr.Invalid("expiresAt", "expiresAt is required")
	}
	expires, err := parseTimeField("expiresAt", *body.ExpiresAt)
	if err != nil {
		return err
	}
	now := s.now()
	if !expires.After(now) {
		return apierr.Invalid("expiresAt", "expiresAt must be in the future")
	}
	secret := newInviteSecret()
	ctx := r.Context()
	err = s.change(ctx, func(tx store.Tx) ([]store.Event, error) {
		have, err := tx.ListSignupTokens(ctx)
		if err != nil {
			return nil, err
		}
		if len(have) >= maxInviteLinks {
			return nil, apierr.New(apierr.BadData, "there are %d invite links already, the most there may be; disable and reuse one", maxInviteLinks)
		}
		t, err := tx.CreateSignupToken(ctx, store.SignupToken{Secret: secret, Name: name, RoleID: store.RoleViewer, Enabled: true,
			CreatedBy: principalFrom(ctx).Name(), CreatedAt: now, ExpiresAt: expires})
		if err != nil {
			return nil, err
		}
		return []store.Event{{Type: "public-signup-token-created", Data: inviteEvent(t)}}, nil
	})
	if err != nil {
		return err
	}
	w.Header().Set("Location", inviteLinksPath+"/"+url.PathEscape(secret))
	return s.answerInviteLink(w, r, http.StatusCreated, secret)
}

// newInviteSecret is 16 random bytes in hex, the form of Unleash's.
func newInviteSecret() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// handleUpdateInviteLink is Unleash's updatePublicSignupToken: a new expiry
// (a past one ends the link) or enabled, or both.
func (s *Server) handleUpdateInviteLink(w http.ResponseWriter, r *http.Request) error {
	var body struct {
		ExpiresAt *string `json:"expiresAt"`
		Enabled   *bool   `json:"enabled"`
	}
	if err := decode(w, r, &body); err != nil {
		return err
	}
	if body.ExpiresAt == nil && body.Enabled == nil {
		return apierr.Invalid("expiresAt", "send expiresAt or enabled, or both")
	}
	var expires time.Time
	if body.ExpiresAt != nil {
		var err error
		if expires, err = parseTimeField("expiresAt", *body.ExpiresAt); err != nil {
			return err
		}
	}
	secret := r.PathValue("token")
	ctx := r.Context()
	err := s.change(ctx, func(tx store.Tx) ([]store.Event, error) {
		before, err := getInviteLink(ctx, tx, secret)
		if err != nil {
			return nil, err
		}
		t := before
		if body.ExpiresAt != nil {
			t.ExpiresAt = expires
		}
		if body.Enabled != nil {
			t.Enabled = *body.Enabled
		}
		after, err := tx.UpdateSignupToken(ctx, t)
		if err != nil {
			return nil, err
		}
		return []store.Event{{Type: "public-signup-token-updated", Data: inviteEvent(after), PreData: inviteEvent(before)}}, nil
	})
	if err != nil {
		return err
	}
	return s.answerInviteLink(w, r, http.StatusOK, secret)
}

// errBadInvite is the one answer, as Unleash's 400, for a link that is
// unknown, disabled or expired.
func errBadInvite() error {
	return apierr.New(apierr.BadData, "this invite link does not work: it is unknown, disabled or expired; ask an admin for a new one")
}

// checkInvite finds the working link of the path, counting the check
// against the client.
func (s *Server) checkInvite(w http.ResponseWriter, r *http.Request) (store.SignupToken, error) {
	secret := r.PathValue("token")
	if err := checkLinkSecret("token", secret); err != nil {
		return store.SignupToken{}, err
	}
	attempt, err := s.reserveLinkCheck(w, r, "invite", secret)
	if err != nil {
		return store.SignupToken{}, err
	}
	var t store.SignupToken
	err = s.view(r.Context(), func(rd store.Reader) (err error) {
		t, err = rd.GetSignupToken(r.Context(), secret)
		return err
	})
	ok := err == nil && inviteWorks(t, s.now())
	attempt.done(ok)
	switch {
	case err != nil && !apierr.Is(err, apierr.NotFound):
		return t, err
	case !ok:
		return t, errBadInvite()
	}
	return t, nil
}

// handleValidateInviteLink is Unleash's validatePublicSignupToken: 200
// without a body for a working link, 400 otherwise.
func (s *Server) handleValidateInviteLink(w http.ResponseWriter, r *http.Request) error {
	if _, err := s.checkInvite(w, r); err != nil {
		return err
	}
	w.WriteHeader(http.StatusOK)
	return nil
}

// handleInviteSignup is Unleash's addPublicSignupTokenUser: a working link
// creates an account with the link's role and the password chosen; the
// person then signs in as anyone does. One event,
// public-signup-token-user-added, records the new user and the link.
func (s *Server) handleInviteSignup(w http.ResponseWriter, r *http.Request) error {
	if err := s.checkOrigin(r); err != nil {
		return err
	}
	if err := s.refuseInMaintenance(r, ""); err != nil {
		return err
	}
	var body struct {
		Email    string `json:"email"`
		Name     string `json:"name"`
		Username string `json:"username"`
		Password string `json:"password"`
	}
	if err := decode(w, r, &body); err != nil {
		return err
	}
	link, err := s.checkInvite(w, r)
	if err != nil {
		return err
	}
	u := store.User{Email: strings.TrimSpace(body.Email), Name: strings.TrimSpace(body.Name), Username: strings.TrimSpace(body.Username)}
	switch {
	case u.Email == "":
		return apierr.Invalid("email", "email is required")
	case u.Name == "":
		return apierr.Invalid("name", "name is required")
	}
	if err := checkUserFields(u); err != nil {
		return err
	}
	if err := checkNewPassword("password", body.Password); err != nil {
		return err
	}
	if u.PasswordHash, err = HashPassword(body.Password); err != nil {
		return err
	}
	ctx := r.Context()
	var created store.User
	err = s.change(ctx, func(tx store.Tx) ([]store.Event, error) {
		// Read again: an admin may have disabled the link meanwhile.
		current, err := tx.GetSignupToken(ctx, link.Secret)
		if err != nil || !inviteWorks(current, s.now()) {
			return nil, errBadInvite()
		}
		u.RootRole = current.RoleID
		if created, err = tx.CreateUser(ctx, u); err != nil {
			if apierr.Is(err, apierr.NameExists) {
				return nil, apierr.New(apierr.NameExists, "a user with this e-mail or username already exists; sign in, or ask an admin for a password reset link")
			}
			return nil, err
		}
		if err := tx.AddSignupTokenUser(ctx, current.Secret, created.ID); err != nil {
			return nil, err
		}
		data := map[string]any{"user": publicUser(created), "inviteLink": current.Name}
		return []store.Event{{Type: "public-signup-token-user-added", CreatedBy: (&Principal{User: &created}).Name(),
			CreatedByUserID: created.ID, Data: eventData(data)}}, nil
	})
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, publicUser(created))
}
