package migrate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/signalbox/signalbox/internal/apierr"
	"github.com/signalbox/signalbox/store"
)

// settingName is the instance setting that records which Unleash the data
// came from, so that a second run knows the data as its own.
const settingName = "signalbox.migration.unleash"

// actor is the CreatedBy of every event the migration writes.
const actor = "unleash-migration"

// errDryRun rolls back the single transaction of a dry run.
var errDryRun = errors.New("dry run")

// ErrOtherData is returned when the target holds data that did not come
// from this source and merging was not asked for.
var ErrOtherData = errors.New("the target database holds other data")

// Outcomes of one object.
const (
	created   = "created"
	updated   = "updated"
	unchanged = "unchanged"
	skipped   = "not carried"
)

// Report is what a run did (or, dry, would do).
type Report struct {
	DryRun bool
	// Counts per kind of object and outcome.
	Counts map[string]map[string]int
	// Kinds in the order they were written.
	Kinds []string
	// NotCarried lists every object that was not carried over, or was
	// carried with a change, and why.
	NotCarried []Note
	// Changes counts created and updated objects.
	Changes int
}

func (r *Report) count(kind, outcome string) {
	if r.Counts == nil {
		r.Counts = map[string]map[string]int{}
	}
	if r.Counts[kind] == nil {
		r.Counts[kind] = map[string]int{}
		r.Kinds = append(r.Kinds, kind)
	}
	r.Counts[kind][outcome]++
	if outcome == created || outcome == updated {
		r.Changes++
	}
}

// applier writes a Source into a store.
type applier struct {
	st    store.Store
	src   *Source
	merge bool
	dry   bool
	logf  func(string, ...any)
	// progress, when set, shows how many flags are done instead of a log
	// line every 25.
	progress func(done, total int)
	note     string
	report   *Report
	// segmentIDs maps a source segment id to the id in the target.
	segmentIDs map[int]int
	// flags that were refused (name clash); their dependencies are not
	// written either.
	refused map[string]bool
	// userIDs and groupIDs map source ids to the ids in the target.
	userIDs  map[int]int
	groupIDs map[int]int
	// tx is the one transaction of a dry run.
	tx store.Tx
}

// apply writes src into st: each object in its own transaction with its
// audit events, or everything in one transaction that is rolled back when
// dry.
func apply(ctx context.Context, st store.Store, src *Source, merge, dry bool, logf func(string, ...any), progress func(done, total int)) (*Report, error) {
	a := &applier{
		st: st, src: src, merge: merge, dry: dry, logf: logf, progress: progress,
		note:       "migrated from Unleash at " + src.URL,
		report:     &Report{DryRun: dry},
		segmentIDs: map[int]int{},
		refused:    map[string]bool{},
		userIDs:    map[int]int{},
		groupIDs:   map[int]int{},
	}
	if err := a.checkTarget(ctx); err != nil {
		return nil, err
	}
	a.report.NotCarried = append(a.report.NotCarried, src.Skipped...)
	if !dry {
		return a.report, a.all(ctx)
	}
	err := st.Update(ctx, func(tx store.Tx) error {
		a.tx = tx
		if err := a.all(ctx); err != nil {
			return err
		}
		return errDryRun
	})
	if errors.Is(err, errDryRun) {
		err = nil
	}
	return a.report, err
}

type sourceRecord struct {
	URL string `json:"url"`
}

// checkTarget refuses a target that holds data of its own unless merging,
// and the data of another migration source in any case.
func (a *applier) checkTarget(ctx context.Context) error {
	return a.st.View(ctx, func(r store.Reader) error {
		if s, err := r.GetSetting(ctx, settingName); err == nil {
			var rec sourceRecord
			if json.Unmarshal(s.Value, &rec) == nil && rec.URL == a.src.URL {
				return nil
			}
			if !a.merge {
				return fmt.Errorf("%w: it was migrated from Unleash at %s, not %s; use --merge to add this source's data to it", ErrOtherData, rec.URL, a.src.URL)
			}
			return nil
		} else if !apierr.Is(err, apierr.NotFound) {
			return err
		}
		if a.merge {
			return nil
		}
		var found []string
		if fs, err := r.ListFeatures(ctx, store.FeatureFilter{}); err != nil {
			return err
		} else if len(fs) > 0 {
			found = append(found, fmt.Sprintf("%d flags", len(fs)))
		}
		if ss, err := r.ListSegments(ctx, store.SegmentFilter{}); err != nil {
			return err
		} else if len(ss) > 0 {
			found = append(found, fmt.Sprintf("%d segments", len(ss)))
		}
		if ps, err := r.ListProjects(ctx); err != nil {
			return err
		} else if len(ps) > 1 || (len(ps) == 1 && ps[0].ID != store.DefaultProject) {
			found = append(found, fmt.Sprintf("%d projects", len(ps)))
		}
		if len(found) > 0 {
			return fmt.Errorf("%w (%s) that did not come from %s; use --merge to add to it", ErrOtherData, strings.Join(found, ", "), a.src.URL)
		}
		return nil
	})
}

// step writes one object: fn decides and writes in tx and returns the
// outcome and the audit events of what it changed.
func (a *applier) step(ctx context.Context, kind, name string, fn func(tx store.Tx) (string, []store.Event, error)) error {
	var outcome string
	run := func(tx store.Tx) error {
		o, events, err := fn(tx)
		if err != nil {
			return err
		}
		outcome = o
		for _, e := range events {
			e.CreatedBy = actor
			if _, err := tx.AppendEvent(ctx, e); err != nil {
				return err
			}
		}
		return nil
	}
	var err error
	if a.dry {
		err = run(a.tx)
	} else {
		err = a.st.Update(ctx, run)
	}
	if err != nil {
		return fmt.Errorf("%s %s: %w", kind, name, err)
	}
	a.report.count(kind, outcome)
	switch outcome {
	case created, updated:
		verb := outcome
		if a.dry {
			verb = "would be " + outcome
		}
		a.logf("%s %s %s", kind, name, verb)
	}
	return nil
}

// refuse records an object that is not carried.
func (a *applier) refuse(kind, name, format string, args ...any) (string, []store.Event, error) {
	a.report.NotCarried = append(a.report.NotCarried, Note{Object: kind + " " + name, Reason: fmt.Sprintf(format, args...)})
	return skipped, nil, nil
}

// event builds an audit event whose data carries the object and where it
// came from.
func (a *applier) event(typ, project, feature, env string, data any) store.Event {
	b, _ := json.Marshal(struct {
		Note string `json:"note"`
		Data any    `json:"data"`
	}{a.note, data})
	return store.Event{Type: typ, Project: project, FeatureName: feature, Environment: env, Data: b}
}

func same(a, b any) bool {
	x, err1 := json.Marshal(a)
	y, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && string(x) == string(y)
}

func (a *applier) all(ctx context.Context) error {
	steps := []func(context.Context) error{
		a.recordSource, a.environments, a.projects, a.featureTypes, a.tagTypes, a.contextFields,
		a.strategyDefinitions, a.segments, a.flags, a.dependencies, a.tokens, a.users, a.groups, a.grants,
		a.changeRequestSettings,
	}
	for _, s := range steps {
		if err := s(ctx); err != nil {
			return err
		}
	}
	return nil
}

func (a *applier) recordSource(ctx context.Context) error {
	return a.step(ctx, "source record", a.src.URL, func(tx store.Tx) (string, []store.Event, error) {
		val, _ := json.Marshal(sourceRecord{URL: a.src.URL})
		cur, err := tx.GetSetting(ctx, settingName)
		if err == nil && same(json.RawMessage(cur.Value), json.RawMessage(val)) {
			return unchanged, nil, nil
		}
		if err != nil && !apierr.Is(err, apierr.NotFound) {
			return "", nil, err
		}
		if _, err := tx.PutSetting(ctx, store.Setting{Name: settingName, Value: val}); err != nil {
			return "", nil, err
		}
		return created, []store.Event{a.event("setting-updated", "", "", "", sourceRecord{URL: a.src.URL})}, nil
	})
}

func (a *applier) environments(ctx context.Context) error {
	for _, e := range a.src.Environments {
		err := a.step(ctx, "environment", e.Name, func(tx store.Tx) (string, []store.Event, error) {
			cur, err := tx.GetEnvironment(ctx, e.Name)
			if apierr.Is(err, apierr.NotFound) {
				if _, err := tx.CreateEnvironment(ctx, e); err != nil {
					return "", nil, err
				}
				return created, []store.Event{a.event("environment-created", "", "", e.Name, e)}, nil
			}
			if err != nil {
				return "", nil, err
			}
			if cur.Type == e.Type && cur.Enabled == e.Enabled && cur.SortOrder == e.SortOrder && cur.Protected == e.Protected {
				return unchanged, nil, nil
			}
			if _, err := tx.UpdateEnvironment(ctx, e); err != nil {
				return "", nil, err
			}
			return updated, []store.Event{a.event("environment-updated", "", "", e.Name, e)}, nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

func (a *applier) projects(ctx context.Context) error {
	for _, p := range a.src.Projects {
		err := a.step(ctx, "project", p.ID, func(tx store.Tx) (string, []store.Event, error) {
			outcome := unchanged
			var events []store.Event
			cur, err := tx.GetProject(ctx, p.ID)
			switch {
			case apierr.Is(err, apierr.NotFound):
				if _, err := tx.CreateProject(ctx, p.Project); err != nil {
					return "", nil, err
				}
				outcome = created
				events = append(events, a.event("project-created", p.ID, "", "", p.Project))
			case err != nil:
				return "", nil, err
			case cur.Name != p.Name || cur.Description != p.Description || cur.Mode != p.Mode ||
				cur.DefaultStickiness != p.DefaultStickiness || !same(cur.FeatureLimit, p.FeatureLimit):
				next := p.Project
				next.CreatedAt = cur.CreatedAt
				if _, err := tx.UpdateProject(ctx, next); err != nil {
					return "", nil, err
				}
				outcome = updated
				events = append(events, a.event("project-updated", p.ID, "", "", p.Project))
			}
			have, err := tx.ListProjectEnvironments(ctx, p.ID)
			if err != nil {
				return "", nil, err
			}
			haveBy := map[string]store.ProjectEnvironment{}
			for _, pe := range have {
				haveBy[pe.Environment] = pe
			}
			want := map[string]bool{}
			for _, pe := range p.Environments {
				want[pe.Environment] = true
				cur, ok := haveBy[pe.Environment]
				switch {
				case !ok:
					if err := tx.CreateProjectEnvironment(ctx, pe); err != nil {
						return "", nil, err
					}
					if pe.DefaultStrategy != nil {
						if err := tx.UpdateProjectEnvironment(ctx, pe); err != nil {
							return "", nil, err
						}
					}
					events = append(events, a.event("project-environment-added", p.ID, "", pe.Environment, pe))
				case !same(normalTemplate(cur.DefaultStrategy), normalTemplate(pe.DefaultStrategy)):
					if err := tx.UpdateProjectEnvironment(ctx, pe); err != nil {
						return "", nil, err
					}
					events = append(events, a.event("default-strategy-updated", p.ID, "", pe.Environment, pe))
				default:
					continue
				}
				if outcome == unchanged {
					outcome = updated
				}
			}
			if !a.merge {
				for _, pe := range have {
					if want[pe.Environment] {
						continue
					}
					if err := tx.DeleteProjectEnvironment(ctx, p.ID, pe.Environment); err != nil {
						return "", nil, err
					}
					events = append(events, a.event("project-environment-removed", p.ID, "", pe.Environment, pe))
					if outcome == unchanged {
						outcome = updated
					}
				}
			}
			return outcome, events, nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

func (a *applier) featureTypes(ctx context.Context) error {
	for _, t := range a.src.FeatureTypes {
		err := a.step(ctx, "flag type", t.ID, func(tx store.Tx) (string, []store.Event, error) {
			cur, err := tx.GetFeatureType(ctx, t.ID)
			if apierr.Is(err, apierr.NotFound) {
				return a.refuse("flag type", t.ID, "Signalbox has a fixed set of flag types; flags of this type become release flags")
			}
			if err != nil {
				return "", nil, err
			}
			if same(cur, t) {
				return unchanged, nil, nil
			}
			if _, err := tx.UpdateFeatureType(ctx, t); err != nil {
				return "", nil, err
			}
			return updated, []store.Event{a.event("feature-type-updated", "", "", "", t)}, nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

func (a *applier) tagTypes(ctx context.Context) error {
	for _, t := range a.src.TagTypes {
		err := a.step(ctx, "tag type", t.Name, func(tx store.Tx) (string, []store.Event, error) {
			cur, err := tx.GetTagType(ctx, t.Name)
			if apierr.Is(err, apierr.NotFound) {
				if _, err := tx.CreateTagType(ctx, t); err != nil {
					return "", nil, err
				}
				return created, []store.Event{a.event("tag-type-created", "", "", "", t)}, nil
			}
			if err != nil {
				return "", nil, err
			}
			if cur == t {
				return unchanged, nil, nil
			}
			if _, err := tx.UpdateTagType(ctx, t); err != nil {
				return "", nil, err
			}
			return updated, []store.Event{a.event("tag-type-updated", "", "", "", t)}, nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

func (a *applier) contextFields(ctx context.Context) error {
	for _, f := range a.src.ContextFields {
		err := a.step(ctx, "context field", f.Name, func(tx store.Tx) (string, []store.Event, error) {
			cur, err := tx.GetContextField(ctx, f.Name)
			if apierr.Is(err, apierr.NotFound) {
				if _, err := tx.CreateContextField(ctx, f); err != nil {
					return "", nil, err
				}
				return created, []store.Event{a.event("context-field-created", "", "", "", f)}, nil
			}
			if err != nil {
				return "", nil, err
			}
			if cur.Description == f.Description && same(orEmpty(cur.LegalValues), orEmpty(f.LegalValues)) &&
				cur.Stickiness == f.Stickiness && cur.SortOrder == f.SortOrder {
				return unchanged, nil, nil
			}
			if _, err := tx.UpdateContextField(ctx, f); err != nil {
				return "", nil, err
			}
			return updated, []store.Event{a.event("context-field-updated", "", "", "", f)}, nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

func (a *applier) strategyDefinitions(ctx context.Context) error {
	for _, d := range a.src.Strategies {
		if slices.Contains(store.BuiltinStrategies, d.Name) {
			continue
		}
		err := a.step(ctx, "strategy type", d.Name, func(tx store.Tx) (string, []store.Event, error) {
			if !d.Editable {
				return a.refuse("strategy type", d.Name, "a built-in strategy of this Unleash that Signalbox does not have")
			}
			cur, err := tx.GetStrategyDefinition(ctx, d.Name)
			if apierr.Is(err, apierr.NotFound) {
				if _, err := tx.CreateStrategyDefinition(ctx, d); err != nil {
					return "", nil, err
				}
				return created, []store.Event{a.event("strategy-created", "", "", "", d)}, nil
			}
			if err != nil {
				return "", nil, err
			}
			if !cur.Editable {
				return a.refuse("strategy type", d.Name, "the name is a built-in strategy here")
			}
			if cur.Title == d.Title && cur.Description == d.Description && same(orEmpty(cur.Parameters), orEmpty(d.Parameters)) && cur.Deprecated == d.Deprecated {
				return unchanged, nil, nil
			}
			if _, err := tx.UpdateStrategyDefinition(ctx, d); err != nil {
				return "", nil, err
			}
			return updated, []store.Event{a.event("strategy-updated", "", "", "", d)}, nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

func (a *applier) segments(ctx context.Context) error {
	for _, s := range a.src.Segments {
		err := a.step(ctx, "segment", s.Name, func(tx store.Tx) (string, []store.Event, error) {
			if s.Project != "" && !projectKnown(a.src.Projects, s.Project) {
				return a.refuse("segment", s.Name, "its project %q is not carried", s.Project)
			}
			all, err := tx.ListSegments(ctx, store.SegmentFilter{})
			if err != nil {
				return "", nil, err
			}
			var byID, byName *store.Segment
			for i := range all {
				if all[i].ID == s.ID {
					byID = &all[i]
				}
				if all[i].Name == s.Name {
					byName = &all[i]
				}
			}
			cur := byName
			if cur == nil {
				want := s
				if byID != nil {
					// The id is taken by another segment of the target:
					// the segment gets a new one, which strategies then
					// use.
					want.ID = 0
				}
				got, err := tx.CreateSegment(ctx, want)
				if err != nil {
					return "", nil, err
				}
				a.segmentIDs[s.ID] = got.ID
				if got.ID != s.ID {
					a.report.NotCarried = append(a.report.NotCarried, Note{Object: "segment " + s.Name,
						Reason: fmt.Sprintf("id %d is taken in the target; carried as id %d, which payloads then show", s.ID, got.ID)})
				}
				return created, []store.Event{a.event("segment-created", s.Project, "", "", got)}, nil
			}
			a.segmentIDs[s.ID] = cur.ID
			if cur.ID != s.ID {
				a.report.NotCarried = append(a.report.NotCarried, Note{Object: "segment " + s.Name,
					Reason: fmt.Sprintf("the target has a segment of that name with id %d; strategies use it instead of id %d", cur.ID, s.ID)})
			}
			if cur.Description == s.Description && cur.Project == s.Project && same(orEmpty(cur.Constraints), orEmpty(s.Constraints)) {
				return unchanged, nil, nil
			}
			next := *cur
			next.Description, next.Project, next.Constraints = s.Description, s.Project, s.Constraints
			if _, err := tx.UpdateSegment(ctx, next); err != nil {
				return "", nil, err
			}
			return updated, []store.Event{a.event("segment-updated", s.Project, "", "", next)}, nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// mapSegments turns source segment ids into target ids.
func (a *applier) mapSegments(ids []int) ([]int, error) {
	out := make([]int, 0, len(ids))
	for _, id := range ids {
		t, ok := a.segmentIDs[id]
		if !ok {
			return nil, fmt.Errorf("segment %d is not in the source's segment list", id)
		}
		out = append(out, t)
	}
	sort.Ints(out)
	return out, nil
}

func (a *applier) flags(ctx context.Context) error {
	types := map[string]bool{}
	list := func(r store.Reader) error {
		ts, err := r.ListFeatureTypes(ctx)
		for _, t := range ts {
			types[t.ID] = true
		}
		return err
	}
	var err error
	if a.dry {
		err = list(a.tx)
	} else {
		err = a.st.View(ctx, list)
	}
	if err != nil {
		return err
	}
	for i, f := range a.src.Flags {
		if !types[f.Type] {
			a.report.NotCarried = append(a.report.NotCarried, Note{Object: "flag " + f.Name, Reason: fmt.Sprintf("flag type %q does not exist here; carried as a release flag", f.Type)})
			f.Type = "release"
		}
		if err := a.step(ctx, "flag", f.Name, func(tx store.Tx) (string, []store.Event, error) { return a.flag(ctx, tx, f) }); err != nil {
			return err
		}
		switch {
		case a.progress != nil:
			a.progress(i+1, len(a.src.Flags))
		case (i+1)%25 == 0 || i+1 == len(a.src.Flags):
			a.logf("flags: %d of %d done", i+1, len(a.src.Flags))
		}
	}
	return nil
}

// flag writes one flag with its state, strategies and tags per environment.
func (a *applier) flag(ctx context.Context, tx store.Tx, f sourceFlag) (string, []store.Event, error) {
	outcome := unchanged
	var events []store.Event
	changed := func() {
		if outcome == unchanged {
			outcome = updated
		}
	}
	cur, err := tx.GetFeature(ctx, f.Name)
	switch {
	case apierr.Is(err, apierr.NotFound):
		if _, err := tx.CreateFeature(ctx, f.Feature); err != nil {
			return "", nil, err
		}
		outcome = created
		typ := "feature-created"
		if f.Archived() {
			typ = "feature-archived"
		}
		events = append(events, a.event(typ, f.Project, f.Name, "", f.Feature))
	case err != nil:
		return "", nil, err
	case cur.Project != f.Project:
		a.refused[f.Name] = true
		return a.refuse("flag", f.Name, "a flag of that name exists in project %q of the target; it is left as it is", cur.Project)
	case a.merge:
		// Merging into data of its own, the target's flag of that name is
		// this source's only if an earlier run wrote it.
		n, err := tx.CountEvents(ctx, store.EventFilter{Feature: f.Name, Query: a.note})
		if err != nil {
			return "", nil, err
		}
		if n == 0 {
			a.refused[f.Name] = true
			return a.refuse("flag", f.Name, "the target has a flag of that name that did not come from this source; it is left as it is")
		}
	}
	switch {
	case outcome == created:
	case cur.Type != f.Type || cur.Description != f.Description || cur.Stale != f.Stale ||
		cur.ImpressionData != f.ImpressionData || cur.Archived() != f.Archived():
		next := cur
		next.Type, next.Description, next.Stale, next.ImpressionData = f.Type, f.Description, f.Stale, f.ImpressionData
		next.ArchivedAt = nil
		if f.Archived() {
			next.ArchivedAt = f.ArchivedAt
			if cur.ArchivedAt != nil {
				next.ArchivedAt = cur.ArchivedAt
			}
		}
		if _, err := tx.UpdateFeature(ctx, next); err != nil {
			return "", nil, err
		}
		changed()
		events = append(events, a.event("feature-metadata-updated", f.Project, f.Name, "", next))
	}
	for _, e := range f.Envs {
		evs, err := a.flagEnv(ctx, tx, f, e)
		if err != nil {
			return "", nil, fmt.Errorf("environment %s: %w", e.Environment, err)
		}
		if len(evs) > 0 {
			changed()
			events = append(events, evs...)
		}
	}
	if !f.Archived() {
		evs, err := a.flagTags(ctx, tx, f)
		if err != nil {
			return "", nil, err
		}
		if len(evs) > 0 {
			changed()
			events = append(events, evs...)
		}
	}
	return outcome, events, nil
}

func (a *applier) flagEnv(ctx context.Context, tx store.Tx, f sourceFlag, e sourceFlagEnv) ([]store.Event, error) {
	var events []store.Event
	cur, err := tx.GetFeatureEnvironment(ctx, f.Name, e.Environment)
	if err != nil {
		return nil, err
	}
	if cur.Enabled != e.Enabled || !same(orEmpty(cur.Variants), orEmpty(e.Variants)) {
		if _, err := tx.UpdateFeatureEnvironment(ctx, e.FeatureEnvironment); err != nil {
			return nil, err
		}
		typ := "feature-environment-disabled"
		if e.Enabled {
			typ = "feature-environment-enabled"
		}
		if !same(orEmpty(cur.Variants), orEmpty(e.Variants)) {
			typ = "feature-environment-variants-updated"
		}
		events = append(events, a.event(typ, f.Project, f.Name, e.Environment, e.FeatureEnvironment))
	}
	have, err := tx.ListStrategies(ctx, store.StrategyFilter{Feature: f.Name, Environment: e.Environment})
	if err != nil {
		return nil, err
	}
	haveBy := map[string]store.Strategy{}
	for _, s := range have {
		haveBy[s.ID] = s
	}
	want := map[string]bool{}
	for _, s := range e.Strategies {
		segs, err := a.mapSegments(s.Segments)
		if err != nil {
			return nil, fmt.Errorf("strategy %s: %w", s.ID, err)
		}
		s.Segments = segs
		want[s.ID] = true
		c, ok := haveBy[s.ID]
		if !ok {
			if _, err := tx.CreateStrategy(ctx, s); err != nil {
				return nil, fmt.Errorf("strategy %s: %w", s.ID, err)
			}
			events = append(events, a.event("feature-strategy-add", f.Project, f.Name, e.Environment, s))
			continue
		}
		if c.Name == s.Name && c.Title == s.Title && c.Disabled == s.Disabled && c.SortOrder == s.SortOrder &&
			same(orEmptyMap(c.Parameters), s.Parameters) && same(orEmpty(c.Constraints), s.Constraints) &&
			same(orEmpty(c.Segments), s.Segments) && same(orEmpty(c.Variants), s.Variants) {
			continue
		}
		if _, err := tx.UpdateStrategy(ctx, s); err != nil {
			return nil, fmt.Errorf("strategy %s: %w", s.ID, err)
		}
		events = append(events, a.event("feature-strategy-update", f.Project, f.Name, e.Environment, s))
	}
	for _, s := range have {
		if want[s.ID] {
			continue
		}
		if err := tx.DeleteStrategy(ctx, s.ID); err != nil {
			return nil, err
		}
		events = append(events, a.event("feature-strategy-remove", f.Project, f.Name, e.Environment, s))
	}
	return events, nil
}

func (a *applier) flagTags(ctx context.Context, tx store.Tx, f sourceFlag) ([]store.Event, error) {
	var events []store.Event
	have, err := tx.ListFeatureTags(ctx, f.Name)
	if err != nil {
		return nil, err
	}
	want := map[store.Tag]bool{}
	for _, t := range f.Tags {
		want[t] = true
		made, err := tx.CreateFeatureTag(ctx, store.FeatureTag{Feature: f.Name, Tag: t})
		if err != nil {
			return nil, fmt.Errorf("tag %s:%s: %w", t.Type, t.Value, err)
		}
		if made {
			events = append(events, a.event("feature-tagged", f.Project, f.Name, "", t))
		}
	}
	for _, t := range have {
		if want[t.Tag] {
			continue
		}
		if err := tx.DeleteFeatureTag(ctx, t); err != nil {
			return nil, err
		}
		events = append(events, a.event("feature-untagged", f.Project, f.Name, "", t.Tag))
	}
	return events, nil
}

func (a *applier) dependencies(ctx context.Context) error {
	for _, f := range a.src.Flags {
		if f.Archived() || a.refused[f.Name] {
			continue
		}
		err := a.step(ctx, "dependencies of", f.Name, func(tx store.Tx) (string, []store.Event, error) {
			have, err := tx.ListDependencies(ctx, f.Name)
			if err != nil {
				return "", nil, err
			}
			haveBy := map[string]store.Dependency{}
			for _, d := range have {
				haveBy[d.Parent] = d
			}
			outcome := unchanged
			var events []store.Event
			want := map[string]bool{}
			for _, d := range f.Dependencies {
				if a.refused[d.Parent] {
					a.report.NotCarried = append(a.report.NotCarried, Note{Object: "dependency " + f.Name + " → " + d.Parent, Reason: "the parent flag was not carried"})
					continue
				}
				want[d.Parent] = true
				c, ok := haveBy[d.Parent]
				switch {
				case !ok:
					if err := tx.CreateDependency(ctx, d); err != nil {
						return "", nil, err
					}
					if outcome == unchanged {
						outcome = created
					}
				case c.Enabled != d.Enabled || !same(orEmpty(c.Variants), orEmpty(d.Variants)):
					if err := tx.UpdateDependency(ctx, d); err != nil {
						return "", nil, err
					}
					outcome = updated
				default:
					continue
				}
				events = append(events, a.event("feature-dependency-added", f.Project, f.Name, "", d))
			}
			for _, d := range have {
				if want[d.Parent] {
					continue
				}
				if err := tx.DeleteDependency(ctx, d.Child, d.Parent); err != nil {
					return "", nil, err
				}
				outcome = updated
				events = append(events, a.event("feature-dependency-removed", f.Project, f.Name, "", d))
			}
			return outcome, events, nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

func (a *applier) tokens(ctx context.Context) error {
	for _, t := range a.src.Tokens {
		err := a.step(ctx, "API token", t.TokenName, func(tx store.Tx) (string, []store.Event, error) {
			summary := map[string]any{"tokenName": t.TokenName, "type": t.Type, "environment": t.Environment, "projects": t.Projects}
			cur, err := tx.GetAPITokenByHash(ctx, t.SecretHash)
			if err == nil {
				if cur.Type != t.Type || cur.Environment != t.Environment || !same(cur.Projects, t.Projects) {
					return a.refuse("API token", t.TokenName, "the target has the same secret with another scope (%s, %s, %v)", cur.Type, cur.Environment, cur.Projects)
				}
				if cur.TokenName == t.TokenName && same(cur.ExpiresAt, t.ExpiresAt) {
					return unchanged, nil, nil
				}
				cur.TokenName, cur.ExpiresAt = t.TokenName, t.ExpiresAt
				if _, err := tx.UpdateAPIToken(ctx, cur); err != nil {
					return "", nil, err
				}
				return updated, []store.Event{a.event("api-token-updated", "", "", "", summary)}, nil
			}
			if !apierr.Is(err, apierr.NotFound) {
				return "", nil, err
			}
			for _, p := range t.Projects {
				if p == "*" {
					continue
				}
				if _, err := tx.GetProject(ctx, p); err != nil {
					if apierr.Is(err, apierr.NotFound) {
						return a.refuse("API token", t.TokenName, "its project %q is not carried", p)
					}
					return "", nil, err
				}
			}
			if t.Environment != "*" {
				if _, err := tx.GetEnvironment(ctx, t.Environment); err != nil {
					if apierr.Is(err, apierr.NotFound) {
						return a.refuse("API token", t.TokenName, "its environment %q is not carried", t.Environment)
					}
					return "", nil, err
				}
			}
			if _, err := tx.CreateAPIToken(ctx, t.APIToken); err != nil {
				return "", nil, err
			}
			return created, []store.Event{a.event("api-token-created", "", "", "", summary)}, nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// rootRoles maps Unleash's root role names to the seeded roles.
var rootRoles = map[string]int{"Admin": store.RoleAdmin, "Editor": store.RoleEditor, "Viewer": store.RoleViewer}

func (a *applier) users(ctx context.Context) error {
	for _, u := range a.src.Users {
		login := u.Email
		if login == "" {
			login = u.Username
		}
		err := a.step(ctx, "user", login, func(tx store.Tx) (string, []store.Event, error) {
			if login == "" {
				return a.refuse("user", fmt.Sprint(u.SourceID), "it has neither e-mail nor username to sign in with")
			}
			role, ok := rootRoles[u.RoleName]
			if !ok {
				role = store.RoleViewer
				a.report.NotCarried = append(a.report.NotCarried, Note{Object: "user " + login, Reason: fmt.Sprintf("root role %q does not exist here; the user is a Viewer", u.RoleName)})
			}
			want := u.User
			want.RootRole = role
			summary := map[string]any{"name": want.Name, "email": want.Email, "username": want.Username, "rootRole": role}
			cur, err := tx.GetUserByLogin(ctx, login)
			if apierr.Is(err, apierr.NotFound) {
				made, err := tx.CreateUser(ctx, want)
				if err != nil {
					return "", nil, err
				}
				a.userIDs[u.SourceID] = made.ID
				return created, []store.Event{a.event("user-created", "", "", "", summary)}, nil
			}
			if err != nil {
				return "", nil, err
			}
			a.userIDs[u.SourceID] = cur.ID
			if cur.Name == want.Name && cur.RootRole == want.RootRole && cur.Email == want.Email && cur.Username == want.Username {
				return unchanged, nil, nil
			}
			cur.Name, cur.RootRole, cur.Email, cur.Username = want.Name, want.RootRole, want.Email, want.Username
			if _, err := tx.UpdateUser(ctx, cur); err != nil {
				return "", nil, err
			}
			return updated, []store.Event{a.event("user-updated", "", "", "", summary)}, nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// normalTemplate gives default strategies one form for comparing: the store
// and Unleash differ in empty lists and missing parameters.
func normalTemplate(t *store.StrategyTemplate) *store.StrategyTemplate {
	if t == nil {
		return nil
	}
	n := *t
	n.Parameters = orEmptyMap(n.Parameters)
	n.Constraints = orEmpty(n.Constraints)
	n.Variants = orEmpty(n.Variants)
	n.Segments = sortedInts(n.Segments)
	return &n
}

// projectRoles maps Unleash's project role names to the seeded roles.
var projectRoles = map[string]int{"Owner": store.RoleOwner, "Member": store.RoleMember}

// groups carries groups by name with their root role and members; members
// the target has beyond the source's are kept.
func (a *applier) groups(ctx context.Context) error {
	for _, g := range a.src.Groups {
		err := a.step(ctx, "group", g.Name, func(tx store.Tx) (string, []store.Event, error) {
			want := g.Group
			if g.RootRoleName != "" {
				role, ok := rootRoles[g.RootRoleName]
				if !ok {
					return a.refuse("group", g.Name, "its root role %q does not exist here; create the group with an equivalent role", g.RootRoleName)
				}
				want.RootRole = role
			}
			summary := map[string]any{"name": want.Name, "description": want.Description, "mappingsSSO": want.MappingsSSO, "rootRole": want.RootRole}
			outcome, events := unchanged, []store.Event(nil)
			cur, found, err := groupByName(ctx, tx, want.Name)
			switch {
			case err != nil:
				return "", nil, err
			case !found:
				want.CreatedBy = actor
				if cur, err = tx.CreateGroup(ctx, want); err != nil {
					return "", nil, err
				}
				outcome, events = created, []store.Event{a.event("group-created", "", "", "", summary)}
			case cur.Description != want.Description || cur.RootRole != want.RootRole || !same(orEmpty(cur.MappingsSSO), want.MappingsSSO):
				want.ID = cur.ID
				if cur, err = tx.UpdateGroup(ctx, want); err != nil {
					return "", nil, err
				}
				outcome, events = updated, []store.Event{a.event("group-updated", "", "", "", summary)}
			}
			a.groupIDs[g.SourceID] = cur.ID
			members, err := tx.ListGroupMembers(ctx, cur.ID)
			if err != nil {
				return "", nil, err
			}
			have := map[int]bool{}
			for _, m := range members {
				have[m.UserID] = true
			}
			for _, src := range g.Members {
				user, ok := a.userIDs[src]
				if !ok || have[user] {
					continue
				}
				if err := tx.AddGroupMember(ctx, store.GroupMember{GroupID: cur.ID, UserID: user, CreatedBy: actor}); err != nil {
					return "", nil, err
				}
				have[user] = true
				events = append(events, a.event("group-user-added", "", "", "", map[string]any{"groupId": cur.ID, "userId": user}))
				if outcome == unchanged {
					outcome = updated
				}
			}
			return outcome, events, nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

func groupByName(ctx context.Context, tx store.Tx, name string) (store.Group, bool, error) {
	all, err := tx.ListGroups(ctx)
	if err != nil {
		return store.Group{}, false, err
	}
	for _, g := range all {
		if g.Name == name {
			return g, true, nil
		}
	}
	return store.Group{}, false, nil
}

// changeRequestSettings turns change requests on where the source has them
// on. A stricter setting already in the target is kept.
func (a *applier) changeRequestSettings(ctx context.Context) error {
	for _, c := range a.src.ChangeRequests {
		name := c.Project + "/" + c.Environment
		err := a.step(ctx, "change-request setting", name, func(tx store.Tx) (string, []store.Event, error) {
			cur, err := tx.GetChangeRequestConfig(ctx, c.Project, c.Environment)
			if err != nil {
				return "", nil, err
			}
			if cur.Enabled && cur.RequiredApprovals >= c.RequiredApprovals {
				return unchanged, nil, nil
			}
			if _, err := tx.SetChangeRequestConfig(ctx, c); err != nil {
				if apierr.Is(err, apierr.NotFound) {
					return a.refuse("change-request setting", name, "environment %s is not enabled for project %s here", c.Environment, c.Project)
				}
				return "", nil, err
			}
			data := map[string]any{"changeRequestsEnabled": true, "requiredApprovals": c.RequiredApprovals}
			ev := a.event("change-request-configuration-updated", c.Project, "", c.Environment, data)
			return updated, []store.Event{ev}, nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// grants gives users and groups the project roles they hold in the source.
func (a *applier) grants(ctx context.Context) error {
	for _, g := range a.src.Grants {
		name := fmt.Sprintf("%s in %s", g.RoleName, g.Project)
		err := a.step(ctx, "project role", name, func(tx store.Tx) (string, []store.Event, error) {
			role, ok := projectRoles[g.RoleName]
			if !ok {
				return a.refuse("project role", name, "custom project roles are not carried; grant an equivalent role in Signalbox")
			}
			grant := store.ProjectAccess{Project: g.Project, RoleID: role, CreatedBy: actor}
			typ, data := "project-user-added", map[string]any{"roleId": role}
			if g.GroupID != 0 {
				group, ok := a.groupIDs[g.GroupID]
				if !ok {
					return a.refuse("project role", name, "group %d of the source was not carried", g.GroupID)
				}
				grant.GroupID, typ, data["groupId"] = group, "project-group-added", group
			} else {
				user, ok := a.userIDs[g.UserID]
				if !ok {
					return a.refuse("project role", name, "user %d of the source was not carried", g.UserID)
				}
				grant.UserID, data["userId"] = user, user
			}
			have, err := tx.ListProjectAccess(ctx, store.AccessFilter{Project: g.Project, UserID: grant.UserID, GroupID: grant.GroupID})
			if err != nil {
				return "", nil, err
			}
			for _, h := range have {
				if h.RoleID == role && h.UserID == grant.UserID && h.GroupID == grant.GroupID {
					return unchanged, nil, nil
				}
			}
			if err := tx.GrantProjectRole(ctx, grant); err != nil {
				return "", nil, err
			}
			return created, []store.Event{a.event(typ, g.Project, "", "", data)}, nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}
