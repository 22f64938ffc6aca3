package sqlstore

import (
	"context"
	"sort"
	"strings"
	"time"

	"github.com/signalbox/signalbox/store"
)

// Counts are added in SQL (upsert with col = col + excluded.col) so that
// concurrent reporters never overwrite each other. Variant counts live in
// their own table because adding into a JSON map is not portable.

func (t *tx) AddClientMetrics(ctx context.Context, ms []store.ClientMetric) error {
	if len(ms) == 0 {
		return nil
	}
	counts, variants := metricRows(ms, func(m store.ClientMetric) time.Time { return utc(m.Hour).Truncate(time.Hour) })
	return t.guard(ctx, func() error {
		return t.addMetricRows(ctx, "client_metrics", "client_metrics_variants", "hour_start", counts, variants)
	})
}

// metricRows merges ms by key (period gives each its hour or day) and
// returns the rows of the counts and variants tables in key order: a
// multi-row upsert may not touch one row twice, and concurrent writers
// that lock rows in one order cannot deadlock each other.
func metricRows(ms []store.ClientMetric, period func(store.ClientMetric) time.Time) (counts, variants [][]any) {
	type total struct {
		at       time.Time
		yes, no  int64
		variants map[string]int64
	}
	merged := make(map[metricKey]*total, len(ms))
	keys := make([]metricKey, 0, len(ms))
	for _, m := range ms {
		at := period(m)
		k := metricKey{m.Feature, m.AppName, m.Environment, at.UnixMicro()}
		cur := merged[k]
		if cur == nil {
			cur = &total{at: at}
			merged[k] = cur
			keys = append(keys, k)
		}
		cur.yes += m.Yes
		cur.no += m.No
		for name, n := range m.Variants {
			if cur.variants == nil {
				cur.variants = map[string]int64{}
			}
			cur.variants[name] += n
		}
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i].less(keys[j]) })
	counts = make([][]any, 0, len(keys))
	for _, k := range keys {
		c := merged[k]
		counts = append(counts, []any{k.feature, k.app, k.env, timeArg(c.at), c.yes, c.no})
		names := make([]string, 0, len(c.variants))
		for name := range c.variants {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			variants = append(variants, []any{k.feature, k.app, k.env, timeArg(c.at), name, c.variants[name]})
		}
	}
	return counts, variants
}

// addMetricRows adds rows made by metricRows into a counts table and its
// variants table, whose period column is col.
func (t *tx) addMetricRows(ctx context.Context, table, variantTable, col string, counts, variants [][]any) error {
	err := t.insertRows(ctx, table+` (feature_name, app_name, environment, `+col+`, yes_count, no_count)`,
		`ON CONFLICT (feature_name, app_name, environment, `+col+`) DO UPDATE SET
			yes_count = `+table+`.yes_count + excluded.yes_count,
			no_count = `+table+`.no_count + excluded.no_count`, counts)
	if err != nil {
		return adapt(err, "client metrics", nil)
	}
	err = t.insertRows(ctx, variantTable+` (feature_name, app_name, environment, `+col+`, variant, hits)`,
		`ON CONFLICT (feature_name, app_name, environment, `+col+`, variant) DO UPDATE SET
			hits = `+variantTable+`.hits + excluded.hits`, variants)
	return adapt(err, "client metrics", nil)
}

// metricsWhere builds the condition of f for either metrics table.
func metricsWhere(f store.ClientMetricsFilter, col string, since time.Time) (string, []any) {
	var where []string
	var args []any
	for _, c := range []struct{ col, val string }{
		{"feature_name", f.Feature}, {"app_name", f.AppName}, {"environment", f.Environment},
	} {
		if c.val != "" {
			where, args = append(where, c.col+" = ?"), append(args, c.val)
		}
	}
	if !since.IsZero() {
		where, args = append(where, col+" >= ?"), append(args, timeArg(since))
	}
	if len(where) == 0 {
		return "", nil
	}
	return " WHERE " + strings.Join(where, " AND "), args
}

type metricKey struct {
	feature, app, env string
	hour              int64
}

func (a metricKey) less(b metricKey) bool {
	switch {
	case a.feature != b.feature:
		return a.feature < b.feature
	case a.app != b.app:
		return a.app < b.app
	case a.env != b.env:
		return a.env < b.env
	}
	return a.hour < b.hour
}

func (t *tx) ListClientMetrics(ctx context.Context, f store.ClientMetricsFilter) ([]store.ClientMetric, error) {
	return t.listMetrics(ctx, "client_metrics", "client_metrics_variants", "hour_start", f, f.Since)
}

func (t *tx) ListClientMetricsDaily(ctx context.Context, f store.ClientMetricsFilter) ([]store.ClientMetric, error) {
	since := f.Since
	if !since.IsZero() {
		since = utc(since).Truncate(day)
	}
	return t.listMetrics(ctx, "client_metrics_daily", "client_metrics_daily_variants", "day_start", f, since)
}

// day is one UTC day: Truncate(day) gives its start, as Unix time counts
// no leap seconds.
const day = 24 * time.Hour

func (t *tx) listMetrics(ctx context.Context, table, variantTable, col string, f store.ClientMetricsFilter, since time.Time) ([]store.ClientMetric, error) {
	cond, args := metricsWhere(f, col, since)
	rows, err := t.query(ctx, `SELECT feature_name, app_name, environment, `+col+`, yes_count, no_count
		FROM `+table+cond, args...)
	list, err := collect(rows, err, func(r scanner) (store.ClientMetric, error) {
		var m store.ClientMetric
		err := r.Scan(&m.Feature, &m.AppName, &m.Environment, timeCol{&m.Hour}, &m.Yes, &m.No)
		m.Variants = map[string]int64{}
		return m, err
	})
	if err != nil {
		return nil, err
	}
	index := make(map[metricKey]int, len(list))
	for i, m := range list {
		index[metricKey{m.Feature, m.AppName, m.Environment, m.Hour.Unix()}] = i
	}
	rows, err = t.query(ctx, `SELECT feature_name, app_name, environment, `+col+`, variant, hits
		FROM `+variantTable+cond, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var k metricKey
		var hour time.Time
		var name string
		var n int64
		if err := rows.Scan(&k.feature, &k.app, &k.env, timeCol{&hour}, &name, &n); err != nil {
			return nil, err
		}
		k.hour = hour.Unix()
		if i, ok := index[k]; ok {
			list[i].Variants[name] = n
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	// Sorted in Go: SQLite compares the hour as text, which is right only
	// because every hour is written by the same formatter; sorting here does
	// not depend on that.
	sort.Slice(list, func(i, j int) bool {
		a, b := list[i], list[j]
		switch {
		case !a.Hour.Equal(b.Hour):
			return a.Hour.Before(b.Hour)
		case a.Feature != b.Feature:
			return a.Feature < b.Feature
		case a.AppName != b.AppName:
			return a.AppName < b.AppName
		}
		return a.Environment < b.Environment
	})
	return list, nil
}

func (t *tx) DeleteClientMetrics(ctx context.Context, before time.Time) (int, error) {
	var n int64
	err := t.guard(ctx, func() error {
		if _, err := t.exec(ctx, `DELETE FROM client_metrics_variants WHERE hour_start < ?`, timeArg(before)); err != nil {
			return adapt(err, "old client metrics", nil)
		}
		res, err := t.exec(ctx, `DELETE FROM client_metrics WHERE hour_start < ?`, timeArg(before))
		if err != nil {
			return adapt(err, "old client metrics", nil)
		}
		n, err = res.RowsAffected()
		return err
	})
	return int(n), err
}
