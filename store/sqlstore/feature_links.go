package sqlstore

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/signalbox/signalbox/internal/apierr"
	"github.com/signalbox/signalbox/store"
)

const featureLinkCols = `id, feature_name, url, title, created_at`

func scanFeatureLink(r scanner) (store.FeatureLink, error) {
	var l store.FeatureLink
	var title sql.NullString
	err := r.Scan(&l.ID, &l.Feature, &l.URL, &title, timeCol{&l.CreatedAt})
	l.Title = title.String
	return l, err
}

func featureLinkSubject(feature, id string) string {
	return fmt.Sprintf("link %q of feature %q", id, feature)
}

func (t *tx) ListFeatureLinks(ctx context.Context, feature string) ([]store.FeatureLink, error) {
	if feature == "" {
		rows, err := t.query(ctx, `SELECT `+featureLinkCols+` FROM feature_links ORDER BY feature_name, created_at, id`)
		return collect(rows, err, scanFeatureLink)
	}
	rows, err := t.query(ctx, `SELECT `+featureLinkCols+` FROM feature_links WHERE feature_name = ? ORDER BY created_at, id`, feature)
	return collect(rows, err, scanFeatureLink)
}

func (t *tx) getFeatureLink(ctx context.Context, feature, id string) (store.FeatureLink, error) {
	l, err := scanFeatureLink(t.queryRow(ctx, `SELECT `+featureLinkCols+` FROM feature_links WHERE feature_name = ? AND id = ?`, feature, id))
	return l, adapt(err, featureLinkSubject(feature, id), nil)
}

func (t *tx) CreateFeatureLink(ctx context.Context, l store.FeatureLink) (store.FeatureLink, error) {
	if l.CreatedAt.IsZero() {
		l.CreatedAt = t.now()
	}
	err := t.write(ctx, func() error {
		_, err := t.exec(ctx, `INSERT INTO feature_links (id, feature_name, url, title, created_at) VALUES (?, ?, ?, ?, ?)`,
			l.ID, l.Feature, l.URL, nullIfEmpty(l.Title), timeArg(l.CreatedAt))
		return adapt(err, featureLinkSubject(l.Feature, l.ID), apierr.New(apierr.NotFound, "feature %q not found", l.Feature))
	})
	if err != nil {
		return store.FeatureLink{}, err
	}
	return t.getFeatureLink(ctx, l.Feature, l.ID)
}

func (t *tx) UpdateFeatureLink(ctx context.Context, l store.FeatureLink) (store.FeatureLink, error) {
	err := t.write(ctx, func() error {
		res, err := t.exec(ctx, `UPDATE feature_links SET url = ?, title = ? WHERE feature_name = ? AND id = ?`,
			l.URL, nullIfEmpty(l.Title), l.Feature, l.ID)
		return affected(res, err, featureLinkSubject(l.Feature, l.ID), nil)
	})
	if err != nil {
		return store.FeatureLink{}, err
	}
	return t.getFeatureLink(ctx, l.Feature, l.ID)
}

func (t *tx) DeleteFeatureLink(ctx context.Context, feature, id string) error {
	return t.write(ctx, func() error {
		res, err := t.exec(ctx, `DELETE FROM feature_links WHERE feature_name = ? AND id = ?`, feature, id)
		return affected(res, err, featureLinkSubject(feature, id), nil)
	})
}
