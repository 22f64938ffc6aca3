package server

// Inactive users (/api/admin/user-admin/inactive): people who have not
// signed in, nor used a personal access token, for 180 days, listed for
// review and deleted in bulk by an admin.

import (
	"context"
	"net/http"
	"slices"
	"time"

	"github.com/signalbox/signalbox/internal/apierr"
	"github.com/signalbox/signalbox/store"
)

// inactiveAfter is how long without activity makes a user inactive.
const inactiveAfter = 180 * 24 * time.Hour

func registerInactiveUsers(s *Server, m mux) {
	m.admin("GET /api/admin/user-admin/inactive", PermAdmin, s.handleInactiveUsers)
	m.admin("POST /api/admin/user-admin/inactive/delete", PermAdmin, s.handleDeleteInactiveUsers)
}

// inactiveUserJSON is Unleash's inactiveUserSchema.
type inactiveUserJSON struct {
	ID        int        `json:"id"`
	Name      *string    `json:"name"`
	Email     string     `json:"email,omitempty"`
	Username  *string    `json:"username"`
	SeenAt    *time.Time `json:"seenAt"`
	CreatedAt time.Time  `json:"createdAt"`
	PatSeenAt *time.Time `json:"patSeenAt"`
}

// inactiveUsers lists the people (not service accounts, not deleted) whose
// last sign-in, last use of a personal access token and creation are all
// older than inactiveAfter.
func inactiveUsers(ctx context.Context, rd store.Reader, now time.Time) ([]inactiveUserJSON, error) {
	users, err := rd.ListUsers(ctx, store.UserFilter{AccountType: store.AccountUser})
	if err != nil {
		return nil, err
	}
	tokens, err := rd.ListAPITokens(ctx, store.APITokenFilter{})
	if err != nil {
		return nil, err
	}
	patSeen := map[int]*time.Time{}
	for _, t := range tokens {
		if t.UserID != 0 && t.SeenAt != nil && (patSeen[t.UserID] == nil || t.SeenAt.After(*patSeen[t.UserID])) {
			patSeen[t.UserID] = t.SeenAt
		}
	}
	cutoff := now.Add(-inactiveAfter)
	out := []inactiveUserJSON{}
	for _, u := range users {
		last := u.CreatedAt
		for _, t := range []*time.Time{u.SeenAt, patSeen[u.ID]} {
			if t != nil && t.After(last) {
				last = *t
			}
		}
		if last.Before(cutoff) {
			out = append(out, inactiveUserJSON{ID: u.ID, Name: nullable(u.Name), Email: u.Email, Username: nullable(u.Username),
				SeenAt: u.SeenAt, CreatedAt: u.CreatedAt, PatSeenAt: patSeen[u.ID]})
		}
	}
	return out, nil
}

// handleInactiveUsers is Unleash's getInactiveUsers.
func (s *Server) handleInactiveUsers(w http.ResponseWriter, r *http.Request) error {
	var list []inactiveUserJSON
	err := s.view(r.Context(), func(rd store.Reader) (err error) {
		list, err = inactiveUsers(r.Context(), rd, s.now())
		return err
	})
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, map[string]any{"version": 1, "inactiveUsers": list})
}

// handleDeleteInactiveUsers is Unleash's deleteInactiveUsers: of the ids
// given, those of inactive users are deleted (others, the caller included,
// are left alone). One user-deleted event per user. 200.
func (s *Server) handleDeleteInactiveUsers(w http.ResponseWriter, r *http.Request) error {
	var body struct {
		IDs *[]int `json:"ids"`
	}
	if err := decode(w, r, &body); err != nil {
		return err
	}
	if body.IDs == nil {
		return apierr.Invalid("ids", "ids is required: the ids of the inactive users to delete")
	}
	if len(*body.IDs) > 10000 {
		return apierr.Invalid("ids", "at most 10000 ids at once")
	}
	ctx := r.Context()
	me := principalFrom(ctx).UserID()
	err := s.change(ctx, func(tx store.Tx) ([]store.Event, error) {
		list, err := inactiveUsers(ctx, tx, s.now())
		if err != nil {
			return nil, err
		}
		var events []store.Event
		for _, in := range list {
			if in.ID == me || !slices.Contains(*body.IDs, in.ID) {
				continue
			}
			u, err := tx.GetUser(ctx, in.ID)
			if err != nil {
				return nil, err
			}
			if err := tx.DeleteUser(ctx, in.ID); err != nil {
				return nil, err
			}
			events = append(events, store.Event{Type: "user-deleted", PreData: eventData(userResponse(u))})
		}
		return events, nil
	})
	if err != nil {
		return err
	}
	w.WriteHeader(http.StatusOK)
	return nil
}
