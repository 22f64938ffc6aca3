package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/signalbox/signalbox/internal/apierr"
	"github.com/signalbox/signalbox/store"
)

// Addons and their delivery queue. The queue relies on Updates running one
// at a time (see dialect.writeLock): a claim reads and marks a row in one
// Update, so no other instance can claim it in between.

const addonCols = `id, provider, description, enabled, parameters, events, projects, environments, since_event_id, created_at`

func scanAddon(r scanner) (store.Addon, error) {
	var a store.Addon
	err := r.Scan(&a.ID, &a.Provider, &a.Description, &a.Enabled, rawJSONCol{&a.Parameters},
		jsonCol{&a.Events}, jsonCol{&a.Projects}, jsonCol{&a.Environments}, &a.SinceEventID, timeCol{&a.CreatedAt})
	a.Events, a.Projects, a.Environments = nonNil(a.Events), nonNil(a.Projects), nonNil(a.Environments)
	return a, err
}

func addonSubject(id int) string { return fmt.Sprintf("addon %d", id) }

func (t *tx) GetAddon(ctx context.Context, id int) (store.Addon, error) {
	a, err := scanAddon(t.queryRow(ctx, `SELECT `+addonCols+` FROM addons WHERE id = ?`, id))
	return a, adapt(err, addonSubject(id), nil)
}

func (t *tx) ListAddons(ctx context.Context) ([]store.Addon, error) {
	rows, err := t.query(ctx, `SELECT `+addonCols+` FROM addons ORDER BY id`)
	return collect(rows, err, scanAddon)
}

// addonArgs are the JSON columns of a, checked.
func addonArgs(a store.Addon) (params, events, projects, envs string, err error) {
	var obj map[string]any
	if len(a.Parameters) == 0 || json.Unmarshal(a.Parameters, &obj) != nil || obj == nil {
		return "", "", "", "", apierr.New(apierr.BadData, "the parameters of an addon must be a JSON object")
	}
	if events, err = jsonArg(nonNil(a.Events)); err == nil {
		if projects, err = jsonArg(nonNil(a.Projects)); err == nil {
			envs, err = jsonArg(nonNil(a.Environments))
		}
	}
	if err != nil {
		return "", "", "", "", apierr.Wrap(apierr.BadData, err, "the addon cannot be stored")
	}
	return string(a.Parameters), events, projects, envs, nil
}

func (t *tx) CreateAddon(ctx context.Context, a store.Addon) (store.Addon, error) {
	params, events, projects, envs, err := addonArgs(a)
	if err != nil {
		return store.Addon{}, err
	}
	if a.CreatedAt.IsZero() {
		a.CreatedAt = t.now()
	}
	err = t.write(ctx, func() error {
		err := t.queryRow(ctx, `INSERT INTO addons (provider, description, enabled, parameters, events, projects, environments, since_event_id, created_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
			a.Provider, a.Description, a.Enabled, params, events, projects, envs, a.SinceEventID, timeArg(a.CreatedAt)).Scan(&a.ID)
		return adapt(err, "addon", nil)
	})
	if err != nil {
		return store.Addon{}, err
	}
	return t.GetAddon(ctx, a.ID)
}

func (t *tx) UpdateAddon(ctx context.Context, a store.Addon) (store.Addon, error) {
	params, events, projects, envs, err := addonArgs(a)
	if err != nil {
		return store.Addon{}, err
	}
	err = t.write(ctx, func() error {
		res, err := t.exec(ctx, `UPDATE addons SET provider = ?, description = ?, enabled = ?, parameters = ?, events = ?,
			projects = ?, environments = ? WHERE id = ?`,
			a.Provider, a.Description, a.Enabled, params, events, projects, envs, a.ID)
		return affected(res, err, addonSubject(a.ID), nil)
	})
	if err != nil {
		return store.Addon{}, err
	}
	return t.GetAddon(ctx, a.ID)
}

func (t *tx) DeleteAddon(ctx context.Context, id int) error {
	return t.write(ctx, func() error {
		res, err := t.exec(ctx, `DELETE FROM addons WHERE id = ?`, id)
		return affected(res, err, addonSubject(id), nil)
	})
}

const deliveryCols = `id, addon_id, event_id, state, attempts, status_code, last_error, next_attempt_at, claimed_until, created_at, updated_at`

func scanDelivery(r scanner) (store.AddonDelivery, error) {
	var d store.AddonDelivery
	err := r.Scan(&d.ID, &d.AddonID, &d.EventID, &d.State, &d.Attempts, &d.StatusCode, &d.LastError,
		timeCol{&d.NextAttemptAt}, nullTimeCol{&d.ClaimedUntil}, timeCol{&d.CreatedAt}, timeCol{&d.UpdatedAt})
	return d, err
}

func (t *tx) ListAddonDeliveries(ctx context.Context, addonID, limit, offset int) ([]store.AddonDelivery, error) {
	q := `SELECT ` + deliveryCols + ` FROM addon_deliveries WHERE addon_id = ? AND attempts > 0 ORDER BY event_id DESC, id DESC`
	args := []any{addonID}
	if limit <= 0 {
		// SQLite has no OFFSET without LIMIT.
		limit = math.MaxInt32
	}
	q, args = q+` LIMIT ? OFFSET ?`, append(args, limit, max(offset, 0))
	rows, err := t.query(ctx, q, args...)
	return collect(rows, err, scanDelivery)
}

func (t *tx) AddonCursor(ctx context.Context) (int64, error) {
	var c int64
	err := t.queryRow(ctx, `SELECT last_event_id FROM addon_cursor WHERE id = 1`).Scan(&c)
	return c, adapt(err, "addon cursor", nil)
}

// QueueAddonDeliveries is operational: it uses guard, not write.
func (t *tx) QueueAddonDeliveries(ctx context.Context, cursor int64, ds []store.AddonDelivery) error {
	now := t.now()
	return t.guard(ctx, func() error {
		for _, d := range ds {
			if d.NextAttemptAt.IsZero() {
				d.NextAttemptAt = now
			}
			// The EXISTS keeps a delivery for an addon deleted meanwhile
			// from failing the whole batch on its foreign key.
			_, err := t.exec(ctx, `INSERT INTO addon_deliveries (addon_id, event_id, state, attempts, next_attempt_at, created_at, updated_at)
				SELECT ?, ?, ?, 0, ?, ?, ? WHERE EXISTS (SELECT 1 FROM addons WHERE id = ?)
				ON CONFLICT (addon_id, event_id) DO NOTHING`,
				d.AddonID, d.EventID, store.DeliveryPending, timeArg(d.NextAttemptAt), timeArg(now), timeArg(now), d.AddonID)
			if err != nil {
				return adapt(err, "addon delivery", nil)
			}
		}
		_, err := t.exec(ctx, `UPDATE addon_cursor SET last_event_id = ? WHERE id = 1 AND last_event_id < ?`, cursor, cursor)
		return adapt(err, "addon cursor", nil)
	})
}

// ClaimAddonDelivery is operational: it uses guard, not write.
func (t *tx) ClaimAddonDelivery(ctx context.Context, now, until time.Time) (store.AddonDelivery, bool, error) {
	var d store.AddonDelivery
	found := false
	err := t.guard(ctx, func() error {
		var id int64
		err := t.queryRow(ctx, `SELECT id FROM addon_deliveries
			WHERE (state = ? AND next_attempt_at <= ?) OR (state = ? AND claimed_until < ?)
			ORDER BY id LIMIT 1`,
			store.DeliveryPending, timeArg(now), store.DeliveryRunning, timeArg(now)).Scan(&id)
		if err != nil {
			if errors.Is(err, sql.ErrNoRows) {
				return nil
			}
			return adapt(err, "addon delivery", nil)
		}
		if _, err := t.exec(ctx, `UPDATE addon_deliveries SET state = ?, attempts = attempts + 1, claimed_until = ?, updated_at = ?
			WHERE id = ?`, store.DeliveryRunning, timeArg(until), timeArg(now), id); err != nil {
			return adapt(err, "addon delivery", nil)
		}
		d, err = scanDelivery(t.queryRow(ctx, `SELECT `+deliveryCols+` FROM addon_deliveries WHERE id = ?`, id))
		found = err == nil
		return adapt(err, "addon delivery", nil)
	})
	return d, found, err
}

// FinishAddonDelivery is operational: it uses guard, not write.
func (t *tx) FinishAddonDelivery(ctx context.Context, d store.AddonDelivery) error {
	if d.NextAttemptAt.IsZero() {
		d.NextAttemptAt = t.now()
	}
	return t.guard(ctx, func() error {
		res, err := t.exec(ctx, `UPDATE addon_deliveries SET state = ?, status_code = ?, last_error = ?, next_attempt_at = ?,
			claimed_until = NULL, updated_at = ? WHERE id = ? AND attempts = ? AND state = ?`,
			d.State, d.StatusCode, d.LastError, timeArg(d.NextAttemptAt), timeArg(t.now()), d.ID, d.Attempts, store.DeliveryRunning)
		return affected(res, err, fmt.Sprintf("claim of addon delivery %d", d.ID), nil)
	})
}
