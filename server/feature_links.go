package server

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/google/uuid"

	"github.com/signalbox/signalbox/internal/apierr"
	"github.com/signalbox/signalbox/store"
)

// A flag's links point at what concerns it: the issue it ships, the
// dashboard that watches it, the code that checks it. They show with the
// flag and change with UPDATE_FEATURE, each change audited.

const (
	featureLinksPath = "/api/admin/projects/{projectId}/features/{featureName}/link"
	maxLinksPerFlag  = 50
	maxLinkURL       = 2000
	maxLinkTitle     = 100
)

func registerFeatureLinks(s *Server, m mux) {
	m.admin("POST "+featureLinksPath, PermUpdateFeature, s.handleCreateFeatureLink)
	m.admin("PUT "+featureLinksPath+"/{linkId}", PermUpdateFeature, s.handleUpdateFeatureLink)
	m.admin("DELETE "+featureLinksPath+"/{linkId}", PermUpdateFeature, s.handleDeleteFeatureLink)
}

// featureLinkJSON is a link as a flag's answer lists it.
type featureLinkJSON struct {
	ID    string  `json:"id"`
	URL   string  `json:"url"`
	Title *string `json:"title"`
}

func featureLinksJSON(links []store.FeatureLink) []featureLinkJSON {
	out := make([]featureLinkJSON, 0, len(links))
	for _, l := range links {
		out = append(out, featureLinkJSON{ID: l.ID, URL: l.URL, Title: nullable(l.Title)})
	}
	return out
}

// decodeLink reads Unleash's linkSchema: an http(s) URL and an optional
// title.
func decodeLink(w http.ResponseWriter, r *http.Request) (store.FeatureLink, error) {
	var body struct {
		URL   *string `json:"url"`
		Title *string `json:"title"`
	}
	if err := decode(w, r, &body); err != nil {
		return store.FeatureLink{}, err
	}
	if body.URL == nil || strings.TrimSpace(*body.URL) == "" {
		return store.FeatureLink{}, apierr.Invalid("url", "url is required")
	}
	link := store.FeatureLink{URL: strings.TrimSpace(*body.URL)}
	u, err := url.Parse(link.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || len(link.URL) > maxLinkURL {
		return store.FeatureLink{}, apierr.Invalid("url", "url must be an http or https URL of at most %d characters", maxLinkURL)
	}
	if body.Title != nil {
		link.Title = strings.TrimSpace(*body.Title)
		if err := checkText("title", link.Title, maxLinkTitle); err != nil {
			return store.FeatureLink{}, err
		}
	}
	return link, nil
}

// linkEvent records a link change on its flag.
func linkEvent(typ string, f store.Feature, before, after *store.FeatureLink) store.Event {
	data := func(l *store.FeatureLink) []byte {
		if l == nil {
			return nil
		}
		return eventData(map[string]any{"id": l.ID, "url": l.URL, "title": nullable(l.Title)})
	}
	return store.Event{Type: typ, Project: f.Project, FeatureName: f.Name, Data: data(after), PreData: data(before)}
}

// linkedFeature reads the flag of the path; archived flags do not change.
func linkedFeature(r *http.Request, tx store.Tx) (store.Feature, error) {
	f, err := pathFeature(r, tx)
	if err == nil && f.Archived() {
		err = apierr.New(apierr.BadData, "feature flag %s is archived; revive it to change its links", f.Name)
	}
	return f, err
}

func (s *Server) handleCreateFeatureLink(w http.ResponseWriter, r *http.Request) error {
	link, err := decodeLink(w, r)
	if err != nil {
		return err
	}
	err = s.change(r.Context(), func(tx store.Tx) ([]store.Event, error) {
		f, err := linkedFeature(r, tx)
		if err != nil {
			return nil, err
		}
		have, err := tx.ListFeatureLinks(r.Context(), f.Name)
		if err != nil {
			return nil, err
		}
		if len(have) >= maxLinksPerFlag {
			return nil, apierr.Invalid("url", "a flag has at most %d links", maxLinksPerFlag)
		}
		link.ID, link.Feature = uuid.NewString(), f.Name
		made, err := tx.CreateFeatureLink(r.Context(), link)
		if err != nil {
			return nil, err
		}
		return []store.Event{linkEvent("feature-link-added", f, nil, &made)}, nil
	})
	if err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func (s *Server) handleUpdateFeatureLink(w http.ResponseWriter, r *http.Request) error {
	link, err := decodeLink(w, r)
	if err != nil {
		return err
	}
	err = s.change(r.Context(), func(tx store.Tx) ([]store.Event, error) {
		f, err := linkedFeature(r, tx)
		if err != nil {
			return nil, err
		}
		before, err := findLink(r, tx, f)
		if err != nil {
			return nil, err
		}
		link.ID, link.Feature = before.ID, f.Name
		after, err := tx.UpdateFeatureLink(r.Context(), link)
		if err != nil {
			return nil, err
		}
		return []store.Event{linkEvent("feature-link-updated", f, &before, &after)}, nil
	})
	if err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func (s *Server) handleDeleteFeatureLink(w http.ResponseWriter, r *http.Request) error {
	err := s.change(r.Context(), func(tx store.Tx) ([]store.Event, error) {
		f, err := linkedFeature(r, tx)
		if err != nil {
			return nil, err
		}
		before, err := findLink(r, tx, f)
		if err != nil {
			return nil, err
		}
		if err := tx.DeleteFeatureLink(r.Context(), f.Name, before.ID); err != nil {
			return nil, err
		}
		return []store.Event{linkEvent("feature-link-removed", f, &before, nil)}, nil
	})
	if err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// findLink is the link of the path among f's links.
func findLink(r *http.Request, tx store.Tx, f store.Feature) (store.FeatureLink, error) {
	id := r.PathValue("linkId")
	links, err := tx.ListFeatureLinks(r.Context(), f.Name)
	if err != nil {
		return store.FeatureLink{}, err
	}
	for _, l := range links {
		if l.ID == id {
			return l, nil
		}
	}
	return store.FeatureLink{}, apierr.New(apierr.NotFound, "feature flag %s has no link %q", f.Name, id)
}
