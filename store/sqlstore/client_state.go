package sqlstore

import (
	"context"
	"database/sql"

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

	rows, err := t.query(ctx, `
		SELECT f.name, f.type, f.description, f.project_id, f.stale, f.impression_data,
			fe.enabled, fe.variants, pe.environment
		FROM features f
		LEFT JOIN feature_environments fe ON fe.feature_name = f.name AND fe.environment = ?
		LEFT JOIN project_environments pe ON pe.project_id = f.project_id AND pe.environment = ?
		WHERE f.archived_at IS NULL
		ORDER BY f.name`, environment, environment)
	st.Features, err = collect(rows, err, scanClientFeature)
	if err != nil {
		return st, err
	}
	index := make(map[string]*store.ClientFeature, len(st.Features))
	for i := range st.Features {
		index[st.Features[i].Name] = &st.Features[i]
	}

	if err := t.addClientStrategies(ctx, environment, index); err != nil {
		return st, err
	}
	if err := t.addClientDependencies(ctx, index); err != nil {
		return st, err
	}
	if err := t.addClientTags(ctx, index); err != nil {
		return st, err
	}

	segments, err := t.ListSegments(ctx, store.SegmentFilter{})
	if err != nil {
		return st, err
	}
	for _, s := range segments {
		st.Segments = append(st.Segments, clientapi.Segment{ID: s.ID, Name: s.Name, Constraints: s.Constraints})
	}
	return st, nil
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

func (t *tx) addClientStrategies(ctx context.Context, env string, index map[string]*store.ClientFeature) error {
	where := []string{"s.environment = ?", "s.disabled = FALSE",
		"EXISTS (SELECT 1 FROM features f WHERE f.name = s.feature_name AND f.archived_at IS NULL)"}
	strategies, err := t.listStrategies(ctx, where, []any{env})
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

func (t *tx) addClientDependencies(ctx context.Context, index map[string]*store.ClientFeature) error {
	deps, err := t.ListDependencies(ctx, "")
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

func (t *tx) addClientTags(ctx context.Context, index map[string]*store.ClientFeature) error {
	tags, err := t.ListFeatureTags(ctx, "")
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
