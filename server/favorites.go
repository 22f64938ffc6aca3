package server

// Favorites (/api/admin/projects/{projectId}/favorites and
// .../features/{featureName}/favorites): projects and flags a person
// starred, which the UI lists first. Each person's favorites are kept in
// one instance setting of their own, so that no table is needed.

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strconv"

	"github.com/signalbox/signalbox/internal/apierr"
	"github.com/signalbox/signalbox/store"
)

func registerFavorites(s *Server, m mux) {
	m.admin("POST /api/admin/projects/{projectId}/favorites", PermRead, s.handleFavoriteProject(true))
	m.admin("DELETE /api/admin/projects/{projectId}/favorites", PermRead, s.handleFavoriteProject(false))
	m.admin("POST /api/admin/projects/{projectId}/features/{featureName}/favorites", PermRead, s.handleFavoriteFeature(true))
	m.admin("DELETE /api/admin/projects/{projectId}/features/{featureName}/favorites", PermRead, s.handleFavoriteFeature(false))
}

// maxFavorites bounds each list of one person's favorites.
const maxFavorites = 1000

// favorites are one person's starred projects and flags.
type favorites struct {
	Projects []string `json:"projects"`
	Features []string `json:"features"`
}

func favoritesSettingName(userID int) string { return "favorites.user." + strconv.Itoa(userID) }

// readFavorites reads a person's favorites; none for API tokens.
func readFavorites(ctx context.Context, rd store.Reader, userID int) (favorites, error) {
	var f favorites
	if userID == 0 {
		return f, nil
	}
	st, err := rd.GetSetting(ctx, favoritesSettingName(userID))
	if apierr.Is(err, apierr.NotFound) {
		return f, nil
	} else if err != nil {
		return f, err
	}
	err = json.Unmarshal(st.Value, &f)
	return f, err
}

// toggleFavorite adds (on) or removes name in the list chosen by pick and
// stores the favorites when that changed something, reporting whether it
// did.
func toggleFavorite(ctx context.Context, tx store.Tx, userID int, on bool, name string, pick func(*favorites) *[]string) (bool, error) {
	f, err := readFavorites(ctx, tx, userID)
	if err != nil {
		return false, err
	}
	list := pick(&f)
	has := slices.Contains(*list, name)
	switch {
	case on == has:
		return false, nil
	case on:
		if len(*list) >= maxFavorites {
			return false, apierr.New(apierr.BadData, "at most %d favorites of a kind", maxFavorites)
		}
		*list = append(*list, name)
	default:
		*list = slices.DeleteFunc(*list, func(x string) bool { return x == name })
	}
	value, err := json.Marshal(f)
	if err != nil {
		return false, err
	}
	_, err = tx.PutSetting(ctx, store.Setting{Name: favoritesSettingName(userID), Value: value})
	return err == nil, err
}

// handleFavoriteProject is Unleash's addFavoriteProject (on) and
// removeFavoriteProject: the caller (a person; API tokens have no
// favorites, 400) stars the project or takes the star back. Events
// project-favorited or project-unfavorited when that changed something.
// 200 without a body; 404 for an unknown project.
func (s *Server) handleFavoriteProject(on bool) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		ctx, project := r.Context(), r.PathValue("projectId")
		u, err := signedInUser(ctx, apierr.BadData)
		if err != nil {
			return err
		}
		return s.answerEmptyOK(w, s.change(ctx, func(tx store.Tx) ([]store.Event, error) {
			if _, err := tx.GetProject(ctx, project); err != nil {
				return nil, err
			}
			changed, err := toggleFavorite(ctx, tx, u.ID, on, project, func(f *favorites) *[]string { return &f.Projects })
			if err != nil || !changed {
				return nil, err
			}
			typ := "project-unfavorited"
			if on {
				typ = "project-favorited"
			}
			return []store.Event{{Type: typ, Project: project, Data: eventData(map[string]string{"project": project})}}, nil
		}))
	}
}

// handleFavoriteFeature is Unleash's addFavoriteFeature (on) and
// removeFavoriteFeature, as handleFavoriteProject for a flag of the
// project (archived flags too). Events feature-favorited or
// feature-unfavorited.
func (s *Server) handleFavoriteFeature(on bool) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		ctx := r.Context()
		u, err := signedInUser(ctx, apierr.BadData)
		if err != nil {
			return err
		}
		return s.answerEmptyOK(w, s.change(ctx, func(tx store.Tx) ([]store.Event, error) {
			f, err := pathFeature(r, tx)
			if err != nil && !(f.Name != "" && f.Archived() && f.Project == r.PathValue("projectId")) {
				return nil, err
			}
			changed, err := toggleFavorite(ctx, tx, u.ID, on, f.Name, func(fv *favorites) *[]string { return &fv.Features })
			if err != nil || !changed {
				return nil, err
			}
			typ := "feature-unfavorited"
			if on {
				typ = "feature-favorited"
			}
			return []store.Event{featureEvent(typ, f, map[string]string{"feature": f.Name}, nil)}, nil
		}))
	}
}
