package sqlstore

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/signalbox/signalbox/internal/apierr"
	"github.com/signalbox/signalbox/store"
)

// Settings are named JSON documents, read and written whole.

func settingSubject(name string) string { return fmt.Sprintf("setting %q", name) }

func (t *tx) GetSetting(ctx context.Context, name string) (store.Setting, error) {
	s := store.Setting{Name: name}
	err := t.queryRow(ctx, `SELECT value, updated_at FROM settings WHERE name = ?`, name).
		Scan(rawJSONCol{&s.Value}, timeCol{&s.UpdatedAt})
	if err != nil {
		return store.Setting{}, adapt(err, settingSubject(name), nil)
	}
	return s, nil
}

// checkSetting rejects what no setting may be: a nameless one or one whose
// value is not a JSON document.
func checkSetting(s store.Setting) error {
	if s.Name == "" {
		return apierr.New(apierr.BadData, "a setting needs a name")
	}
	if len(s.Value) == 0 || !json.Valid(s.Value) {
		return apierr.New(apierr.BadData, "the value of %s is not valid JSON", settingSubject(s.Name))
	}
	return nil
}

func (t *tx) PutSetting(ctx context.Context, s store.Setting) (store.Setting, error) {
	if err := checkSetting(s); err != nil {
		return store.Setting{}, err
	}
	if s.UpdatedAt.IsZero() {
		s.UpdatedAt = t.now()
	}
	err := t.write(ctx, func() error {
		_, err := t.exec(ctx, `INSERT INTO settings (name, value, updated_at) VALUES (?, ?, ?)
			ON CONFLICT (name) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
			s.Name, string(s.Value), timeArg(s.UpdatedAt))
		return adapt(err, settingSubject(s.Name), nil)
	})
	if err != nil {
		return store.Setting{}, err
	}
	return t.GetSetting(ctx, s.Name)
}

// InitSetting is operational: it uses guard, not write.
func (t *tx) InitSetting(ctx context.Context, s store.Setting) (store.Setting, error) {
	if err := checkSetting(s); err != nil {
		return store.Setting{}, err
	}
	if s.UpdatedAt.IsZero() {
		s.UpdatedAt = t.now()
	}
	err := t.guard(ctx, func() error {
		_, err := t.exec(ctx, `INSERT INTO settings (name, value, updated_at) VALUES (?, ?, ?)
			ON CONFLICT (name) DO NOTHING`,
			s.Name, string(s.Value), timeArg(s.UpdatedAt))
		return adapt(err, settingSubject(s.Name), nil)
	})
	if err != nil {
		return store.Setting{}, err
	}
	return t.GetSetting(ctx, s.Name)
}

// UseID is operational: it uses guard, not write. Deleting the expired
// records first lets an id whose record expired be recorded anew; the
// insert then decides, and a concurrent transaction inserting the same id
// waits for this one (PostgreSQL) or runs after it (SQLite).
func (t *tx) UseID(ctx context.Context, id string, expires, now time.Time) (bool, error) {
	if id == "" {
		return false, apierr.New(apierr.BadData, "a used id must not be empty")
	}
	var n int64
	err := t.guard(ctx, func() error {
		if _, err := t.exec(ctx, `DELETE FROM used_ids WHERE expires_at < ?`, timeArg(now)); err != nil {
			return adapt(err, "used ids", nil)
		}
		res, err := t.exec(ctx, `INSERT INTO used_ids (id, expires_at) VALUES (?, ?) ON CONFLICT (id) DO NOTHING`, id, timeArg(expires))
		if err != nil {
			return adapt(err, "used id", nil)
		}
		n, err = res.RowsAffected()
		return err
	})
	return n == 1, err
}
