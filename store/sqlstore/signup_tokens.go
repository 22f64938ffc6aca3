package sqlstore

import (
	"context"
	"fmt"

	"github.com/signalbox/signalbox/internal/apierr"
	"github.com/signalbox/signalbox/store"
)

// signupTokenSubject names an invite link without its secret.
func signupTokenSubject() string { return "invite link" }

const signupTokenCols = `secret, name, role_id, enabled, created_by, created_at, expires_at`

func scanSignupToken(r scanner) (store.SignupToken, error) {
	var s store.SignupToken
	err := r.Scan(&s.Secret, &s.Name, &s.RoleID, &s.Enabled, &s.CreatedBy, timeCol{&s.CreatedAt}, timeCol{&s.ExpiresAt})
	s.UserIDs = []int{}
	return s, err
}

func (t *tx) GetSignupToken(ctx context.Context, secret string) (store.SignupToken, error) {
	s, err := scanSignupToken(t.queryRow(ctx, `SELECT `+signupTokenCols+` FROM signup_tokens WHERE secret = ?`, secret))
	if err != nil {
		return store.SignupToken{}, adapt(err, signupTokenSubject(), nil)
	}
	users, err := t.signupTokenUsers(ctx, secret)
	s.UserIDs = append(s.UserIDs, users[secret]...)
	return s, err
}

func (t *tx) ListSignupTokens(ctx context.Context) ([]store.SignupToken, error) {
	rows, err := t.query(ctx, `SELECT `+signupTokenCols+` FROM signup_tokens ORDER BY created_at, secret`)
	list, err := collect(rows, err, scanSignupToken)
	if err != nil {
		return nil, err
	}
	users, err := t.signupTokenUsers(ctx, "")
	if err != nil {
		return nil, err
	}
	for i := range list {
		list[i].UserIDs = append(list[i].UserIDs, users[list[i].Secret]...)
	}
	return list, nil
}

// signupTokenUsers lists the users of one link (the result's only key) or,
// for secret "", of every link.
func (t *tx) signupTokenUsers(ctx context.Context, secret string) (map[string][]int, error) {
	q, args := `SELECT secret, user_id FROM signup_token_users ORDER BY created_at, user_id`, []any{}
	if secret != "" {
		q, args = `SELECT secret, user_id FROM signup_token_users WHERE secret = ? ORDER BY created_at, user_id`, []any{secret}
	}
	type pair struct {
		secret string
		user   int
	}
	rows, err := t.query(ctx, q, args...)
	pairs, err := collect(rows, err, func(r scanner) (pair, error) {
		var p pair
		return p, r.Scan(&p.secret, &p.user)
	})
	if err != nil {
		return nil, err
	}
	out := map[string][]int{}
	for _, p := range pairs {
		out[p.secret] = append(out[p.secret], p.user)
	}
	return out, nil
}

func (t *tx) CreateSignupToken(ctx context.Context, s store.SignupToken) (store.SignupToken, error) {
	if s.CreatedAt.IsZero() {
		s.CreatedAt = t.now()
	}
	err := t.write(ctx, func() error {
		_, err := t.exec(ctx, `INSERT INTO signup_tokens (`+signupTokenCols+`) VALUES (?, ?, ?, ?, ?, ?, ?)`,
			s.Secret, s.Name, s.RoleID, s.Enabled, s.CreatedBy, timeArg(s.CreatedAt), timeArg(s.ExpiresAt))
		return adapt(err, signupTokenSubject(), apierr.New(apierr.NotFound, "role %d not found", s.RoleID))
	})
	if err != nil {
		return store.SignupToken{}, err
	}
	return t.GetSignupToken(ctx, s.Secret)
}

func (t *tx) UpdateSignupToken(ctx context.Context, s store.SignupToken) (store.SignupToken, error) {
	err := t.write(ctx, func() error {
		res, err := t.exec(ctx, `UPDATE signup_tokens SET name = ?, enabled = ?, expires_at = ? WHERE secret = ?`,
			s.Name, s.Enabled, timeArg(s.ExpiresAt), s.Secret)
		return affected(res, err, signupTokenSubject(), nil)
	})
	if err != nil {
		return store.SignupToken{}, err
	}
	return t.GetSignupToken(ctx, s.Secret)
}

func (t *tx) AddSignupTokenUser(ctx context.Context, secret string, userID int) error {
	return t.write(ctx, func() error {
		_, err := t.exec(ctx, `INSERT INTO signup_token_users (secret, user_id, created_at) VALUES (?, ?, ?)`,
			secret, userID, timeArg(t.now()))
		return adapt(err, fmt.Sprintf("user %d of the %s", userID, signupTokenSubject()), nil)
	})
}
