package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/signalbox/signalbox/internal/apierr"
	"github.com/signalbox/signalbox/store"
)

// A feature environment without a row is disabled with no variants, so
// rows are read with LEFT JOINs and created on first update.

func scanFeatureEnvironment(r scanner) (store.FeatureEnvironment, error) {
	var fe store.FeatureEnvironment
	var enabled sql.NullBool
	err := r.Scan(&fe.Feature, &fe.Environment, &enabled, jsonCol{&fe.Variants}, nullTimeCol{&fe.LastSeenAt})
	fe.Enabled = enabled.Bool
	fe.Variants = nonNil(fe.Variants)
	return fe, err
}

func featureEnvSubject(feature, env string) string {
	return fmt.Sprintf("feature %q in environment %q", feature, env)
}

func (t *tx) GetFeatureEnvironment(ctx context.Context, feature, environment string) (store.FeatureEnvironment, error) {
	fe, err := scanFeatureEnvironment(t.queryRow(ctx, `
		SELECT f.name, e.name, fe.enabled, fe.variants, fe.last_seen_at
		FROM features f CROSS JOIN environments e
		LEFT JOIN feature_environments fe ON fe.feature_name = f.name AND fe.environment = e.name
		WHERE f.name = ? AND e.name = ?`, feature, environment))
	return fe, adapt(err, featureEnvSubject(feature, environment), nil)
}

func (t *tx) ListFeatureEnvironments(ctx context.Context, feature string) ([]store.FeatureEnvironment, error) {
	if _, err := t.GetFeature(ctx, feature); err != nil {
		return nil, err
	}
	rows, err := t.query(ctx, `
		SELECT f.name, pe.environment, fe.enabled, fe.variants, fe.last_seen_at
		FROM features f
		JOIN project_environments pe ON pe.project_id = f.project_id
		JOIN environments e ON e.name = pe.environment
		LEFT JOIN feature_environments fe ON fe.feature_name = f.name AND fe.environment = pe.environment
		WHERE f.name = ?
		ORDER BY e.sort_order, e.name`, feature)
	return collect(rows, err, scanFeatureEnvironment)
}

func (t *tx) UpdateFeatureEnvironment(ctx context.Context, fe store.FeatureEnvironment) (store.FeatureEnvironment, error) {
	variants, err := jsonArg(nonNil(fe.Variants))
	if err != nil {
		return store.FeatureEnvironment{}, apierr.Wrap(apierr.BadData, err, "variants cannot be stored")
	}
	err = t.write(ctx, func() error {
		_, err := t.exec(ctx, `INSERT INTO feature_environments (feature_name, environment, enabled, variants)
			VALUES (?, ?, ?, ?)
			ON CONFLICT (feature_name, environment) DO UPDATE SET enabled = excluded.enabled, variants = excluded.variants`,
			fe.Feature, fe.Environment, fe.Enabled, variants)
		return adapt(err, featureEnvSubject(fe.Feature, fe.Environment),
			apierr.New(apierr.NotFound, "feature %q or environment %q not found", fe.Feature, fe.Environment))
	})
	if err != nil {
		return store.FeatureEnvironment{}, err
	}
	return t.GetFeatureEnvironment(ctx, fe.Feature, fe.Environment)
}

// chunk is how many values go into one IN list; well under both databases'
// limits on bound parameters.
const chunk = 500

func (t *tx) MarkFeaturesSeen(ctx context.Context, environment string, features []string, at time.Time) error {
	return t.guard(ctx, func() error {
		for len(features) > 0 {
			n := min(len(features), chunk)
			list, names := inList(features[:n])
			features = features[n:]
			args := append([]any{timeArg(at)}, names...)
			if _, err := t.exec(ctx, `UPDATE features SET last_seen_at = ? WHERE name IN (`+list+`)`, args...); err != nil {
				return fmt.Errorf("marking features seen: %w", err)
			}
			if environment == "" {
				continue
			}
			// The WHERE clause is required: without it SQLite cannot parse
			// INSERT … SELECT … ON CONFLICT.
			args = append(args, environment)
			if _, err := t.exec(ctx, `INSERT INTO feature_environments (feature_name, environment, last_seen_at)
				SELECT f.name, e.name, ? FROM features f CROSS JOIN environments e
				WHERE f.name IN (`+list+`) AND e.name = ?
				ON CONFLICT (feature_name, environment) DO UPDATE SET last_seen_at = excluded.last_seen_at`, args...); err != nil {
				return fmt.Errorf("marking features seen: %w", err)
			}
		}
		return nil
	})
}
