package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"slices"
	"strings"

	"github.com/signalbox/signalbox/store"
)

// ListFeatureOverviews reads flags, their environments, strategy counts,
// segments, tags and dependencies in six queries, whatever the number of
// flags, and joins them in memory.
func (t *tx) ListFeatureOverviews(ctx context.Context, archived bool) ([]store.FeatureOverview, error) {
	cond := "f.archived_at IS NULL"
	if archived {
		cond = "f.archived_at IS NOT NULL"
	}
	rows, err := t.query(ctx, `SELECT `+prefixCols("f.", featureCols)+` FROM features f WHERE `+cond+` ORDER BY f.name`)
	features, err := collect(rows, err, scanFeature)
	if err != nil {
		return nil, err
	}
	out := make([]store.FeatureOverview, len(features))
	index := make(map[string]*store.FeatureOverview, len(features))
	for i, f := range features {
		out[i] = store.FeatureOverview{Feature: f, Environments: []store.FeatureOverviewEnvironment{}, Tags: []store.Tag{}, Segments: []string{}}
		index[f.Name] = &out[i]
	}
	if len(out) == 0 {
		return out, nil
	}

	type envKey struct{ feature, env string }
	envAt := map[envKey]*store.FeatureOverviewEnvironment{}
	rows, err = t.query(ctx, `
		SELECT f.name, e.name, e.type, e.sort_order, fe.enabled, fe.variants, fe.last_seen_at
		FROM features f
		JOIN project_environments pe ON pe.project_id = f.project_id
		JOIN environments e ON e.name = pe.environment
		LEFT JOIN feature_environments fe ON fe.feature_name = f.name AND fe.environment = e.name
		WHERE `+cond+`
		ORDER BY f.name, e.sort_order, e.name`)
	type envRow struct {
		feature string
		env     store.FeatureOverviewEnvironment
	}
	envs, err := collect(rows, err, func(r scanner) (envRow, error) {
		var row envRow
		var enabled sql.NullBool
		var variants []json.RawMessage
		err := r.Scan(&row.feature, &row.env.Name, &row.env.Type, &row.env.SortOrder, &enabled,
			jsonCol{&variants}, nullTimeCol{&row.env.LastSeenAt})
		row.env.Enabled = enabled.Bool
		row.env.Variants = len(variants)
		return row, err
	})
	if err != nil {
		return nil, err
	}
	for _, row := range envs {
		if f := index[row.feature]; f != nil {
			f.Environments = append(f.Environments, row.env)
		}
	}
	for i := range out {
		for j := range out[i].Environments {
			envAt[envKey{out[i].Name, out[i].Environments[j].Name}] = &out[i].Environments[j]
		}
	}

	rows, err = t.query(ctx, `
		SELECT s.feature_name, s.environment, COUNT(*), SUM(CASE WHEN s.disabled THEN 0 ELSE 1 END)
		FROM strategies s JOIN features f ON f.name = s.feature_name
		WHERE `+cond+`
		GROUP BY s.feature_name, s.environment`)
	type countRow struct {
		feature, env string
		all, on      int
	}
	counts, err := collect(rows, err, func(r scanner) (countRow, error) {
		var c countRow
		err := r.Scan(&c.feature, &c.env, &c.all, &c.on)
		return c, err
	})
	if err != nil {
		return nil, err
	}
	for _, c := range counts {
		if e := envAt[envKey{c.feature, c.env}]; e != nil {
			e.Strategies, e.EnabledStrategies = c.all, c.on
		}
	}

	rows, err = t.query(ctx, `
		SELECT DISTINCT s.feature_name, sg.name
		FROM strategies s
		JOIN strategy_segments ss ON ss.strategy_id = s.id
		JOIN segments sg ON sg.id = ss.segment_id
		JOIN features f ON f.name = s.feature_name
		WHERE `+cond+`
		ORDER BY s.feature_name, sg.name`)
	type pair struct{ a, b string }
	scanPair := func(r scanner) (pair, error) {
		var p pair
		err := r.Scan(&p.a, &p.b)
		return p, err
	}
	segs, err := collect(rows, err, scanPair)
	if err != nil {
		return nil, err
	}
	for _, p := range segs {
		if f := index[p.a]; f != nil {
			f.Segments = append(f.Segments, p.b)
		}
	}

	tags, err := t.ListFeatureTags(ctx, "")
	if err != nil {
		return nil, err
	}
	for _, ft := range tags {
		if f := index[ft.Feature]; f != nil {
			f.Tags = append(f.Tags, ft.Tag)
		}
	}

	rows, err = t.query(ctx, `SELECT child, parent FROM feature_dependencies`)
	deps, err := collect(rows, err, scanPair)
	if err != nil {
		return nil, err
	}
	for _, d := range deps {
		if f := index[d.a]; f != nil {
			f.IsChild = true
		}
		if f := index[d.b]; f != nil {
			f.IsParent = true
		}
	}
	for i := range out {
		out[i].Segments = slices.Compact(out[i].Segments)
	}
	return out, nil
}

// prefixCols qualifies each column of a comma-separated list with prefix.
func prefixCols(prefix, cols string) string {
	parts := strings.Split(cols, ",")
	for i, c := range parts {
		parts[i] = prefix + strings.TrimSpace(c)
	}
	return strings.Join(parts, ", ")
}
