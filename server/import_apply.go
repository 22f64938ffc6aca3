package server

// Validating and importing an export document into one project and
// environment. Both run the same code: the checks first, then, when they
// find no error, the import itself, whose own validation (the same as the
// admin routes': checkStrategy, normalizeVariants, checkDependency, …) may
// find more. Import runs in one write transaction and commits only when
// there is no error and the caller holds every permission needed.
// Validate runs in a read-only transaction, its writes kept in an
// importPreview (import_preview.go) that later reads of the same run see,
// and reports: it never takes the store's write lock.
//
// What an import does, per flag of data.features:
//   - creates the flag in the project, or updates the type, description,
//     stale and impressionData of the project's flag of that name;
//   - replaces its strategies in the environment (new ids; segments are
//     found by name), its variants there and its tags;
//   - replaces its dependencies with those of the data;
//   - switches it on or off there as featureEnvironments says (a flag
//     without an entry keeps its state).
//
// Missing context fields and tag types are created from the data. Variant
// weights are kept as given when they total 1000, so users keep their
// variants; otherwise they are recomputed as everywhere else.
//
// Events: context-field-created and tag-type-created for what is created,
// feature-environment-enabled/-disabled (and feature-strategy-add for a
// default strategy) when a flag's state changes, feature-import per flag
// (data: the flag as imported, preData: as it was) and one
// features-imported.

import (
	"context"
	"errors"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/signalbox/signalbox/clientapi"
	"github.com/signalbox/signalbox/internal/apierr"
	"github.com/signalbox/signalbox/store"
)

// importItem is one finding: what, and about which items.
type importItem struct {
	Message       string   `json:"message"`
	AffectedItems []string `json:"affectedItems"`
}

// importReport is the answer of validate (importTogglesValidateSchema).
type importReport struct {
	Errors      []importItem `json:"errors"`
	Warnings    []importItem `json:"warnings"`
	Permissions []importItem `json:"permissions"`
}

// findings collects items, merging those with the same message.
type findings []importItem

func (f *findings) add(message string, affected ...string) {
	for i := range *f {
		if it := &(*f)[i]; it.Message == message {
			for _, a := range affected {
				if !slices.Contains(it.AffectedItems, a) {
					it.AffectedItems = append(it.AffectedItems, a)
				}
			}
			return
		}
	}
	*f = append(*f, importItem{Message: message, AffectedItems: append([]string{}, affected...)})
}

// Messages of the checks. They are fixed texts, so that findings about
// several items merge into one.
const (
	msgEnvNotInProject  = "The environment is not enabled in the project; enable it there first:"
	msgBadName          = "These flag names are not valid (URL-safe, at most 100 characters):"
	msgDuplicate        = "These flags are listed more than once in data.features:"
	msgOtherProject     = "These flags exist in another project; import them there or move them first:"
	msgArchived         = "These flags are archived; revive or delete them before importing:"
	msgUnknownType      = "These flag types do not exist:"
	msgFeatureLimit     = "The import would take the project over its limit of active flags:"
	msgUnlisted         = "The data refers to flags that are not in data.features:"
	msgUnknownStrategy  = "These strategy types do not exist here; create them first:"
	msgUnlistedSegment  = "Strategies refer to segment ids that are not in data.segments:"
	msgUnknownSegment   = "These segments do not exist here; create them (same name) first:"
	msgForeignSegment   = "These segments belong to another project:"
	msgBadSortOrder     = "These strategies have a sortOrder out of range:"
	msgLegalValues      = "These context fields exist here without some of the data's legal values; add them first:"
	msgBadContextField  = "These context fields cannot be created as given:"
	msgBadTag           = "These tags are not valid (type and value are 2 to 50 characters):"
	msgBadTagType       = "These tag types cannot be created as given:"
	msgUnknownParent    = "Dependencies name parents that are neither in the data nor active in the project:"
	msgInvalidFlag      = "These flags cannot be imported as given:"
	msgOverwrite        = "These flags exist in the project; their configuration in the environment, their tags and dependencies will be replaced:"
	msgCustomStrategies = "These custom strategy types are used; make sure their parameters are defined as in the source:"
)

// importer holds one validation or import run.
type importer struct {
	ctx     context.Context
	tx      importWriter
	caller  *Principal
	project store.Project
	env     store.Environment
	pe      store.ProjectEnvironment
	doc     exportDoc

	errors, warnings, permissions findings

	flags    []exportFeature          // data.features, valid and unique, in data order
	existing map[string]store.Feature // the project's active flags among them
	segments map[int]int              // segment id of the data → id here
	fields   []store.ContextField     // context fields to create
	tagTypes []store.TagType          // tag types to create
	// The data grouped by flag.
	strategies map[string][]adminStrategy
	envs       map[string]exportFeatureEnv
	tags       map[string][]store.Tag
	deps       map[string][]dependencyInput
}

// importWriter is what an import reads and writes: a store transaction,
// or an importPreview for a validation.
type importWriter interface {
	envSwitcher
	CreateTagType(ctx context.Context, t store.TagType) (store.TagType, error)
	CreateContextField(ctx context.Context, c store.ContextField) (store.ContextField, error)
	CreateFeature(ctx context.Context, f store.Feature) (store.Feature, error)
	UpdateFeature(ctx context.Context, f store.Feature) (store.Feature, error)
	DeleteStrategy(ctx context.Context, id string) error
	CreateFeatureTag(ctx context.Context, ft store.FeatureTag) (created bool, err error)
	DeleteFeatureTag(ctx context.Context, ft store.FeatureTag) error
	CreateDependency(ctx context.Context, d store.Dependency) error
	DeleteDependencies(ctx context.Context, child string) error
}

// runImport checks doc for import into req's project and environment and,
// when the checks find no error, imports it in tx. It returns the findings
// and the events of the import; its error is NotFound for an unknown
// project or environment, or a failure of the store.
func runImport(ctx context.Context, tx importWriter, req importRequest, doc exportDoc) (importReport, []store.Event, error) {
	im := &importer{ctx: ctx, tx: tx, caller: principalFrom(ctx), doc: doc, existing: map[string]store.Feature{},
		segments: map[int]int{}, strategies: map[string][]adminStrategy{}, envs: map[string]exportFeatureEnv{},
		tags: map[string][]store.Tag{}, deps: map[string][]dependencyInput{}}
	sight, err := readSight(ctx, tx, im.caller)
	if err != nil {
		return importReport{}, nil, err
	}
	if !sight.canSee(req.Project) {
		return importReport{}, nil, apierr.New(apierr.NotFound, "project %s not found", req.Project)
	}
	if im.project, err = tx.GetProject(ctx, req.Project); err != nil {
		return importReport{}, nil, err
	}
	if im.env, err = tx.GetEnvironment(ctx, req.Environment); err != nil {
		return importReport{}, nil, err
	}
	if _, im.pe, err = projectEnvironment(ctx, tx, im.project.ID, im.env.Name); apierr.Is(err, apierr.NotFound) {
		im.errors.add(msgEnvNotInProject, im.env.Name)
	} else if err != nil {
		return importReport{}, nil, err
	}
	// An import is a direct edit: with change requests on in the
	// environment it is refused like the others (403), listed here as a
	// missing permission.
	if err := checkDirectEdit(ctx, tx, im.project.ID, im.env.Name); apierr.Is(err, apierr.NoAccess) {
		im.permissions.add(errorMessage(err), im.env.Name)
	} else if err != nil {
		return importReport{}, nil, err
	}
	var events []store.Event
	err = im.check()
	if err == nil && len(im.errors) == 0 {
		events, err = im.apply()
	}
	if err != nil {
		return importReport{}, nil, err
	}
	return importReport{Errors: nonNilList(im.errors), Warnings: nonNilList(im.warnings), Permissions: nonNilList(im.permissions)}, events, nil
}

// check runs every check that needs no writes.
func (im *importer) check() error {
	if err := im.checkFlags(); err != nil {
		return err
	}
	if err := im.checkStrategies(); err != nil {
		return err
	}
	if err := im.checkContextFields(); err != nil {
		return err
	}
	if err := im.checkTags(); err != nil {
		return err
	}
	if err := im.checkDependencies(); err != nil {
		return err
	}
	return im.checkPermissions()
}

func (im *importer) checkFlags() error {
	ctx, tx := im.ctx, im.tx
	listed := map[string]bool{}
	for _, f := range im.doc.Features {
		if err := checkFlagName(f.Name); err != nil {
			im.errors.add(msgBadName, f.Name)
			continue
		}
		if listed[f.Name] {
			im.errors.add(msgDuplicate, f.Name)
			continue
		}
		listed[f.Name] = true
		if f.Type == "" {
			f.Type = "release"
		}
		if err := checkFeatureType(ctx, tx, f.Type); apierr.Is(err, apierr.Validation) {
			im.errors.add(msgUnknownType, f.Type)
		} else if err != nil {
			return err
		}
		cur, err := tx.GetFeature(ctx, f.Name)
		switch {
		case apierr.Is(err, apierr.NotFound):
		case err != nil:
			return err
		case cur.Project != im.project.ID:
			im.errors.add(msgOtherProject, f.Name+" (in project "+cur.Project+")")
		case cur.Archived():
			im.errors.add(msgArchived, f.Name)
		default:
			im.existing[f.Name] = cur
			im.warnings.add(msgOverwrite, f.Name)
		}
		im.flags = append(im.flags, f)
	}
	if limit := im.project.FeatureLimit; limit != nil {
		active := false
		list, err := tx.ListFeatures(ctx, store.FeatureFilter{Project: im.project.ID, Archived: &active})
		if err != nil {
			return err
		}
		if n := len(list) + len(im.flags) - len(im.existing); n > *limit {
			im.errors.add(msgFeatureLimit, strconv.Itoa(n)+" active flags, limit "+strconv.Itoa(*limit))
		}
	}
	// Everything else in the data must be about a listed flag.
	for _, st := range im.doc.FeatureStrategies {
		if !listed[st.FeatureName] {
			im.errors.add(msgUnlisted, st.FeatureName)
		}
		im.strategies[st.FeatureName] = append(im.strategies[st.FeatureName], st)
	}
	for _, fe := range im.doc.FeatureEnvironments {
		if !listed[fe.flag()] {
			im.errors.add(msgUnlisted, fe.flag())
		}
		if _, dup := im.envs[fe.flag()]; !dup {
			im.envs[fe.flag()] = fe
		}
	}
	for _, ft := range im.doc.FeatureTags {
		if !listed[ft.FeatureName] {
			im.errors.add(msgUnlisted, ft.FeatureName)
		}
		if t := ft.tag(); !containsTag(im.tags[ft.FeatureName], t) {
			im.tags[ft.FeatureName] = append(im.tags[ft.FeatureName], t)
		}
	}
	for _, d := range im.doc.Dependencies {
		if !listed[d.Feature] {
			im.errors.add(msgUnlisted, d.Feature)
		}
		im.deps[d.Feature] = append(im.deps[d.Feature], d.Dependencies...)
	}
	return nil
}

func (im *importer) checkStrategies() error {
	ctx, tx := im.ctx, im.tx
	names := map[int]string{}
	for _, sg := range im.doc.Segments {
		names[sg.ID] = sg.Name
	}
	local, err := tx.ListSegments(ctx, store.SegmentFilter{})
	if err != nil {
		return err
	}
	for _, st := range im.doc.FeatureStrategies {
		def, err := tx.GetStrategyDefinition(ctx, st.Name)
		switch {
		case apierr.Is(err, apierr.NotFound):
			im.errors.add(msgUnknownStrategy, st.Name)
		case err != nil:
			return err
		case !slices.Contains(store.BuiltinStrategies, def.Name):
			im.warnings.add(msgCustomStrategies, def.Name)
		}
		if math.Abs(float64(st.SortOrder)) > 1e9 {
			im.errors.add(msgBadSortOrder, st.FeatureName+": "+strconv.Itoa(st.SortOrder))
		}
		for _, id := range st.Segments {
			name, ok := names[id]
			if !ok {
				im.errors.add(msgUnlistedSegment, strconv.Itoa(id))
				continue
			}
			i := slices.IndexFunc(local, func(sg store.Segment) bool { return sg.Name == name })
			switch {
			case i < 0:
				im.errors.add(msgUnknownSegment, name)
			case local[i].Project != "" && local[i].Project != im.project.ID:
				im.errors.add(msgForeignSegment, name+" (in project "+local[i].Project+")")
			default:
				im.segments[id] = local[i].ID
			}
		}
	}
	return nil
}

func (im *importer) checkContextFields() error {
	seen := map[string]bool{}
	for _, in := range im.doc.ContextFields {
		if seen[in.Name] {
			continue
		}
		seen[in.Name] = true
		cur, err := getContextField(im.ctx, im.tx, in.Name)
		switch {
		case apierr.Is(err, apierr.NotFound):
			c, err := newContextField(in)
			if err != nil {
				im.errors.add(msgBadContextField, in.Name+": "+errorMessage(err))
				continue
			}
			im.fields = append(im.fields, c)
		case err != nil:
			return err
		case len(cur.LegalValues) > 0:
			for _, lv := range in.LegalValues {
				if !slices.ContainsFunc(cur.LegalValues, func(l store.LegalValue) bool { return l.Value == lv.Value }) {
					im.errors.add(msgLegalValues, in.Name)
				}
			}
		}
	}
	return nil
}

// newContextField checks a context field of the data as a new one, with
// the rules of the context field routes.
func newContextField(in exportContextField) (store.ContextField, error) {
	c := store.ContextField{Name: in.Name}
	if err := checkURLName("name", c.Name, 1, 100); err != nil {
		return c, err
	}
	if _, ok := builtinContextField(c.Name); ok {
		return c, apierr.Invalid("name", "%s is a built-in context field", c.Name)
	}
	if math.Abs(float64(in.SortOrder)) > 1e9 {
		return c, apierr.Invalid("sortOrder", "sortOrder is out of range")
	}
	body := contextFieldBody{
		Description: bodyField[string]{Sent: true, V: in.Description}, Stickiness: bodyField[bool]{Sent: true, V: in.Stickiness},
		SortOrder: bodyField[int]{Sent: true, V: in.SortOrder}, LegalValues: bodyField[[]store.LegalValue]{Sent: true, V: nonNilList(in.LegalValues)},
	}
	return c, body.apply(&c)
}

func (im *importer) checkTags() error {
	described := map[string]tagTypeJSON{}
	for _, t := range im.doc.TagTypes {
		described[t.Name] = t
	}
	planned := map[string]bool{}
	for _, ft := range im.doc.FeatureTags {
		t := ft.tag()
		if n, m := len([]rune(t.Value)), len([]rune(t.Type)); n < 2 || n > 50 || m < 2 || m > 50 {
			im.errors.add(msgBadTag, t.Type+":"+t.Value)
			continue
		}
		if planned[t.Type] {
			continue
		}
		planned[t.Type] = true
		if _, err := im.tx.GetTagType(im.ctx, t.Type); err == nil {
			continue
		} else if !apierr.Is(err, apierr.NotFound) {
			return err
		}
		d := described[t.Type]
		body := tagTypeBody{Name: t.Type, Description: bodyField[string]{Sent: true, V: d.Description}}
		if d.Icon != nil {
			body.Icon = bodyField[string]{Sent: true, V: *d.Icon}
		}
		tt, err := newTagType(body)
		if err != nil {
			im.errors.add(msgBadTagType, t.Type+": "+errorMessage(err))
			continue
		}
		im.tagTypes = append(im.tagTypes, tt)
	}
	return nil
}

func (im *importer) checkDependencies() error {
	for child, deps := range im.deps {
		for _, d := range deps {
			if slices.ContainsFunc(im.flags, func(f exportFeature) bool { return f.Name == d.Feature }) {
				continue
			}
			parent, err := im.tx.GetFeature(im.ctx, d.Feature)
			if err != nil && !apierr.Is(err, apierr.NotFound) {
				return err
			}
			if err != nil || parent.Project != im.project.ID || parent.Archived() {
				im.errors.add(msgUnknownParent, child+" → "+d.Feature)
			}
		}
	}
	return nil
}

// importCan reports whether the caller may do what perm names when
// importing into project: at root level, or through a project role the
// user holds there.
func importCan(ctx context.Context, rd store.Reader, p *Principal, project string, perm Permission) (bool, error) {
	switch {
	case p == nil:
		return false, nil
	case p.can(perm):
		return true, nil
	case p.User == nil:
		return false, nil
	}
	grants, err := rd.UserProjectRoles(ctx, p.User.ID, project)
	if err != nil {
		return false, err
	}
	return slices.ContainsFunc(grants, func(g store.ProjectAccess) bool { return projectRoleAllows(g.RoleID, perm) }), nil
}

// checkPermissions lists the permissions the import needs that the caller
// lacks, each with the items that need it.
func (im *importer) checkPermissions() error {
	need := map[Permission][]string{}
	for _, f := range im.flags {
		if _, ok := im.existing[f.Name]; ok {
			need[PermUpdateFeature] = append(need[PermUpdateFeature], f.Name)
			strategies, err := im.tx.ListStrategies(im.ctx, store.StrategyFilter{Feature: f.Name, Environment: im.env.Name})
			if err != nil {
				return err
			}
			if len(strategies) > 0 {
				need[PermDeleteFeatureStrategy] = append(need[PermDeleteFeatureStrategy], f.Name)
			}
		} else {
			need[PermCreateFeature] = append(need[PermCreateFeature], f.Name)
		}
		if len(im.strategies[f.Name]) > 0 {
			need[PermCreateFeatureStrategy] = append(need[PermCreateFeatureStrategy], f.Name)
		}
		if fe, ok := im.envs[f.Name]; ok {
			need[PermUpdateFeatureVariants] = append(need[PermUpdateFeatureVariants], f.Name)
			if fe.Enabled {
				need[PermUpdateFeatureEnvironment] = append(need[PermUpdateFeatureEnvironment], f.Name)
			}
		}
		if len(im.deps[f.Name]) > 0 {
			need[PermUpdateFeatureDependency] = append(need[PermUpdateFeatureDependency], f.Name)
		}
	}
	for _, c := range im.fields {
		need[PermCreateContextField] = append(need[PermCreateContextField], c.Name)
	}
	for _, t := range im.tagTypes {
		need[PermCreateTagType] = append(need[PermCreateTagType], t.Name)
	}
	for _, perm := range []Permission{PermCreateFeature, PermUpdateFeature, PermCreateFeatureStrategy, PermDeleteFeatureStrategy,
		PermUpdateFeatureVariants, PermUpdateFeatureEnvironment, PermUpdateFeatureDependency, PermCreateContextField, PermCreateTagType} {
		if len(need[perm]) == 0 {
			continue
		}
		ok, err := importCan(im.ctx, im.tx, im.caller, im.project.ID, perm)
		if err != nil {
			return err
		}
		if !ok {
			im.permissions.add("You need permission "+string(perm)+" for these items:", need[perm]...)
		}
	}
	return nil
}

// errorMessage is the message of an API error, or the error's text.
func errorMessage(err error) string {
	var e *apierr.Error
	if errors.As(err, &e) {
		return e.Message
	}
	return err.Error()
}

// invalidFlag records that the import of a flag failed on err when err is
// about the data (an API error other than Internal); other errors are
// returned.
func (im *importer) invalidFlag(name string, err error) error {
	if k := apierr.KindOf(err); k == apierr.Internal || k == apierr.NotReady {
		return err
	}
	im.errors.add(msgInvalidFlag, name+": "+errorMessage(err))
	return nil
}

// importedFlag is the data of feature-import events: a flag in the
// target environment, as imported (data) or as it was (preData).
type importedFlag struct {
	exportFeature
	Enabled      bool              `json:"enabled"`
	Strategies   []adminStrategy   `json:"strategies"`
	Variants     []adminVariant    `json:"variants"`
	Tags         []store.Tag       `json:"tags"`
	Dependencies []adminDependency `json:"dependencies"`
}

func snapshotFlag(ctx context.Context, r store.Reader, f store.Feature, env string) (importedFlag, error) {
	out := importedFlag{exportFeature: exportFeature{Name: f.Name, Type: f.Type, Description: f.Description,
		Project: f.Project, Stale: f.Stale, ImpressionData: f.ImpressionData}, Strategies: []adminStrategy{}, Dependencies: []adminDependency{}}
	fe, err := r.GetFeatureEnvironment(ctx, f.Name, env)
	if err != nil {
		return out, err
	}
	out.Enabled, out.Variants = fe.Enabled, variantViews(fe.Variants)
	strategies, err := r.ListStrategies(ctx, store.StrategyFilter{Feature: f.Name, Environment: env})
	if err != nil {
		return out, err
	}
	for _, st := range strategies {
		out.Strategies = append(out.Strategies, strategyView(st))
	}
	if out.Tags, err = tagsOf(ctx, r, f.Name); err != nil {
		return out, err
	}
	deps, err := r.ListDependencies(ctx, f.Name)
	for _, d := range deps {
		out.Dependencies = append(out.Dependencies, dependencyView(d))
	}
	return out, err
}

// keepWeights gives normalized variants the weights they were given when
// those total 1000: they already form a valid split, and recomputing it
// could move users to other variants.
func keepWeights(normalized, given []clientapi.Variant) []clientapi.Variant {
	sum := 0
	for _, v := range given {
		sum += v.Weight
	}
	if sum != 1000 {
		return normalized
	}
	for i := range normalized {
		if j := slices.IndexFunc(given, func(v clientapi.Variant) bool { return v.Name == normalized[i].Name }); j >= 0 {
			normalized[i].Weight = given[j].Weight
		}
	}
	return normalized
}

// apply imports the checked data. Findings about the data go to
// im.errors; the returned error is a store failure.
func (im *importer) apply() ([]store.Event, error) {
	ctx, tx := im.ctx, im.tx
	var events []store.Event
	for _, t := range im.tagTypes {
		created, err := tx.CreateTagType(ctx, t)
		if err != nil {
			return nil, err
		}
		events = append(events, store.Event{Type: "tag-type-created", Data: eventData(tagTypeResponse(created))})
	}
	for _, c := range im.fields {
		created, err := tx.CreateContextField(ctx, c)
		if err != nil {
			return nil, err
		}
		events = append(events, store.Event{Type: "context-field-created", Data: eventData(contextFieldResponse(created, contextUse{}))})
	}

	before := map[string]*importedFlag{}
	imported := make([]store.Feature, 0, len(im.flags))
	for _, in := range im.flags {
		if cur, ok := im.existing[in.Name]; ok {
			snap, err := snapshotFlag(ctx, tx, cur, im.env.Name)
			if err != nil {
				return nil, err
			}
			before[in.Name] = &snap
		}
		f, err := im.importFlag(in)
		if err != nil {
			if err = im.invalidFlag(in.Name, err); err != nil {
				return nil, err
			}
			continue
		}
		imported = append(imported, f)
	}
	// Dependencies once every flag is there: parents may come later in
	// the data than their children.
	for _, f := range imported {
		if err := tx.DeleteDependencies(ctx, f.Name); err != nil {
			return nil, err
		}
	}
	for _, f := range imported {
		for _, d := range im.deps[f.Name] {
			dep, err := checkDependency(ctx, tx, f, d)
			if err == nil {
				err = tx.CreateDependency(ctx, dep)
			}
			if err != nil {
				if err = im.invalidFlag(f.Name, err); err != nil {
					return nil, err
				}
			}
		}
	}
	target := featureEnvTarget{env: im.env, pe: im.pe}
	names := make([]string, 0, len(imported))
	for _, f := range imported {
		if fe, ok := im.envs[f.Name]; ok {
			target.feature = f
			more, err := switchEnvironment(ctx, tx, target, fe.Enabled, false)
			if err != nil {
				if err = im.invalidFlag(f.Name, err); err != nil {
					return nil, err
				}
			}
			events = append(events, more...)
		}
		after, err := snapshotFlag(ctx, tx, f, im.env.Name)
		if err != nil {
			return nil, err
		}
		e := store.Event{Type: "feature-import", Project: f.Project, Environment: im.env.Name, FeatureName: f.Name, Data: eventData(after)}
		if b := before[f.Name]; b != nil {
			e.PreData = eventData(b)
		}
		events = append(events, e)
		names = append(names, f.Name)
	}
	if len(names) == 0 && len(events) == 0 {
		// Nothing was imported: no event, so the revision (and every SDK's
		// cached answer) stays.
		return nil, nil
	}
	return append(events, store.Event{Type: "features-imported", Project: im.project.ID, Environment: im.env.Name,
		Data: eventData(map[string]any{"project": im.project.ID, "environment": im.env.Name, "features": names})}), nil
}

// importFlag creates or updates one flag and replaces its strategies,
// variants and tags in the environment.
func (im *importer) importFlag(in exportFeature) (store.Feature, error) {
	ctx, tx, env := im.ctx, im.tx, im.env.Name
	if err := checkFeatureDescription(in.Description); err != nil {
		return store.Feature{}, err
	}
	if in.Type == "" {
		in.Type = "release"
	}
	f, exists := im.existing[in.Name]
	var err error
	if exists {
		f.Type, f.Description, f.Stale, f.ImpressionData = in.Type, in.Description, in.Stale, in.ImpressionData
		f, err = tx.UpdateFeature(ctx, f)
	} else {
		f, err = tx.CreateFeature(ctx, store.Feature{Name: in.Name, Project: im.project.ID, Type: in.Type, Description: in.Description,
			Stale: in.Stale, ImpressionData: in.ImpressionData, CreatedBy: im.caller.Name()})
	}
	if err != nil {
		return f, err
	}

	old, err := tx.ListStrategies(ctx, store.StrategyFilter{Feature: f.Name, Environment: env})
	if err != nil {
		return f, err
	}
	for _, st := range old {
		if err := tx.DeleteStrategy(ctx, st.ID); err != nil {
			return f, err
		}
	}
	for _, a := range im.strategies[f.Name] {
		st := store.Strategy{Feature: f.Name, Environment: env, Name: a.Name, Title: deref(a.Title), Disabled: a.Disabled,
			SortOrder: a.SortOrder, Parameters: cloneParameters(a.Parameters), Constraints: nonNilList(a.Constraints),
			Variants: nonNilList(a.Variants), Segments: []int{}}
		for _, id := range a.Segments {
			st.Segments = append(st.Segments, im.segments[id])
		}
		if err := checkStrategy(ctx, tx, f, &st); err != nil {
			return f, err
		}
		st.Variants = keepWeights(st.Variants, a.Variants)
		if _, err := tx.CreateStrategy(ctx, st); err != nil {
			return f, err
		}
	}

	fe, err := tx.GetFeatureEnvironment(ctx, f.Name, env)
	if err != nil {
		return f, err
	}
	if data, ok := im.envs[f.Name]; ok {
		given := variantsFrom(data.Variants)
		list, err := normalizeVariants("variants", given, false)
		if err != nil {
			return f, err
		}
		fe.Variants = keepWeights(list, given)
		if _, err := tx.UpdateFeatureEnvironment(ctx, fe); err != nil {
			return f, err
		}
	}

	current, err := tagsOf(ctx, tx, f.Name)
	if err != nil {
		return f, err
	}
	for _, t := range current {
		if !containsTag(im.tags[f.Name], t) {
			if err := tx.DeleteFeatureTag(ctx, store.FeatureTag{Feature: f.Name, Tag: t}); err != nil {
				return f, err
			}
		}
	}
	for _, t := range im.tags[f.Name] {
		if _, err := tx.CreateFeatureTag(ctx, store.FeatureTag{Feature: f.Name, Tag: t}); err != nil {
			return f, err
		}
	}
	return f, nil
}

// importRefused is the 400 of an import whose data has errors.
func importRefused(items []importItem) error {
	e := &apierr.Error{Kind: apierr.Validation}
	for _, it := range items {
		e.Details = append(e.Details, apierr.Detail{Path: "data", Message: it.Message + " " + strings.Join(it.AffectedItems, ", ")})
	}
	e.Message = "the data cannot be imported: " + e.Details[0].Message
	if len(items) > 1 {
		e.Message += " (and " + strconv.Itoa(len(items)-1) + " more problems; see details or validate the data first)"
	}
	return e
}

// importDenied is the 403 of an import the caller lacks permissions for.
func importDenied(items []importItem) error {
	var msgs []string
	for _, it := range items {
		msgs = append(msgs, it.Message+" "+strings.Join(it.AffectedItems, ", "))
	}
	return apierr.New(apierr.NoAccess, "the import needs permissions you do not have: %s", strings.Join(msgs, "; "))
}

// handleValidateImport checks an import without changing anything: after
// refusing a caller who may not import into the project, it runs the
// import in a read-only transaction, its writes kept in a preview, and
// answers its errors, warnings and missing permissions.
func (s *Server) handleValidateImport(w http.ResponseWriter, r *http.Request) error {
	req, doc, err := s.decodeImport(w, r)
	if err != nil {
		return err
	}
	ctx := r.Context()
	var report importReport
	err = s.view(ctx, func(rd store.Reader) error {
		report, _, err = runImport(ctx, newImportPreview(rd), req, doc)
		return err
	})
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, report)
}

// mayImportInto refuses an import into project by a caller who may not
// change its flags (UPDATE_FEATURE there). An unknown project is left to
// the import, which answers 404.
func (s *Server) mayImportInto(ctx context.Context, project string) error {
	p := principalFrom(ctx)
	var ok bool
	err := s.view(ctx, func(rd store.Reader) (err error) {
		ok, err = importCan(ctx, rd, p, project, PermUpdateFeature)
		return err
	})
	if err != nil {
		return err
	}
	if !ok {
		return apierr.New(apierr.NoAccess, "you need permission %s in project %s to import into it", PermUpdateFeature, project)
	}
	return nil
}

// handleImport imports a document in one transaction: 400 when validation
// finds errors, 403 when the caller lacks a permission the import needs,
// 200 without a body when done.
func (s *Server) handleImport(w http.ResponseWriter, r *http.Request) error {
	req, doc, err := s.decodeImport(w, r)
	if err != nil {
		return err
	}
	ctx := r.Context()
	return s.answerEmptyOK(w, s.change(ctx, func(tx store.Tx) ([]store.Event, error) {
		report, events, err := runImport(ctx, tx, req, doc)
		switch {
		case err != nil:
			return nil, err
		case len(report.Errors) > 0:
			return nil, importRefused(report.Errors)
		case len(report.Permissions) > 0:
			return nil, importDenied(report.Permissions)
		}
		return events, nil
	}))
}
