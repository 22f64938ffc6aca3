package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/google/uuid"

	"github.com/signalbox/signalbox/clientapi"
	"github.com/signalbox/signalbox/internal/apierr"
	"github.com/signalbox/signalbox/store"
)

const strategyCols = `s.id, s.feature_name, s.environment, s.name, s.title, s.disabled, s.sort_order,
	s.parameters, s.constraints, s.variants, s.created_at`

// strategyOrder is the order SDKs evaluate strategies in.
const strategyOrder = `s.feature_name, s.environment, s.sort_order, s.created_at, s.id`

func scanStrategy(r scanner) (store.Strategy, error) {
	var s store.Strategy
	err := r.Scan(&s.ID, &s.Feature, &s.Environment, &s.Name, &s.Title, &s.Disabled, &s.SortOrder,
		jsonCol{&s.Parameters}, jsonCol{&s.Constraints}, jsonCol{&s.Variants}, timeCol{&s.CreatedAt})
	normalizeStrategy(&s)
	return s, err
}

func normalizeStrategy(s *store.Strategy) {
	if s.Parameters == nil {
		s.Parameters = clientapi.Parameters{}
	}
	s.Constraints, s.Variants, s.Segments = nonNil(s.Constraints), nonNil(s.Variants), nonNil(s.Segments)
}

func strategySubject(id string) string { return fmt.Sprintf("strategy %q", id) }

func (t *tx) GetStrategy(ctx context.Context, id string) (store.Strategy, error) {
	list, err := t.listStrategies(ctx, []string{"s.id = ?"}, []any{id})
	if err != nil {
		return store.Strategy{}, err
	}
	if len(list) == 0 {
		return store.Strategy{}, missing(strategySubject(id))
	}
	return list[0], nil
}

func (t *tx) ListStrategies(ctx context.Context, f store.StrategyFilter) ([]store.Strategy, error) {
	var where []string
	var args []any
	if f.Feature != "" {
		where, args = append(where, "s.feature_name = ?"), append(args, f.Feature)
	}
	if f.Environment != "" {
		where, args = append(where, "s.environment = ?"), append(args, f.Environment)
	}
	if f.SegmentID != 0 {
		where = append(where, "EXISTS (SELECT 1 FROM strategy_segments x WHERE x.strategy_id = s.id AND x.segment_id = ?)")
		args = append(args, f.SegmentID)
	}
	if f.Project != "" {
		// EXISTS, not IN (SELECT …): SQLite materialises an IN subquery,
		// every name of the project into a temporary index, even when the
		// feature is given and one row would do (5,000 names on every
		// strategy read of a flag page or switch).
		where = append(where, "EXISTS (SELECT 1 FROM features pf WHERE pf.name = s.feature_name AND pf.project_id = ?)")
		args = append(args, f.Project)
	}
	if f.WithSegments {
		where = append(where, "EXISTS (SELECT 1 FROM strategy_segments x WHERE x.strategy_id = s.id)")
	}
	if f.WithConstraints {
		// Both dialects compare the column with these literals: text in
		// SQLite, jsonb (the literals cast) in PostgreSQL.
		where = append(where, "s.constraints NOT IN ('[]', 'null')")
	}
	return t.listStrategies(ctx, where, args)
}

// listStrategies returns the strategies matching the AND of where, with
// their segment ids.
func (t *tx) listStrategies(ctx context.Context, where []string, args []any) ([]store.Strategy, error) {
	cond := ""
	if len(where) > 0 {
		cond = " WHERE " + strings.Join(where, " AND ")
	}
	rows, err := t.query(ctx, `SELECT `+strategyCols+` FROM strategies s`+cond+` ORDER BY `+strategyOrder, args...)
	list, err := collect(rows, err, scanStrategy)
	if err != nil || len(list) == 0 {
		return list, err
	}
	segs, err := t.strategySegments(ctx, `SELECT ss.strategy_id, ss.segment_id
		FROM strategy_segments ss JOIN strategies s ON s.id = ss.strategy_id`+cond+` ORDER BY ss.segment_id`, args...)
	if err != nil {
		return nil, err
	}
	for i := range list {
		list[i].Segments = nonNil(segs[list[i].ID])
	}
	return list, nil
}

// strategySegments runs q, which selects (strategy id, segment id) pairs,
// and groups the segment ids by strategy.
func (t *tx) strategySegments(ctx context.Context, q string, args ...any) (map[string][]int, error) {
	type pair struct {
		strategy string
		segment  int
	}
	rows, err := t.query(ctx, q, args...)
	pairs, err := collect(rows, err, func(r scanner) (pair, error) {
		var p pair
		return p, r.Scan(&p.strategy, &p.segment)
	})
	if err != nil {
		return nil, err
	}
	out := make(map[string][]int)
	for _, p := range pairs {
		out[p.strategy] = append(out[p.strategy], p.segment)
	}
	return out, nil
}

// strategyArgs encodes the JSON columns of s.
func strategyArgs(s store.Strategy) (params, constraints, variants string, err error) {
	if params, err = jsonArg(s.Parameters); err != nil {
		return
	}
	if s.Parameters == nil {
		params = "{}"
	}
	if constraints, err = jsonArg(s.Constraints); err != nil {
		return
	}
	variants, err = jsonArg(s.Variants)
	return
}

func (t *tx) CreateStrategy(ctx context.Context, s store.Strategy) (store.Strategy, error) {
	if s.ID == "" {
		s.ID = uuid.NewString()
	}
	if s.CreatedAt.IsZero() {
		s.CreatedAt = t.now()
	}
	params, constraints, variants, err := strategyArgs(s)
	if err != nil {
		return store.Strategy{}, apierr.Wrap(apierr.BadData, err, "strategy cannot be stored")
	}
	err = t.write(ctx, func() error {
		_, err := t.exec(ctx, `INSERT INTO strategies (id, feature_name, environment, name, title, disabled, sort_order,
			parameters, constraints, variants, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			s.ID, s.Feature, s.Environment, s.Name, s.Title, s.Disabled, s.SortOrder,
			params, constraints, variants, timeArg(s.CreatedAt))
		if err != nil {
			return adapt(err, strategySubject(s.ID),
				apierr.New(apierr.NotFound, "feature %q or environment %q not found", s.Feature, s.Environment))
		}
		return t.setStrategySegments(ctx, s.ID, s.Segments)
	})
	if err != nil {
		return store.Strategy{}, err
	}
	return t.GetStrategy(ctx, s.ID)
}

func (t *tx) setStrategySegments(ctx context.Context, id string, segments []int) error {
	if _, err := t.exec(ctx, `DELETE FROM strategy_segments WHERE strategy_id = ?`, id); err != nil {
		return adapt(err, strategySubject(id), nil)
	}
	seen := make(map[int]bool, len(segments))
	for _, seg := range segments {
		if seen[seg] {
			continue
		}
		seen[seg] = true
		if _, err := t.exec(ctx, `INSERT INTO strategy_segments (strategy_id, segment_id) VALUES (?, ?)`, id, seg); err != nil {
			return adapt(err, strategySubject(id), apierr.New(apierr.NotFound, "segment %d not found", seg))
		}
	}
	return nil
}

func (t *tx) UpdateStrategy(ctx context.Context, s store.Strategy) (store.Strategy, error) {
	params, constraints, variants, err := strategyArgs(s)
	if err != nil {
		return store.Strategy{}, apierr.Wrap(apierr.BadData, err, "strategy cannot be stored")
	}
	err = t.write(ctx, func() error {
		res, err := t.exec(ctx, `UPDATE strategies SET name = ?, title = ?, disabled = ?, sort_order = ?,
			parameters = ?, constraints = ?, variants = ? WHERE id = ?`,
			s.Name, s.Title, s.Disabled, s.SortOrder, params, constraints, variants, s.ID)
		if err := affected(res, err, strategySubject(s.ID), nil); err != nil {
			return err
		}
		return t.setStrategySegments(ctx, s.ID, s.Segments)
	})
	if err != nil {
		return store.Strategy{}, err
	}
	return t.GetStrategy(ctx, s.ID)
}

func (t *tx) DeleteStrategy(ctx context.Context, id string) error {
	return t.write(ctx, func() error {
		res, err := t.exec(ctx, `DELETE FROM strategies WHERE id = ?`, id)
		return affected(res, err, strategySubject(id), nil)
	})
}

func (t *tx) ConstraintUses(ctx context.Context) ([]store.ConstraintUse, error) {
	rows, err := t.query(ctx, t.d.constraintUses)
	return collect(rows, err, func(sc scanner) (store.ConstraintUse, error) {
		var u store.ConstraintUse
		var name sql.NullString
		err := sc.Scan(&name, &u.Feature, &u.Project)
		u.ContextName = name.String
		return u, err
	})
}

func (t *tx) StrategyLimits(ctx context.Context) (store.StrategyLimits, error) {
	var l store.StrategyLimits
	err := t.queryRow(ctx, t.d.strategyLimits).Scan(&l.MaxEnvironmentStrategies, &l.MaxConstraints, &l.MaxConstraintValues)
	return l, err
}
