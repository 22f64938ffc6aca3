package server

import (
	"net/http"
	"strings"

	"github.com/signalbox/signalbox/internal/apierr"
	"github.com/signalbox/signalbox/store"
)

// Tag types: the kinds of tags flags can carry (the tags themselves are
// another area).

func registerTagTypes(s *Server, m mux) {
	m.admin("GET /api/admin/tag-types", PermRead, s.handleListTagTypes)
	m.admin("POST /api/admin/tag-types", PermCreateTagType, s.handleCreateTagType)
	m.admin("POST /api/admin/tag-types/validate", PermCreateTagType, s.handleValidateTagType)
	m.admin("GET /api/admin/tag-types/{name}", PermRead, s.handleGetTagType)
	m.admin("PUT /api/admin/tag-types/{name}", PermUpdateTagType, s.handleUpdateTagType)
	m.admin("DELETE /api/admin/tag-types/{name}", PermDeleteTagType, s.handleDeleteTagType)
}

type tagTypeJSON struct {
	Name        string  `json:"name"`
	Description string  `json:"description"`
	Icon        *string `json:"icon"`
}

func tagTypeResponse(t store.TagType) tagTypeJSON {
	return tagTypeJSON{Name: t.Name, Description: t.Description, Icon: nullable(t.Icon)}
}

func (s *Server) handleListTagTypes(w http.ResponseWriter, r *http.Request) error {
	var list []store.TagType
	err := s.view(r.Context(), func(rd store.Reader) (err error) {
		list, err = rd.ListTagTypes(r.Context())
		return err
	})
	if err != nil {
		return err
	}
	out := make([]tagTypeJSON, len(list))
	for i, t := range list {
		out[i] = tagTypeResponse(t)
	}
	return writeJSON(w, http.StatusOK, map[string]any{"version": 1, "tagTypes": out})
}

// handleGetTagType answers the tag type's fields together with Unleash's
// older {version, tagType} envelope: its OpenAPI document and its server
// disagree on the shape, and clients of either read what they expect.
func (s *Server) handleGetTagType(w http.ResponseWriter, r *http.Request) error {
	var t store.TagType
	err := s.view(r.Context(), func(rd store.Reader) (err error) {
		t, err = rd.GetTagType(r.Context(), r.PathValue("name"))
		return err
	})
	if err != nil {
		return err
	}
	j := tagTypeResponse(t)
	return writeJSON(w, http.StatusOK, struct {
		tagTypeJSON
		Version int         `json:"version"`
		TagType tagTypeJSON `json:"tagType"`
	}{j, 1, j})
}

// tagTypeBody is the body of POST, PUT and validate; on PUT only the fields
// sent change. Unleash's color is accepted and checked but not stored.
type tagTypeBody struct {
	Name        string            `json:"name"`
	Description bodyField[string] `json:"description"`
	Icon        bodyField[string] `json:"icon"`
	Color       string            `json:"color"`
}

func (b tagTypeBody) apply(t *store.TagType) error {
	if b.Description.Sent {
		t.Description = b.Description.V
	}
	if b.Icon.Sent {
		t.Icon = b.Icon.V
	}
	if err := checkText("description", t.Description, 1000); err != nil {
		return err
	}
	if err := checkText("icon", t.Icon, 100); err != nil {
		return err
	}
	if b.Color != "" && !isHexColor(b.Color) {
		return apierr.Invalid("color", "color must look like #12abEF, not %q", b.Color)
	}
	return nil
}

func isHexColor(s string) bool {
	if len(s) != 7 || s[0] != '#' {
		return false
	}
	return strings.Trim(strings.ToLower(s[1:]), "0123456789abcdef") == ""
}

// newTagType checks the body of POST and validate: a URL-friendly name of
// 2 to 50 characters.
func newTagType(b tagTypeBody) (store.TagType, error) {
	t := store.TagType{Name: strings.TrimSpace(b.Name)}
	if err := checkURLName("name", t.Name, 2, 50); err != nil {
		return t, err
	}
	return t, b.apply(&t)
}

func (s *Server) handleCreateTagType(w http.ResponseWriter, r *http.Request) error {
	var body tagTypeBody
	if err := decode(w, r, &body); err != nil {
		return err
	}
	t, err := newTagType(body)
	if err != nil {
		return err
	}
	ctx := r.Context()
	var out tagTypeJSON
	err = s.change(ctx, func(tx store.Tx) ([]store.Event, error) {
		created, err := tx.CreateTagType(ctx, t)
		if err != nil {
			return nil, err
		}
		out = tagTypeResponse(created)
		return []store.Event{{Type: "tag-type-created", Data: eventData(out)}}, nil
	})
	if err != nil {
		return err
	}
	w.Header().Set("Location", "/api/admin/tag-types/"+out.Name)
	return writeJSON(w, http.StatusCreated, out)
}

// handleValidateTagType answers {valid: true, tagType} for a usable new
// tag type, 409 when the name is taken.
func (s *Server) handleValidateTagType(w http.ResponseWriter, r *http.Request) error {
	var body tagTypeBody
	if err := decode(w, r, &body); err != nil {
		return err
	}
	t, err := newTagType(body)
	if err != nil {
		return err
	}
	err = s.view(r.Context(), func(rd store.Reader) error {
		_, err := rd.GetTagType(r.Context(), t.Name)
		if err == nil {
			return apierr.New(apierr.NameExists, "there is already a tag type named %q", t.Name)
		}
		if apierr.Is(err, apierr.NotFound) {
			return nil
		}
		return err
	})
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, map[string]any{"valid": true, "tagType": tagTypeResponse(t)})
}

func (s *Server) handleUpdateTagType(w http.ResponseWriter, r *http.Request) error {
	name := r.PathValue("name")
	var body tagTypeBody
	if err := decode(w, r, &body); err != nil {
		return err
	}
	ctx := r.Context()
	var out tagTypeJSON
	err := s.change(ctx, func(tx store.Tx) ([]store.Event, error) {
		before, err := tx.GetTagType(ctx, name)
		if err != nil {
			return nil, err
		}
		t := before
		if err := body.apply(&t); err != nil {
			return nil, err
		}
		updated, err := tx.UpdateTagType(ctx, t)
		if err != nil {
			return nil, err
		}
		out = tagTypeResponse(updated)
		return []store.Event{{Type: "tag-type-updated", Data: eventData(out), PreData: eventData(tagTypeResponse(before))}}, nil
	})
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, out)
}

// handleDeleteTagType deletes a tag type and, as in Unleash, every flag tag
// of that type.
func (s *Server) handleDeleteTagType(w http.ResponseWriter, r *http.Request) error {
	name := r.PathValue("name")
	ctx := r.Context()
	return s.answerEmptyOK(w, s.change(ctx, func(tx store.Tx) ([]store.Event, error) {
		t, err := tx.GetTagType(ctx, name)
		if err != nil {
			return nil, err
		}
		if err := tx.DeleteTagType(ctx, name); err != nil {
			return nil, err
		}
		return []store.Event{{Type: "tag-type-deleted", PreData: eventData(tagTypeResponse(t))}}, nil
	}))
}
