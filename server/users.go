package server

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"math/big"
	"net/http"
	"net/mail"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/signalbox/signalbox/internal/apierr"
	"github.com/signalbox/signalbox/store"
)

// Users: administering accounts (/api/admin/user-admin, Admin only) and the
// signed-in user's own view (/api/admin/user). Signalbox sends no e-mail:
// sendEmail is accepted and recorded in the user-created event, and
// emailSent is always false, so that callers know to pass credentials on
// themselves.

func registerUsers(s *Server, m mux) {
	m.admin("GET /api/admin/user-admin", PermAdmin, s.handleListUsers)
	m.admin("POST /api/admin/user-admin", PermAdmin, s.handleCreateUser)
	m.admin("GET /api/admin/user-admin/search", PermRead, s.handleSearchUsers)
	m.admin("POST /api/admin/user-admin/validate-password", PermRead, s.handleValidatePassword)
	m.admin("GET /api/admin/user-admin/{id}", PermAdmin, s.handleGetUser)
	m.admin("PUT /api/admin/user-admin/{id}", PermAdmin, s.handleUpdateUser)
	m.admin("DELETE /api/admin/user-admin/{id}", PermAdmin, s.handleDeleteUser)
	m.admin("POST /api/admin/user-admin/{id}/change-password", PermAdmin, s.handleSetUserPassword)

	m.admin("GET /api/admin/user", PermRead, s.handleMe)
	m.admin("GET /api/admin/user/profile", PermRead, s.handleProfile)
	m.admin("POST /api/admin/user/change-password", PermRead, s.handleChangeOwnPassword)
}

// createdUserJSON is Unleash's createUserResponseSchema: a user whose
// rootRole echoes the form the request used, an id or a role name.
type createdUserJSON struct {
	UserJSON
	RootRole any `json:"rootRole"`
}

// rootRoleJSON is Unleash's roleSchema.
type rootRoleJSON struct {
	ID          int    `json:"id"`
	Type        string `json:"type"`
	Name        string `json:"name"`
	Description string `json:"description"`
}

func roleResponse(r store.Role) rootRoleJSON {
	return rootRoleJSON{ID: r.ID, Type: r.Type, Name: r.Name, Description: r.Description}
}

// parseRootRole reads rootRole as sent: an integer role id or a role name
// (any case). It returns the id and the value to echo: the id as sent, or
// the role's name.
func parseRootRole(ctx context.Context, rd store.Reader, raw json.RawMessage) (int, any, error) {
	raw = bytes.TrimSpace(raw)
	var name string
	if err := json.Unmarshal(raw, &name); err == nil {
		for id, n := range RootRoleNames {
			if strings.EqualFold(n, strings.TrimSpace(name)) {
				return id, n, nil
			}
		}
		return 0, nil, apierr.Invalid("rootRole", "%q is not a role; use Admin, Editor, Viewer, Owner or Member, or a role id", name)
	}
	id, err := strconv.Atoi(string(raw))
	if err != nil {
		return 0, nil, apierr.Invalid("rootRole", "rootRole must be a role id (an integer) or a role name such as Editor")
	}
	if _, err := rd.GetRole(ctx, id); apierr.Is(err, apierr.NotFound) {
		return 0, nil, apierr.Invalid("rootRole", "there is no role with id %d", id)
	} else if err != nil {
		return 0, nil, err
	}
	return id, id, nil
}

// checkEmail accepts a plain address such as ada@example.com.
func checkEmail(email string) error {
	a, err := mail.ParseAddress(email)
	at := strings.LastIndexByte(email, '@')
	if err != nil || a.Address != email || a.Name != "" || at < 1 || strings.ContainsAny(email, " \t") || len(email) > 254 {
		return apierr.Invalid("email", "%q is not a valid e-mail address", email)
	}
	return nil
}

// The password rules, Unleash's (its OWASP strength test): PasswordRules
// says them in words for messages and documentation, CheckPassword applies
// them.
const (
	minPasswordRunes = 10
	// maxPasswordBytes is bcrypt's limit: it reads no more, so longer
	// passwords are refused rather than cut.
	maxPasswordBytes = 72
	// PasswordRules describes what CheckPassword accepts.
	PasswordRules = "at least 10 characters and at most 72 bytes, with a lower-case letter, an upper-case letter, a digit and a symbol, and no character three times in a row"
)

// CheckPassword applies the password rules to a new password, wherever one
// is set: by an admin, by its user, or as the first admin's at start-up. The
// error is a ValidationError that names the rule broken.
func CheckPassword(pw string) error { return checkNewPassword("password", pw) }

// checkNewPassword is CheckPassword for the request property field.
func checkNewPassword(field, pw string) error {
	var lower, upper, digit, symbol bool
	run, prev := 0, rune(-1)
	for _, r := range pw {
		switch {
		case unicode.IsLower(r):
			lower = true
		case unicode.IsUpper(r):
			upper = true
		case unicode.IsDigit(r):
			digit = true
		default:
			symbol = true
		}
		if r == prev {
			run++
		} else {
			run, prev = 1, r
		}
		if run >= 3 {
			return apierr.Invalid(field, "the password must not repeat a character three times in a row (%q); a password needs %s", string([]rune{r, r, r}), PasswordRules)
		}
	}
	if n := utf8.RuneCountInString(pw); n < minPasswordRunes {
		return apierr.Invalid(field, "the password must be at least %d characters long, not %d; a password needs %s", minPasswordRunes, n, PasswordRules)
	}
	if len(pw) > maxPasswordBytes {
		return apierr.Invalid(field, "the password must be at most %d bytes long, not %d; a password needs %s", maxPasswordBytes, len(pw), PasswordRules)
	}
	var missing []string
	for _, c := range []struct {
		has  bool
		name string
	}{{lower, "a lower-case letter"}, {upper, "an upper-case letter"}, {digit, "a digit"}, {symbol, "a symbol"}} {
		if !c.has {
			missing = append(missing, c.name)
		}
	}
	if len(missing) > 0 {
		list := strings.Join(missing, ", ")
		if n := len(missing); n > 1 {
			list = strings.Join(missing[:n-1], ", ") + " and " + missing[n-1]
		}
		return apierr.Invalid(field, "the password needs %s; a password needs %s", list, PasswordRules)
	}
	return nil
}

// GeneratePassword returns a random password that follows the password
// rules, for accounts created without one.
func GeneratePassword() string {
	const (
		lowers  = "abcdefghijkmnopqrstuvwxyz"
		uppers  = "ABCDEFGHJKLMNPQRSTUVWXYZ"
		digits  = "23456789"
		symbols = "-_.!@#%+="
	)
	all := lowers + uppers + digits + symbols
	for {
		// 20 characters from 66: about 120 bits.
		b := make([]byte, 20)
		for i := range b {
			b[i] = all[randomIndex(len(all))]
		}
		// Put one of each class at random places, so that every
		// generated password passes whatever the draw.
		for _, class := range []string{lowers, uppers, digits, symbols} {
			b[randomIndex(len(b))] = class[randomIndex(len(class))]
		}
		if pw := string(b); checkNewPassword("password", pw) == nil {
			return pw
		}
	}
}

// randomIndex is a uniformly random int in [0, n).
func randomIndex(n int) int {
	v, err := rand.Int(rand.Reader, big.NewInt(int64(n)))
	if err != nil {
		panic(err) // crypto/rand does not fail
	}
	return int(v.Int64())
}

// hashInitialPassword hashes the password an admin sets at creation; the
// same rules apply as to every other password.
func hashInitialPassword(pw string) (string, error) {
	if err := CheckPassword(pw); err != nil {
		return "", err
	}
	return HashPassword(pw)
}

func (s *Server) handleListUsers(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	users := []UserJSON{}
	roles := []rootRoleJSON{}
	err := s.view(ctx, func(rd store.Reader) error {
		list, err := rd.ListUsers(ctx, store.UserFilter{})
		if err != nil {
			return err
		}
		for _, u := range list {
			users = append(users, userResponse(u))
		}
		all, err := rd.ListRoles(ctx)
		for _, role := range all {
			if role.Type == store.RoleTypeRoot {
				roles = append(roles, roleResponse(role))
			}
		}
		return err
	})
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, map[string]any{"users": users, "rootRoles": roles})
}

// handleSearchUsers finds users whose name, username or e-mail contains q
// (ignoring case), as the UI does when adding people to projects; queries
// shorter than two characters find nobody.
func (s *Server) handleSearchUsers(w http.ResponseWriter, r *http.Request) error {
	q := strings.ToLower(strings.TrimSpace(r.URL.Query().Get("q")))
	out := []UserJSON{}
	if len([]rune(q)) < 2 {
		return writeJSON(w, http.StatusOK, out)
	}
	var list []store.User
	err := s.view(r.Context(), func(rd store.Reader) (err error) {
		list, err = rd.ListUsers(r.Context(), store.UserFilter{})
		return err
	})
	if err != nil {
		return err
	}
	for _, u := range list {
		if strings.Contains(strings.ToLower(u.Name+"\x00"+u.Username+"\x00"+u.Email), q) {
			out = append(out, userResponse(u))
		}
	}
	return writeJSON(w, http.StatusOK, out)
}

// handleValidatePassword checks a password against the rules without
// storing it.
func (s *Server) handleValidatePassword(w http.ResponseWriter, r *http.Request) error {
	var body struct {
		Password string `json:"password"`
	}
	if err := decode(w, r, &body); err != nil {
		return err
	}
	if err := checkNewPassword("password", body.Password); err != nil {
		return err
	}
	w.WriteHeader(http.StatusOK)
	return nil
}

func (s *Server) handleGetUser(w http.ResponseWriter, r *http.Request) error {
	id, err := pathInt(r, "id")
	if err != nil {
		return err
	}
	var u store.User
	err = s.view(r.Context(), func(rd store.Reader) (err error) {
		u, err = rd.GetUser(r.Context(), id)
		return err
	})
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, userResponse(u))
}

// userExists turns the store's NameExists into the 400 Unleash answers for
// a taken e-mail or username.
func userExists(err error) error {
	if apierr.Is(err, apierr.NameExists) {
		return apierr.New(apierr.BadData, "a user with this e-mail or username already exists")
	}
	return err
}

// handleCreateUser is POST /api/admin/user-admin.
func (s *Server) handleCreateUser(w http.ResponseWriter, r *http.Request) error {
	var body struct {
		Username  string          `json:"username"`
		Email     string          `json:"email"`
		Name      string          `json:"name"`
		Password  string          `json:"password"`
		RootRole  json.RawMessage `json:"rootRole"`
		SendEmail *bool           `json:"sendEmail"`
	}
	if err := decode(w, r, &body); err != nil {
		return err
	}
	u := store.User{Username: strings.TrimSpace(body.Username), Email: strings.TrimSpace(body.Email), Name: strings.TrimSpace(body.Name)}
	if err := checkUserFields(u); err != nil {
		return err
	}
	if len(body.RootRole) == 0 || string(body.RootRole) == "null" {
		return apierr.Invalid("rootRole", "rootRole is required: a role id or a name such as Editor")
	}
	if body.Password != "" {
		hash, err := hashInitialPassword(body.Password)
		if err != nil {
			return err
		}
		u.PasswordHash = hash
	}
	sendEmail := body.SendEmail == nil || *body.SendEmail
	ctx := r.Context()
	var out createdUserJSON
	err := s.change(ctx, func(tx store.Tx) ([]store.Event, error) {
		id, echo, err := parseRootRole(ctx, tx, body.RootRole)
		if err != nil {
			return nil, err
		}
		u.RootRole = id
		created, err := tx.CreateUser(ctx, u)
		if err != nil {
			return nil, userExists(err)
		}
		out = createdUserJSON{UserJSON: userResponse(created), RootRole: echo}
		data := struct {
			UserJSON
			SendEmail bool `json:"sendEmail"`
		}{userResponse(created), sendEmail}
		return []store.Event{{Type: "user-created", Data: eventData(data)}}, nil
	})
	if err != nil {
		return err
	}
	w.Header().Set("Location", "/api/admin/user-admin/"+strconv.Itoa(out.ID))
	return writeJSON(w, http.StatusCreated, out)
}

// checkUserFields checks what identifies a user: a username or an e-mail
// (or both), a valid e-mail, sane lengths.
func checkUserFields(u store.User) error {
	if u.Username == "" && u.Email == "" {
		return apierr.Invalid("username", "a username or an email is required")
	}
	if u.Email != "" {
		if err := checkEmail(u.Email); err != nil {
			return err
		}
	}
	if err := checkText("username", u.Username, 255); err != nil {
		return err
	}
	return checkText("name", u.Name, 255)
}

// handleUpdateUser changes only the fields sent: email, name, username and
// rootRole. The answer echoes rootRole in the form sent.
func (s *Server) handleUpdateUser(w http.ResponseWriter, r *http.Request) error {
	id, err := pathInt(r, "id")
	if err != nil {
		return err
	}
	var body struct {
		Email    bodyField[string] `json:"email"`
		Name     bodyField[string] `json:"name"`
		Username bodyField[string] `json:"username"`
		RootRole json.RawMessage   `json:"rootRole"`
	}
	if err := decode(w, r, &body); err != nil {
		return err
	}
	ctx := r.Context()
	var out createdUserJSON
	err = s.change(ctx, func(tx store.Tx) ([]store.Event, error) {
		before, err := tx.GetUser(ctx, id)
		if err != nil {
			return nil, err
		}
		u := before
		for _, f := range []struct {
			sent bool
			v    string
			dst  *string
		}{{body.Email.Sent, body.Email.V, &u.Email}, {body.Name.Sent, body.Name.V, &u.Name}, {body.Username.Sent, body.Username.V, &u.Username}} {
			if f.sent {
				*f.dst = strings.TrimSpace(f.v)
			}
		}
		if err := checkUserFields(u); err != nil {
			return nil, err
		}
		var echo any = before.RootRole
		if len(body.RootRole) > 0 && string(body.RootRole) != "null" {
			if u.RootRole, echo, err = parseRootRole(ctx, tx, body.RootRole); err != nil {
				return nil, err
			}
		}
		updated, err := tx.UpdateUser(ctx, u)
		if err != nil {
			return nil, userExists(err)
		}
		out = createdUserJSON{UserJSON: userResponse(updated), RootRole: echo}
		return []store.Event{{Type: "user-updated", Data: eventData(userResponse(updated)), PreData: eventData(userResponse(before))}}, nil
	})
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, out)
}

// handleDeleteUser deletes a user with their sessions and personal tokens;
// the audit log keeps their id.
func (s *Server) handleDeleteUser(w http.ResponseWriter, r *http.Request) error {
	id, err := pathInt(r, "id")
	if err != nil {
		return err
	}
	ctx := r.Context()
	return s.answerEmptyOK(w, s.change(ctx, func(tx store.Tx) ([]store.Event, error) {
		u, err := tx.GetUser(ctx, id)
		if err != nil {
			return nil, err
		}
		if err := tx.DeleteUser(ctx, id); err != nil {
			return nil, err
		}
		return []store.Event{{Type: "user-deleted", PreData: eventData(userResponse(u))}}, nil
	}))
}

// passwordChanged is the data of the user-updated event a password change
// records; the hash is never part of it.
type passwordChanged struct {
	UserJSON
	PasswordChanged bool `json:"passwordChanged"`
}

// setPassword stores a new password for a user and signs them out
// everywhere except the session keep (a hash; "" keeps none).
func (s *Server) setPassword(ctx context.Context, u store.User, password, keep string) error {
	hash, err := HashPassword(password)
	if err != nil {
		return err
	}
	return s.change(ctx, func(tx store.Tx) ([]store.Event, error) {
		if err := replacePassword(ctx, tx, u.ID, hash, keep); err != nil {
			return nil, err
		}
		return []store.Event{{Type: "user-updated", Data: eventData(passwordChanged{userResponse(u), true})}}, nil
	})
}

// replacePassword stores a new password hash for a user in tx and ends
// their sessions except keep (a hash; "" keeps none). The caller records
// the event.
func replacePassword(ctx context.Context, tx store.Tx, userID int, hash, keep string) error {
	if err := tx.SetUserPassword(ctx, userID, hash); err != nil {
		return err
	}
	sessions, err := tx.ListSessions(ctx, userID)
	if err != nil {
		return err
	}
	for _, sess := range sessions {
		if sess.ID != keep {
			if err := tx.DeleteSession(ctx, sess.ID); err != nil {
				return err
			}
		}
	}
	return nil
}

// handleSetUserPassword lets an admin set a user's password.
func (s *Server) handleSetUserPassword(w http.ResponseWriter, r *http.Request) error {
	id, err := pathInt(r, "id")
	if err != nil {
		return err
	}
	var body struct {
		Password string `json:"password"`
	}
	if err := decode(w, r, &body); err != nil {
		return err
	}
	if err := checkNewPassword("password", body.Password); err != nil {
		return err
	}
	var u store.User
	err = s.view(r.Context(), func(rd store.Reader) (err error) {
		u, err = rd.GetUser(r.Context(), id)
		return err
	})
	if err != nil {
		return err
	}
	if err := s.setPassword(r.Context(), u, body.Password, ""); err != nil {
		return err
	}
	w.WriteHeader(http.StatusOK)
	return nil
}

// signedInUser is the user behind a request, or the error an API token
// gets on a user-only endpoint.
func signedInUser(ctx context.Context, kind apierr.Kind) (*store.User, error) {
	p := principalFrom(ctx)
	if p == nil || p.User == nil {
		return nil, apierr.New(kind, "this endpoint is about the signed-in user, and an API token has none; sign in at /auth/simple/login or use a personal access token")
	}
	return p.User, nil
}

// handleChangeOwnPassword changes the signed-in user's password: the old
// one is required and the new one sent twice when confirmPassword is
// given. Other sessions of the user end; the current one stays.
func (s *Server) handleChangeOwnPassword(w http.ResponseWriter, r *http.Request) error {
	u, err := signedInUser(r.Context(), apierr.BadData)
	if err != nil {
		return err
	}
	var body struct {
		Password        string  `json:"password"`
		ConfirmPassword *string `json:"confirmPassword"`
		OldPassword     *string `json:"oldPassword"`
	}
	if err := decode(w, r, &body); err != nil {
		return err
	}
	switch {
	case body.ConfirmPassword != nil && *body.ConfirmPassword != body.Password:
		return apierr.Invalid("confirmPassword", "confirmPassword differs from password")
	case body.OldPassword == nil && u.PasswordHash != "":
		return apierr.Invalid("oldPassword", "oldPassword is required to change your password")
	case body.OldPassword != nil && utf8.RuneCountInString(*body.OldPassword) > maxPasswordRunes:
		return apierr.Invalid("oldPassword", "oldPassword must be at most %d characters long", maxPasswordRunes)
	}
	if u.PasswordHash != "" {
		// A stolen session must not be a way around the sign-in limit:
		// guesses at the old password count as failed sign-ins.
		attempt, err := s.reservePasswordCheck(w, r, accountKey(u.ID))
		if err != nil {
			return err
		}
		ok := s.checkPassword(u.PasswordHash, *body.OldPassword)
		attempt.done(ok)
		if !ok {
			return apierr.New(apierr.PasswordMismatch, "the old password is wrong")
		}
	}
	if err := checkNewPassword("password", body.Password); err != nil {
		return err
	}
	keep := ""
	if c, err := r.Cookie(SessionCookie); err == nil && c.Value != "" {
		keep = store.HashSecret(c.Value)
	}
	if err := s.setPassword(r.Context(), *u, body.Password, keep); err != nil {
		return err
	}
	w.WriteHeader(http.StatusOK)
	return nil
}

// permissionsOf lists what a principal may do, as Unleash's meSchema does:
// Admins hold ADMIN, which implies everything; others each permission their
// root role grants.
func permissionsOf(p *Principal) []map[string]string {
	out := []map[string]string{}
	if p.can(PermAdmin) {
		return append(out, map[string]string{"permission": string(PermAdmin)})
	}
	for _, perm := range listedPermissions {
		if p.can(perm) {
			out = append(out, map[string]string{"permission": string(perm)})
		}
	}
	return out
}

// listedPermissions are the root-level permissions GET /api/admin/user
// reports.
var listedPermissions = []Permission{
	PermCreateProject, PermUpdateProject, PermDeleteProject,
	PermCreateFeature, PermUpdateFeature, PermDeleteFeature,
	PermUpdateFeatureEnvironment, PermCreateFeatureStrategy, PermUpdateFeatureStrategy, PermDeleteFeatureStrategy,
	PermUpdateFeatureVariants, PermUpdateFeatureDependency,
	PermCreateEnvironment, PermUpdateEnvironment, PermDeleteEnvironment,
	PermCreateSegment, PermUpdateSegment, PermDeleteSegment,
	PermCreateContextField, PermUpdateContextField, PermDeleteContextField,
	PermCreateStrategy, PermUpdateStrategy, PermDeleteStrategy,
	PermCreateTagType, PermUpdateTagType, PermDeleteTagType,
	PermCreateAPIToken, PermReadAPIToken, PermDeleteAPIToken,
	PermApproveChangeRequest, PermApplyChangeRequest,
}

// handleMe answers the caller and their permissions. For an admin API token
// it describes the token by name; its secret is never included.
func (s *Server) handleMe(w http.ResponseWriter, r *http.Request) error {
	p := principalFrom(r.Context())
	var user UserJSON
	if p.User != nil {
		user = userResponse(*p.User)
	} else {
		name := p.Token.TokenName
		user = UserJSON{Username: &name, IsAPI: true, RootRole: store.RoleAdmin, CreatedAt: p.Token.CreatedAt,
			AccountType: store.AccountService, Permissions: []string{}}
	}
	feedback, splash := []feedbackJSON{}, map[string]bool{}
	if p.User != nil {
		err := s.view(r.Context(), func(rd store.Reader) error {
			st, err := readUIState(r.Context(), rd, p.User.ID)
			feedback, splash = st.feedbackList(p.User.ID), st.Splash
			return err
		})
		if err != nil {
			return err
		}
	}
	return writeJSON(w, http.StatusOK, map[string]any{
		"user": user, "permissions": permissionsOf(p), "feedback": feedback, "splash": splash,
	})
}

// handleProfile is the signed-in user's own profile: the user's own root role, the
// projects in which they hold a role (themselves or through a group) and
// their groups; features is always empty (deprecated). An API token has no
// profile: 400, as Unleash answers.
func (s *Server) handleProfile(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	u, err := signedInUser(ctx, apierr.BadData)
	if err != nil {
		return err
	}
	var role store.Role
	projects, groups := []string{}, []groupItemJSON{}
	err = s.view(ctx, func(rd store.Reader) error {
		var err error
		if role, err = rd.GetRole(ctx, u.RootRole); err != nil {
			return err
		}
		grants, err := rd.UserProjectRoles(ctx, u.ID, "")
		if err != nil {
			return err
		}
		for _, g := range grants {
			if !contains(projects, g.Project) {
				projects = append(projects, g.Project)
			}
		}
		list, err := rd.ListUserGroups(ctx, u.ID)
		for _, g := range list {
			groups = append(groups, groupItem(g))
		}
		return err
	})
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, map[string]any{
		"rootRole": roleResponse(role), "projects": projects, "features": []any{},
		"groups": groups, "subscriptions": []string{}, "canChangePassword": true,
	})
}
