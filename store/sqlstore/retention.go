package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/signalbox/signalbox/store"
)

// PruneClientData rolls up and deletes at most one expired hour of hourly
// metrics per call, so that each Operate stays short even with a long
// backlog; report.More asks for another call. Rolling up exactly the rows
// its own DELETE returned makes it safe on several servers: a second
// server deleting the same hour gets no rows back and adds nothing.
func (t *tx) PruneClientData(ctx context.Context, r store.ClientRetention) (store.PruneReport, error) {
	var rep store.PruneReport
	err := t.guard(ctx, func() error {
		now := utc(r.Now)
		if r.Hourly > 0 {
			if err := t.rollUpOldestHour(ctx, now.Add(-r.Hourly).Truncate(time.Hour), &rep); err != nil {
				return fmt.Errorf("rolling up client metrics: %w", err)
			}
		}
		if r.Daily > 0 {
			cut := timeArg(now.Add(-r.Daily).Truncate(day))
			if _, err := t.exec(ctx, `DELETE FROM client_metrics_daily_variants WHERE day_start < ?`, cut); err != nil {
				return fmt.Errorf("deleting daily client metrics: %w", err)
			}
			n, err := t.deleted(ctx, `DELETE FROM client_metrics_daily WHERE day_start < ?`, cut)
			if err != nil {
				return fmt.Errorf("deleting daily client metrics: %w", err)
			}
			rep.Days = n
		}
		if r.Instances > 0 {
			cut := timeArg(now.Add(-r.Instances))
			n, err := t.deleted(ctx, `DELETE FROM client_instances WHERE last_seen < ?`, cut)
			if err != nil {
				return fmt.Errorf("deleting stale client instances: %w", err)
			}
			rep.Instances = n
			// SeenAt moves with every registration, so an application an
			// SDK registers again while this runs is kept.
			n, err = t.deleted(ctx, `DELETE FROM client_applications
				WHERE created_by_sdk = TRUE AND (seen_at IS NULL OR seen_at < ?)
				AND NOT EXISTS (SELECT 1 FROM client_instances i WHERE i.app_name = client_applications.app_name)`, cut)
			if err != nil {
				return fmt.Errorf("deleting client applications without instances: %w", err)
			}
			rep.Applications = n
		}
		return nil
	})
	return rep, err
}

// deleted runs a DELETE and returns how many rows it removed.
func (t *tx) deleted(ctx context.Context, q string, args ...any) (int, error) {
	res, err := t.exec(ctx, q, args...)
	if err != nil {
		return 0, err
	}
	n, err := res.RowsAffected()
	return int(n), err
}

// rollUpOldestHour deletes the oldest hour of hourly metrics that started
// before cut and adds its counts to the daily totals.
func (t *tx) rollUpOldestHour(ctx context.Context, cut time.Time, rep *store.PruneReport) error {
	var hour time.Time
	found := false
	for _, table := range []string{"client_metrics", "client_metrics_variants"} {
		var h time.Time
		err := t.queryRow(ctx, `SELECT hour_start FROM `+table+` WHERE hour_start < ? ORDER BY hour_start LIMIT 1`,
			timeArg(cut)).Scan(timeCol{&h})
		switch {
		case errors.Is(err, sql.ErrNoRows):
			continue
		case err != nil:
			return err
		}
		if !found || h.Before(hour) {
			hour, found = h, true
		}
	}
	if !found {
		return nil
	}
	dayStart := utc(hour).Truncate(day)
	byDay := func(store.ClientMetric) time.Time { return dayStart }
	rows, err := t.query(ctx, `DELETE FROM client_metrics WHERE hour_start = ?
		RETURNING feature_name, app_name, environment, yes_count, no_count`, timeArg(hour))
	ms, err := collect(rows, err, func(r scanner) (store.ClientMetric, error) {
		var m store.ClientMetric
		return m, r.Scan(&m.Feature, &m.AppName, &m.Environment, &m.Yes, &m.No)
	})
	if err != nil {
		return err
	}
	rows, err = t.query(ctx, `DELETE FROM client_metrics_variants WHERE hour_start = ?
		RETURNING feature_name, app_name, environment, variant, hits`, timeArg(hour))
	vs, err := collect(rows, err, func(r scanner) (store.ClientMetric, error) {
		var m store.ClientMetric
		var name string
		var n int64
		err := r.Scan(&m.Feature, &m.AppName, &m.Environment, &name, &n)
		m.Variants = map[string]int64{name: n}
		return m, err
	})
	if err != nil {
		return err
	}
	counts, _ := metricRows(ms, byDay)
	_, variants := metricRows(vs, byDay)
	if err := t.addMetricRows(ctx, "client_metrics_daily", "client_metrics_daily_variants", "day_start", counts, variants); err != nil {
		return err
	}
	rep.Hours = len(ms)
	// Another call goes on with the next hour, if any is left.
	var more int
	if err := t.queryRow(ctx, `SELECT COUNT(*) FROM (SELECT 1 FROM client_metrics WHERE hour_start < ? LIMIT 1) x`, timeArg(cut)).Scan(&more); err != nil {
		return err
	}
	rep.More = more > 0
	return nil
}
