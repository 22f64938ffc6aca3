package server

// Tags on flags: the tags in use (/api/admin/tags) and the tags of one flag
// (/api/admin/features/{featureName}/tags). Tag types live in tag_types.go.
//
// A tag exists while some flag carries it or since it was created on its
// own (standalone_tags.go); deleting a tag removes it from every flag and
// from the tags created on their own.

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"unicode/utf8"

	"github.com/signalbox/signalbox/internal/apierr"
	"github.com/signalbox/signalbox/store"
)

// featureTagsPath is the prefix of the routes about one flag's tags.
const featureTagsPath = "/api/admin/features/{featureName}/tags"

func registerTags(s *Server, m mux) {
	m.admin("GET /api/admin/tags", PermRead, s.handleListTags)
	m.admin("GET /api/admin/tags/{type}", PermRead, s.handleListTagsOfType)
	m.admin("GET /api/admin/tags/{type}/{value}", PermRead, s.handleGetTag)
	m.admin("DELETE /api/admin/tags/{type}/{value}", PermUpdateFeature, s.handleDeleteTag)
	m.admin("GET "+featureTagsPath, PermRead, s.handleListFeatureTags)
	m.admin("POST "+featureTagsPath, PermUpdateFeature, s.handleAddFeatureTag)
	m.admin("PUT "+featureTagsPath, PermUpdateFeature, s.handleUpdateFeatureTags)
	m.admin("DELETE "+featureTagsPath+"/{type}/{value}", PermUpdateFeature, s.handleRemoveFeatureTag)
}

// tagList is Unleash's tagsSchema: {version, tags}.
type tagList struct {
	Version int         `json:"version"`
	Tags    []store.Tag `json:"tags"`
}

// tagBody is a tag as requests send it; type defaults to simple.
type tagBody struct {
	Type  string `json:"type"`
	Value string `json:"value"`
}

// checkTag validates a tag of a request: type and value 2 to 50
// characters, and a tag type that exists. path prefixes the property names
// in errors.
func checkTag(ctx context.Context, r store.Reader, path string, b tagBody) (store.Tag, error) {
	t := store.Tag{Type: b.Type, Value: b.Value}
	if t.Type == "" {
		t.Type = store.TagTypeSimple
	}
	if n := utf8.RuneCountInString(t.Value); n < 2 || n > 50 {
		return t, apierr.Invalid(path+"value", "a tag value is 2 to 50 characters long, not %d", n)
	}
	if err := checkText(path+"value", t.Value, 50); err != nil {
		return t, err
	}
	if n := utf8.RuneCountInString(t.Type); n < 2 || n > 50 {
		return t, apierr.Invalid(path+"type", "a tag type is 2 to 50 characters long, not %d", n)
	}
	if _, err := r.GetTagType(ctx, t.Type); apierr.Is(err, apierr.NotFound) {
		return t, apierr.Invalid(path+"type", "there is no tag type %q; create it at /api/admin/tag-types first", t.Type)
	} else if err != nil {
		return t, err
	}
	return t, nil
}

// tagEvent is feature-tagged (on) or feature-untagged (off) for one tag.
func tagEvent(f store.Feature, t store.Tag, on bool) store.Event {
	if on {
		return featureEvent("feature-tagged", f, t, nil)
	}
	return featureEvent("feature-untagged", f, nil, t)
}

// tagsOf lists the tags of a flag, never nil.
func tagsOf(ctx context.Context, r store.Reader, feature string) ([]store.Tag, error) {
	list, err := r.ListFeatureTags(ctx, feature)
	tags := make([]store.Tag, 0, len(list))
	for _, ft := range list {
		tags = append(tags, ft.Tag)
	}
	return tags, err
}

// activeFeature reads a flag by name for a tag change: unknown and archived
// flags are NotFound.
func activeFeature(ctx context.Context, r store.Reader, name string) (store.Feature, error) {
	f, err := r.GetFeature(ctx, name)
	if err == nil && f.Archived() {
		err = apierr.New(apierr.NotFound, "feature flag %s is archived; revive it to change its tags", name)
	}
	return f, err
}

// addTag tags f, reporting the event when the tag is new; tagging twice is
// no error and records nothing.
func addTag(ctx context.Context, tx store.Tx, f store.Feature, t store.Tag) ([]store.Event, error) {
	created, err := tx.CreateFeatureTag(ctx, store.FeatureTag{Feature: f.Name, Tag: t})
	if err != nil || !created {
		return nil, err
	}
	return []store.Event{tagEvent(f, t, true)}, nil
}

func (s *Server) listTags(w http.ResponseWriter, r *http.Request, tagType string) error {
	var tags []store.Tag
	err := s.view(r.Context(), func(rd store.Reader) (err error) {
		if tagType != "" {
			if _, err := rd.GetTagType(r.Context(), tagType); err != nil {
				return err
			}
		}
		if tags, err = rd.ListTags(r.Context(), tagType); err != nil {
			return err
		}
		own, err := readStandaloneTags(r.Context(), rd, tagType)
		tags = mergeTags(tags, own)
		return err
	})
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, tagList{Version: 1, Tags: nonNilList(tags)})
}

// handleListTags lists every tag some flag carries or that was created on
// its own.
func (s *Server) handleListTags(w http.ResponseWriter, r *http.Request) error {
	return s.listTags(w, r, "")
}

// handleListTagsOfType lists the tags of one type in use; an unknown type
// is a 404 (Unleash answers an empty list).
func (s *Server) handleListTagsOfType(w http.ResponseWriter, r *http.Request) error {
	return s.listTags(w, r, r.PathValue("type"))
}

// handleGetTag answers {version, tag} while some flag carries the tag or
// since it was created on its own.
func (s *Server) handleGetTag(w http.ResponseWriter, r *http.Request) error {
	want := store.Tag{Type: r.PathValue("type"), Value: r.PathValue("value")}
	found := false
	err := s.view(r.Context(), func(rd store.Reader) error {
		tags, err := rd.ListTags(r.Context(), want.Type)
		if err != nil {
			return err
		}
		own, err := readStandaloneTags(r.Context(), rd, want.Type)
		found = containsTag(tags, want) || containsTag(own, want)
		return err
	})
	if err != nil {
		return err
	}
	if !found {
		return apierr.New(apierr.NotFound, "there is no tag %s:%s", want.Type, want.Value)
	}
	return writeJSON(w, http.StatusOK, struct {
		Version int       `json:"version"`
		Tag     store.Tag `json:"tag"`
	}{1, want})
}

// handleDeleteTag removes a tag from every flag that carries it: one
// tag-deleted event, and feature-untagged for each flag so that the flag's
// own history shows it; a tag created on its own goes too. A tag that does
// not exist is already gone: 200.
func (s *Server) handleDeleteTag(w http.ResponseWriter, r *http.Request) error {
	t := store.Tag{Type: r.PathValue("type"), Value: r.PathValue("value")}
	ctx := r.Context()
	return s.answerEmptyOK(w, s.change(ctx, func(tx store.Tx) ([]store.Event, error) {
		all, err := tx.ListFeatureTags(ctx, "")
		if err != nil {
			return nil, err
		}
		var events []store.Event
		for _, ft := range all {
			if ft.Tag != t {
				continue
			}
			f, err := tx.GetFeature(ctx, ft.Feature)
			if err != nil {
				return nil, err
			}
			if err := tx.DeleteFeatureTag(ctx, ft); err != nil {
				return nil, err
			}
			events = append(events, tagEvent(f, t, false))
		}
		own, err := deleteStandaloneTag(ctx, tx, t)
		if err != nil {
			return nil, err
		}
		if len(events) == 0 && !own {
			return nil, nil
		}
		return append(events, store.Event{Type: "tag-deleted", PreData: eventData(t)}), nil
	}))
}

// handleListFeatureTags lists a flag's tags (archived flags too); an
// unknown flag is a 404 (Unleash answers an empty list).
func (s *Server) handleListFeatureTags(w http.ResponseWriter, r *http.Request) error {
	var tags []store.Tag
	err := s.view(r.Context(), func(rd store.Reader) (err error) {
		tags, err = tagsOf(r.Context(), rd, r.PathValue("featureName"))
		return err
	})
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, tagList{Version: 1, Tags: tags})
}

// handleAddFeatureTag tags a flag: 201 with the tag and its location, also
// when the flag already had it (Unleash's idempotent answer); the
// feature-tagged event is recorded only when the tag is new.
func (s *Server) handleAddFeatureTag(w http.ResponseWriter, r *http.Request) error {
	var body tagBody
	if err := decode(w, r, &body); err != nil {
		return err
	}
	ctx, name := r.Context(), r.PathValue("featureName")
	var t store.Tag
	err := s.change(ctx, func(tx store.Tx) ([]store.Event, error) {
		f, err := activeFeature(ctx, tx, name)
		if err != nil {
			return nil, err
		}
		if t, err = checkTag(ctx, tx, "", body); err != nil {
			return nil, err
		}
		return addTag(ctx, tx, f, t)
	})
	if err != nil {
		return err
	}
	w.Header().Set("Location", featureTagURL(name, t))
	return writeJSON(w, http.StatusCreated, t)
}

// featureTagURL is where one tag of a flag can be deleted.
func featureTagURL(feature string, t store.Tag) string {
	return "/api/admin/features/" + url.PathEscape(feature) + "/tags/" + url.PathEscape(t.Type) + "/" + url.PathEscape(t.Value)
}

// handleUpdateFeatureTags adds addedTags, then removes removedTags (both
// required, either may be empty), and answers the flag's tags. Removing a
// tag the flag does not carry is not an error. Events: feature-tagged for
// each tag that was new, feature-untagged for each tag removed.
func (s *Server) handleUpdateFeatureTags(w http.ResponseWriter, r *http.Request) error {
	var body struct {
		AddedTags   *[]tagBody `json:"addedTags"`
		RemovedTags *[]tagBody `json:"removedTags"`
	}
	if err := decode(w, r, &body); err != nil {
		return err
	}
	if body.AddedTags == nil {
		return apierr.Invalid("addedTags", "addedTags is required (it may be an empty list)")
	}
	if body.RemovedTags == nil {
		return apierr.Invalid("removedTags", "removedTags is required (it may be an empty list)")
	}
	ctx, name := r.Context(), r.PathValue("featureName")
	var tags []store.Tag
	err := s.change(ctx, func(tx store.Tx) ([]store.Event, error) {
		f, err := activeFeature(ctx, tx, name)
		if err != nil {
			return nil, err
		}
		var events []store.Event
		for i, b := range *body.AddedTags {
			t, err := checkTag(ctx, tx, "addedTags["+strconv.Itoa(i)+"].", b)
			if err != nil {
				return nil, err
			}
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
		for _, b := range *body.RemovedTags {
			t := store.Tag{Type: b.Type, Value: b.Value}
			if t.Type == "" {
				t.Type = store.TagTypeSimple
			}
			if !containsTag(current, t) {
				continue
			}
			if err := tx.DeleteFeatureTag(ctx, store.FeatureTag{Feature: f.Name, Tag: t}); err != nil {
				return nil, err
			}
			current = deleteTag(current, t)
			events = append(events, tagEvent(f, t, false))
		}
		tags = current
		return events, nil
	})
	if err != nil {
		return err
	}
	w.Header().Set("Location", "/api/admin/features/"+url.PathEscape(name)+"/tags")
	return writeJSON(w, http.StatusOK, tagList{Version: 1, Tags: tags})
}

func deleteTag(tags []store.Tag, t store.Tag) []store.Tag {
	out := tags[:0]
	for _, x := range tags {
		if x != t {
			out = append(out, x)
		}
	}
	return out
}

// handleRemoveFeatureTag removes one tag from a flag: 404 when the flag
// does not carry it.
func (s *Server) handleRemoveFeatureTag(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	t := store.Tag{Type: r.PathValue("type"), Value: r.PathValue("value")}
	return s.answerEmptyOK(w, s.change(ctx, func(tx store.Tx) ([]store.Event, error) {
		f, err := activeFeature(ctx, tx, r.PathValue("featureName"))
		if err != nil {
			return nil, err
		}
		if err := tx.DeleteFeatureTag(ctx, store.FeatureTag{Feature: f.Name, Tag: t}); err != nil {
			return nil, err
		}
		return []store.Event{tagEvent(f, t, false)}, nil
	}))
}
