package server

import (
	"time"

	"github.com/signalbox/signalbox/store"
)

// TokenJSON is an API token as the admin API answers it: Unleash's
// apiTokenSchema, nothing more. Only a hash of a secret is stored, so the
// whole secret is answered once, when the token is created; every other
// answer carries its shown form (the scope and a few characters, such as
// "*:development.4f2a…") in secret, with secure true, which is how Unleash
// marks a token whose listed secret cannot be copied. The shown form also
// names the token in the paths that change or delete it.
type TokenJSON struct {
	Secret      string     `json:"secret"`
	TokenName   string     `json:"tokenName"`
	Type        string     `json:"type"`
	Project     string     `json:"project"`
	Projects    []string   `json:"projects"`
	Environment string     `json:"environment"`
	ExpiresAt   *time.Time `json:"expiresAt"`
	CreatedAt   time.Time  `json:"createdAt"`
	SeenAt      *time.Time `json:"seenAt"`
	Alias       *string    `json:"alias"`
	Secure      bool       `json:"secure"`
}

// tokenJSON answers t; secret is the whole secret when the token was just
// created, "" otherwise (then the shown form is answered).
func tokenJSON(t store.APIToken, secret string) TokenJSON {
	project := "*"
	if len(t.Projects) == 1 {
		project = t.Projects[0]
	} else if len(t.Projects) > 1 {
		project = "[]"
	}
	if secret == "" {
		secret = t.Prefix
	}
	return TokenJSON{
		Secret: secret, TokenName: t.TokenName, Type: t.Type, Project: project,
		Projects: t.Projects, Environment: t.Environment, ExpiresAt: t.ExpiresAt, CreatedAt: t.CreatedAt,
		SeenAt: t.SeenAt, Secure: true,
	}
}
