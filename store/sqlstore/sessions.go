package sqlstore

import (
	"context"
	"fmt"
	"time"

	"github.com/signalbox/signalbox/internal/apierr"
	"github.com/signalbox/signalbox/store"
)

// Sessions are operational: their writes use guard, not write, and need no
// audit event.

func scanSession(r scanner) (store.Session, error) {
	var s store.Session
	return s, r.Scan(&s.ID, &s.UserID, timeCol{&s.CreatedAt}, timeCol{&s.ExpiresAt})
}

func (t *tx) GetSession(ctx context.Context, id string) (store.Session, error) {
	s, err := scanSession(t.queryRow(ctx, `SELECT id, user_id, created_at, expires_at FROM sessions WHERE id = ?`, id))
	// The id may be a secret: keep it out of the message.
	return s, adapt(err, "session", nil)
}

func (t *tx) ListSessions(ctx context.Context, userID int) ([]store.Session, error) {
	rows, err := t.query(ctx, `SELECT id, user_id, created_at, expires_at FROM sessions WHERE user_id = ?
		ORDER BY created_at, id`, userID)
	return collect(rows, err, scanSession)
}

func (t *tx) CreateSession(ctx context.Context, s store.Session) (store.Session, error) {
	if s.CreatedAt.IsZero() {
		s.CreatedAt = t.now()
	}
	err := t.guard(ctx, func() error {
		_, err := t.exec(ctx, `INSERT INTO sessions (id, user_id, created_at, expires_at) VALUES (?, ?, ?, ?)`,
			s.ID, s.UserID, timeArg(s.CreatedAt), timeArg(s.ExpiresAt))
		return adapt(err, "session", apierr.New(apierr.NotFound, "user %d not found", s.UserID))
	})
	if err != nil {
		return store.Session{}, err
	}
	return t.GetSession(ctx, s.ID)
}

func (t *tx) DeleteSession(ctx context.Context, id string) error {
	return t.guard(ctx, func() error {
		_, err := t.exec(ctx, `DELETE FROM sessions WHERE id = ?`, id)
		return adapt(err, "session", nil)
	})
}

func (t *tx) DeleteSessions(ctx context.Context, userID int) (int, error) {
	return t.deleteCount(ctx, fmt.Sprintf("sessions of user %d", userID), `DELETE FROM sessions WHERE user_id = ?`, userID)
}

func (t *tx) DeleteExpiredSessions(ctx context.Context, before time.Time) (int, error) {
	return t.deleteCount(ctx, "expired sessions", `DELETE FROM sessions WHERE expires_at < ?`, timeArg(before))
}

// deleteCount runs an operational DELETE and returns how many rows went.
func (t *tx) deleteCount(ctx context.Context, subject, q string, args ...any) (int, error) {
	var n int64
	err := t.guard(ctx, func() error {
		res, err := t.exec(ctx, q, args...)
		if err != nil {
			return adapt(err, subject, nil)
		}
		n, err = res.RowsAffected()
		return err
	})
	return int(n), err
}
