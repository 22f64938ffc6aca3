package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"github.com/signalbox/signalbox/internal/apierr"
	"github.com/signalbox/signalbox/store"
)

// revisionQuery reads the newest event id; both databases answer it from
// the primary key index.
const revisionQuery = `SELECT COALESCE(MAX(id), 0) FROM events`

const eventCols = `id, type, created_at, created_by, created_by_user_id, project, environment, feature_name,
	data, pre_data, tags`

func scanEvent(r scanner) (store.Event, error) {
	var e store.Event
	var userID sql.NullInt64
	var project, env, feature sql.NullString
	err := r.Scan(&e.ID, &e.Type, timeCol{&e.CreatedAt}, &e.CreatedBy, &userID, &project, &env, &feature,
		rawJSONCol{&e.Data}, rawJSONCol{&e.PreData}, jsonCol{&e.Tags})
	e.CreatedByUserID = int(userID.Int64)
	e.Project, e.Environment, e.FeatureName = project.String, env.String, feature.String
	e.Tags = nonNil(e.Tags)
	return e, err
}

func (t *tx) Revision(ctx context.Context) (int64, error) {
	var rev int64
	if err := t.queryRow(ctx, revisionQuery).Scan(&rev); err != nil {
		return 0, fmt.Errorf("revision: %w", err)
	}
	return rev, nil
}

func (t *tx) GetEvent(ctx context.Context, id int64) (store.Event, error) {
	e, err := scanEvent(t.queryRow(ctx, `SELECT `+eventCols+` FROM events WHERE id = ?`, id))
	return e, adapt(err, fmt.Sprintf("event %d", id), nil)
}

// eventWhere builds the condition of f.
func (t *tx) eventWhere(f store.EventFilter) (string, []any) {
	var where []string
	var args []any
	for _, c := range []struct{ col, val string }{
		{"type", f.Type}, {"project", f.Project}, {"feature_name", f.Feature},
	} {
		if c.val != "" {
			where, args = append(where, c.col+" = ?"), append(args, c.val)
		}
	}
	if len(f.ExceptProjects) > 0 {
		marks := strings.TrimSuffix(strings.Repeat("?, ", len(f.ExceptProjects)), ", ")
		where = append(where, "(project IS NULL OR project NOT IN ("+marks+"))")
		for _, p := range f.ExceptProjects {
			args = append(args, p)
		}
	}
	if f.Query != "" {
		like := "%" + strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(f.Query) + "%"
		op := t.d.ilike + ` ? ESCAPE '\'`
		where = append(where, "(type "+op+" OR created_by "+op+" OR CAST(data AS TEXT) "+op+")")
		args = append(args, like, like, like)
	}
	if f.AfterID > 0 {
		where, args = append(where, "id > ?"), append(args, f.AfterID)
	}
	if f.BeforeID > 0 {
		where, args = append(where, "id < ?"), append(args, f.BeforeID)
	}
	if len(where) == 0 {
		return "", nil
	}
	return " WHERE " + strings.Join(where, " AND "), args
}

func (t *tx) ListEvents(ctx context.Context, f store.EventFilter) ([]store.Event, error) {
	cond, args := t.eventWhere(f)
	q := `SELECT ` + eventCols + ` FROM events` + cond + ` ORDER BY id DESC`
	if f.Ascending {
		q = `SELECT ` + eventCols + ` FROM events` + cond + ` ORDER BY id`
	}
	if f.Limit > 0 || f.Offset > 0 {
		// Both databases need a LIMIT before OFFSET, and agree on no
		// spelling of "no limit" but a large number.
		limit := int64(f.Limit)
		if limit <= 0 {
			limit = math.MaxInt64
		}
		q, args = q+` LIMIT ? OFFSET ?`, append(args, limit, max(f.Offset, 0))
	}
	rows, err := t.query(ctx, q, args...)
	return collect(rows, err, scanEvent)
}

func (t *tx) CountEvents(ctx context.Context, f store.EventFilter) (int64, error) {
	cond, args := t.eventWhere(f)
	var n int64
	err := t.queryRow(ctx, `SELECT COUNT(*) FROM events`+cond, args...).Scan(&n)
	return n, err
}

// jsonDoc validates an optional JSON document: PostgreSQL would reject bad
// JSON and SQLite would keep it, so neither gets the chance.
func jsonDoc(name string, raw json.RawMessage) (any, error) {
	if len(raw) == 0 {
		return nil, nil
	}
	if !json.Valid(raw) {
		return nil, apierr.New(apierr.BadData, "event %s is not valid JSON", name)
	}
	return string(raw), nil
}

func (t *tx) AppendEvent(ctx context.Context, e store.Event) (int64, error) {
	if e.CreatedAt.IsZero() {
		e.CreatedAt = t.now()
	}
	data, err := jsonDoc("data", e.Data)
	if err != nil {
		return 0, err
	}
	pre, err := jsonDoc("preData", e.PreData)
	if err != nil {
		return 0, err
	}
	tags := mustJSON(nonNil(e.Tags))
	var id int64
	err = t.guard(ctx, func() error {
		err := t.queryRow(ctx, `INSERT INTO events (type, created_at, created_by, created_by_user_id, project, environment,
			feature_name, data, pre_data, tags) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
			e.Type, timeArg(e.CreatedAt), e.CreatedBy, nullIfZero(e.CreatedByUserID), nullIfEmpty(e.Project),
			nullIfEmpty(e.Environment), nullIfEmpty(e.FeatureName), data, pre, tags).Scan(&id)
		return adapt(err, fmt.Sprintf("event %q", e.Type), nil)
	})
	if err != nil {
		return 0, err
	}
	t.events++
	t.lastEvent = max(t.lastEvent, id)
	return id, nil
}
