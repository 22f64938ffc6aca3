package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/signalbox/signalbox/internal/apierr"
	"github.com/signalbox/signalbox/store"
)

const apiTokenCols = `id, secret_hash, prefix, token_name, type, projects, environment, user_id, expires_at, created_at, seen_at, created_by_user_id`

func scanAPIToken(r scanner) (store.APIToken, error) {
	var tok store.APIToken
	var userID, createdBy sql.NullInt64
	err := r.Scan(&tok.ID, &tok.SecretHash, &tok.Prefix, &tok.TokenName, &tok.Type, jsonCol{&tok.Projects},
		&tok.Environment, &userID, nullTimeCol{&tok.ExpiresAt}, timeCol{&tok.CreatedAt}, nullTimeCol{&tok.SeenAt}, &createdBy)
	tok.UserID = int(userID.Int64)
	tok.CreatedByUserID = int(createdBy.Int64)
	tok.Projects = nonNil(tok.Projects)
	return tok, err
}

func apiTokenSubject(id int64) string { return fmt.Sprintf("API token %d", id) }

func (t *tx) GetAPIToken(ctx context.Context, id int64) (store.APIToken, error) {
	tok, err := scanAPIToken(t.queryRow(ctx, `SELECT `+apiTokenCols+` FROM api_tokens WHERE id = ?`, id))
	return tok, adapt(err, apiTokenSubject(id), nil)
}

func (t *tx) GetAPITokenByHash(ctx context.Context, hash string) (store.APIToken, error) {
	tok, err := scanAPIToken(t.queryRow(ctx, `SELECT `+apiTokenCols+` FROM api_tokens WHERE secret_hash = ?`, hash))
	return tok, adapt(err, "API token", nil)
}

func (t *tx) ListAPITokens(ctx context.Context, f store.APITokenFilter) ([]store.APIToken, error) {
	q, args := `SELECT `+apiTokenCols+` FROM api_tokens WHERE 1 = 1`, []any{}
	if f.Type != "" {
		q, args = q+` AND type = ?`, append(args, f.Type)
	}
	if f.UserID != 0 {
		q, args = q+` AND user_id = ?`, append(args, f.UserID)
	}
	rows, err := t.query(ctx, q+` ORDER BY id`, args...)
	return collect(rows, err, scanAPIToken)
}

func (t *tx) CreateAPIToken(ctx context.Context, tok store.APIToken) (store.APIToken, error) {
	if tok.CreatedAt.IsZero() {
		tok.CreatedAt = t.now()
	}
	projects, err := jsonArg(tok.Projects)
	if err != nil {
		return store.APIToken{}, apierr.Wrap(apierr.BadData, err, "token projects cannot be stored")
	}
	err = t.write(ctx, func() error {
		err := t.queryRow(ctx, `INSERT INTO api_tokens (secret_hash, prefix, token_name, type, projects, environment,
			user_id, expires_at, created_at, seen_at, created_by_user_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
			tok.SecretHash, tok.Prefix, tok.TokenName, tok.Type, projects, tok.Environment, nullIfZero(tok.UserID),
			timePtrArg(tok.ExpiresAt), timeArg(tok.CreatedAt), timePtrArg(tok.SeenAt), nullIfZero(tok.CreatedByUserID)).Scan(&tok.ID)
		missing := tok.UserID
		if missing == 0 {
			missing = tok.CreatedByUserID
		}
		return adapt(err, fmt.Sprintf("API token %q", tok.Prefix), apierr.New(apierr.NotFound, "user %d not found", missing))
	})
	if err != nil {
		return store.APIToken{}, err
	}
	return t.GetAPIToken(ctx, tok.ID)
}

func (t *tx) UpdateAPIToken(ctx context.Context, tok store.APIToken) (store.APIToken, error) {
	err := t.write(ctx, func() error {
		res, err := t.exec(ctx, `UPDATE api_tokens SET token_name = ?, expires_at = ? WHERE id = ?`,
			tok.TokenName, timePtrArg(tok.ExpiresAt), tok.ID)
		return affected(res, err, apiTokenSubject(tok.ID), nil)
	})
	if err != nil {
		return store.APIToken{}, err
	}
	return t.GetAPIToken(ctx, tok.ID)
}

func (t *tx) DeleteAPIToken(ctx context.Context, id int64) error {
	return t.write(ctx, func() error {
		res, err := t.exec(ctx, `DELETE FROM api_tokens WHERE id = ?`, id)
		return affected(res, err, apiTokenSubject(id), nil)
	})
}

func (t *tx) MarkAPITokensSeen(ctx context.Context, hashes []string, at time.Time) error {
	return t.guard(ctx, func() error {
		for len(hashes) > 0 {
			n := min(len(hashes), chunk)
			list, args := inList(hashes[:n])
			hashes = hashes[n:]
			if _, err := t.exec(ctx, `UPDATE api_tokens SET seen_at = ? WHERE secret_hash IN (`+list+`)`,
				append([]any{timeArg(at)}, args...)...); err != nil {
				return fmt.Errorf("marking API tokens seen: %w", err)
			}
		}
		return nil
	})
}
