package sqlstore

import (
	"context"
	"database/sql"
	"slices"
	"strings"

	"github.com/signalbox/signalbox/clientapi"
	"github.com/signalbox/signalbox/store"
)

// GetClientState reads everything the client API serves for one environment
// with a fixed number of queries, whatever the number of features, and
// joins the rows in Go.
func (t *tx) GetClientState(ctx context.Context, environment string) (store.ClientState, error) {
	st := store.ClientState{Environment: environment, Features: []store.ClientFeature{}, Segments: []clientapi.Segment{}}
	// The revision is read first: if a write commits while we read, the
	// payload is newer than its revision, never older, so a cache keyed by
	// revision is at worst refreshed once more.
	rev, err := t.Revision(ctx)
	if err != nil {
		return st, err
	}
	st.Revision = rev
	if _, err := t.GetEnvironment(ctx, environment); err != nil {
		return st, err
	}

	if st.Features, err = t.clientFeatures(ctx, environment, nil); err != nil {
		return st, err
	}
	st.Segments, err = t.clientSegments(ctx)
	return st, err
}

// clientFeatures reads the non-archived features the client API serves in
// environment, ordered by name: those named in only, or all when only is
// nil.
func (t *tx) clientFeatures(ctx context.Context, environment string, only []string) ([]store.ClientFeature, error) {
	q, args := `
		SELECT f.name, f.type, f.description, f.project_id, f.stale, f.impression_data,
			fe.enabled, fe.variants, pe.environment
		FROM features f
		LEFT JOIN feature_environments fe ON fe.feature_name = f.name AND fe.environment = ?
		LEFT JOIN project_environments pe ON pe.project_id = f.project_id AND pe.environment = ?
		WHERE f.archived_at IS NULL`, []any{environment, environment}
	var names nameFilter
	if only != nil {
		if len(only) == 0 {
			return []store.ClientFeature{}, nil
		}
		names.list, names.args = inList(only)
		q, args = q+` AND f.name IN (`+names.list+`)`, append(args, names.args...)
	}
	rows, err := t.query(ctx, q+` ORDER BY f.name`, args...)
	features, err := collect(rows, err, scanClientFeature)
	if err != nil {
		return nil, err
	}
	// In byte order whatever the database's collation, so that a state
	// and the changes to it merge by name (store.ClientState.With).
	slices.SortFunc(features, func(a, b store.ClientFeature) int { return strings.Compare(a.Name, b.Name) })
	index := make(map[string]*store.ClientFeature, len(features))
	for i := range features {
		index[features[i].Name] = &features[i]
	}
	if err := t.addClientStrategies(ctx, environment, names, index); err != nil {
		return nil, err
	}
	if err := t.addClientDependencies(ctx, names, index); err != nil {
		return nil, err
	}
	if err := t.addClientTags(ctx, names, index); err != nil {
		return nil, err
	}
	return nonNil(features), nil
}

// nameFilter restricts the reads of clientFeatures to some features: list
// is their placeholders and args their names; an empty list reads all.
type nameFilter struct {
	list string
	args []any
}

// where adds "col IN (names)" to a condition, unless the filter is empty.
func (n nameFilter) where(col string, where []string, args []any) ([]string, []any) {
	if n.list == "" {
		return where, args
	}
	return append(where, col+` IN (`+n.list+`)`), append(args, n.args...)
}

func (t *tx) clientSegments(ctx context.Context) ([]clientapi.Segment, error) {
	segments, err := t.ListSegments(ctx, store.SegmentFilter{})
	if err != nil {
		return nil, err
	}
	out := make([]clientapi.Segment, 0, len(segments))
	for _, s := range segments {
		out = append(out, clientapi.Segment{ID: s.ID, Name: s.Name, Constraints: s.Constraints})
	}
	return out, nil
}

func scanClientFeature(r scanner) (store.ClientFeature, error) {
	var f store.ClientFeature
	var enabled sql.NullBool
	var projectEnv sql.NullString
	err := r.Scan(&f.Name, &f.Type, &f.Description, &f.Project, &f.Stale, &f.ImpressionData,
		&enabled, jsonCol{&f.Variants}, &projectEnv)
	// A flag is served as on only where its project has the environment:
	// disabling an environment for a project switches its flags off there
	// without losing their settings.
	f.Enabled = enabled.Bool && projectEnv.Valid
	f.Variants = nonNil(f.Variants)
	f.Strategies = []clientapi.Strategy{}
	f.Tags = []store.Tag{}
	return f, err
}

func (t *tx) addClientStrategies(ctx context.Context, env string, names nameFilter, index map[string]*store.ClientFeature) error {
	where := []string{"s.environment = ?", "s.disabled = FALSE",
		"EXISTS (SELECT 1 FROM features f WHERE f.name = s.feature_name AND f.archived_at IS NULL)"}
	where, args := names.where("s.feature_name", where, []any{env})
	strategies, err := t.listStrategies(ctx, where, args)
	if err != nil {
		return err
	}
	for _, s := range strategies {
		f := index[s.Feature]
		if f == nil {
			continue
		}
		order := s.SortOrder
		cs := clientapi.Strategy{
			ID: s.ID, Name: s.Name, SortOrder: &order, Constraints: s.Constraints,
			Parameters: s.Parameters, Variants: s.Variants,
		}
		if len(s.Segments) > 0 {
			cs.Segments = s.Segments
		}
		f.Strategies = append(f.Strategies, cs)
	}
	return nil
}

func (t *tx) addClientDependencies(ctx context.Context, names nameFilter, index map[string]*store.ClientFeature) error {
	where, args := names.where("child", nil, nil)
	q := `SELECT child, parent, enabled, variants FROM feature_dependencies`
	if len(where) > 0 {
		q += ` WHERE ` + where[0]
	}
	rows, err := t.query(ctx, q+` ORDER BY child, parent`, args...)
	deps, err := collect(rows, err, scanDependency)
	if err != nil {
		return err
	}
	for _, d := range deps {
		f := index[d.Child]
		if f == nil {
			continue
		}
		enabled := d.Enabled
		cd := clientapi.Dependency{Feature: d.Parent, Enabled: &enabled}
		if len(d.Variants) > 0 {
			cd.Variants = d.Variants
		}
		f.Dependencies = append(f.Dependencies, cd)
	}
	return nil
}

func (t *tx) addClientTags(ctx context.Context, names nameFilter, index map[string]*store.ClientFeature) error {
	where, args := names.where("feature_name", nil, nil)
	q := `SELECT feature_name, tag_type, tag_value FROM feature_tags`
	if len(where) > 0 {
		q += ` WHERE ` + where[0]
	}
	rows, err := t.query(ctx, q+` ORDER BY feature_name, tag_type, tag_value`, args...)
	tags, err := collect(rows, err, scanFeatureTag)
	if err != nil {
		return err
	}
	for _, ft := range tags {
		if f := index[ft.Feature]; f != nil {
			f.Tags = append(f.Tags, ft.Tag)
		}
	}
	return nil
}
