package sqlstore

import (
	"context"
	"time"

	"github.com/signalbox/signalbox/store"
)

func (t *tx) ListStreamedClients(ctx context.Context, since time.Time, limit int) ([]store.StreamedClient, error) {
	rows, err := t.query(ctx, `SELECT client_key, token_id, app_name, seen_at FROM streamed_clients WHERE seen_at >= ?
		ORDER BY seen_at DESC, client_key LIMIT ?`, timeArg(since), limit)
	cs, err := collect(rows, err, func(r scanner) (store.StreamedClient, error) {
		var c store.StreamedClient
		err := r.Scan(&c.Key, &c.TokenID, &c.AppName, timeCol{&c.SeenAt})
		return c, err
	})
	return cs, adapt(err, "streamed clients", nil)
}

func (t *tx) RecordStreamedClients(ctx context.Context, cs []store.StreamedClient, expireBefore time.Time, perToken, perApp int) error {
	return t.guard(ctx, func() error {
		tokens, apps := map[int64]bool{}, map[string]bool{}
		for _, c := range cs {
			seen := c.SeenAt
			if seen.IsZero() {
				seen = t.now()
			}
			if _, err := t.exec(ctx, `INSERT INTO streamed_clients (client_key, token_id, app_name, seen_at) VALUES (?, ?, ?, ?)
				ON CONFLICT (client_key) DO UPDATE SET token_id = excluded.token_id, app_name = excluded.app_name,
					seen_at = CASE WHEN excluded.seen_at > streamed_clients.seen_at THEN excluded.seen_at ELSE streamed_clients.seen_at END`,
				c.Key, c.TokenID, c.AppName, timeArg(seen)); err != nil {
				return adapt(err, "streamed client", nil)
			}
			tokens[c.TokenID], apps[c.AppName] = true, true
		}
		if _, err := t.exec(ctx, `DELETE FROM streamed_clients WHERE seen_at < ?`, timeArg(expireBefore)); err != nil {
			return adapt(err, "expired streamed clients", nil)
		}
		for id := range tokens {
			if _, err := t.exec(ctx, `DELETE FROM streamed_clients WHERE token_id = ? AND client_key NOT IN
				(SELECT client_key FROM streamed_clients WHERE token_id = ? ORDER BY seen_at DESC, client_key LIMIT ?)`,
				id, id, perToken); err != nil {
				return adapt(err, "streamed clients of a token", nil)
			}
		}
		for app := range apps {
			if _, err := t.exec(ctx, `DELETE FROM streamed_clients WHERE app_name = ? AND client_key NOT IN
				(SELECT client_key FROM streamed_clients WHERE app_name = ? ORDER BY seen_at DESC, client_key LIMIT ?)`,
				app, app, perApp); err != nil {
				return adapt(err, "streamed clients of an application", nil)
			}
		}
		return nil
	})
}
