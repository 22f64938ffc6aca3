package store

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"time"
)

// Token types.
const (
	TokenAdmin    = "admin"
	TokenClient   = "client"
	TokenFrontend = "frontend"
)

// APIToken is an API token. Only a hash of its secret is stored, so a token
// can be checked but never shown again.
type APIToken struct {
	// ID is assigned by CreateAPIToken.
	ID int64
	// SecretHash is HashSecret of the whole token string.
	SecretHash string
	// Prefix is a harmless part of the token shown in lists, such as
	// "*:development.4f2a".
	Prefix    string
	TokenName string
	// Type is TokenAdmin, TokenClient or TokenFrontend.
	Type string
	// Projects the token may read; ["*"] is all of them.
	Projects []string
	// Environment the token is bound to; "*" for admin tokens.
	Environment string
	// UserID is the owner of a personal access token, 0 otherwise.
	UserID int
	// CreatedByUserID is the user who created the token (directly, or
	// through an API token they created); 0 when unknown, as for tokens
	// made at start-up. Change requests count the token as that person.
	CreatedByUserID int
	ExpiresAt       *time.Time
	CreatedAt       time.Time
	SeenAt          *time.Time
}

// HashSecret returns the hex SHA-256 of a token secret. A fast hash is
// enough because secrets are long random strings, not passwords.
func HashSecret(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}

// APITokenFilter selects tokens. Zero fields do not filter.
type APITokenFilter struct {
	Type string
	// UserID selects the personal tokens of a user.
	UserID int
}

// APITokenReader reads API tokens.
type APITokenReader interface {
	// GetAPIToken returns NotFound if there is no token id.
	GetAPIToken(ctx context.Context, id int64) (APIToken, error)
	// GetAPITokenByHash returns the token whose SecretHash is hash, expired
	// or not. NotFound if absent.
	GetAPITokenByHash(ctx context.Context, hash string) (APIToken, error)
	// ListAPITokens returns matching tokens ordered by id.
	ListAPITokens(ctx context.Context, f APITokenFilter) ([]APIToken, error)
}

// APITokenWriter changes API tokens.
type APITokenWriter interface {
	// CreateAPIToken stores t and returns it with its new ID; a zero
	// CreatedAt is set to now. NameExists if the hash is taken; NotFound if
	// UserID or CreatedByUserID names no user.
	CreateAPIToken(ctx context.Context, t APIToken) (APIToken, error)
	// UpdateAPIToken replaces TokenName and ExpiresAt. NotFound if absent.
	UpdateAPIToken(ctx context.Context, t APIToken) (APIToken, error)
	// DeleteAPIToken returns NotFound if absent.
	DeleteAPIToken(ctx context.Context, id int64) error
	// MarkAPITokensSeen sets SeenAt of the tokens with these hashes; unknown
	// hashes are ignored. Operational: needs no audit event.
	MarkAPITokensSeen(ctx context.Context, hashes []string, at time.Time) error
}
