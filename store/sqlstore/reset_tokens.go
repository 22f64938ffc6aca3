package sqlstore

import (
	"context"
	"time"

	"github.com/signalbox/signalbox/internal/apierr"
	"github.com/signalbox/signalbox/store"
)

const resetTokenCols = `token_hash, user_id, created_by, created_at, expires_at`

func scanResetToken(r scanner) (store.ResetToken, error) {
	var t store.ResetToken
	return t, r.Scan(&t.Hash, &t.UserID, &t.CreatedBy, timeCol{&t.CreatedAt}, timeCol{&t.ExpiresAt})
}

func (t *tx) GetResetToken(ctx context.Context, hash string) (store.ResetToken, error) {
	rt, err := scanResetToken(t.queryRow(ctx, `SELECT `+resetTokenCols+` FROM reset_tokens WHERE token_hash = ?`, hash))
	// The hash stands for a secret: keep it out of the message.
	return rt, adapt(err, "reset token", nil)
}

func (t *tx) CreateResetToken(ctx context.Context, rt store.ResetToken) (store.ResetToken, error) {
	if rt.CreatedAt.IsZero() {
		rt.CreatedAt = t.now()
	}
	err := t.write(ctx, func() error {
		if _, err := t.exec(ctx, `DELETE FROM reset_tokens WHERE user_id = ?`, rt.UserID); err != nil {
			return adapt(err, "reset token", nil)
		}
		_, err := t.exec(ctx, `INSERT INTO reset_tokens (`+resetTokenCols+`) VALUES (?, ?, ?, ?, ?)`,
			rt.Hash, rt.UserID, rt.CreatedBy, timeArg(rt.CreatedAt), timeArg(rt.ExpiresAt))
		return adapt(err, "reset token", apierr.New(apierr.NotFound, "user %d not found", rt.UserID))
	})
	if err != nil {
		return store.ResetToken{}, err
	}
	return t.GetResetToken(ctx, rt.Hash)
}

func (t *tx) UseResetToken(ctx context.Context, hash string, at time.Time) (store.ResetToken, error) {
	var rt store.ResetToken
	err := t.write(ctx, func() error {
		// One statement finds and consumes the token, so that two uses
		// cannot both see it unused.
		var err error
		rt, err = scanResetToken(t.queryRow(ctx, `DELETE FROM reset_tokens WHERE token_hash = ? AND expires_at > ?
			RETURNING `+resetTokenCols, hash, timeArg(at)))
		return adapt(err, "reset token", nil)
	})
	if err != nil {
		return store.ResetToken{}, err
	}
	return rt, nil
}
