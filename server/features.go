package server

// Feature flags in a project: create, read, update (PUT and JSON Patch),
// validate names, clone, and the legacy instance-wide lists. Archiving,
// reviving and deleting live in archive.go; per-environment state, strategies,
// variants and dependencies in their own files.

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/signalbox/signalbox/internal/apierr"
	"github.com/signalbox/signalbox/store"
)

// projectFeaturesPath is the prefix of every per-project flag route.
const projectFeaturesPath = "/api/admin/projects/{projectId}/features"

func registerFeatures(s *Server, m mux) {
	m.admin("GET "+projectFeaturesPath, PermRead, s.handleListProjectFeatures)
	m.admin("POST "+projectFeaturesPath, PermCreateFeature, s.handleCreateFeature)
	m.admin("GET "+projectFeaturesPath+"/{featureName}", PermRead, s.handleGetFeature)
	m.admin("PUT "+projectFeaturesPath+"/{featureName}", PermUpdateFeature, s.handleUpdateFeature)
	m.admin("PATCH "+projectFeaturesPath+"/{featureName}", PermUpdateFeature, s.handlePatchFeature)
	m.admin("POST "+projectFeaturesPath+"/{featureName}/clone", PermCreateFeature, s.handleCloneFeature)
	m.admin("POST /api/admin/features/validate", PermRead, s.handleValidateFeatureName)
	m.admin("GET /api/admin/features", PermRead, s.handleListAllFeatures)
	m.admin("GET /api/admin/features/{featureName}", PermRead, s.handleGetAnyFeature)
}

// featureMeta is a flag without its per-environment configuration. It is
// what feature events carry as data and preData, and the document that
// PATCH operations apply to.
type featureMeta struct {
	Name           string     `json:"name"`
	Type           string     `json:"type"`
	Description    string     `json:"description"`
	Project        string     `json:"project"`
	Stale          bool       `json:"stale"`
	ImpressionData bool       `json:"impressionData"`
	Archived       bool       `json:"archived"`
	CreatedAt      time.Time  `json:"createdAt"`
	ArchivedAt     *time.Time `json:"archivedAt"`
	LastSeenAt     *time.Time `json:"lastSeenAt"`
}

func metaOf(f store.Feature) featureMeta {
	return featureMeta{
		Name: f.Name, Type: f.Type, Description: f.Description, Project: f.Project, Stale: f.Stale,
		ImpressionData: f.ImpressionData, Archived: f.Archived(), CreatedAt: f.CreatedAt,
		ArchivedAt: f.ArchivedAt, LastSeenAt: f.LastSeenAt,
	}
}

// featureEvent is an audit event about a flag as a whole.
func featureEvent(typ string, f store.Feature, data, preData any) store.Event {
	return store.Event{Type: typ, Project: f.Project, FeatureName: f.Name, Data: eventData(data), PreData: eventData(preData)}
}

// maxFlagNameLength is Unleash's limit on flag names.
const maxFlagNameLength = 100

// checkFlagName applies Unleash's rule: a name is valid when URL encoding
// leaves it unchanged (encodeURIComponent in JavaScript), so that it can be
// put into a path as is. That allows ASCII letters, digits and - _ . ! ~ * ' ( ).
func checkFlagName(name string) error {
	switch {
	case name == "":
		return apierr.Invalid("name", "name is required")
	case len(name) > maxFlagNameLength:
		return apierr.Invalid("name", "name must be at most %d characters long", maxFlagNameLength)
	case name == "." || name == "..":
		return apierr.Invalid("name", "name cannot be %q", name)
	}
	for _, c := range name {
		if !urlSafeRune(c) {
			return apierr.Invalid("name", "name must be URL-safe: use letters, digits and - _ . ! ~ * ' ( ) only, not %q", c)
		}
	}
	return nil
}

func urlSafeRune(c rune) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("-_.!~*'()", c)
}

// checkNameFree answers NameExists when any flag, archived ones included,
// has the name: names are unique across projects and the archive.
func checkNameFree(ctx context.Context, r store.Reader, name string) error {
	f, err := r.GetFeature(ctx, name)
	switch {
	case apierr.Is(err, apierr.NotFound):
		return nil
	case err != nil:
		return err
	case f.Archived():
		return apierr.New(apierr.NameExists, "an archived feature flag is named %s; revive or delete it to use the name", name)
	}
	return apierr.New(apierr.NameExists, "a feature flag named %s already exists", name)
}

// projectFeature reads an active flag through its project path. Unknown
// projects and flags, flags of another project and archived flags are all
// NotFound: archived flags are reachable only through the archive routes.
func projectFeature(ctx context.Context, r store.Reader, project, name string) (store.Feature, error) {
	if _, err := r.GetProject(ctx, project); err != nil {
		return store.Feature{}, err
	}
	f, err := r.GetFeature(ctx, name)
	switch {
	case apierr.Is(err, apierr.NotFound):
		return f, apierr.New(apierr.NotFound, "project %s has no feature flag named %s", project, name)
	case err != nil:
		return f, err
	case f.Project != project:
		return f, apierr.New(apierr.NotFound, "project %s has no feature flag named %s (it belongs to project %s)", project, name, f.Project)
	case f.Archived():
		return f, apierr.New(apierr.NotFound, "feature flag %s is archived; revive it to change it", name)
	}
	return f, nil
}

// pathFeature is projectFeature for the request's projectId and featureName.
func pathFeature(r *http.Request, rd store.Reader) (store.Feature, error) {
	return projectFeature(r.Context(), rd, r.PathValue("projectId"), r.PathValue("featureName"))
}

// featureList is the list answer of the legacy and archive routes.
type featureList struct {
	Version  int            `json:"version"`
	Features []adminFeature `json:"features"`
}

func (s *Server) handleListProjectFeatures(w http.ResponseWriter, r *http.Request) error {
	tags, err := tagFilters(r)
	if err != nil {
		return err
	}
	// Unleash answers an unknown project with an empty list; we say 404 so
	// that a typo in the project is not mistaken for an empty one.
	active := false
	views, err := s.featureViewsFor(r.Context(), true, store.FeatureFilter{
		Project: r.PathValue("projectId"), Archived: &active, NamePrefix: r.URL.Query().Get("namePrefix"),
	})
	if err != nil {
		return err
	}
	views = withAnyTag(views, tags)
	out := make([]projectFeatureRow, len(views))
	for i, v := range views {
		out[i] = projectFeatureOf(v)
	}
	return writeJSON(w, http.StatusOK, map[string]any{"version": 2, "features": out})
}

// projectFeatureRow is a flag as a project's flag list shows it (Unleash's
// projectFeatureSchema): no strategies or variants, which the flag's own
// answer has.
type projectFeatureRow struct {
	Name           string              `json:"name"`
	Type           string              `json:"type"`
	Description    string              `json:"description"`
	Stale          bool                `json:"stale"`
	Favorite       bool                `json:"favorite"`
	ImpressionData bool                `json:"impressionData"`
	CreatedAt      time.Time           `json:"createdAt"`
	Environments   []projectFeatureEnv `json:"environments"`
	Tags           []store.Tag         `json:"tags"`
}

// projectFeatureEnv is Unleash's projectFeatureEnvironmentSchema.
type projectFeatureEnv struct {
	Name                 string     `json:"name"`
	Type                 string     `json:"type"`
	Enabled              bool       `json:"enabled"`
	SortOrder            int        `json:"sortOrder"`
	VariantCount         int        `json:"variantCount"`
	LastSeenAt           *time.Time `json:"lastSeenAt"`
	HasStrategies        bool       `json:"hasStrategies"`
	HasEnabledStrategies bool       `json:"hasEnabledStrategies"`
}

func projectFeatureOf(f adminFeature) projectFeatureRow {
	out := projectFeatureRow{Name: f.Name, Type: f.Type, Description: f.Description, Stale: f.Stale, Favorite: f.Favorite,
		ImpressionData: f.ImpressionData, CreatedAt: f.CreatedAt, Tags: f.Tags, Environments: make([]projectFeatureEnv, len(f.Environments))}
	for i, e := range f.Environments {
		out.Environments[i] = projectFeatureEnv{Name: e.Name, Type: e.Type, Enabled: e.Enabled, SortOrder: e.SortOrder,
			VariantCount: e.VariantCount, LastSeenAt: e.LastSeenAt, HasStrategies: e.HasStrategies, HasEnabledStrategies: e.HasEnabledStrategies}
	}
	return out
}

// handleListAllFeatures is the legacy list of every active flag, with the
// filters namePrefix, project and tag (type:value, repeatable).
func (s *Server) handleListAllFeatures(w http.ResponseWriter, r *http.Request) error {
	tags, err := tagFilters(r)
	if err != nil {
		return err
	}
	active := false
	q := r.URL.Query()
	views, err := s.featureViewsFor(r.Context(), false, store.FeatureFilter{Archived: &active, NamePrefix: q.Get("namePrefix"), Project: q.Get("project")})
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, featureList{Version: 1, Features: withAnyTag(views, tags)})
}

// featureViewsFor lists the flags matching f as the admin API shows them.
// With projectMustExist, an unknown f.Project is a 404.
func (s *Server) featureViewsFor(ctx context.Context, projectMustExist bool, f store.FeatureFilter) ([]adminFeature, error) {
	var views []adminFeature
	sight, err := s.sightOf(ctx)
	if err != nil {
		return nil, err
	}
	err = s.view(ctx, func(rd store.Reader) error {
		if projectMustExist && f.Project != "" {
			if _, err := rd.GetProject(ctx, f.Project); err != nil {
				return err
			}
		}
		list, err := rd.ListFeatures(ctx, f)
		if err != nil {
			return err
		}
		views, err = featureViews(ctx, rd, visibleFeatures(sight, list))
		return err
	})
	return views, err
}

// tagFilters reads the repeatable tag=type:value query parameter.
func tagFilters(r *http.Request) ([]store.Tag, error) {
	var tags []store.Tag
	for _, t := range r.URL.Query()["tag"] {
		typ, value, ok := strings.Cut(t, ":")
		if !ok || typ == "" || value == "" {
			return nil, apierr.Invalid("tag", "tag filters have the form type:value, got %q", t)
		}
		tags = append(tags, store.Tag{Type: typ, Value: value})
	}
	return tags, nil
}

// withAnyTag keeps the flags that carry at least one of tags; no tags keeps all.
func withAnyTag(views []adminFeature, tags []store.Tag) []adminFeature {
	if len(tags) == 0 {
		return views
	}
	kept := []adminFeature{}
	for _, v := range views {
		for _, t := range v.Tags {
			if containsTag(tags, t) {
				kept = append(kept, v)
				break
			}
		}
	}
	return kept
}

func containsTag(tags []store.Tag, t store.Tag) bool {
	for _, x := range tags {
		if x == t {
			return true
		}
	}
	return false
}

func (s *Server) handleGetFeature(w http.ResponseWriter, r *http.Request) error {
	var v adminFeature
	err := s.view(r.Context(), func(rd store.Reader) error {
		f, err := pathFeature(r, rd)
		if err != nil {
			return err
		}
		v, err = featureView(r.Context(), rd, f)
		return err
	})
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, v)
}

// handleGetAnyFeature is the legacy read of an active flag by name alone.
func (s *Server) handleGetAnyFeature(w http.ResponseWriter, r *http.Request) error {
	name := r.PathValue("featureName")
	var v adminFeature
	err := s.view(r.Context(), func(rd store.Reader) error {
		f, err := rd.GetFeature(r.Context(), name)
		if err == nil && f.Archived() {
			err = apierr.New(apierr.NotFound, "feature flag %s is archived", name)
		}
		if err != nil {
			return err
		}
		v, err = featureView(r.Context(), rd, f)
		return err
	})
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, v)
}

// featureCreateInput is the body of POST …/features (createFeatureSchema).
type featureCreateInput struct {
	Name           string      `json:"name"`
	Type           string      `json:"type"`
	Description    string      `json:"description"`
	ImpressionData bool        `json:"impressionData"`
	Tags           []store.Tag `json:"tags"`
}

func (s *Server) handleCreateFeature(w http.ResponseWriter, r *http.Request) error {
	var in featureCreateInput
	if err := decode(w, r, &in); err != nil {
		return err
	}
	ctx, project := r.Context(), r.PathValue("projectId")
	var created store.Feature
	err := s.change(ctx, func(tx store.Tx) ([]store.Event, error) {
		p, err := tx.GetProject(ctx, project)
		if err != nil {
			return nil, err
		}
		if err := checkFlagName(in.Name); err != nil {
			return nil, err
		}
		if err := checkFeatureDescription(in.Description); err != nil {
			return nil, err
		}
		if in.Type == "" {
			in.Type = "release"
		}
		if err := checkFeatureType(ctx, tx, in.Type); err != nil {
			return nil, err
		}
		if err := checkNameFree(ctx, tx, in.Name); err != nil {
			return nil, err
		}
		if err := checkFeatureLimit(ctx, tx, p); err != nil {
			return nil, err
		}
		created, err = tx.CreateFeature(ctx, store.Feature{
			Name: in.Name, Project: project, Type: in.Type, Description: in.Description,
			ImpressionData: in.ImpressionData, CreatedBy: principalFrom(ctx).Name(),
		})
		if err != nil {
			return nil, err
		}
		if err := tagNewFeature(ctx, tx, created.Name, in.Tags); err != nil {
			return nil, err
		}
		return []store.Event{featureEvent("feature-created", created, metaOf(created), nil)}, nil
	})
	if err != nil {
		return err
	}
	return s.writeFeature(w, r, http.StatusCreated, created.Name)
}

// maxDescription bounds descriptions of every kind (flags, projects,
// segments, context fields, groups, strategy types, tag types).
const maxDescription = 1000

// checkFeatureDescription refuses a flag description that is too long or
// holds a NUL character, as for every other description.
func checkFeatureDescription(d string) error {
	return checkText("description", d, maxDescription)
}

// checkFeatureType turns an unknown flag type into a ValidationError on type.
func checkFeatureType(ctx context.Context, r store.Reader, id string) error {
	if _, err := r.GetFeatureType(ctx, id); apierr.Is(err, apierr.NotFound) {
		return apierr.Invalid("type", "there is no flag type %q; use one of the types listed at /api/admin/feature-types", id)
	} else if err != nil {
		return err
	}
	return nil
}

// checkFeatureLimit refuses a new flag in a project that has reached its
// featureLimit of active flags.
func checkFeatureLimit(ctx context.Context, r store.Reader, p store.Project) error {
	if p.FeatureLimit == nil {
		return nil
	}
	active := false
	list, err := r.ListFeatures(ctx, store.FeatureFilter{Project: p.ID, Archived: &active})
	if err != nil {
		return err
	}
	if len(list) >= *p.FeatureLimit {
		return apierr.New(apierr.Validation, "project %s has reached its limit of %d active feature flags", p.ID, *p.FeatureLimit)
	}
	return nil
}

// tagNewFeature applies the tags given at creation; tag types must exist.
func tagNewFeature(ctx context.Context, tx store.Tx, feature string, tags []store.Tag) error {
	for i, t := range tags {
		path := "tags[" + strconv.Itoa(i) + "]"
		if n := len([]rune(t.Value)); n < 2 || n > 50 {
			return apierr.Invalid(path+".value", "tag values are 2 to 50 characters long")
		}
		if n := len([]rune(t.Type)); n < 2 || n > 50 {
			return apierr.Invalid(path+".type", "tag types are 2 to 50 characters long")
		}
		if _, err := tx.GetTagType(ctx, t.Type); apierr.Is(err, apierr.NotFound) {
			return apierr.Invalid(path+".type", "there is no tag type %q", t.Type)
		} else if err != nil {
			return err
		}
		if _, err := tx.CreateFeatureTag(ctx, store.FeatureTag{Feature: feature, Tag: t}); err != nil {
			return err
		}
	}
	return nil
}

// writeFeature answers with the current admin view of a flag.
func (s *Server) writeFeature(w http.ResponseWriter, r *http.Request, status int, name string) error {
	var v adminFeature
	err := s.view(r.Context(), func(rd store.Reader) error {
		f, err := rd.GetFeature(r.Context(), name)
		if err != nil {
			return err
		}
		v, err = featureView(r.Context(), rd, f)
		return err
	})
	if err != nil {
		return err
	}
	return writeJSON(w, status, v)
}

// featureChange is what PUT and PATCH may change on a flag; nil keeps.
type featureChange struct {
	Name           *string `json:"name"`
	Description    *string `json:"description"`
	Type           *string `json:"type"`
	Stale          *bool   `json:"stale"`
	ImpressionData *bool   `json:"impressionData"`
	Archived       *bool   `json:"archived"`
	Project        *string `json:"project"`
}

func (s *Server) handleUpdateFeature(w http.ResponseWriter, r *http.Request) error {
	var in featureChange
	if err := decode(w, r, &in); err != nil {
		return err
	}
	in.Project = nil // the project is changed through its own route, as in Unleash
	return s.changeFeature(w, r, func(store.Feature) (featureChange, error) { return in, nil })
}

// handlePatchFeature applies RFC 6902 operations to the flag's metadata
// document (featureMeta) and then saves the result like a PUT that sends
// every property.
func (s *Server) handlePatchFeature(w http.ResponseWriter, r *http.Request) error {
	ops, err := decodePatchBody(w, r)
	if err != nil {
		return err
	}
	for _, op := range ops {
		if path, _ := op.Path(); path == "/variants" || strings.HasPrefix(path, "/variants/") {
			return apierr.Invalid("path", "variants are changed through …/features/{featureName}/environments/{environment}/variants, not here")
		}
	}
	return s.changeFeature(w, r, func(f store.Feature) (featureChange, error) {
		var doc featureMeta
		if err := applyPatchTo(ops, metaOf(f), &doc); err != nil {
			return featureChange{}, err
		}
		return featureChange{
			Name: &doc.Name, Description: &doc.Description, Type: &doc.Type, Stale: &doc.Stale,
			ImpressionData: &doc.ImpressionData, Archived: &doc.Archived, Project: &doc.Project,
		}, nil
	})
}

// changeFeature reads the flag, asks changes for what to change, and saves
// it. Events: feature-metadata-updated unless the request only archives
// the flag, feature-stale-on/off when stale flips, and feature-archived
// when the flag is archived (so an archived flag cannot change unseen; Unleash only logs metadata).
func (s *Server) changeFeature(w http.ResponseWriter, r *http.Request, changes func(store.Feature) (featureChange, error)) error {
	ctx := r.Context()
	name := r.PathValue("featureName")
	err := s.change(ctx, func(tx store.Tx) ([]store.Event, error) {
		before, err := pathFeature(r, tx)
		if err != nil {
			return nil, err
		}
		in, err := changes(before)
		if err != nil {
			return nil, err
		}
		if in.Name != nil && *in.Name != before.Name {
			return nil, apierr.Invalid("name", "a feature flag cannot be renamed")
		}
		if in.Project != nil && *in.Project != before.Project {
			return nil, apierr.Invalid("project", "move a feature flag to another project through its project route, not by changing project")
		}
		after := before
		if in.Description != nil {
			if err := checkFeatureDescription(*in.Description); err != nil {
				return nil, err
			}
			after.Description = *in.Description
		}
		if in.Type != nil {
			if err := checkFeatureType(ctx, tx, *in.Type); err != nil {
				return nil, err
			}
			after.Type = *in.Type
		}
		if in.Stale != nil {
			after.Stale = *in.Stale
		}
		if in.ImpressionData != nil {
			after.ImpressionData = *in.ImpressionData
		}
		archive := in.Archived != nil && *in.Archived
		var events []store.Event
		if metaOf(after) != metaOf(before) || !archive {
			if after, err = tx.UpdateFeature(ctx, after); err != nil {
				return nil, err
			}
			events = append(events, featureEvent("feature-metadata-updated", after, metaOf(after), metaOf(before)))
		}
		if after.Stale != before.Stale {
			typ := "feature-stale-off"
			if after.Stale {
				typ = "feature-stale-on"
			}
			events = append(events, featureEvent(typ, after, map[string]bool{"stale": after.Stale}, map[string]bool{"stale": before.Stale}))
		}
		if archive {
			if err := checkDirectProjectEdit(ctx, tx, after.Project); err != nil {
				return nil, err
			}
			more, err := s.archiveFeatures(ctx, tx, []store.Feature{after})
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
	return s.writeFeature(w, r, http.StatusOK, name)
}

// handleValidateFeatureName answers 200 when a name may be used for a new
// flag, 400 when it is not a valid name and 409 when it is taken.
func (s *Server) handleValidateFeatureName(w http.ResponseWriter, r *http.Request) error {
	var in struct {
		Name      string `json:"name"`
		ProjectID string `json:"projectId"`
	}
	if err := decode(w, r, &in); err != nil {
		return err
	}
	if err := checkFlagName(in.Name); err != nil {
		return err
	}
	err := s.view(r.Context(), func(rd store.Reader) error { return checkNameFree(r.Context(), rd, in.Name) })
	if err != nil {
		return err
	}
	w.WriteHeader(http.StatusOK)
	return nil
}

// handleCloneFeature copies an active flag, with its strategies, variants
// and dependencies, under a new name in the same project. As in Unleash the
// copy starts switched off everywhere and groupId parameters take the new
// name unless replaceGroupId is false.
func (s *Server) handleCloneFeature(w http.ResponseWriter, r *http.Request) error {
	var in struct {
		Name           string `json:"name"`
		ReplaceGroupID *bool  `json:"replaceGroupId"`
	}
	if err := decode(w, r, &in); err != nil {
		return err
	}
	replaceGroup := in.ReplaceGroupID == nil || *in.ReplaceGroupID
	ctx := r.Context()
	err := s.change(ctx, func(tx store.Tx) ([]store.Event, error) {
		src, err := pathFeature(r, tx)
		if err != nil {
			return nil, err
		}
		if err := checkFlagName(in.Name); err != nil {
			return nil, err
		}
		if err := checkNameFree(ctx, tx, in.Name); err != nil {
			return nil, err
		}
		p, err := tx.GetProject(ctx, src.Project)
		if err != nil {
			return nil, err
		}
		if err := checkFeatureLimit(ctx, tx, p); err != nil {
			return nil, err
		}
		return cloneFeature(ctx, tx, src, in.Name, replaceGroup, principalFrom(ctx).Name())
	})
	if err != nil {
		return err
	}
	return s.writeFeature(w, r, http.StatusCreated, in.Name)
}

func cloneFeature(ctx context.Context, tx store.Tx, src store.Feature, name string, replaceGroup bool, by string) ([]store.Event, error) {
	created, err := tx.CreateFeature(ctx, store.Feature{
		Name: name, Project: src.Project, Type: src.Type, Description: src.Description,
		ImpressionData: src.ImpressionData, CreatedBy: by,
	})
	if err != nil {
		return nil, err
	}
	events := []store.Event{featureEvent("feature-created", created, metaOf(created), nil)}
	envs, err := tx.ListFeatureEnvironments(ctx, src.Name)
	if err != nil {
		return nil, err
	}
	for _, fe := range envs {
		if len(fe.Variants) > 0 {
			if _, err := tx.UpdateFeatureEnvironment(ctx, store.FeatureEnvironment{Feature: name, Environment: fe.Environment, Variants: fe.Variants}); err != nil {
				return nil, err
			}
			events = append(events, variantsEvent(created, fe.Environment, nil, fe.Variants))
		}
	}
	strategies, err := tx.ListStrategies(ctx, store.StrategyFilter{Feature: src.Name})
	if err != nil {
		return nil, err
	}
	for _, st := range strategies {
		st.ID, st.Feature, st.CreatedAt = "", name, time.Time{}
		st.Parameters = cloneParameters(st.Parameters)
		if _, ok := st.Parameters["groupId"]; ok && replaceGroup {
			st.Parameters["groupId"] = name
		}
		saved, err := tx.CreateStrategy(ctx, st)
		if err != nil {
			return nil, err
		}
		events = append(events, strategyEvent("feature-strategy-add", created, saved.Environment, strategyView(saved), nil))
	}
	deps, err := tx.ListDependencies(ctx, src.Name)
	if err != nil {
		return nil, err
	}
	for _, d := range deps {
		d.Child = name
		if err := tx.CreateDependency(ctx, d); err != nil {
			return nil, err
		}
		events = append(events, featureEvent("feature-dependency-added", created, dependencyView(d), nil))
	}
	return events, nil
}

// decodeDoc decodes a JSON document built in the server (such as the result
// of a JSON Patch) into dst, turning type mismatches into ValidationErrors
// that name the property.
func decodeDoc(data []byte, dst any) error {
	err := json.Unmarshal(data, dst)
	var typ *json.UnmarshalTypeError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &typ):
		field := typ.Field
		if field == "" {
			field = "body"
		}
		return apierr.Invalid(field, "%s has the wrong type (got a JSON %s)", field, typ.Value)
	default:
		return apierr.Invalid("body", "the document is not valid: %v", err)
	}
}
