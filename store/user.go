package store

import (
	"context"
	"time"
)

// Account types.
const (
	AccountUser    = "User"
	AccountService = "Service Account"
)

// User is a person or service account that signs in to the admin API.
type User struct {
	// ID is assigned by CreateUser.
	ID   int
	Name string
	// Email and Username are sign-in names: each is unique, ignoring case,
	// across both columns among users that are not deleted (no user's
	// e-mail is another's username either). At least one should be set.
	Email    string
	Username string
	// PasswordHash is a bcrypt hash; empty when the user has no password.
	PasswordHash  string
	RootRole      int
	LoginAttempts int
	// SeenAt is the last successful login.
	SeenAt      *time.Time
	CreatedAt   time.Time
	EmailSent   bool
	ImageURL    string
	AccountType string
	// DeletedAt is set on deleted users, which keep their id for the audit
	// log but free their e-mail and username.
	DeletedAt *time.Time
}

// UserFilter selects users. Zero fields do not filter.
type UserFilter struct {
	AccountType    string
	IncludeDeleted bool
}

// Role is a root or project role. Roles are seeded with stable ids.
type Role struct {
	ID          int
	Name        string
	Type        string
	Description string
}

// UserReader reads users and roles.
type UserReader interface {
	// GetUser returns a user that is not deleted. NotFound otherwise.
	GetUser(ctx context.Context, id int) (User, error)
	// GetUserByLogin returns the user, not deleted, whose e-mail or username
	// equals login ignoring case; should two match (users stored before
	// sign-in names were unique across both columns), the one whose e-mail
	// it is, then the oldest. NotFound otherwise.
	GetUserByLogin(ctx context.Context, login string) (User, error)
	// ListUsers returns matching users ordered by id.
	ListUsers(ctx context.Context, f UserFilter) ([]User, error)
	// GetRole returns NotFound if there is no role id.
	GetRole(ctx context.Context, id int) (Role, error)
	// ListRoles returns all roles ordered by id.
	ListRoles(ctx context.Context) ([]Role, error)
}

// UserWriter changes users.
type UserWriter interface {
	// CreateUser stores u and returns it with its new ID; a zero CreatedAt
	// is set to now and an empty AccountType to AccountUser. NameExists if
	// the e-mail or username is the e-mail or username of another user not
	// deleted, ignoring case; NotFound if the root role does not
	// exist.
	CreateUser(ctx context.Context, u User) (User, error)
	// UpdateUser replaces name, e-mail, username, root role, image URL,
	// emailSent and account type. NotFound if the user does not exist or is
	// deleted (or the role does not exist); NameExists as for CreateUser.
	UpdateUser(ctx context.Context, u User) (User, error)
	// SetUserPassword stores a new password hash. NotFound as for UpdateUser.
	SetUserPassword(ctx context.Context, id int, hash string) error
	// DeleteUser marks the user deleted and removes its sessions, personal
	// tokens and password reset token. NotFound if absent or already
	// deleted.
	DeleteUser(ctx context.Context, id int) error
	// RecordLogin records a login attempt: success sets SeenAt to at and
	// resets LoginAttempts, failure increments it. It returns the new
	// LoginAttempts. NotFound as for UpdateUser. Operational: needs no
	// audit event.
	RecordLogin(ctx context.Context, id int, success bool, at time.Time) (attempts int, err error)
}

// Session is a signed-in admin UI session.
type Session struct {
	// ID is what the session cookie refers to; store a hash if the cookie
	// carries the secret itself.
	ID        string
	UserID    int
	CreatedAt time.Time
	ExpiresAt time.Time
}

// SessionReader reads sessions.
type SessionReader interface {
	// GetSession returns the session whatever its expiry; checking
	// ExpiresAt is the caller's job. NotFound if absent.
	GetSession(ctx context.Context, id string) (Session, error)
	// ListSessions returns the sessions of user ordered by creation.
	ListSessions(ctx context.Context, userID int) ([]Session, error)
}

// SessionWriter changes sessions. All its methods are operational: they need
// no audit event.
type SessionWriter interface {
	// CreateSession stores s; a zero CreatedAt is set to now. NameExists if
	// the id is taken; NotFound if the user does not exist.
	CreateSession(ctx context.Context, s Session) (Session, error)
	// DeleteSession deletes one session; a missing one is no error.
	DeleteSession(ctx context.Context, id string) error
	// DeleteSessions deletes every session of user and returns how many.
	DeleteSessions(ctx context.Context, userID int) (int, error)
	// DeleteExpiredSessions deletes sessions that expired before t and
	// returns how many.
	DeleteExpiredSessions(ctx context.Context, t time.Time) (int, error)
}
