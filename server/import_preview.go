package server

import (
	"context"
	"slices"
	"strconv"

	"github.com/signalbox/signalbox/clientapi"
	"github.com/signalbox/signalbox/internal/apierr"
	"github.com/signalbox/signalbox/store"
)

// importPreview is what a validation imports into: a read-only view of
// the store with the import's writes kept in memory, so that the import's
// later reads see its earlier writes as in a transaction (a parent created
// before its child's dependency is checked, a strategy list replaced
// before the flag is switched on) and nothing reaches the database. Only
// the writes an import makes are here (importWriter), and only the reads
// an import makes after them see them: flags, their strategies in one
// environment, states and variants, tags, dependencies, context fields
// and tag types.
type importPreview struct {
	store.Reader

	features   map[string]store.Feature // created or updated
	created    map[string]bool          // flags the import creates
	strategies map[envKey][]store.Strategy
	envs       map[envKey]store.FeatureEnvironment
	tags       map[string][]store.FeatureTag
	deps       map[string][]store.Dependency
	fields     map[string]store.ContextField
	tagTypes   map[string]store.TagType
	ids        int
}

// envKey is a flag in an environment.
type envKey struct{ feature, environment string }

func newImportPreview(rd store.Reader) *importPreview {
	return &importPreview{Reader: rd, features: map[string]store.Feature{}, created: map[string]bool{},
		strategies: map[envKey][]store.Strategy{}, envs: map[envKey]store.FeatureEnvironment{}, tags: map[string][]store.FeatureTag{},
		deps: map[string][]store.Dependency{}, fields: map[string]store.ContextField{}, tagTypes: map[string]store.TagType{}}
}

func (p *importPreview) GetFeature(ctx context.Context, name string) (store.Feature, error) {
	if f, ok := p.features[name]; ok {
		return f, nil
	}
	return p.Reader.GetFeature(ctx, name)
}

func (p *importPreview) CreateFeature(ctx context.Context, f store.Feature) (store.Feature, error) {
	if _, err := p.GetFeature(ctx, f.Name); err == nil {
		return f, apierr.New(apierr.NameExists, "a feature flag named %s already exists", f.Name)
	} else if !apierr.Is(err, apierr.NotFound) {
		return f, err
	}
	p.features[f.Name], p.created[f.Name] = f, true
	return f, nil
}

func (p *importPreview) UpdateFeature(ctx context.Context, f store.Feature) (store.Feature, error) {
	if _, err := p.GetFeature(ctx, f.Name); err != nil {
		return f, err
	}
	p.features[f.Name] = f
	return f, nil
}

// strategyList is the flag's strategies in env, the preview's once it has
// written any.
func (p *importPreview) strategyList(ctx context.Context, k envKey) ([]store.Strategy, error) {
	if list, ok := p.strategies[k]; ok {
		return list, nil
	}
	if p.created[k.feature] {
		return nil, nil
	}
	return p.Reader.ListStrategies(ctx, store.StrategyFilter{Feature: k.feature, Environment: k.environment})
}

// ListStrategies answers from the preview for one flag in one environment
// once the import has written its strategies there.
func (p *importPreview) ListStrategies(ctx context.Context, f store.StrategyFilter) ([]store.Strategy, error) {
	k := envKey{f.Feature, f.Environment}
	if _, ok := p.strategies[k]; ok && f == (store.StrategyFilter{Feature: f.Feature, Environment: f.Environment}) {
		return slices.Clone(p.strategies[k]), nil
	}
	return p.Reader.ListStrategies(ctx, f)
}

func (p *importPreview) CreateStrategy(ctx context.Context, s store.Strategy) (store.Strategy, error) {
	k := envKey{s.Feature, s.Environment}
	list, err := p.strategyList(ctx, k)
	if err != nil {
		return s, err
	}
	p.ids++
	s.ID = "preview-" + strconv.Itoa(p.ids)
	list = append(slices.Clone(list), s)
	slices.SortStableFunc(list, func(a, b store.Strategy) int { return a.SortOrder - b.SortOrder })
	p.strategies[k] = list
	return s, nil
}

// locate finds a strategy of the store or the preview by id.
func (p *importPreview) locate(ctx context.Context, id string) (envKey, int, []store.Strategy, error) {
	for k, list := range p.strategies {
		if i := slices.IndexFunc(list, func(s store.Strategy) bool { return s.ID == id }); i >= 0 {
			return k, i, list, nil
		}
	}
	st, err := p.Reader.GetStrategy(ctx, id)
	if err != nil {
		return envKey{}, 0, nil, err
	}
	k := envKey{st.Feature, st.Environment}
	if _, ok := p.strategies[k]; ok {
		// Replaced in the preview: the store's strategy is gone.
		return k, 0, nil, apierr.New(apierr.NotFound, "there is no strategy %s", id)
	}
	list, err := p.strategyList(ctx, k)
	if err != nil {
		return k, 0, nil, err
	}
	i := slices.IndexFunc(list, func(s store.Strategy) bool { return s.ID == id })
	if i < 0 {
		return k, 0, nil, apierr.New(apierr.NotFound, "there is no strategy %s", id)
	}
	return k, i, list, nil
}

func (p *importPreview) UpdateStrategy(ctx context.Context, s store.Strategy) (store.Strategy, error) {
	k, i, list, err := p.locate(ctx, s.ID)
	if err != nil {
		return s, err
	}
	list = slices.Clone(list)
	list[i] = s
	p.strategies[k] = list
	return s, nil
}

func (p *importPreview) DeleteStrategy(ctx context.Context, id string) error {
	k, i, list, err := p.locate(ctx, id)
	if err != nil {
		return err
	}
	p.strategies[k] = slices.Delete(slices.Clone(list), i, i+1)
	return nil
}

func (p *importPreview) GetFeatureEnvironment(ctx context.Context, feature, env string) (store.FeatureEnvironment, error) {
	if fe, ok := p.envs[envKey{feature, env}]; ok {
		return fe, nil
	}
	if p.created[feature] {
		if _, err := p.Reader.GetEnvironment(ctx, env); err != nil {
			return store.FeatureEnvironment{}, err
		}
		return store.FeatureEnvironment{Feature: feature, Environment: env, Variants: []clientapi.Variant{}}, nil
	}
	return p.Reader.GetFeatureEnvironment(ctx, feature, env)
}

func (p *importPreview) UpdateFeatureEnvironment(ctx context.Context, fe store.FeatureEnvironment) (store.FeatureEnvironment, error) {
	if _, err := p.GetFeatureEnvironment(ctx, fe.Feature, fe.Environment); err != nil {
		return fe, err
	}
	p.envs[envKey{fe.Feature, fe.Environment}] = fe
	return fe, nil
}

func (p *importPreview) ListFeatureTags(ctx context.Context, feature string) ([]store.FeatureTag, error) {
	if list, ok := p.tags[feature]; ok {
		return slices.Clone(list), nil
	}
	if p.created[feature] {
		return []store.FeatureTag{}, nil
	}
	return p.Reader.ListFeatureTags(ctx, feature)
}

func (p *importPreview) CreateFeatureTag(ctx context.Context, ft store.FeatureTag) (bool, error) {
	list, err := p.ListFeatureTags(ctx, ft.Feature)
	if err != nil {
		return false, err
	}
	if slices.ContainsFunc(list, func(x store.FeatureTag) bool { return x.Tag == ft.Tag }) {
		p.tags[ft.Feature] = list
		return false, nil
	}
	p.tags[ft.Feature] = append(list, ft)
	return true, nil
}

func (p *importPreview) DeleteFeatureTag(ctx context.Context, ft store.FeatureTag) error {
	list, err := p.ListFeatureTags(ctx, ft.Feature)
	if err != nil {
		return err
	}
	p.tags[ft.Feature] = slices.DeleteFunc(list, func(x store.FeatureTag) bool { return x.Tag == ft.Tag })
	return nil
}

func (p *importPreview) ListDependencies(ctx context.Context, child string) ([]store.Dependency, error) {
	if list, ok := p.deps[child]; ok {
		return slices.Clone(list), nil
	}
	if p.created[child] {
		return []store.Dependency{}, nil
	}
	return p.Reader.ListDependencies(ctx, child)
}

// ListChildren is the store's children of parent whose dependencies the
// preview has not replaced, and the preview's.
func (p *importPreview) ListChildren(ctx context.Context, parent string) ([]string, error) {
	var out []string
	if !p.created[parent] {
		stored, err := p.Reader.ListChildren(ctx, parent)
		if err != nil {
			return nil, err
		}
		for _, c := range stored {
			if _, replaced := p.deps[c]; !replaced {
				out = append(out, c)
			}
		}
	}
	for child, list := range p.deps {
		if slices.ContainsFunc(list, func(d store.Dependency) bool { return d.Parent == parent }) && !slices.Contains(out, child) {
			out = append(out, child)
		}
	}
	slices.Sort(out)
	return out, nil
}

func (p *importPreview) DeleteDependencies(ctx context.Context, child string) error {
	if _, err := p.GetFeature(ctx, child); err != nil {
		return err
	}
	p.deps[child] = []store.Dependency{}
	return nil
}

func (p *importPreview) CreateDependency(ctx context.Context, d store.Dependency) error {
	list, err := p.ListDependencies(ctx, d.Child)
	if err != nil {
		return err
	}
	list = slices.DeleteFunc(list, func(x store.Dependency) bool { return x.Parent == d.Parent })
	p.deps[d.Child] = append(list, d)
	return nil
}

func (p *importPreview) GetContextField(ctx context.Context, name string) (store.ContextField, error) {
	if c, ok := p.fields[name]; ok {
		return c, nil
	}
	return p.Reader.GetContextField(ctx, name)
}

func (p *importPreview) ListContextFields(ctx context.Context) ([]store.ContextField, error) {
	list, err := p.Reader.ListContextFields(ctx)
	if err != nil {
		return nil, err
	}
	for _, c := range p.fields {
		list = append(list, c)
	}
	return list, nil
}

func (p *importPreview) CreateContextField(ctx context.Context, c store.ContextField) (store.ContextField, error) {
	if _, err := p.GetContextField(ctx, c.Name); err == nil {
		return c, apierr.New(apierr.NameExists, "a context field named %s already exists", c.Name)
	} else if !apierr.Is(err, apierr.NotFound) {
		return c, err
	}
	p.fields[c.Name] = c
	return c, nil
}

func (p *importPreview) GetTagType(ctx context.Context, name string) (store.TagType, error) {
	if t, ok := p.tagTypes[name]; ok {
		return t, nil
	}
	return p.Reader.GetTagType(ctx, name)
}

func (p *importPreview) CreateTagType(ctx context.Context, t store.TagType) (store.TagType, error) {
	if _, err := p.GetTagType(ctx, t.Name); err == nil {
		return t, apierr.New(apierr.NameExists, "a tag type named %s already exists", t.Name)
	} else if !apierr.Is(err, apierr.NotFound) {
		return t, err
	}
	p.tagTypes[t.Name] = t
	return t, nil
}
