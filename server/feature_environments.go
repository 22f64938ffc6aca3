package server

// A flag's state per environment: switching it on and off, reading one
// environment, and the admin view of a flag with all its environments
// (featureSchema), which every flag route answers with.

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/signalbox/signalbox/clientapi"
	"github.com/signalbox/signalbox/internal/apierr"
	"github.com/signalbox/signalbox/store"
)

// featureEnvPath is the prefix of every route about one flag in one environment.
const featureEnvPath = projectFeaturesPath + "/{featureName}/environments/{environment}"

func registerFeatureEnvironments(s *Server, m mux) {
	m.admin("GET "+featureEnvPath, PermRead, s.handleGetFeatureEnvironment)
	m.admin("POST "+featureEnvPath+"/on", PermUpdateFeatureEnvironment, s.handleSwitchFeatureEnvironment(true))
	m.admin("POST "+featureEnvPath+"/off", PermUpdateFeatureEnvironment, s.handleSwitchFeatureEnvironment(false))
	const bulk = "/api/admin/projects/{projectId}/bulk_features/environments/{environment}"
	m.admin("POST "+bulk+"/on", PermUpdateFeatureEnvironment, s.handleBulkSwitch(true))
	m.admin("POST "+bulk+"/off", PermUpdateFeatureEnvironment, s.handleBulkSwitch(false))
}

// adminFeature is a flag as the admin API answers it (Unleash's
// featureSchema, which no longer has a flag-wide lastSeenAt or variants:
// both are per environment). Lists are never null.
type adminFeature struct {
	Name           string            `json:"name"`
	Type           string            `json:"type"`
	Description    string            `json:"description"`
	Project        string            `json:"project"`
	Enabled        bool              `json:"enabled"`
	Stale          bool              `json:"stale"`
	Favorite       bool              `json:"favorite"`
	ImpressionData bool              `json:"impressionData"`
	Archived       bool              `json:"archived"`
	CreatedAt      time.Time         `json:"createdAt"`
	ArchivedAt     *time.Time        `json:"archivedAt"`
	Environments   []adminFeatureEnv `json:"environments"`
	Tags           []store.Tag       `json:"tags"`
	Children       []string          `json:"children"`
	Dependencies   []adminDependency `json:"dependencies"`
	// Links are read for one flag's answer only, not for lists.
	Links []featureLinkJSON `json:"links,omitempty"`
}

// adminFeatureEnv is a flag in one environment (featureEnvironmentSchema).
type adminFeatureEnv struct {
	Name                 string          `json:"name"`
	FeatureName          string          `json:"featureName"`
	Environment          string          `json:"environment"`
	Type                 string          `json:"type"`
	Enabled              bool            `json:"enabled"`
	SortOrder            int             `json:"sortOrder"`
	VariantCount         int             `json:"variantCount"`
	Strategies           []adminStrategy `json:"strategies"`
	Variants             []adminVariant  `json:"variants"`
	LastSeenAt           *time.Time      `json:"lastSeenAt"`
	HasStrategies        bool            `json:"hasStrategies"`
	HasEnabledStrategies bool            `json:"hasEnabledStrategies"`
}

func featureView(ctx context.Context, r store.Reader, f store.Feature) (adminFeature, error) {
	views, err := featureViews(ctx, r, []store.Feature{f})
	if err != nil {
		return adminFeature{}, err
	}
	links, err := r.ListFeatureLinks(ctx, f.Name)
	views[0].Links = featureLinksJSON(links)
	return views[0], err
}

// featureRelations are the strategies, tags and dependencies of a set of
// flags, grouped by flag.
type featureRelations struct {
	strategies map[string][]store.Strategy // by feature + "\x00" + environment
	tags       map[string][]store.Tag
	parents    map[string][]store.Dependency
	children   map[string][]string
}

// loadRelations reads the relations of features: filtered reads for one
// flag, one read of each kind for many, so that listing a project costs a
// fixed number of queries plus one per flag (its environments).
func loadRelations(ctx context.Context, r store.Reader, features []store.Feature) (featureRelations, error) {
	rel := featureRelations{strategies: map[string][]store.Strategy{}, tags: map[string][]store.Tag{},
		parents: map[string][]store.Dependency{}, children: map[string][]string{}}
	one := ""
	if len(features) == 1 {
		one = features[0].Name
	}
	// A project's flag list reads that project's strategies only, not every
	// flag's.
	project := features[0].Project
	for _, f := range features {
		if f.Project != project {
			project = ""
			break
		}
	}
	strategies, err := r.ListStrategies(ctx, store.StrategyFilter{Feature: one, Project: project})
	if err != nil {
		return rel, err
	}
	for _, st := range strategies {
		k := st.Feature + "\x00" + st.Environment
		rel.strategies[k] = append(rel.strategies[k], st)
	}
	tags, err := r.ListFeatureTags(ctx, one)
	if err != nil {
		return rel, err
	}
	for _, t := range tags {
		rel.tags[t.Feature] = append(rel.tags[t.Feature], t.Tag)
	}
	deps, err := r.ListDependencies(ctx, one)
	if err != nil {
		return rel, err
	}
	for _, d := range deps {
		rel.parents[d.Child] = append(rel.parents[d.Child], d)
		rel.children[d.Parent] = append(rel.children[d.Parent], d.Child)
	}
	if one != "" {
		if rel.children[one], err = r.ListChildren(ctx, one); err != nil {
			return rel, err
		}
	}
	return rel, nil
}

// featureViews builds the admin view of each flag, in the given order.
func featureViews(ctx context.Context, r store.Reader, features []store.Feature) ([]adminFeature, error) {
	out := make([]adminFeature, 0, len(features))
	if len(features) == 0 {
		return out, nil
	}
	envList, err := r.ListEnvironments(ctx)
	if err != nil {
		return nil, err
	}
	envs := make(map[string]store.Environment, len(envList))
	for _, e := range envList {
		envs[e.Name] = e
	}
	rel, err := loadRelations(ctx, r, features)
	if err != nil {
		return nil, err
	}
	for _, f := range features {
		fes, err := r.ListFeatureEnvironments(ctx, f.Name)
		if err != nil {
			return nil, err
		}
		v := adminFeature{
			Name: f.Name, Type: f.Type, Description: f.Description, Project: f.Project, Stale: f.Stale,
			ImpressionData: f.ImpressionData, Archived: f.Archived(), CreatedAt: f.CreatedAt,
			ArchivedAt: f.ArchivedAt, Environments: []adminFeatureEnv{},
			Tags: nonNilList(rel.tags[f.Name]), Children: nonNilList(rel.children[f.Name]),
			Dependencies: []adminDependency{},
		}
		for _, fe := range fes {
			ev := featureEnvView(fe, envs[fe.Environment], rel.strategies[f.Name+"\x00"+fe.Environment])
			ev.Name = fe.Environment
			v.Environments = append(v.Environments, ev)
			v.Enabled = v.Enabled || fe.Enabled
		}
		for _, d := range rel.parents[f.Name] {
			v.Dependencies = append(v.Dependencies, dependencyView(d))
		}
		out = append(out, v)
	}
	return out, nil
}

// featureEnvView is the view of one feature environment; Name is the flag's
// name, as Unleash answers GET …/environments/{environment}.
func featureEnvView(fe store.FeatureEnvironment, env store.Environment, strategies []store.Strategy) adminFeatureEnv {
	v := adminFeatureEnv{
		Name: fe.Feature, FeatureName: fe.Feature, Environment: fe.Environment, Type: env.Type,
		Enabled: fe.Enabled, SortOrder: env.SortOrder, VariantCount: len(fe.Variants),
		Strategies: make([]adminStrategy, 0, len(strategies)), Variants: variantViews(fe.Variants),
		LastSeenAt: fe.LastSeenAt, HasStrategies: len(strategies) > 0,
	}
	for _, st := range strategies {
		v.Strategies = append(v.Strategies, strategyView(st))
		v.HasEnabledStrategies = v.HasEnabledStrategies || !st.Disabled
	}
	return v
}

// nonNilList returns list, or an empty list for nil, so JSON shows [].
func nonNilList[T any](list []T) []T {
	if list == nil {
		return []T{}
	}
	return list
}

// projectEnvironment finds env among the environments enabled for project:
// NotFound when it does not exist or the project does not use it.
func projectEnvironment(ctx context.Context, r store.Reader, project, env string) (store.Environment, store.ProjectEnvironment, error) {
	e, err := r.GetEnvironment(ctx, env)
	if err != nil {
		return e, store.ProjectEnvironment{}, err
	}
	pes, err := r.ListProjectEnvironments(ctx, project)
	if err != nil {
		return e, store.ProjectEnvironment{}, err
	}
	for _, pe := range pes {
		if pe.Environment == env {
			return e, pe, nil
		}
	}
	return e, store.ProjectEnvironment{}, apierr.New(apierr.NotFound, "environment %s is not enabled in project %s", env, project)
}

// featureEnvTarget is a flag and one of its project's environments, as
// named by a request path.
type featureEnvTarget struct {
	feature store.Feature
	env     store.Environment
	pe      store.ProjectEnvironment
}

func pathFeatureEnv(r *http.Request, rd store.Reader) (featureEnvTarget, error) {
	f, err := pathFeature(r, rd)
	if err != nil {
		return featureEnvTarget{}, err
	}
	e, pe, err := projectEnvironment(r.Context(), rd, f.Project, r.PathValue("environment"))
	return featureEnvTarget{feature: f, env: e, pe: pe}, err
}

func (s *Server) handleGetFeatureEnvironment(w http.ResponseWriter, r *http.Request) error {
	var v adminFeatureEnv
	err := s.view(r.Context(), func(rd store.Reader) error {
		t, err := pathFeatureEnv(r, rd)
		if err != nil {
			return err
		}
		fe, err := rd.GetFeatureEnvironment(r.Context(), t.feature.Name, t.env.Name)
		if err != nil {
			return err
		}
		strategies, err := rd.ListStrategies(r.Context(), store.StrategyFilter{Feature: t.feature.Name, Environment: t.env.Name})
		if err != nil {
			return err
		}
		v = featureEnvView(fe, t.env, strategies)
		return nil
	})
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, v)
}

// handleSwitchFeatureEnvironment answers POST …/on and …/off. The body, if
// any, is ignored (Unleash accepts any content type here). With
// ?shouldActivateDisabledStrategies=true, switching on re-enables disabled
// strategies instead of adding the default strategy.
func (s *Server) handleSwitchFeatureEnvironment(on bool) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		ctx := r.Context()
		activate := r.URL.Query().Get("shouldActivateDisabledStrategies") == "true"
		err := s.change(ctx, func(tx store.Tx) ([]store.Event, error) {
			t, err := editableFeatureEnv(r, tx)
			if err != nil {
				return nil, err
			}
			return switchEnvironment(ctx, tx, t, on, activate)
		})
		if err != nil {
			return err
		}
		return s.writeFeature(w, r, http.StatusOK, r.PathValue("featureName"))
	}
}

// handleBulkSwitch switches several flags of a project in one environment,
// all or none.
func (s *Server) handleBulkSwitch(on bool) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		var in batchFeatures
		if err := decode(w, r, &in); err != nil {
			return err
		}
		if err := in.check(); err != nil {
			return err
		}
		ctx, project := r.Context(), r.PathValue("projectId")
		activate := r.URL.Query().Get("shouldActivateDisabledStrategies") == "true"
		err := s.change(ctx, func(tx store.Tx) ([]store.Event, error) {
			e, pe, err := projectEnvironment(ctx, tx, project, r.PathValue("environment"))
			if err != nil {
				return nil, err
			}
			if err := checkDirectEdit(ctx, tx, project, e.Name); err != nil {
				return nil, err
			}
			var events []store.Event
			for _, name := range in.Features {
				f, err := projectFeature(ctx, tx, project, name)
				if err != nil {
					return nil, err
				}
				more, err := switchEnvironment(ctx, tx, featureEnvTarget{feature: f, env: e, pe: pe}, on, activate)
				if err != nil {
					return nil, err
				}
				events = append(events, more...)
			}
			return events, nil
		})
		if err != nil {
			return err
		}
		w.WriteHeader(http.StatusOK)
		return nil
	}
}

// envState is the data of feature-environment-enabled/disabled events.
type envState struct {
	FeatureName string `json:"featureName"`
	Environment string `json:"environment"`
	Enabled     bool   `json:"enabled"`
}

func envSwitchEvent(f store.Feature, env string, on bool) store.Event {
	typ := "feature-environment-disabled"
	if on {
		typ = "feature-environment-enabled"
	}
	return store.Event{
		Type: typ, Project: f.Project, Environment: env, FeatureName: f.Name,
		Data: eventData(envState{f.Name, env, on}), PreData: eventData(envState{f.Name, env, !on}),
	}
}

// envSwitcher is what switching a flag in an environment reads and writes:
// a store transaction, or an import's preview (import_preview.go).
type envSwitcher interface {
	store.Reader
	CreateStrategy(ctx context.Context, s store.Strategy) (store.Strategy, error)
	UpdateStrategy(ctx context.Context, s store.Strategy) (store.Strategy, error)
	UpdateFeatureEnvironment(ctx context.Context, fe store.FeatureEnvironment) (store.FeatureEnvironment, error)
}

// switchEnvironment turns a flag on or off in one environment. Turning on a
// flag without an enabled strategy there first adds the project
// environment's default strategy (or re-enables the disabled ones when
// activateDisabled is set), so that "on" means on for everyone, as in
// Unleash. Switching to the state it is already in records nothing.
func switchEnvironment(ctx context.Context, tx envSwitcher, t featureEnvTarget, on, activateDisabled bool) ([]store.Event, error) {
	f, env := t.feature, t.env.Name
	fe, err := tx.GetFeatureEnvironment(ctx, f.Name, env)
	if err != nil {
		return nil, err
	}
	var events []store.Event
	if on {
		strategies, err := tx.ListStrategies(ctx, store.StrategyFilter{Feature: f.Name, Environment: env})
		if err != nil {
			return nil, err
		}
		if events, err = ensureEnabledStrategy(ctx, tx, t, strategies, activateDisabled); err != nil {
			return nil, err
		}
	}
	if fe.Enabled == on {
		return events, nil
	}
	fe.Enabled = on
	if _, err := tx.UpdateFeatureEnvironment(ctx, fe); err != nil {
		return nil, err
	}
	return append(events, envSwitchEvent(f, env, on)), nil
}

func ensureEnabledStrategy(ctx context.Context, tx envSwitcher, t featureEnvTarget, strategies []store.Strategy, activateDisabled bool) ([]store.Event, error) {
	for _, st := range strategies {
		if !st.Disabled {
			return nil, nil
		}
	}
	var events []store.Event
	if activateDisabled && len(strategies) > 0 {
		for _, st := range strategies {
			before := strategyView(st)
			st.Disabled = false
			saved, err := tx.UpdateStrategy(ctx, st)
			if err != nil {
				return nil, err
			}
			events = append(events, strategyEvent("feature-strategy-update", t.feature, st.Environment, strategyView(saved), before))
		}
		return events, nil
	}
	st := defaultStrategy(t.pe, t.feature.Name)
	st.Feature, st.Environment, st.SortOrder = t.feature.Name, t.env.Name, nextSortOrder(strategies)
	// The project's default strategy was valid when it was set; segments or
	// strategy types may have gone since, and its variant weights need the
	// same recomputation as any strategy's.
	if err := checkStrategy(ctx, tx, t.feature, &st); err != nil {
		var invalid *apierr.Error
		if !errors.As(err, &invalid) {
			return nil, err
		}
		return nil, apierr.New(apierr.Validation, "the default strategy of environment %s in project %s cannot be used: %s",
			t.env.Name, t.feature.Project, invalid.Message)
	}
	saved, err := tx.CreateStrategy(ctx, st)
	if err != nil {
		return nil, err
	}
	return []store.Event{strategyEvent("feature-strategy-add", t.feature, saved.Environment, strategyView(saved), nil)}, nil
}

// defaultStrategy is the strategy added when a flag is switched on without
// one: the project environment's default, or a gradual rollout to 100% with
// default stickiness. An empty groupId becomes the flag's name so that the
// flag's rollout buckets are its own.
func defaultStrategy(pe store.ProjectEnvironment, flag string) store.Strategy {
	if t := pe.DefaultStrategy; t != nil && t.Name != "" {
		params := cloneParameters(t.Parameters)
		if g, ok := params["groupId"]; (ok && g == "") || (!ok && t.Name == "flexibleRollout") {
			params["groupId"] = flag
		}
		return store.Strategy{
			Name: t.Name, Title: t.Title, Parameters: params,
			Constraints: nonNilList(t.Constraints), Variants: nonNilList(t.Variants), Segments: nonNilList(t.Segments),
		}
	}
	return store.Strategy{
		Name:        "flexibleRollout",
		Parameters:  clientapi.Parameters{"rollout": "100", "stickiness": "default", "groupId": flag},
		Constraints: []clientapi.Constraint{}, Variants: []clientapi.Variant{}, Segments: []int{},
	}
}

func cloneParameters(p clientapi.Parameters) clientapi.Parameters {
	out := make(clientapi.Parameters, len(p))
	for k, v := range p {
		out[k] = v
	}
	return out
}

// switchOffWithoutEnabledStrategies switches a flag off in env when none
// of its strategies there is enabled any more, as Unleash does after a
// strategy is disabled or deleted: an environment that is on with nothing
// to evaluate would be off for everyone while claiming to be on.
func switchOffWithoutEnabledStrategies(ctx context.Context, tx store.Tx, f store.Feature, env string) ([]store.Event, error) {
	fe, err := tx.GetFeatureEnvironment(ctx, f.Name, env)
	if err != nil || !fe.Enabled {
		return nil, err
	}
	strategies, err := tx.ListStrategies(ctx, store.StrategyFilter{Feature: f.Name, Environment: env})
	if err != nil {
		return nil, err
	}
	for _, st := range strategies {
		if !st.Disabled {
			return nil, nil
		}
	}
	fe.Enabled = false
	if _, err := tx.UpdateFeatureEnvironment(ctx, fe); err != nil {
		return nil, err
	}
	return []store.Event{envSwitchEvent(f, env, false)}, nil
}
