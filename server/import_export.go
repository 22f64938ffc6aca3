package server

// Moving flags between instances: export a set of flags with their
// configuration in one environment (POST /api/admin/features-batch/export),
// check whether such a document can be imported into a project and
// environment (…/validate), and import it (…/import). The document is
// Unleash's export result, so exports move between Signalbox and Unleash
// in both directions; its properties are those of Unleash's
// exportResultSchema and nothing more, because Unleash refuses unknown
// properties on import. Validation and import are in import_apply.go.

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"sort"
	"strings"

	"github.com/signalbox/signalbox/clientapi"
	"github.com/signalbox/signalbox/internal/apierr"
	"github.com/signalbox/signalbox/internal/httpx"
	"github.com/signalbox/signalbox/store"
)

const featuresBatchPath = "/api/admin/features-batch"

func registerImportExport(s *Server, m mux) {
	m.admin("POST "+featuresBatchPath+"/export", PermRead, s.handleExport)
	// The permissions an import needs depend on the project in the body
	// and on the document (creating flags, context fields, tag types, …):
	// validate and import first require UPDATE_FEATURE in the project
	// (root or project role); then import answers 403 naming what else is
	// missing, as validate lists it.
	m.admin("POST "+featuresBatchPath+"/validate", PermRead, s.handleValidateImport)
	m.admin("POST "+featuresBatchPath+"/import", PermRead, s.handleImport)
}

// maxImportBody bounds validate and import bodies (413 beyond): whole
// exports are larger than ordinary admin bodies.
const maxImportBody = 16 << 20

// exportDoc is the export result, also the data of an import.
type exportDoc struct {
	Features          []exportFeature `json:"features"`
	FeatureStrategies []adminStrategy `json:"featureStrategies"`
	// FeatureEnvironments holds one entry per flag for the exported
	// environment.
	FeatureEnvironments []exportFeatureEnv   `json:"featureEnvironments"`
	ContextFields       []exportContextField `json:"contextFields"`
	FeatureTags         []exportFeatureTag   `json:"featureTags"`
	// Segments are named only; an import finds them by name in the target.
	Segments     []exportSegment      `json:"segments"`
	TagTypes     []tagTypeJSON        `json:"tagTypes"`
	Dependencies []exportDependencies `json:"dependencies"`
}

// exportFeature is a flag without timestamps or per-environment state.
type exportFeature struct {
	Name           string `json:"name"`
	Type           string `json:"type"`
	Description    string `json:"description"`
	Project        string `json:"project"`
	Stale          bool   `json:"stale"`
	ImpressionData bool   `json:"impressionData"`
	Archived       bool   `json:"archived"`
}

// exportFeatureEnv is a flag in the exported environment. Name repeats the
// flag's name, as Unleash writes it.
type exportFeatureEnv struct {
	Name        string         `json:"name"`
	FeatureName string         `json:"featureName"`
	Environment string         `json:"environment"`
	Enabled     bool           `json:"enabled"`
	Variants    []adminVariant `json:"variants"`
}

// flag is the flag an entry is about; older documents name it in name only.
func (fe exportFeatureEnv) flag() string {
	if fe.FeatureName != "" {
		return fe.FeatureName
	}
	return fe.Name
}

type exportContextField struct {
	Name        string             `json:"name"`
	Description string             `json:"description"`
	Stickiness  bool               `json:"stickiness"`
	SortOrder   int                `json:"sortOrder"`
	LegalValues []store.LegalValue `json:"legalValues"`
}

// exportFeatureTag is a tag on a flag. Type is the deprecated spelling of
// tagType, read on import and never written.
type exportFeatureTag struct {
	FeatureName string `json:"featureName"`
	TagType     string `json:"tagType"`
	TagValue    string `json:"tagValue"`
	Type        string `json:"type,omitempty"`
}

func (ft exportFeatureTag) tag() store.Tag {
	t := store.Tag{Type: ft.TagType, Value: ft.TagValue}
	if t.Type == "" {
		t.Type = ft.Type
	}
	if t.Type == "" {
		t.Type = store.TagTypeSimple
	}
	return t
}

type exportSegment struct {
	ID   int    `json:"id"`
	Name string `json:"name"`
}

// exportDependencies are the parents of one flag. enabled defaults to true
// on import, hence the pointer.
type exportDependencies struct {
	Feature      string            `json:"feature"`
	Dependencies []dependencyInput `json:"dependencies"`
}

// exportQuery is the body of the export route: the environment and
// exactly one selector.
type exportQuery struct {
	Environment  string    `json:"environment"`
	DownloadFile bool      `json:"downloadFile"`
	Features     *[]string `json:"features"`
	Tag          *string   `json:"tag"`
	Project      *string   `json:"project"`
}

// check requires the environment and exactly one selector.
func (q exportQuery) check() error {
	if strings.TrimSpace(q.Environment) == "" {
		return apierr.Invalid("environment", "environment is required: the environment whose configuration is exported")
	}
	var given []string
	if q.Features != nil {
		given = append(given, "features")
	}
	if q.Tag != nil {
		given = append(given, "tag")
	}
	if q.Project != nil {
		given = append(given, "project")
	}
	switch len(given) {
	case 0:
		return apierr.Invalid("features", "say what to export with exactly one of features (names; an empty list exports every flag), tag (a tag value) or project")
	case 1:
		return nil
	}
	return apierr.Invalid(given[1], "give exactly one of features, tag and project, not %s", strings.Join(given, " and "))
}

// exportSelection picks the active flags q asks for, sorted by name.
// NotFound for an unknown project or flag name.
func exportSelection(ctx context.Context, r store.Reader, q exportQuery, sight *projectSight) ([]store.Feature, error) {
	list, err := exportCandidates(ctx, r, q, sight)
	return visibleFeatures(sight, list), err
}

// exportCandidates is exportSelection before the flags of projects sight
// does not see are left out; those named are missing.
func exportCandidates(ctx context.Context, r store.Reader, q exportQuery, sight *projectSight) ([]store.Feature, error) {
	active := false
	switch {
	case q.Project != nil:
		if !sight.canSee(*q.Project) {
			return nil, apierr.New(apierr.NotFound, "project %s not found", *q.Project)
		}
		if _, err := r.GetProject(ctx, *q.Project); err != nil {
			return nil, err
		}
		return r.ListFeatures(ctx, store.FeatureFilter{Project: *q.Project, Archived: &active})
	case q.Tag != nil:
		// The tag's value selects, whatever its type (Unleash's rule).
		tags, err := r.ListFeatureTags(ctx, "")
		if err != nil {
			return nil, err
		}
		names := []string{}
		for _, ft := range tags {
			if ft.Value == *q.Tag {
				names = append(names, ft.Feature)
			}
		}
		return r.ListFeatures(ctx, store.FeatureFilter{Names: names, Archived: &active})
	case len(*q.Features) == 0:
		return r.ListFeatures(ctx, store.FeatureFilter{Archived: &active})
	}
	names := slices.Clone(*q.Features)
	slices.Sort(names)
	names = slices.Compact(names)
	list, err := r.ListFeatures(ctx, store.FeatureFilter{Names: names, Archived: &active})
	if err != nil {
		return nil, err
	}
	list = visibleFeatures(sight, list)
	if len(list) < len(names) {
		var missing []string
		for _, n := range names {
			if !slices.ContainsFunc(list, func(f store.Feature) bool { return f.Name == n }) {
				missing = append(missing, n)
			}
		}
		return nil, apierr.New(apierr.NotFound, "there is no active feature flag named %s", strings.Join(missing, ", "))
	}
	return list, nil
}

// buildExport writes the export document of features in env.
func buildExport(ctx context.Context, r store.Reader, features []store.Feature, env string) (exportDoc, error) {
	doc := exportDoc{
		Features: []exportFeature{}, FeatureStrategies: []adminStrategy{}, FeatureEnvironments: []exportFeatureEnv{},
		ContextFields: []exportContextField{}, FeatureTags: []exportFeatureTag{}, Segments: []exportSegment{},
		TagTypes: []tagTypeJSON{}, Dependencies: []exportDependencies{},
	}
	selected := map[string]bool{}
	for _, f := range features {
		selected[f.Name] = true
		doc.Features = append(doc.Features, exportFeature{Name: f.Name, Type: f.Type, Description: f.Description,
			Project: f.Project, Stale: f.Stale, ImpressionData: f.ImpressionData})
		fe, err := r.GetFeatureEnvironment(ctx, f.Name, env)
		if err != nil {
			return doc, err
		}
		doc.FeatureEnvironments = append(doc.FeatureEnvironments, exportFeatureEnv{
			Name: f.Name, FeatureName: f.Name, Environment: env, Enabled: fe.Enabled, Variants: variantViews(fe.Variants)})
	}

	strategies, err := r.ListStrategies(ctx, store.StrategyFilter{Environment: env})
	if err != nil {
		return doc, err
	}
	fields, segments := map[string]bool{}, map[int]bool{}
	for _, st := range strategies {
		if !selected[st.Feature] {
			continue
		}
		doc.FeatureStrategies = append(doc.FeatureStrategies, strategyView(st))
		for _, c := range st.Constraints {
			fields[c.ContextName] = true
		}
		fields[st.Parameters["stickiness"]] = true
		for _, v := range st.Variants {
			fields[v.Stickiness] = true
		}
		for _, id := range st.Segments {
			segments[id] = true
		}
	}
	for _, fe := range doc.FeatureEnvironments {
		for _, v := range fe.Variants {
			fields[v.Stickiness] = true
		}
	}

	// Context fields the exported configuration refers to, in constraints
	// or as stickiness; names that are not defined fields are left out.
	all, err := allContextFields(ctx, r)
	if err != nil {
		return doc, err
	}
	for _, c := range all {
		if fields[c.Name] {
			doc.ContextFields = append(doc.ContextFields, exportContextField{Name: c.Name, Description: c.Description,
				Stickiness: c.Stickiness, SortOrder: c.SortOrder, LegalValues: nonNilList(c.LegalValues)})
		}
	}
	sort.SliceStable(doc.ContextFields, func(i, j int) bool { return doc.ContextFields[i].Name < doc.ContextFields[j].Name })

	ids := make([]int, 0, len(segments))
	for id := range segments {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		sg, err := r.GetSegment(ctx, id)
		if err != nil {
			return doc, err
		}
		doc.Segments = append(doc.Segments, exportSegment{ID: sg.ID, Name: sg.Name})
	}

	tags, err := r.ListFeatureTags(ctx, "")
	if err != nil {
		return doc, err
	}
	tagTypes := map[string]bool{}
	for _, ft := range tags {
		if selected[ft.Feature] {
			doc.FeatureTags = append(doc.FeatureTags, exportFeatureTag{FeatureName: ft.Feature, TagType: ft.Type, TagValue: ft.Value})
			tagTypes[ft.Type] = true
		}
	}
	types, err := r.ListTagTypes(ctx)
	if err != nil {
		return doc, err
	}
	for _, t := range types {
		if tagTypes[t.Name] {
			doc.TagTypes = append(doc.TagTypes, tagTypeResponse(t))
		}
	}

	deps, err := r.ListDependencies(ctx, "")
	if err != nil {
		return doc, err
	}
	for _, d := range deps {
		if !selected[d.Child] {
			continue
		}
		if n := len(doc.Dependencies); n == 0 || doc.Dependencies[n-1].Feature != d.Child {
			doc.Dependencies = append(doc.Dependencies, exportDependencies{Feature: d.Child, Dependencies: []dependencyInput{}})
		}
		enabled := d.Enabled
		last := &doc.Dependencies[len(doc.Dependencies)-1]
		last.Dependencies = append(last.Dependencies, dependencyInput{Feature: d.Parent, Enabled: &enabled, Variants: nonNilList(d.Variants)})
	}
	return doc, nil
}

// exportEventData is the data of features-exported events.
type exportEventData struct {
	Environment string   `json:"environment"`
	Selector    string   `json:"selector"` // features, tag or project
	Tag         string   `json:"tag,omitempty"`
	Features    []string `json:"features"`
}

// handleExport answers the export document, as a file download when
// downloadFile is set, and records features-exported.
func (s *Server) handleExport(w http.ResponseWriter, r *http.Request) error {
	var q exportQuery
	if err := decode(w, r, &q); err != nil {
		return err
	}
	if err := q.check(); err != nil {
		return err
	}
	if err := checkNoNUL("body", q); err != nil {
		return err
	}
	ctx := r.Context()
	var doc exportDoc
	sight, err := s.sightOf(ctx)
	if err != nil {
		return err
	}
	err = s.change(ctx, func(tx store.Tx) ([]store.Event, error) {
		if _, err := tx.GetEnvironment(ctx, q.Environment); err != nil {
			return nil, err
		}
		features, err := exportSelection(ctx, tx, q, sight)
		if err != nil {
			return nil, err
		}
		if doc, err = buildExport(ctx, tx, features, q.Environment); err != nil {
			return nil, err
		}
		data := exportEventData{Environment: q.Environment, Features: []string{}}
		e := store.Event{Type: "features-exported", Environment: q.Environment}
		switch {
		case q.Project != nil:
			data.Selector, e.Project = "project", *q.Project
		case q.Tag != nil:
			data.Selector, data.Tag = "tag", *q.Tag
		default:
			data.Selector = "features"
		}
		for _, f := range features {
			data.Features = append(data.Features, f.Name)
		}
		e.Data = eventData(data)
		return []store.Event{e}, nil
	})
	if err != nil {
		return err
	}
	if q.DownloadFile {
		w.Header().Set("Content-Disposition", "attachment; filename=export-"+s.now().UTC().Format("2006-01-02")+".json")
	}
	return writeJSON(w, http.StatusOK, doc)
}

// importRequest is the body of validate and import. Data is decoded only
// once the caller is known to be allowed to import into the project.
type importRequest struct {
	Project     string          `json:"project"`
	Environment string          `json:"environment"`
	Data        json.RawMessage `json:"data"`
}

// importData is exportDoc as a request sends it. The pointer fields shadow
// exportDoc's so that a missing list can be told from an empty one: these
// two are required.
type importData struct {
	exportDoc
	Features          *[]exportFeature `json:"features"`
	FeatureStrategies *[]adminStrategy `json:"featureStrategies"`
}

// decodeImport reads and checks the body of validate and import. Whoever
// may not import into the project named (UPDATE_FEATURE there) is refused
// before the document itself is decoded or anything else looked at, even
// for a document with nothing in it.
func (s *Server) decodeImport(w http.ResponseWriter, r *http.Request) (importRequest, exportDoc, error) {
	var in importRequest
	if err := httpx.DecodeJSON(w, r, &in, maxImportBody); err != nil {
		return in, exportDoc{}, err
	}
	switch {
	case strings.TrimSpace(in.Project) == "":
		return in, exportDoc{}, apierr.Invalid("project", "project is required: the project to import into")
	case strings.TrimSpace(in.Environment) == "":
		return in, exportDoc{}, apierr.Invalid("environment", "environment is required: the environment to import into")
	case len(in.Data) == 0 || string(in.Data) == "null":
		return in, exportDoc{}, apierr.Invalid("data", "data is required: an export result")
	case strings.ContainsRune(in.Project+in.Environment, 0):
		return in, exportDoc{}, apierr.Invalid("body", "body must not contain NUL characters")
	}
	if err := s.mayImportInto(r.Context(), in.Project); err != nil {
		return in, exportDoc{}, err
	}
	var data importData
	if err := httpx.DecodeValue(in.Data, &data, "data"); err != nil {
		return in, exportDoc{}, err
	}
	in.Data = nil // decoded: let the raw document go
	switch {
	case data.Features == nil:
		return in, exportDoc{}, apierr.Invalid("data.features", "data.features is required (it may be empty)")
	case data.FeatureStrategies == nil:
		return in, exportDoc{}, apierr.Invalid("data.featureStrategies", "data.featureStrategies is required (it may be empty)")
	}
	doc := data.exportDoc
	doc.Features, doc.FeatureStrategies = *data.Features, *data.FeatureStrategies
	if err := checkNoNUL("body", importBody{in.Project, in.Environment, doc}); err != nil {
		return in, exportDoc{}, err
	}
	return in, doc, nil
}

// importBody is the body of validate and import as decoded: what
// checkNoNUL walks.
type importBody struct {
	Project     string    `json:"project"`
	Environment string    `json:"environment"`
	Data        exportDoc `json:"data"`
}

// checkNoNUL refuses a document with a NUL character in any string or key
// (PostgreSQL cannot store them). It walks the document's JSON form.
func checkNoNUL(path string, v any) error {
	var walk func(any) bool
	walk = func(x any) bool {
		switch x := x.(type) {
		case string:
			return strings.ContainsRune(x, 0)
		case []any:
			return slices.ContainsFunc(x, walk)
		case map[string]any:
			for k, e := range x {
				if strings.ContainsRune(k, 0) || walk(e) {
					return true
				}
			}
		}
		return false
	}
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	var generic any
	if err := json.Unmarshal(data, &generic); err != nil {
		return err
	}
	if walk(generic) {
		return apierr.Invalid(path, "%s must not contain NUL characters", path)
	}
	return nil
}

// variantsFrom turns the admin form of variants back into stored ones.
func variantsFrom(list []adminVariant) []clientapi.Variant {
	out := make([]clientapi.Variant, 0, len(list))
	for _, v := range list {
		out = append(out, clientapi.Variant{Name: v.Name, Weight: v.Weight, WeightType: v.WeightType,
			Stickiness: v.Stickiness, Payload: v.Payload, Overrides: v.Overrides})
	}
	return out
}
