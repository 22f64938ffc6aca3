package store

import (
	"context"
	"time"
)

// SignupToken is an invite link (Unleash's public sign-up token): whoever
// has it may create an account with its role while it is enabled and not
// expired.
type SignupToken struct {
	// Secret is the random part of the link, unique. It is stored as is:
	// admins list invite links and share them again.
	Secret string
	Name   string
	// RoleID is the root role of the accounts created with the link.
	RoleID    int
	Enabled   bool
	CreatedBy string
	CreatedAt time.Time
	ExpiresAt time.Time
	// UserIDs are the users who signed up with the link, in the order
	// they did; set by the reader methods, ignored by the writers.
	UserIDs []int
}

// SignupTokenReader reads invite links.
type SignupTokenReader interface {
	// GetSignupToken returns the link with secret. NotFound if absent.
	GetSignupToken(ctx context.Context, secret string) (SignupToken, error)
	// ListSignupTokens returns every link, oldest first.
	ListSignupTokens(ctx context.Context) ([]SignupToken, error)
}

// SignupTokenWriter changes invite links.
type SignupTokenWriter interface {
	// CreateSignupToken stores t; a zero CreatedAt is set to now.
	// NameExists if the secret is taken; NotFound if the role does not
	// exist.
	CreateSignupToken(ctx context.Context, t SignupToken) (SignupToken, error)
	// UpdateSignupToken replaces the name, enabled and expiry of the link
	// with t's secret. NotFound if there is none.
	UpdateSignupToken(ctx context.Context, t SignupToken) (SignupToken, error)
	// AddSignupTokenUser records that user signed up with the link.
	// NotFound if the link or the user does not exist; NameExists if it
	// is recorded already.
	AddSignupTokenUser(ctx context.Context, secret string, userID int) error
}
