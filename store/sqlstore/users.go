package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/signalbox/signalbox/internal/apierr"
	"github.com/signalbox/signalbox/store"
)

const userCols = `id, name, email, username, password_hash, root_role, login_attempts, seen_at, created_at,
	email_sent, image_url, account_type, deleted_at`

func scanUser(r scanner) (store.User, error) {
	var u store.User
	var email, username sql.NullString
	err := r.Scan(&u.ID, &u.Name, &email, &username, &u.PasswordHash, &u.RootRole, &u.LoginAttempts,
		nullTimeCol{&u.SeenAt}, timeCol{&u.CreatedAt}, &u.EmailSent, &u.ImageURL, &u.AccountType, nullTimeCol{&u.DeletedAt})
	u.Email, u.Username = email.String, username.String
	return u, err
}

func userSubject(id int) string { return fmt.Sprintf("user %d", id) }

// loginSubject names a user by what makes it unique, for NameExists.
func loginSubject(u store.User) string {
	return fmt.Sprintf("user with e-mail %q or username %q", u.Email, u.Username)
}

func (t *tx) GetUser(ctx context.Context, id int) (store.User, error) {
	u, err := scanUser(t.queryRow(ctx, `SELECT `+userCols+` FROM users WHERE id = ? AND deleted_at IS NULL`, id))
	return u, adapt(err, userSubject(id), nil)
}

func (t *tx) GetUserByLogin(ctx context.Context, login string) (store.User, error) {
	// CreateUser and UpdateUser keep one sign-in name to one live user, but
	// users stored before they did may still share one: the user whose
	// e-mail it is wins over one whose username it is, then the oldest.
	u, err := scanUser(t.queryRow(ctx, `SELECT `+userCols+` FROM users
		WHERE deleted_at IS NULL AND (lower(email) = lower(?) OR lower(username) = lower(?))
		ORDER BY CASE WHEN lower(email) = lower(?) THEN 0 ELSE 1 END, id LIMIT 1`, login, login, login))
	return u, adapt(err, fmt.Sprintf("user %q", login), nil)
}

func (t *tx) ListUsers(ctx context.Context, f store.UserFilter) ([]store.User, error) {
	q, args := `SELECT `+userCols+` FROM users WHERE 1 = 1`, []any{}
	if !f.IncludeDeleted {
		q += ` AND deleted_at IS NULL`
	}
	if f.AccountType != "" {
		q, args = q+` AND account_type = ?`, append(args, f.AccountType)
	}
	rows, err := t.query(ctx, q+` ORDER BY id`, args...)
	return collect(rows, err, scanUser)
}

func (t *tx) CreateUser(ctx context.Context, u store.User) (store.User, error) {
	if u.CreatedAt.IsZero() {
		u.CreatedAt = t.now()
	}
	if u.AccountType == "" {
		u.AccountType = store.AccountUser
	}
	err := t.write(ctx, func() error {
		if err := t.checkLoginsFree(ctx, u); err != nil {
			return err
		}
		err := t.queryRow(ctx, `INSERT INTO users (name, email, username, password_hash, root_role, login_attempts,
			seen_at, created_at, email_sent, image_url, account_type) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
			u.Name, nullIfEmpty(u.Email), nullIfEmpty(u.Username), u.PasswordHash, u.RootRole, u.LoginAttempts,
			timePtrArg(u.SeenAt), timeArg(u.CreatedAt), u.EmailSent, u.ImageURL, u.AccountType).Scan(&u.ID)
		return adapt(err, loginSubject(u), apierr.New(apierr.NotFound, "role %d not found", u.RootRole))
	})
	if err != nil {
		return store.User{}, err
	}
	return t.GetUser(ctx, u.ID)
}

func (t *tx) UpdateUser(ctx context.Context, u store.User) (store.User, error) {
	err := t.write(ctx, func() error {
		if err := t.checkLoginsFree(ctx, u); err != nil {
			return err
		}
		res, err := t.exec(ctx, `UPDATE users SET name = ?, email = ?, username = ?, root_role = ?, image_url = ?,
			email_sent = ?, account_type = ? WHERE id = ? AND deleted_at IS NULL`,
			u.Name, nullIfEmpty(u.Email), nullIfEmpty(u.Username), u.RootRole, u.ImageURL, u.EmailSent, u.AccountType, u.ID)
		if err != nil && classify(err) == uniqueViolation {
			return adapt(err, loginSubject(u), nil)
		}
		return affected(res, err, userSubject(u.ID), apierr.New(apierr.NotFound, "role %d not found", u.RootRole))
	})
	if err != nil {
		return store.User{}, err
	}
	return t.GetUser(ctx, u.ID)
}

// checkLoginsFree refuses, with NameExists, an e-mail or username of u that
// is already the e-mail or the username of another live user, ignoring
// case: each is a sign-in name and a password reset address, so one string
// may name only one user. The unique indexes hold within each column; this
// holds across them. Writes run one at a time (see dialect.writeLock), so
// no other transaction can take the name between the check and the write.
func (t *tx) checkLoginsFree(ctx context.Context, u store.User) error {
	for _, name := range []string{u.Email, u.Username} {
		if name == "" {
			continue
		}
		var other int
		err := t.queryRow(ctx, `SELECT id FROM users WHERE deleted_at IS NULL AND id <> ?
			AND (lower(email) = lower(?) OR lower(username) = lower(?)) ORDER BY id LIMIT 1`, u.ID, name, name).Scan(&other)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			continue
		case err != nil:
			return adapt(err, loginSubject(u), nil)
		}
		return apierr.New(apierr.NameExists, "%q is already the e-mail or username of another user", name)
	}
	return nil
}

func (t *tx) SetUserPassword(ctx context.Context, id int, hash string) error {
	return t.write(ctx, func() error {
		res, err := t.exec(ctx, `UPDATE users SET password_hash = ? WHERE id = ? AND deleted_at IS NULL`, hash, id)
		return affected(res, err, userSubject(id), nil)
	})
}

func (t *tx) DeleteUser(ctx context.Context, id int) error {
	return t.write(ctx, func() error {
		res, err := t.exec(ctx, `UPDATE users SET deleted_at = ? WHERE id = ? AND deleted_at IS NULL`, timeArg(t.now()), id)
		if err := affected(res, err, userSubject(id), nil); err != nil {
			return err
		}
		// The row stays for the audit log, so ON DELETE CASCADE does not
		// fire; what the user could sign in with goes explicitly.
		for _, q := range []string{`DELETE FROM sessions WHERE user_id = ?`, `DELETE FROM reset_tokens WHERE user_id = ?`} {
			if _, err := t.exec(ctx, q, id); err != nil {
				return adapt(err, userSubject(id), nil)
			}
		}
		_, err = t.exec(ctx, `DELETE FROM api_tokens WHERE user_id = ?`, id)
		return adapt(err, userSubject(id), nil)
	})
}

func (t *tx) RecordLogin(ctx context.Context, id int, success bool, at time.Time) (int, error) {
	var attempts int
	err := t.guard(ctx, func() error {
		q := `UPDATE users SET login_attempts = login_attempts + 1 WHERE id = ? AND deleted_at IS NULL RETURNING login_attempts`
		args := []any{id}
		if success {
			q = `UPDATE users SET login_attempts = 0, seen_at = ? WHERE id = ? AND deleted_at IS NULL RETURNING login_attempts`
			args = []any{timeArg(at), id}
		}
		return adapt(t.queryRow(ctx, q, args...).Scan(&attempts), userSubject(id), nil)
	})
	return attempts, err
}

func scanRole(r scanner) (store.Role, error) {
	var role store.Role
	return role, r.Scan(&role.ID, &role.Name, &role.Type, &role.Description)
}

func (t *tx) GetRole(ctx context.Context, id int) (store.Role, error) {
	role, err := scanRole(t.queryRow(ctx, `SELECT id, name, type, description FROM roles WHERE id = ?`, id))
	return role, adapt(err, fmt.Sprintf("role %d", id), nil)
}

func (t *tx) ListRoles(ctx context.Context) ([]store.Role, error) {
	rows, err := t.query(ctx, `SELECT id, name, type, description FROM roles ORDER BY id`)
	return collect(rows, err, scanRole)
}
