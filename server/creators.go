package server

// Who made things, for the filters of Unleash's UI: the people behind
// audit events (/api/admin/event-creators) and behind a project's flags
// (/api/admin/projects/{projectId}/flag-creators).

import (
	"cmp"
	"net/http"
	"slices"

	"github.com/signalbox/signalbox/store"
)

func registerCreators(s *Server, m mux) {
	m.admin("GET /api/admin/event-creators", PermRead, s.handleEventCreators)
	m.admin("GET /api/admin/projects/{projectId}/flag-creators", PermRead, s.handleFlagCreators)
}

// creatorJSON is an item of Unleash's eventCreatorsSchema and
// projectFlagCreatorsSchema.
type creatorJSON struct {
	ID   int    `json:"id"`
	Name string `json:"name"`
}

// displayName is a person's name, else username, else e-mail, as Unleash
// shows creators.
func displayName(u store.User) string { return cmp.Or(u.Name, u.Username, u.Email) }

// handleEventCreators is Unleash's getEventCreators: every person who made
// an audit event, deleted people included (their events remain), by id.
// Changes made with API tokens have no person and are not listed.
func (s *Server) handleEventCreators(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	out := []creatorJSON{}
	err := s.view(ctx, func(rd store.Reader) error {
		ids, err := rd.ListEventCreatorIDs(ctx)
		if err != nil || len(ids) == 0 {
			return err
		}
		users, err := rd.ListUsers(ctx, store.UserFilter{IncludeDeleted: true})
		if err != nil {
			return err
		}
		for _, u := range users {
			if _, found := slices.BinarySearch(ids, u.ID); found {
				out = append(out, creatorJSON{ID: u.ID, Name: displayName(u)})
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, out)
}

// handleFlagCreators is Unleash's getProjectFlagCreators: the people who
// created the project's flags, archived ones included, by id. Flags
// created with an API token have no person and add no one. 404 for an
// unknown project.
func (s *Server) handleFlagCreators(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	project := r.PathValue("projectId")
	out := []creatorJSON{}
	err := s.view(ctx, func(rd store.Reader) error {
		if _, err := rd.GetProject(ctx, project); err != nil {
			return err
		}
		flags, err := rd.ListFeatures(ctx, store.FeatureFilter{Project: project})
		if err != nil {
			return err
		}
		users, err := rd.ListUsers(ctx, store.UserFilter{IncludeDeleted: true})
		if err != nil {
			return err
		}
		byName := creatorIndex(users)
		seen := map[int]bool{}
		for _, f := range flags {
			if u, ok := byName[f.CreatedBy]; ok && !seen[u.ID] {
				seen[u.ID] = true
				out = append(out, creatorJSON{ID: u.ID, Name: displayName(u)})
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	slices.SortFunc(out, func(a, b creatorJSON) int { return a.ID - b.ID })
	return writeJSON(w, http.StatusOK, out)
}
