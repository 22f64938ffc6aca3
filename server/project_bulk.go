package server

// Changes to many flags of a project at once, as Unleash's flag table
// offers them for a selection: marking stale or not
// (/api/admin/projects/{projectId}/stale) and tagging
// (/api/admin/projects/{projectId}/tags).

import (
	"context"
	"fmt"
	"net/http"
	"slices"

	"github.com/signalbox/signalbox/internal/apierr"
	"github.com/signalbox/signalbox/store"
)

func registerProjectBulk(s *Server, m mux) {
	m.admin("POST /api/admin/projects/{projectId}/stale", PermUpdateFeature, s.handleStaleFeatures)
	m.admin("PUT /api/admin/projects/{projectId}/tags", PermUpdateFeature, s.handleTagFeatures)
}

// maxBulkFlags bounds the flags one bulk request may name.
const maxBulkFlags = 5000

// checkBulkNames checks a bulk request's list of flag names.
func checkBulkNames(names *[]string) error {
	if names == nil {
		return apierr.Invalid("features", "features is required: a list of flag names")
	}
	if len(*names) > maxBulkFlags {
		return apierr.Invalid("features", "at most %d flags at once, not %d", maxBulkFlags, len(*names))
	}
	for i, n := range *names {
		if err := checkText(fmt.Sprintf("features[%d]", i), n, maxFlagNameLength); err != nil {
			return err
		}
	}
	return nil
}

// projectFlags reads the named flags of project that exist and are not
// archived, each once, in the order named.
func projectFlags(ctx context.Context, rd store.Reader, project string, names []string) ([]store.Feature, error) {
	if _, err := rd.GetProject(ctx, project); err != nil {
		return nil, err
	}
	active := false
	list, err := rd.ListFeatures(ctx, store.FeatureFilter{Project: project, Archived: &active, Names: slices.Compact(slices.Sorted(slices.Values(names)))})
	if err != nil {
		return nil, err
	}
	byName := make(map[string]store.Feature, len(list))
	for _, f := range list {
		byName[f.Name] = f
	}
	out := make([]store.Feature, 0, len(list))
	for _, n := range names {
		if f, ok := byName[n]; ok {
			out = append(out, f)
			delete(byName, n)
		}
	}
	return out, nil
}

// handleStaleFeatures is Unleash's staleFeatures: the named flags of the
// project are marked stale (or not). Names that are not active flags of
// the project are ignored, as in Unleash. Events: feature-stale-on or
// feature-stale-off (with feature-metadata-updated, as a single flag's
// change records) for each flag whose mark changed. 202.
func (s *Server) handleStaleFeatures(w http.ResponseWriter, r *http.Request) error {
	var body struct {
		Features *[]string `json:"features"`
		Stale    *bool     `json:"stale"`
	}
	if err := decode(w, r, &body); err != nil {
		return err
	}
	if err := checkBulkNames(body.Features); err != nil {
		return err
	}
	if body.Stale == nil {
		return apierr.Invalid("stale", "stale is required: true to mark the flags stale, false to mark them not stale")
	}
	ctx, project := r.Context(), r.PathValue("projectId")
	err := s.change(ctx, func(tx store.Tx) ([]store.Event, error) {
		flags, err := projectFlags(ctx, tx, project, *body.Features)
		if err != nil {
			return nil, err
		}
		var events []store.Event
		for _, before := range flags {
			if before.Stale == *body.Stale {
				continue
			}
			after := before
			after.Stale = *body.Stale
			if after, err = tx.UpdateFeature(ctx, after); err != nil {
				return nil, err
			}
			typ := "feature-stale-off"
			if after.Stale {
				typ = "feature-stale-on"
			}
			events = append(events,
				featureEvent("feature-metadata-updated", after, metaOf(after), metaOf(before)),
				featureEvent(typ, after, map[string]bool{"stale": after.Stale}, map[string]bool{"stale": before.Stale}))
		}
		return events, nil
	})
	if err != nil {
		return err
	}
	w.WriteHeader(http.StatusAccepted)
	return nil
}

// handleTagFeatures is Unleash's addTagToFeatures: each named flag of the
// project gets addedTags and loses removedTags. Every name must be an
// active flag of the project (404 otherwise, changing nothing), and every
// added tag's type must exist. Events: feature-tagged for each tag new to
// a flag, feature-untagged for each tag a flag lost. 200 without a body.
func (s *Server) handleTagFeatures(w http.ResponseWriter, r *http.Request) error {
	var body struct {
		Features *[]string `json:"features"`
		Tags     *struct {
			AddedTags   *[]tagBody `json:"addedTags"`
			RemovedTags *[]tagBody `json:"removedTags"`
		} `json:"tags"`
	}
	if err := decode(w, r, &body); err != nil {
		return err
	}
	if err := checkBulkNames(body.Features); err != nil {
		return err
	}
	if body.Tags == nil || body.Tags.AddedTags == nil || body.Tags.RemovedTags == nil {
		return apierr.Invalid("tags", "tags is required, with addedTags and removedTags (either may be an empty list)")
	}
	ctx, project := r.Context(), r.PathValue("projectId")
	err := s.change(ctx, func(tx store.Tx) ([]store.Event, error) {
		flags, err := projectFlags(ctx, tx, project, *body.Features)
		if err != nil {
			return nil, err
		}
		if len(flags) < len(slices.Compact(slices.Sorted(slices.Values(*body.Features)))) {
			for _, n := range *body.Features {
				if !slices.ContainsFunc(flags, func(f store.Feature) bool { return f.Name == n }) {
					return nil, apierr.New(apierr.NotFound, "project %s has no active feature flag %s", project, n)
				}
			}
		}
		added := make([]store.Tag, 0, len(*body.Tags.AddedTags))
		for i, b := range *body.Tags.AddedTags {
			t, err := checkTag(ctx, tx, fmt.Sprintf("tags.addedTags[%d].", i), b)
			if err != nil {
				return nil, err
			}
			added = append(added, t)
		}
		removed := make([]store.Tag, 0, len(*body.Tags.RemovedTags))
		for _, b := range *body.Tags.RemovedTags {
			t := store.Tag{Type: b.Type, Value: b.Value}
			if t.Type == "" {
				t.Type = store.TagTypeSimple
			}
			removed = append(removed, t)
		}
		var events []store.Event
		for _, f := range flags {
			for _, t := range added {
				more, err := addTag(ctx, tx, f, t)
				if err != nil {
					return nil, err
				}
				events = append(events, more...)
			}
			current, err := tagsOf(ctx, tx, f.Name)
			if err != nil {
				return nil, err
			}
			for _, t := range removed {
				if !containsTag(current, t) {
					continue
				}
				if err := tx.DeleteFeatureTag(ctx, store.FeatureTag{Feature: f.Name, Tag: t}); err != nil {
					return nil, err
				}
				current = deleteTag(current, t)
				events = append(events, tagEvent(f, t, false))
			}
		}
		return events, nil
	})
	if err != nil {
		return err
	}
	w.WriteHeader(http.StatusOK)
	return nil
}
