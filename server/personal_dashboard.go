package server

// The personal dashboard (/api/admin/personal-dashboard): the projects a
// person takes part in and the flags they created or starred, with who
// administers the instance and owns those projects, for the UI's start
// page.

import (
	"cmp"
	"net/http"
	"slices"
	"time"

	"github.com/signalbox/signalbox/internal/apierr"
	"github.com/signalbox/signalbox/store"
)

func registerPersonalDashboard(s *Server, m mux) {
	m.admin("GET /api/admin/personal-dashboard", PermRead, s.handlePersonalDashboard)
	m.admin("GET /api/admin/personal-dashboard/{projectId}", PermRead, s.handlePersonalDashboardProject)
}

type dashboardProject struct {
	ID            string `json:"id"`
	Name          string `json:"name"`
	Health        int    `json:"health"`
	TechnicalDebt int    `json:"technicalDebt"`
	MemberCount   int    `json:"memberCount"`
	FeatureCount  int    `json:"featureCount"`
}

type dashboardFlag struct {
	Name    string `json:"name"`
	Project string `json:"project"`
	Type    string `json:"type"`
}

type dashboardAdmin struct {
	ID       int    `json:"id"`
	Name     string `json:"name,omitempty"`
	Username string `json:"username,omitempty"`
	ImageURL string `json:"imageUrl"`
	Email    string `json:"email,omitempty"`
}

type dashboardOwner struct {
	OwnerType string  `json:"ownerType"`
	Name      string  `json:"name"`
	ImageURL  *string `json:"imageUrl"`
	Email     *string `json:"email"`
}

// handlePersonalDashboard is Unleash's getPersonalDashboard: the projects
// in which the caller holds a role (directly or through a group) or that
// they starred, with health and counts; the active flags they created or
// starred; the people whose own root role is Admin; and the people who
// own (directly) one of the listed projects. Only people have a
// dashboard: 400 for an API token.
func (s *Server) handlePersonalDashboard(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	u, err := signedInUser(ctx, apierr.BadData)
	if err != nil {
		return err
	}
	me := principalFrom(ctx).Name()
	out := struct {
		Projects      []dashboardProject `json:"projects"`
		Flags         []dashboardFlag    `json:"flags"`
		Admins        []dashboardAdmin   `json:"admins"`
		ProjectOwners []dashboardOwner   `json:"projectOwners"`
	}{Projects: []dashboardProject{}, Flags: []dashboardFlag{}, Admins: []dashboardAdmin{}, ProjectOwners: []dashboardOwner{}}
	sight, err := s.sightOf(ctx)
	if err != nil {
		return err
	}
	err = s.view(ctx, func(rd store.Reader) error {
		favs, err := readFavorites(ctx, rd, u.ID)
		if err != nil {
			return err
		}
		grants, err := rd.UserProjectRoles(ctx, u.ID, "")
		if err != nil {
			return err
		}
		mine := slices.Clone(favs.Projects)
		for _, g := range grants {
			mine = append(mine, g.Project)
		}
		slices.Sort(mine)
		// A project starred while open may have become private since.
		mine = filterSeen(sight, slices.Compact(mine), func(id string) string { return id })

		active := false
		flags, err := rd.ListFeatures(ctx, store.FeatureFilter{Archived: &active})
		if err != nil {
			return err
		}
		flags = visibleFeatures(sight, flags)
		lifetimes, err := typeLifetimes(ctx, rd)
		if err != nil {
			return err
		}
		members, err := projectMemberCounts(ctx, rd)
		if err != nil {
			return err
		}
		now := s.now()
		for _, id := range mine {
			p, err := rd.GetProject(ctx, id)
			if apierr.Is(err, apierr.NotFound) {
				continue // a starred project deleted since
			} else if err != nil {
				return err
			}
			dp := dashboardProject{ID: p.ID, Name: p.Name, MemberCount: members[p.ID]}
			unhealthy := 0
			for _, f := range flags {
				if f.Project != p.ID {
					continue
				}
				dp.FeatureCount++
				if f.Stale || potentiallyStale(f, lifetimes, now) {
					unhealthy++
				}
			}
			dp.Health = healthRating(dp.FeatureCount-unhealthy, dp.FeatureCount)
			dp.TechnicalDebt = 100 - dp.Health
			out.Projects = append(out.Projects, dp)
		}
		for _, f := range flags {
			if f.CreatedBy == me || slices.Contains(favs.Features, f.Name) {
				out.Flags = append(out.Flags, dashboardFlag{Name: f.Name, Project: f.Project, Type: f.Type})
			}
		}

		users, err := rd.ListUsers(ctx, store.UserFilter{AccountType: store.AccountUser})
		if err != nil {
			return err
		}
		byID := map[int]store.User{}
		for _, x := range users {
			byID[x.ID] = x
			if x.RootRole == store.RoleAdmin {
				out.Admins = append(out.Admins, dashboardAdmin{ID: x.ID, Name: x.Name, Username: x.Username, ImageURL: x.ImageURL, Email: x.Email})
			}
		}
		owners := map[int]bool{}
		for _, id := range mine {
			access, err := rd.ListProjectAccess(ctx, store.AccessFilter{Project: id})
			if err != nil {
				return err
			}
			for _, a := range access {
				x, ok := byID[a.UserID]
				if a.RoleID != store.RoleOwner || !ok || owners[x.ID] {
					continue
				}
				owners[x.ID] = true
				out.ProjectOwners = append(out.ProjectOwners, dashboardOwner{OwnerType: "user",
					Name: cmp.Or(x.Name, x.Username, x.Email), ImageURL: nullable(x.ImageURL), Email: nullable(x.Email)})
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, out)
}

// dashboardEvent is an item of latestEvents.
type dashboardEvent struct {
	ID                int64     `json:"id"`
	Summary           *string   `json:"summary"`
	CreatedBy         string    `json:"createdBy"`
	CreatedByImageURL string    `json:"createdByImageUrl"`
	CreatedAt         time.Time `json:"createdAt"`
}

// handlePersonalDashboardProject is Unleash's
// getPersonalDashboardProjectDetails: the project's owners (people and
// groups with the Owner role; the "system" owner when there are none),
// the caller's roles there, its 10 latest events, onboarding status and
// health figures. 404 for an unknown project; 400 for an API token.
func (s *Server) handlePersonalDashboardProject(w http.ResponseWriter, r *http.Request) error {
	ctx, project := r.Context(), r.PathValue("projectId")
	u, err := signedInUser(ctx, apierr.BadData)
	if err != nil {
		return err
	}
	out := struct {
		Owners           []map[string]any `json:"owners"`
		Roles            []map[string]any `json:"roles"`
		LatestEvents     []dashboardEvent `json:"latestEvents"`
		OnboardingStatus onboardingStatus `json:"onboardingStatus"`
		Insights         map[string]any   `json:"insights"`
	}{Owners: []map[string]any{}, Roles: []map[string]any{}, LatestEvents: []dashboardEvent{}}
	err = s.view(ctx, func(rd store.Reader) error {
		rep, err := buildHealthReport(ctx, rd, project, s.now())
		if err != nil {
			return err
		}
		total := rep.ActiveCount + rep.StaleCount
		out.Insights = map[string]any{
			"avgHealthCurrentWindow": nil, "avgHealthPastWindow": nil,
			"totalFlags": total, "activeFlags": total - rep.StaleCount - rep.PotentiallyStaleCount,
			"staleFlags": rep.StaleCount, "potentiallyStaleFlags": rep.PotentiallyStaleCount,
			"health": rep.Health, "technicalDebt": 100 - rep.Health,
		}
		active := false
		flags, err := rd.ListFeatures(ctx, store.FeatureFilter{Project: project, Archived: &active})
		if err != nil {
			return err
		}
		out.OnboardingStatus = onboardingOf(flags)

		access, err := rd.ListProjectAccess(ctx, store.AccessFilter{Project: project})
		if err != nil {
			return err
		}
		for _, a := range access {
			if a.RoleID != store.RoleOwner {
				continue
			}
			if a.UserID != 0 {
				x, err := rd.GetUser(ctx, a.UserID)
				if err != nil {
					return err
				}
				out.Owners = append(out.Owners, map[string]any{"ownerType": "user", "name": cmp.Or(x.Name, x.Username, x.Email),
					"imageUrl": nullable(x.ImageURL), "email": nullable(x.Email)})
			} else if a.GroupID != 0 {
				g, err := rd.GetGroup(ctx, a.GroupID)
				if err != nil {
					return err
				}
				out.Owners = append(out.Owners, map[string]any{"ownerType": "group", "name": g.Name})
			}
		}
		if len(out.Owners) == 0 {
			out.Owners = append(out.Owners, map[string]any{"ownerType": "system"})
		}
		grants, err := rd.UserProjectRoles(ctx, u.ID, project)
		if err != nil {
			return err
		}
		seen := map[int]bool{}
		for _, g := range grants {
			if seen[g.RoleID] {
				continue
			}
			seen[g.RoleID] = true
			role, err := rd.GetRole(ctx, g.RoleID)
			if err != nil {
				return err
			}
			typ := "custom"
			if role.Type == "project" {
				typ = "project"
			}
			out.Roles = append(out.Roles, map[string]any{"id": role.ID, "name": role.Name, "type": typ})
		}
		events, err := rd.ListEvents(ctx, store.EventFilter{Project: project, Limit: 10})
		if err != nil {
			return err
		}
		for _, e := range events {
			out.LatestEvents = append(out.LatestEvents, dashboardEvent{ID: e.ID, CreatedBy: e.CreatedBy, CreatedAt: e.CreatedAt})
		}
		return nil
	})
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, out)
}
