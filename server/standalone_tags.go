package server

// Tags created on their own (POST /api/admin/tags), before any flag
// carries them, so that they can be offered when tagging. They are kept
// in one instance setting, a list of tags; the tag lists and lookups of
// tags.go show them alongside the tags flags carry.

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/signalbox/signalbox/internal/apierr"
	"github.com/signalbox/signalbox/store"
)

// standaloneTagsSettingName holds the tags created on their own.
const standaloneTagsSettingName = "tags.standalone"

// maxStandaloneTags bounds the tags created on their own.
const maxStandaloneTags = 10000

func registerStandaloneTags(s *Server, m mux) {
	m.admin("POST /api/admin/tags", PermUpdateFeature, s.handleCreateTag)
}

// readStandaloneTags lists the tags created on their own whose type still
// exists (deleting a tag type drops its tags), of tagType only unless it
// is empty.
func readStandaloneTags(ctx context.Context, rd store.Reader, tagType string) ([]store.Tag, error) {
	var tags []store.Tag
	st, err := rd.GetSetting(ctx, standaloneTagsSettingName)
	if apierr.Is(err, apierr.NotFound) {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(st.Value, &tags); err != nil {
		return nil, err
	}
	types, err := rd.ListTagTypes(ctx)
	if err != nil {
		return nil, err
	}
	out := tags[:0]
	for _, t := range tags {
		if (tagType == "" || t.Type == tagType) && slices.ContainsFunc(types, func(tt store.TagType) bool { return tt.Name == t.Type }) {
			out = append(out, t)
		}
	}
	return out, nil
}

// writeStandaloneTags stores the list.
func writeStandaloneTags(ctx context.Context, tx store.Tx, tags []store.Tag) error {
	value, err := json.Marshal(tags)
	if err != nil {
		return err
	}
	_, err = tx.PutSetting(ctx, store.Setting{Name: standaloneTagsSettingName, Value: value})
	return err
}

// mergeTags is the union of two tag lists, ordered by type and value.
func mergeTags(a, b []store.Tag) []store.Tag {
	out := slices.Concat(a, b)
	slices.SortFunc(out, func(x, y store.Tag) int {
		if c := strings.Compare(x.Type, y.Type); c != 0 {
			return c
		}
		return strings.Compare(x.Value, y.Value)
	})
	return slices.Compact(out)
}

// handleCreateTag is Unleash's createTag: a tag of an existing type (simple
// by default), 2 to 50 characters each. 409 when the tag exists already,
// on a flag or on its own. Event tag-created. 201 with {version, tag} and
// the tag's location.
func (s *Server) handleCreateTag(w http.ResponseWriter, r *http.Request) error {
	var body tagBody
	if err := decode(w, r, &body); err != nil {
		return err
	}
	ctx := r.Context()
	var t store.Tag
	err := s.change(ctx, func(tx store.Tx) ([]store.Event, error) {
		var err error
		if t, err = checkTag(ctx, tx, "", body); err != nil {
			return nil, err
		}
		onFlags, err := tx.ListTags(ctx, t.Type)
		if err != nil {
			return nil, err
		}
		own, err := readStandaloneTags(ctx, tx, "")
		if err != nil {
			return nil, err
		}
		if containsTag(onFlags, t) || containsTag(own, t) {
			return nil, apierr.New(apierr.NameExists, "the tag %s:%s exists already", t.Type, t.Value)
		}
		if len(own) >= maxStandaloneTags {
			return nil, apierr.Invalid("value", "at most %d tags can be created on their own; tag flags instead", maxStandaloneTags)
		}
		if err := writeStandaloneTags(ctx, tx, append(own, t)); err != nil {
			return nil, err
		}
		return []store.Event{{Type: "tag-created", Data: eventData(t)}}, nil
	})
	if err != nil {
		return err
	}
	w.Header().Set("Location", "/api/admin/tags/"+url.PathEscape(t.Type)+"/"+url.PathEscape(t.Value))
	return writeJSON(w, http.StatusCreated, struct {
		Version int       `json:"version"`
		Tag     store.Tag `json:"tag"`
	}{1, t})
}

// deleteStandaloneTag removes t from the tags created on their own,
// reporting whether it was there.
func deleteStandaloneTag(ctx context.Context, tx store.Tx, t store.Tag) (bool, error) {
	own, err := readStandaloneTags(ctx, tx, "")
	if err != nil || !containsTag(own, t) {
		return false, err
	}
	return true, writeStandaloneTags(ctx, tx, deleteTag(own, t))
}
