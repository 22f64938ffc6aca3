package server

import (
	"time"

	"github.com/signalbox/signalbox/store"
)

// UserJSON is a user as the admin API answers it. The password hash is
// never included.
type UserJSON struct {
	ID       int     `json:"id"`
	Name     *string `json:"name"`
	Email    string  `json:"email,omitempty"`
	Username *string `json:"username"`
	ImageURL string  `json:"imageUrl"`
	// IsAPI marks the admin token answering GET /api/admin/user; users
	// leave it out, as Unleash's userSchema has no such property.
	IsAPI         bool       `json:"isAPI,omitempty"`
	LoginAttempts int        `json:"loginAttempts"`
	EmailSent     bool       `json:"emailSent"`
	RootRole      int        `json:"rootRole"`
	SeenAt        *time.Time `json:"seenAt"`
	CreatedAt     time.Time  `json:"createdAt"`
	AccountType   string     `json:"accountType"`
	Permissions   []string   `json:"permissions"`
}

func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func userResponse(u store.User) UserJSON {
	return UserJSON{
		ID: u.ID, Name: nullable(u.Name), Email: u.Email, Username: nullable(u.Username), ImageURL: u.ImageURL,
		LoginAttempts: u.LoginAttempts, EmailSent: u.EmailSent, RootRole: u.RootRole, SeenAt: u.SeenAt,
		CreatedAt: u.CreatedAt, AccountType: u.AccountType, Permissions: []string{},
	}
}
