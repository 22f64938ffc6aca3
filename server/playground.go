package server

// The playground evaluates every flag for a context the caller makes up,
// and explains each answer: the flag's state in the environment, its
// dependencies, and the verdict of every strategy, constraint and segment.
// It evaluates with the snapshot the frontend API already compiled for the
// environment's current payload (engine.Snapshot.Explain shares
// evaluation's code, so the playground cannot disagree with an SDK), and
// reads the strategies' titles and the disabled strategies, which SDKs
// never see, from the store.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/signalbox/signalbox/clientapi"
	"github.com/signalbox/signalbox/engine"
	"github.com/signalbox/signalbox/internal/apierr"
	"github.com/signalbox/signalbox/store"
)

func registerPlayground(s *Server, m mux) {
	m.admin("POST /api/admin/playground", PermRead, s.handlePlayground)
	m.admin("POST /api/admin/playground/advanced", PermRead, s.handleAdvancedPlayground)
}

// maxPlaygroundEvaluations bounds an advanced request: environments times
// the combinations of the context's values.
const maxPlaygroundEvaluations = 1000

// playgroundInput is playgroundRequestSchema and
// advancedPlaygroundRequestSchema.
type playgroundInput struct {
	Environment  string                     `json:"environment"`
	Environments []string                   `json:"environments"`
	Projects     json.RawMessage            `json:"projects"`
	Context      map[string]json.RawMessage `json:"context"`
}

// playgroundProjects is the projects filter: all, or a list (possibly
// empty, which selects nothing, as in Unleash).
type playgroundProjects struct {
	all  bool
	list []string
}

func (p playgroundProjects) has(project string) bool {
	return p.all || slices.Contains(p.list, project)
}

// MarshalJSON echoes the filter as the request gives it: "*" or a list.
func (p playgroundProjects) MarshalJSON() ([]byte, error) {
	if p.all {
		return []byte(`"*"`), nil
	}
	return json.Marshal(nonNilList(p.list))
}

func parsePlaygroundProjects(raw json.RawMessage) (playgroundProjects, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return playgroundProjects{all: true}, nil
	}
	var star string
	if json.Unmarshal(raw, &star) == nil {
		if star == "*" {
			return playgroundProjects{all: true}, nil
		}
		return playgroundProjects{}, apierr.Invalid("projects", `projects must be "*" or a list of project ids, not %q`, star)
	}
	var list []string
	if err := json.Unmarshal(raw, &list); err != nil {
		return playgroundProjects{}, apierr.Invalid("projects", `projects must be "*" or a list of project ids`)
	}
	if slices.Contains(list, "*") {
		return playgroundProjects{all: true}, nil
	}
	return playgroundProjects{list: list}, nil
}

// contextField is one field of the request's context with its values:
// one for the playground, one or more for the advanced playground.
type contextField struct {
	name   string
	values []string
}

// The context fields SDKs know by name; any other field is a property.
var playgroundTopFields = []string{"appName", "userId", "sessionId", "remoteAddress", "environment", "currentTime"}

// parsePlaygroundContext reads a context (sdkContextSchema): appName is
// required, properties may be given in "properties" or at the top level.
// With multi, a value may be a list or a comma-separated string, and
// values of any other type are reported in invalid rather than refused;
// without, a named field that is not a string is refused and a property
// that is not a string ignored, as SDKs ignore it.
func parsePlaygroundContext(raw map[string]json.RawMessage, multi bool) (fields []contextField, invalid []string, err error) {
	if raw == nil {
		return nil, nil, apierr.Invalid("context", "context is required and must be an object")
	}
	read := func(v json.RawMessage) ([]string, bool) {
		var list []string
		var one string
		switch {
		case json.Unmarshal(v, &one) == nil && multi:
			list = strings.Split(one, ",")
		case json.Unmarshal(v, &one) == nil:
			return []string{one}, true
		case !multi || json.Unmarshal(v, &list) != nil:
			return nil, false
		}
		var out []string
		for _, item := range list {
			if item = strings.TrimSpace(item); item != "" && !slices.Contains(out, item) {
				out = append(out, item)
			}
		}
		return out, true
	}
	isNull := func(v json.RawMessage) bool { return bytes.Equal(bytes.TrimSpace(v), []byte("null")) }
	add := func(name string, values []string) {
		if len(values) == 0 {
			return // an empty value is an absent one, as in SDKs
		}
		for i := range fields {
			if fields[i].name == name {
				fields[i].values = values
				return
			}
		}
		fields = append(fields, contextField{name: name, values: values})
	}
	if v, ok := raw["appName"]; !ok || isNull(v) {
		return nil, nil, apierr.Invalid("context.appName", "context.appName is required")
	} else if vals, ok := read(v); !ok || len(vals) == 0 || strings.TrimSpace(vals[0]) == "" {
		return nil, nil, apierr.Invalid("context.appName", "context.appName must be a non-empty string")
	}
	// Named fields first, then properties by name: a stable order of
	// fields, so of combinations.
	var others []string
	for name := range raw {
		if name != "properties" && !slices.Contains(playgroundTopFields, name) {
			others = append(others, name)
		}
	}
	slices.Sort(others)
	for _, name := range append(slices.Clone(playgroundTopFields), others...) {
		v, ok := raw[name]
		if !ok || isNull(v) {
			continue
		}
		vals, ok := read(v)
		switch {
		case ok:
			add(name, vals)
		case multi:
			invalid = append(invalid, name)
		case slices.Contains(playgroundTopFields, name):
			return nil, nil, apierr.Invalid("context."+name, "context.%s must be a string", name)
		}
	}
	if props, ok := raw["properties"]; ok && !isNull(props) {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(props, &m); err != nil {
			return nil, nil, apierr.Invalid("context.properties", "context.properties must be an object of strings")
		}
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			if isNull(m[k]) {
				continue
			}
			if vals, ok := read(m[k]); ok {
				add(k, vals)
			} else if multi {
				invalid = append(invalid, "properties."+k)
			}
		}
	}
	return fields, invalid, nil
}

// combinations is the cartesian product of the fields' values, as flat
// contexts; evaluating them in envs environments must stay within
// maxPlaygroundEvaluations.
func combinations(fields []contextField, envs int) ([]map[string]string, error) {
	n := envs
	for _, f := range fields {
		n *= len(f.values)
		if n > maxPlaygroundEvaluations {
			break
		}
	}
	if n > maxPlaygroundEvaluations {
		return nil, apierr.Invalid("context", "the environments and the context's values make more than %d evaluations of each flag (environments times the combinations of values); ask for fewer values", maxPlaygroundEvaluations)
	}
	out := []map[string]string{{}}
	for _, f := range fields {
		next := make([]map[string]string, 0, len(out)*len(f.values))
		for _, base := range out {
			for _, v := range f.values {
				m := make(map[string]string, len(base)+1)
				for k, bv := range base {
					m[k] = bv
				}
				m[f.name] = v
				next = append(next, m)
			}
		}
		out = next
	}
	return out, nil
}

// engineContext turns a flat context into the engine's, evaluated in
// environment env unless the context names one.
func engineContext(flat map[string]string, env string) engine.Context {
	wire := clientapi.Context{
		AppName: flat["appName"], UserID: flat["userId"], SessionID: flat["sessionId"],
		RemoteAddress: flat["remoteAddress"], Environment: flat["environment"], CurrentTime: flat["currentTime"],
	}
	if wire.Environment == "" {
		wire.Environment = env
	}
	for k, v := range flat {
		if slices.Contains(playgroundTopFields, k) {
			continue
		}
		if wire.Properties == nil {
			wire.Properties = map[string]*string{}
		}
		wire.Properties[k] = &v
	}
	return engine.ContextFromWire(&wire)
}

// playgroundEnv is one environment ready to explain flags in.
type playgroundEnv struct {
	name string
	snap *engine.Snapshot
	// strategies are every strategy of the environment, enabled or not,
	// by flag in sort order: titles and disabled strategies.
	strategies map[string][]store.Strategy
	// projects maps each flag to its project.
	projects map[string]string
	// disabled explains the disabled strategies: a snapshot of the same
	// flags holding only those, enabled. nil when there are none.
	disabled *engine.Snapshot
}

// playgroundEnvironment prepares env. An environment that does not exist
// is a bad request (the operation documents no 404).
func (s *Server) playgroundEnvironment(ctx context.Context, env string) (*playgroundEnv, error) {
	if strings.TrimSpace(env) == "" {
		return nil, apierr.Invalid("environment", "environment is required")
	}
	p, err := s.payload(ctx, clientQuery{Environment: env, Projects: []string{"*"}})
	if apierr.Is(err, apierr.NotFound) {
		return nil, apierr.Invalid("environment", "environment %q does not exist", env)
	}
	if err != nil {
		return nil, err
	}
	pe := &playgroundEnv{name: env, snap: p.compiled(), strategies: map[string][]store.Strategy{}, projects: map[string]string{}}
	for _, f := range p.features.Features {
		pe.projects[f.Name] = f.Project
	}
	var list []store.Strategy
	if err := s.view(ctx, func(rd store.Reader) (err error) {
		list, err = rd.ListStrategies(ctx, store.StrategyFilter{Environment: env})
		return err
	}); err != nil {
		return nil, err
	}
	off := &clientapi.Features{Version: 2, Segments: p.features.Segments}
	for _, st := range list {
		pe.strategies[st.Feature] = append(pe.strategies[st.Feature], st)
		if !st.Disabled || !pe.snap.Has(st.Feature) {
			continue
		}
		cs := clientapi.Strategy{ID: st.ID, Name: st.Name, Constraints: st.Constraints, Parameters: st.Parameters, Segments: st.Segments, Variants: st.Variants}
		if n := len(off.Features); n > 0 && off.Features[n-1].Name == st.Feature {
			off.Features[n-1].Strategies = append(off.Features[n-1].Strategies, cs)
		} else {
			off.Features = append(off.Features, clientapi.Feature{Name: st.Feature, Enabled: true, Strategies: []clientapi.Strategy{cs}})
		}
	}
	if len(off.Features) > 0 {
		pe.disabled = engine.Compile(off, engine.Options{})
	}
	return pe, nil
}

// playgroundFeature is playgroundFeatureSchema and, with Environment and
// Context set and the playground-only fields left out,
// advancedPlaygroundEnvironmentFeatureSchema.
type playgroundFeature struct {
	Name                          string               `json:"name"`
	Environment                   string               `json:"environment,omitempty"`
	Context                       map[string]string    `json:"context,omitempty"`
	ProjectID                     string               `json:"projectId"`
	Strategies                    playgroundStrategies `json:"strategies"`
	HasUnsatisfiedDependency      *bool                `json:"hasUnsatisfiedDependency,omitempty"`
	IsEnabledInCurrentEnvironment bool                 `json:"isEnabledInCurrentEnvironment"`
	IsEnabled                     bool                 `json:"isEnabled"`
	Variant                       playgroundVariant    `json:"variant"`
	Variants                      []clientapi.Variant  `json:"variants"`
}

type playgroundStrategies struct {
	Result engine.Outcome       `json:"result"`
	Data   []playgroundStrategy `json:"data"`
}

// playgroundVariant is the flag's variant; featureEnabled is only in the
// playground's answer.
type playgroundVariant struct {
	Name                string             `json:"name"`
	Enabled             bool               `json:"enabled"`
	Payload             *clientapi.Payload `json:"payload,omitempty"`
	FeatureEnabledSnake bool               `json:"feature_enabled"`
	FeatureEnabled      *bool              `json:"featureEnabled,omitempty"`
}

type playgroundStrategy struct {
	Name        string                   `json:"name"`
	Title       string                   `json:"title,omitempty"`
	ID          string                   `json:"id"`
	Result      playgroundStrategyResult `json:"result"`
	Disabled    bool                     `json:"disabled"`
	Segments    []playgroundSegment      `json:"segments"`
	Constraints []playgroundConstraint   `json:"constraints"`
	Parameters  clientapi.Parameters     `json:"parameters"`
	Links       playgroundLinks          `json:"links"`
}

type playgroundLinks struct {
	Edit string `json:"edit"`
}

// playgroundStrategyResult: evaluationStatus complete with enabled true or
// false (and, when the strategy is on and has variants, the one it gives
// and the list); incomplete for a
// strategy the server cannot evaluate (enabled false or "unknown");
// unevaluated for a disabled strategy (enabled false).
type playgroundStrategyResult struct {
	EvaluationStatus string                     `json:"evaluationStatus"`
	Enabled          engine.Outcome             `json:"enabled"`
	Variant          *playgroundStrategyVariant `json:"variant,omitempty"`
	Variants         []clientapi.Variant        `json:"variants,omitempty"`
}

type playgroundStrategyVariant struct {
	Name    string             `json:"name"`
	Enabled bool               `json:"enabled"`
	Payload *clientapi.Payload `json:"payload,omitempty"`
}

type playgroundSegment struct {
	ID          int                    `json:"id"`
	Name        string                 `json:"name"`
	Result      bool                   `json:"result"`
	Constraints []playgroundConstraint `json:"constraints"`
}

type playgroundConstraint struct {
	ContextName     string   `json:"contextName"`
	Operator        string   `json:"operator"`
	CaseInsensitive bool     `json:"caseInsensitive"`
	Inverted        bool     `json:"inverted"`
	Values          []string `json:"values"`
	Value           string   `json:"value,omitempty"`
	Result          bool     `json:"result"`
}

func playgroundConstraints(xs []engine.ConstraintExplanation) []playgroundConstraint {
	out := make([]playgroundConstraint, 0, len(xs))
	for _, x := range xs {
		c := x.Constraint
		out = append(out, playgroundConstraint{ContextName: c.ContextName, Operator: c.Operator, CaseInsensitive: c.CaseInsensitive,
			Inverted: c.Inverted, Values: nonNilList(c.Values), Value: c.Value, Result: x.Result})
	}
	return out
}

// strategyView renders one explained strategy; meta is its stored
// definition (zero when the store no longer has it).
func (pe *playgroundEnv) strategyView(flag, project string, x engine.StrategyExplanation, meta store.Strategy) playgroundStrategy {
	def := x.Strategy
	out := playgroundStrategy{
		Name: def.Name, Title: meta.Title, ID: def.ID, Disabled: meta.Disabled,
		Segments: []playgroundSegment{}, Constraints: playgroundConstraints(x.Constraints), Parameters: def.Parameters,
		Links: playgroundLinks{Edit: fmt.Sprintf("/projects/%s/features/%s/strategies/edit?environmentId=%s&strategyId=%s",
			url.PathEscape(project), url.PathEscape(flag), url.QueryEscape(pe.name), url.QueryEscape(def.ID))},
	}
	if out.Parameters == nil {
		out.Parameters = clientapi.Parameters{}
	}
	for _, seg := range x.Segments {
		out.Segments = append(out.Segments, playgroundSegment{ID: seg.ID, Name: seg.Name, Result: seg.Result, Constraints: playgroundConstraints(seg.Constraints)})
	}
	switch {
	case meta.Disabled:
		out.Result = playgroundStrategyResult{EvaluationStatus: "unevaluated", Enabled: engine.OutcomeFalse}
	case !x.Known:
		out.Result = playgroundStrategyResult{EvaluationStatus: "incomplete", Enabled: x.Result}
	default:
		out.Result = playgroundStrategyResult{EvaluationStatus: "complete", Enabled: x.Result}
		if v := x.Variant; v != nil {
			out.Result.Variant = &playgroundStrategyVariant{Name: v.Name, Enabled: v.Enabled, Payload: v.Payload}
			out.Result.Variants = def.Variants
		}
	}
	return out
}

// explain evaluates one flag for ctx; ok is false when the flag is not in
// the environment's snapshot.
func (pe *playgroundEnv) explain(name string, ctx *engine.Context, advanced bool) (playgroundFeature, bool) {
	x := pe.snap.Explain(name, ctx)
	if !x.Found || x.Feature == nil {
		return playgroundFeature{}, false
	}
	f := x.Feature
	out := playgroundFeature{
		Name: name, ProjectID: f.Project,
		IsEnabledInCurrentEnvironment: x.FlagEnabled, IsEnabled: x.Enabled,
		Variant:  playgroundVariant{Name: x.Variant.Name, Enabled: x.Variant.Enabled, Payload: x.Variant.Payload, FeatureEnabledSnake: x.Variant.FeatureEnabled},
		Variants: nonNilList(f.Variants),
	}
	if !advanced {
		unsatisfied := !x.DependenciesMet
		enabled := x.Variant.FeatureEnabled
		out.HasUnsatisfiedDependency, out.Variant.FeatureEnabled = &unsatisfied, &enabled
	}
	// Strategies in the stored order, enabled ones from the explanation and
	// disabled ones from the disabled snapshot; strategies the store does
	// not list (written since the payload was built) come last.
	explained := map[string]engine.StrategyExplanation{}
	for _, s := range x.Strategies {
		if s.Strategy != nil {
			explained[s.Strategy.ID] = s
		}
	}
	if pe.disabled != nil {
		for _, s := range pe.disabled.Explain(name, ctx).Strategies {
			if s.Strategy != nil {
				explained[s.Strategy.ID] = s
			}
		}
	}
	data := []playgroundStrategy{}
	shown := map[string]bool{}
	for _, meta := range pe.strategies[name] {
		if s, ok := explained[meta.ID]; ok && !shown[meta.ID] {
			shown[meta.ID] = true
			data = append(data, pe.strategyView(name, f.Project, s, meta))
		}
	}
	for _, s := range x.Strategies {
		if s.Strategy != nil && !shown[s.Strategy.ID] {
			data = append(data, pe.strategyView(name, f.Project, s, store.Strategy{}))
		}
	}
	out.Strategies = playgroundStrategies{Result: x.StrategiesResult, Data: data}
	return out, true
}

func (s *Server) handlePlayground(w http.ResponseWriter, r *http.Request) error {
	var in playgroundInput
	if err := decode(w, r, &in); err != nil {
		return err
	}
	projects, err := parsePlaygroundProjects(in.Projects)
	if err != nil {
		return err
	}
	fields, _, err := parsePlaygroundContext(in.Context, false)
	if err != nil {
		return err
	}
	flat := map[string]string{}
	for _, f := range fields {
		flat[f.name] = f.values[0]
	}
	pe, err := s.playgroundEnvironment(r.Context(), in.Environment)
	if err != nil {
		return err
	}
	sight, err := s.sightOf(r.Context())
	if err != nil {
		return err
	}
	ctx := engineContext(flat, pe.name)
	features := []playgroundFeature{}
	for _, name := range pe.snap.Names() {
		if !projects.has(pe.projects[name]) || !sight.canSee(pe.projects[name]) {
			continue
		}
		if f, ok := pe.explain(name, &ctx, false); ok {
			features = append(features, f)
		}
	}
	return writeJSON(w, http.StatusOK, struct {
		Input    any                 `json:"input"`
		Features []playgroundFeature `json:"features"`
	}{
		Input: struct {
			Environment string             `json:"environment"`
			Projects    playgroundProjects `json:"projects"`
			Context     map[string]any     `json:"context"`
		}{in.Environment, projects, echoContext(in.Context)},
		Features: features,
	})
}

// echoContext returns the request's context for the answer's input, in
// the request schema's shape: a list of values is written as the
// comma-separated string the advanced playground also accepts, and a
// property or named field that is neither a string nor a list is left out
// (the advanced answer lists it in its warnings).
func echoContext(raw map[string]json.RawMessage) map[string]any {
	value := func(v json.RawMessage) (any, bool) {
		var list []string
		if bytes.HasPrefix(bytes.TrimSpace(v), []byte("[")) && json.Unmarshal(v, &list) == nil {
			return strings.Join(list, ","), true
		}
		var x any
		return x, json.Unmarshal(v, &x) == nil
	}
	out := make(map[string]any, len(raw))
	for k, v := range raw {
		if k == "properties" {
			var m map[string]json.RawMessage
			if json.Unmarshal(v, &m) != nil || m == nil {
				continue
			}
			props := map[string]any{}
			for pk, pv := range m {
				if x, ok := value(pv); ok {
					if _, isString := x.(string); isString {
						props[pk] = x
					}
				}
			}
			out[k] = props
			continue
		}
		if x, ok := value(v); ok {
			if _, isString := x.(string); isString || !slices.Contains(playgroundTopFields, k) {
				out[k] = x
			}
		}
	}
	return out
}

// advancedFeature is advancedPlaygroundFeatureSchema.
type advancedFeature struct {
	Name         string                         `json:"name"`
	ProjectID    string                         `json:"projectId"`
	Environments map[string][]playgroundFeature `json:"environments"`
}

func (s *Server) handleAdvancedPlayground(w http.ResponseWriter, r *http.Request) error {
	release, err := s.playgroundSlots.acquire(w, principalFrom(r.Context()))
	if err != nil {
		return err
	}
	defer release()
	var in playgroundInput
	if err := decode(w, r, &in); err != nil {
		return err
	}
	if len(in.Environments) == 0 {
		return apierr.Invalid("environments", "environments must list at least one environment")
	}
	var envNames []string
	for _, e := range in.Environments {
		if !slices.Contains(envNames, e) {
			envNames = append(envNames, e)
		}
	}
	projects, err := parsePlaygroundProjects(in.Projects)
	if err != nil {
		return err
	}
	fields, invalid, err := parsePlaygroundContext(in.Context, true)
	if err != nil {
		return err
	}
	combos, err := combinations(fields, len(envNames))
	if err != nil {
		return err
	}
	envs := make([]*playgroundEnv, 0, len(envNames))
	for _, name := range envNames {
		pe, err := s.playgroundEnvironment(r.Context(), name)
		if err != nil {
			return err
		}
		envs = append(envs, pe)
	}
	sight, err := s.sightOf(r.Context())
	if err != nil {
		return err
	}
	a := &advancedWriter{envs: envs, combos: combos, projects: projects, sight: sight}
	a.input.Environments, a.input.Projects, a.input.Context = in.Environments, projects, echoContext(in.Context)
	if len(invalid) > 0 {
		a.warnings = &advancedWarnings{InvalidContextProperties: invalid}
	}
	return a.write(r.Context(), w)
}

// advancedWarnings is the warnings of an advanced answer.
type advancedWarnings struct {
	InvalidContextProperties []string `json:"invalidContextProperties"`
}

// advancedWriter is the answer of the advanced playground, written as it
// is computed: one flag at a time, so that a request holds at most one
// flag's evaluations (maxPlaygroundEvaluations) in memory whatever the
// number of flags. The bytes are those of encoding the whole answer at
// once:
//
//	{"input":…,"features":[{flag},…],"warnings":…}
type advancedWriter struct {
	input struct {
		Environments []string           `json:"environments"`
		Projects     playgroundProjects `json:"projects"`
		Context      map[string]any     `json:"context"`
	}
	warnings *advancedWarnings
	envs     []*playgroundEnv
	combos   []map[string]string
	projects playgroundProjects
	// sight leaves out the flags of projects the caller may not see.
	sight *projectSight
}

// names are the flags of the answer in its order: those of the first
// environment in snapshot order, then those only later environments have.
// shown says, per environment, which flags it explains.
func (a *advancedWriter) names() (names []string, shown []map[string]bool) {
	seen := map[string]bool{}
	for _, pe := range a.envs {
		in := map[string]bool{}
		for _, name := range pe.snap.Names() {
			if !a.projects.has(pe.projects[name]) || !a.sight.canSee(pe.projects[name]) {
				continue
			}
			in[name] = true
			if !seen[name] {
				seen[name] = true
				names = append(names, name)
			}
		}
		shown = append(shown, in)
	}
	return names, shown
}

// feature evaluates one flag in every environment that has it, for every
// combination; ok is false when no environment could explain it.
func (a *advancedWriter) feature(name string, shown []map[string]bool, ctxs [][]engine.Context) (advancedFeature, bool) {
	var af advancedFeature
	found := false
	for e, pe := range a.envs {
		if !shown[e][name] {
			continue
		}
		for i := range a.combos {
			f, ok := pe.explain(name, &ctxs[e][i], true)
			if !ok {
				break
			}
			f.Environment, f.Context = pe.name, a.combos[i]
			if !found {
				found = true
				af = advancedFeature{Name: name, ProjectID: f.ProjectID, Environments: map[string][]playgroundFeature{}}
			}
			af.Environments[pe.name] = append(af.Environments[pe.name], f)
		}
	}
	return af, found
}

// write streams the answer to w. Once the first byte is written, a failure
// (the client gone, the request's context ended) ends the answer early; it
// is then not valid JSON, which tells the client it is cut.
func (a *advancedWriter) write(ctx context.Context, w http.ResponseWriter) error {
	ctxs := make([][]engine.Context, len(a.envs))
	for e, pe := range a.envs {
		ctxs[e] = make([]engine.Context, len(a.combos))
		for i, flat := range a.combos {
			ctxs[e][i] = engineContext(flat, pe.name)
		}
	}
	names, shown := a.names()

	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	encode := func(v any) ([]byte, error) {
		buf.Reset()
		if err := enc.Encode(v); err != nil {
			return nil, apierr.Wrap(apierr.Internal, err, "cannot encode the response")
		}
		return bytes.TrimSuffix(buf.Bytes(), []byte{'\n'}), nil
	}
	input, err := encode(&a.input)
	if err != nil {
		return err
	}
	out := bufio.NewWriterSize(w, 32<<10)
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	_, _ = out.WriteString(`{"input":`)
	_, _ = out.Write(input)
	_, _ = out.WriteString(`,"features":[`)
	first := true
	for _, name := range names {
		if ctx.Err() != nil {
			return nil
		}
		af, ok := a.feature(name, shown, ctxs)
		if !ok {
			continue
		}
		b, err := encode(&af)
		if err != nil {
			return nil
		}
		if !first {
			_ = out.WriteByte(',')
		}
		first = false
		if _, err := out.Write(b); err != nil {
			return nil // the client is gone
		}
	}
	_ = out.WriteByte(']')
	if a.warnings != nil {
		b, err := encode(a.warnings)
		if err != nil {
			return nil
		}
		_, _ = out.WriteString(`,"warnings":`)
		_, _ = out.Write(b)
	}
	_ = out.WriteByte('}')
	_ = out.Flush()
	return nil
}

// slotKey names the principal whose slots a request takes: the user,
// whichever way they signed in, or the API token.
func slotKey(p *Principal) string {
	switch {
	case p == nil:
		return ""
	case p.User != nil:
		return "user:" + strconv.Itoa(p.User.ID)
	case p.Token != nil:
		return "token:" + strconv.FormatInt(p.Token.ID, 10)
	}
	return ""
}

// maxPlaygroundPerPrincipal bounds the advanced playground requests one
// user or token may have in progress; more are a 429.
const maxPlaygroundPerPrincipal = 2

// playgroundSlots counts each principal's advanced playground requests in
// progress. The zero value is ready.
type playgroundSlots struct {
	mu   sync.Mutex
	busy map[string]int
}

// acquire takes one of p's slots, or answers 429 with Retry-After when p
// already has maxPlaygroundPerPrincipal requests in progress. The caller
// calls release when its request ends.
func (ps *playgroundSlots) acquire(w http.ResponseWriter, p *Principal) (release func(), err error) {
	key := slotKey(p)
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if ps.busy[key] >= maxPlaygroundPerPrincipal {
		w.Header().Set("Retry-After", "1")
		return nil, apierr.New(apierr.TooManyRequests,
			"you already have %d advanced playground requests in progress, the most one user or token may have; try again in 1 second when one has ended", maxPlaygroundPerPrincipal)
	}
	if ps.busy == nil {
		ps.busy = map[string]int{}
	}
	ps.busy[key]++
	return func() {
		ps.mu.Lock()
		defer ps.mu.Unlock()
		if ps.busy[key]--; ps.busy[key] <= 0 {
			delete(ps.busy, key)
		}
	}, nil
}

// OpenAPI schemas of the playground, after Unleash's playground schemas.
