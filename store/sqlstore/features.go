package sqlstore

import (
	"context"
	"fmt"
	"strings"

	"github.com/signalbox/signalbox/internal/apierr"
	"github.com/signalbox/signalbox/store"
)

const featureCols = `name, project_id, type, description, stale, impression_data, created_at, created_by, archived_at, last_seen_at`

func scanFeature(r scanner) (store.Feature, error) {
	var f store.Feature
	err := r.Scan(&f.Name, &f.Project, &f.Type, &f.Description, &f.Stale, &f.ImpressionData,
		timeCol{&f.CreatedAt}, &f.CreatedBy, nullTimeCol{&f.ArchivedAt}, nullTimeCol{&f.LastSeenAt})
	return f, err
}

func featureSubject(name string) string { return fmt.Sprintf("feature %q", name) }

func (t *tx) GetFeature(ctx context.Context, name string) (store.Feature, error) {
	f, err := scanFeature(t.queryRow(ctx, `SELECT `+featureCols+` FROM features WHERE name = ?`, name))
	return f, adapt(err, featureSubject(name), nil)
}

func (t *tx) ListFeatures(ctx context.Context, f store.FeatureFilter) ([]store.Feature, error) {
	var where []string
	var args []any
	if f.Project != "" {
		where, args = append(where, "project_id = ?"), append(args, f.Project)
	}
	if f.Archived != nil {
		if *f.Archived {
			where = append(where, "archived_at IS NOT NULL")
		} else {
			where = append(where, "archived_at IS NULL")
		}
	}
	if f.NamePrefix != "" {
		// substr, not LIKE: LIKE would need escaping and ignores case in
		// SQLite.
		where = append(where, "substr(name, 1, ?) = ?")
		args = append(args, len([]rune(f.NamePrefix)), f.NamePrefix)
	}
	if f.Type != "" {
		where, args = append(where, "type = ?"), append(args, f.Type)
	}
	if f.Names != nil {
		if len(f.Names) == 0 {
			return []store.Feature{}, nil
		}
		list, vals := inList(f.Names)
		where, args = append(where, "name IN ("+list+")"), append(args, vals...)
	}
	if f.Tag != nil {
		where = append(where, "EXISTS (SELECT 1 FROM feature_tags ft WHERE ft.feature_name = features.name AND ft.tag_type = ? AND ft.tag_value = ?)")
		args = append(args, f.Tag.Type, f.Tag.Value)
	}
	q := `SELECT ` + featureCols + ` FROM features`
	if len(where) > 0 {
		q += ` WHERE ` + strings.Join(where, " AND ")
	}
	rows, err := t.query(ctx, q+` ORDER BY name`, args...)
	return collect(rows, err, scanFeature)
}

func (t *tx) CreateFeature(ctx context.Context, f store.Feature) (store.Feature, error) {
	if f.CreatedAt.IsZero() {
		f.CreatedAt = t.now()
	}
	err := t.write(ctx, func() error {
		_, err := t.exec(ctx, `INSERT INTO features (`+featureCols+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			f.Name, f.Project, f.Type, f.Description, f.Stale, f.ImpressionData,
			timeArg(f.CreatedAt), f.CreatedBy, timePtrArg(f.ArchivedAt), timePtrArg(f.LastSeenAt))
		return adapt(err, featureSubject(f.Name), featureRefErr(f))
	})
	if err != nil {
		return store.Feature{}, err
	}
	return t.GetFeature(ctx, f.Name)
}

func featureRefErr(f store.Feature) *apierr.Error {
	return apierr.New(apierr.NotFound, "project %q or flag type %q not found", f.Project, f.Type)
}

func (t *tx) UpdateFeature(ctx context.Context, f store.Feature) (store.Feature, error) {
	err := t.write(ctx, func() error {
		res, err := t.exec(ctx, `UPDATE features SET project_id = ?, type = ?, description = ?, stale = ?,
			impression_data = ?, archived_at = ? WHERE name = ?`,
			f.Project, f.Type, f.Description, f.Stale, f.ImpressionData, timePtrArg(f.ArchivedAt), f.Name)
		return affected(res, err, featureSubject(f.Name), featureRefErr(f))
	})
	if err != nil {
		return store.Feature{}, err
	}
	return t.GetFeature(ctx, f.Name)
}

func (t *tx) DeleteFeature(ctx context.Context, name string) error {
	return t.write(ctx, func() error {
		res, err := t.exec(ctx, `DELETE FROM features WHERE name = ?`, name)
		return affected(res, err, featureSubject(name), nil)
	})
}

const featureTypeCols = `id, name, description, lifetime_days`

func scanFeatureType(r scanner) (store.FeatureType, error) {
	var ft store.FeatureType
	var days *int64
	err := r.Scan(&ft.ID, &ft.Name, &ft.Description, &days)
	if days != nil {
		n := int(*days)
		ft.LifetimeDays = &n
	}
	return ft, err
}

func featureTypeSubject(id string) string { return fmt.Sprintf("flag type %q", id) }

func (t *tx) GetFeatureType(ctx context.Context, id string) (store.FeatureType, error) {
	ft, err := scanFeatureType(t.queryRow(ctx, `SELECT `+featureTypeCols+` FROM feature_types WHERE id = ?`, id))
	return ft, adapt(err, featureTypeSubject(id), nil)
}

func (t *tx) ListFeatureTypes(ctx context.Context) ([]store.FeatureType, error) {
	rows, err := t.query(ctx, `SELECT `+featureTypeCols+` FROM feature_types ORDER BY id`)
	return collect(rows, err, scanFeatureType)
}

func (t *tx) UpdateFeatureType(ctx context.Context, ft store.FeatureType) (store.FeatureType, error) {
	err := t.write(ctx, func() error {
		res, err := t.exec(ctx, `UPDATE feature_types SET name = ?, description = ?, lifetime_days = ? WHERE id = ?`,
			ft.Name, ft.Description, ft.LifetimeDays, ft.ID)
		return affected(res, err, featureTypeSubject(ft.ID), nil)
	})
	if err != nil {
		return store.FeatureType{}, err
	}
	return t.GetFeatureType(ctx, ft.ID)
}
