package store

import (
	"context"
	"time"
)

// ResetToken is a password reset link's token, as stored: only its hash.
// A user has at most one; it signs them in nowhere, it only lets them set
// a new password once before it expires.
type ResetToken struct {
	// Hash is HashSecret of the token the link carries.
	Hash   string
	UserID int
	// CreatedBy names who asked for the link (an admin's name, or the
	// user themselves).
	CreatedBy string
	CreatedAt time.Time
	ExpiresAt time.Time
}

// ResetTokenReader reads reset tokens.
type ResetTokenReader interface {
	// GetResetToken returns the token whose hash is hash, expired or not.
	// NotFound if there is none.
	GetResetToken(ctx context.Context, hash string) (ResetToken, error)
}

// ResetTokenWriter changes reset tokens. Deleting a user deletes their
// token.
type ResetTokenWriter interface {
	// CreateResetToken stores t in place of the user's previous token, if
	// any, so that only the newest link works; a zero CreatedAt is set to
	// now. NotFound if the user does not exist; NameExists if the hash is
	// taken.
	CreateResetToken(ctx context.Context, t ResetToken) (ResetToken, error)
	// UseResetToken deletes and returns the token whose hash is hash if it
	// expires after at, so that it works once. NotFound if there is no
	// such token or it has expired (an expired one stays until replaced).
	UseResetToken(ctx context.Context, hash string, at time.Time) (ResetToken, error)
}
