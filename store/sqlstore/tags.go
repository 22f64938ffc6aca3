package sqlstore

import (
	"context"
	"fmt"

	"github.com/signalbox/signalbox/internal/apierr"
	"github.com/signalbox/signalbox/store"
)

func scanTagType(r scanner) (store.TagType, error) {
	var tt store.TagType
	return tt, r.Scan(&tt.Name, &tt.Description, &tt.Icon)
}

func tagTypeSubject(name string) string { return fmt.Sprintf("tag type %q", name) }

func (t *tx) GetTagType(ctx context.Context, name string) (store.TagType, error) {
	tt, err := scanTagType(t.queryRow(ctx, `SELECT name, description, icon FROM tag_types WHERE name = ?`, name))
	return tt, adapt(err, tagTypeSubject(name), nil)
}

func (t *tx) ListTagTypes(ctx context.Context) ([]store.TagType, error) {
	rows, err := t.query(ctx, `SELECT name, description, icon FROM tag_types ORDER BY name`)
	return collect(rows, err, scanTagType)
}

func (t *tx) CreateTagType(ctx context.Context, tt store.TagType) (store.TagType, error) {
	err := t.write(ctx, func() error {
		_, err := t.exec(ctx, `INSERT INTO tag_types (name, description, icon) VALUES (?, ?, ?)`, tt.Name, tt.Description, tt.Icon)
		return adapt(err, tagTypeSubject(tt.Name), nil)
	})
	if err != nil {
		return store.TagType{}, err
	}
	return t.GetTagType(ctx, tt.Name)
}

func (t *tx) UpdateTagType(ctx context.Context, tt store.TagType) (store.TagType, error) {
	err := t.write(ctx, func() error {
		res, err := t.exec(ctx, `UPDATE tag_types SET description = ?, icon = ? WHERE name = ?`, tt.Description, tt.Icon, tt.Name)
		return affected(res, err, tagTypeSubject(tt.Name), nil)
	})
	if err != nil {
		return store.TagType{}, err
	}
	return t.GetTagType(ctx, tt.Name)
}

func (t *tx) DeleteTagType(ctx context.Context, name string) error {
	return t.write(ctx, func() error {
		res, err := t.exec(ctx, `DELETE FROM tag_types WHERE name = ?`, name)
		return affected(res, err, tagTypeSubject(name), nil)
	})
}

func scanFeatureTag(r scanner) (store.FeatureTag, error) {
	var ft store.FeatureTag
	return ft, r.Scan(&ft.Feature, &ft.Type, &ft.Value)
}

func (t *tx) ListFeatureTags(ctx context.Context, feature string) ([]store.FeatureTag, error) {
	if feature == "" {
		rows, err := t.query(ctx, `SELECT feature_name, tag_type, tag_value FROM feature_tags
			ORDER BY feature_name, tag_type, tag_value`)
		return collect(rows, err, scanFeatureTag)
	}
	if _, err := t.GetFeature(ctx, feature); err != nil {
		return nil, err
	}
	rows, err := t.query(ctx, `SELECT feature_name, tag_type, tag_value FROM feature_tags
		WHERE feature_name = ? ORDER BY tag_type, tag_value`, feature)
	return collect(rows, err, scanFeatureTag)
}

func (t *tx) ListTags(ctx context.Context, tagType string) ([]store.Tag, error) {
	q, args := `SELECT DISTINCT tag_type, tag_value FROM feature_tags`, []any{}
	if tagType != "" {
		q, args = q+` WHERE tag_type = ?`, append(args, tagType)
	}
	rows, err := t.query(ctx, q+` ORDER BY tag_type, tag_value`, args...)
	return collect(rows, err, func(r scanner) (store.Tag, error) {
		var tag store.Tag
		return tag, r.Scan(&tag.Type, &tag.Value)
	})
}

func featureTagSubject(ft store.FeatureTag) string {
	return fmt.Sprintf("tag %s:%s on feature %q", ft.Type, ft.Value, ft.Feature)
}

func (t *tx) CreateFeatureTag(ctx context.Context, ft store.FeatureTag) (bool, error) {
	var created bool
	err := t.guard(ctx, func() error {
		// DO NOTHING: tagging twice is not an error (Unleash answers 201
		// again), but nothing changed either.
		res, err := t.exec(ctx, `INSERT INTO feature_tags (feature_name, tag_type, tag_value, created_at)
			VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING`, ft.Feature, ft.Type, ft.Value, timeArg(t.now()))
		if err != nil {
			return adapt(err, featureTagSubject(ft),
				apierr.New(apierr.NotFound, "feature %q or tag type %q not found", ft.Feature, ft.Type))
		}
		n, err := res.RowsAffected()
		created = n > 0
		return err
	})
	if created {
		t.dirty = true
	}
	return created, err
}

func (t *tx) DeleteFeatureTag(ctx context.Context, ft store.FeatureTag) error {
	return t.write(ctx, func() error {
		res, err := t.exec(ctx, `DELETE FROM feature_tags WHERE feature_name = ? AND tag_type = ? AND tag_value = ?`,
			ft.Feature, ft.Type, ft.Value)
		return affected(res, err, featureTagSubject(ft), nil)
	})
}
