package sqlstore

import (
	"context"
	"fmt"
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
	return t.guard(ctx, func() error {
		counts, err := t.tx.PrepareContext(ctx, t.d.rebind(`INSERT INTO client_metrics
			(feature_name, app_name, environment, hour_start, yes_count, no_count) VALUES (?, ?, ?, ?, ?, ?)
			ON CONFLICT (feature_name, app_name, environment, hour_start) DO UPDATE SET
				yes_count = client_metrics.yes_count + excluded.yes_count,
				no_count = client_metrics.no_count + excluded.no_count`))
		if err != nil {
			return fmt.Errorf("adding client metrics: %w", err)
		}
		defer counts.Close()
		variants, err := t.tx.PrepareContext(ctx, t.d.rebind(`INSERT INTO client_metrics_variants
			(feature_name, app_name, environment, hour_start, variant, hits) VALUES (?, ?, ?, ?, ?, ?)
			ON CONFLICT (feature_name, app_name, environment, hour_start, variant) DO UPDATE SET
				hits = client_metrics_variants.hits + excluded.hits`))
		if err != nil {
			return fmt.Errorf("adding client metrics: %w", err)
		}
		defer variants.Close()
		for _, m := range ms {
			hour := timeArg(utc(m.Hour).Truncate(time.Hour))
			if _, err := counts.ExecContext(ctx, m.Feature, m.AppName, m.Environment, hour, m.Yes, m.No); err != nil {
				return adapt(err, fmt.Sprintf("metrics of feature %q", m.Feature), nil)
			}
			for name, n := range m.Variants {
				if _, err := variants.ExecContext(ctx, m.Feature, m.AppName, m.Environment, hour, name, n); err != nil {
					return adapt(err, fmt.Sprintf("metrics of feature %q", m.Feature), nil)
				}
			}
		}
		return nil
	})
}

// metricsWhere builds the condition of f for either metrics table.
func metricsWhere(f store.ClientMetricsFilter) (string, []any) {
	var where []string
	var args []any
	for _, c := range []struct{ col, val string }{
		{"feature_name", f.Feature}, {"app_name", f.AppName}, {"environment", f.Environment},
	} {
		if c.val != "" {
			where, args = append(where, c.col+" = ?"), append(args, c.val)
		}
	}
	if !f.Since.IsZero() {
		where, args = append(where, "hour_start >= ?"), append(args, timeArg(f.Since))
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

func (t *tx) ListClientMetrics(ctx context.Context, f store.ClientMetricsFilter) ([]store.ClientMetric, error) {
	cond, args := metricsWhere(f)
	rows, err := t.query(ctx, `SELECT feature_name, app_name, environment, hour_start, yes_count, no_count
		FROM client_metrics`+cond, args...)
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
	rows, err = t.query(ctx, `SELECT feature_name, app_name, environment, hour_start, variant, hits
		FROM client_metrics_variants`+cond, args...)
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
