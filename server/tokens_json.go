package server

import (
	"time"

	"github.com/signalbox/signalbox/store"
)

// TokenJSON is an API token as the admin API answers it. The secret is only
// present in the answer that creates the token.
type TokenJSON struct {
	Secret      string     `json:"secret,omitempty"`
	TokenName   string     `json:"tokenName"`
	Username    string     `json:"username"`
	Type        string     `json:"type"`
	Project     string     `json:"project"`
	Projects    []string   `json:"projects"`
	Environment string     `json:"environment"`
	ExpiresAt   *time.Time `json:"expiresAt"`
	CreatedAt   time.Time  `json:"createdAt"`
	SeenAt      *time.Time `json:"seenAt"`
	Alias       *string    `json:"alias"`
	ID          int64      `json:"id"`
	DisplayName string     `json:"displayName"`
}

func tokenJSON(t store.APIToken, secret string) TokenJSON {
	project := "*"
	if len(t.Projects) == 1 {
		project = t.Projects[0]
	} else if len(t.Projects) > 1 {
		project = "[]"
	}
	return TokenJSON{
		Secret: secret, TokenName: t.TokenName, Username: t.TokenName, Type: t.Type, Project: project,
		Projects: t.Projects, Environment: t.Environment, ExpiresAt: t.ExpiresAt, CreatedAt: t.CreatedAt,
		SeenAt: t.SeenAt, ID: t.ID, DisplayName: t.Prefix,
	}
}
