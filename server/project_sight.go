package server

import (
	"context"
	"net/http"
	"slices"

	"github.com/signalbox/signalbox/internal/apierr"
	"github.com/signalbox/signalbox/store"
)

// Project modes, as Unleash defines them: in an open project anyone may
// read and propose changes (change requests); in a protected one anyone
// may read, but only its members propose changes; a private one only its
// members see at all. Admins and admin tokens see and may do everything
// their permissions allow in every project. A member is a user holding a
// project role there, directly or through a group.
const (
	modeOpen      = "open"
	modeProtected = "protected"
	modePrivate   = "private"
)

// projectSight is what one principal may see of projects, and where they
// may propose changes: decided once per request (see sightOf) and used by
// every path that shows a project or anything in one, so that all of them
// follow the same rule.
type projectSight struct {
	// all is set for Admins and admin tokens.
	all bool
	// modes maps every project to its mode.
	modes map[string]string
	// member holds the projects the user holds a project role in.
	member map[string]bool
	// hides is set when some project is hidden from the principal.
	hides bool
}

// canSee reports whether the principal may see project: it is not
// private, or they are an Admin or one of its members. Unknown projects
// count as seen, so that their paths answer their own 404.
func (v *projectSight) canSee(project string) bool {
	return v.all || v.modes[project] != modePrivate || v.member[project]
}

// canPropose reports whether the principal may create and submit change
// requests in project as far as its mode goes: in an open project anyone
// may, in a protected or private one only its members and Admins.
// Permissions are checked on their own.
func (v *projectSight) canPropose(project string) bool {
	if v.all || v.member[project] {
		return true
	}
	mode := v.modes[project]
	return mode != modeProtected && mode != modePrivate
}

// hidesAny reports whether some project is hidden from the principal, so
// that lists can skip filtering when nothing is.
func (v *projectSight) hidesAny() bool { return v.hides }

// hidden lists, sorted, the projects hidden from the principal.
func (v *projectSight) hidden() []string {
	if !v.hides {
		return nil
	}
	var out []string
	for id, mode := range v.modes {
		if mode == modePrivate && !v.member[id] {
			out = append(out, id)
		}
	}
	slices.Sort(out)
	return out
}

// sightOf is the project sight of the request's principal, read once per
// request and kept with the principal.
func (s *Server) sightOf(ctx context.Context) (*projectSight, error) {
	p := principalFrom(ctx)
	if p != nil && p.sight != nil {
		return p.sight, nil
	}
	var v *projectSight
	err := s.view(ctx, func(rd store.Reader) (err error) {
		v, err = readSight(ctx, rd, p)
		return err
	})
	if err != nil {
		return nil, err
	}
	if p != nil {
		p.sight = v
	}
	return v, nil
}

// readSight reads the project sight of p: every project's mode and the
// projects p's user is a member of. Admins and admin tokens see all
// without reading anything.
func readSight(ctx context.Context, rd store.Reader, p *Principal) (*projectSight, error) {
	if p != nil && p.can(PermAdmin) {
		return &projectSight{all: true}, nil
	}
	projects, err := rd.ListProjects(ctx)
	if err != nil {
		return nil, err
	}
	v := &projectSight{modes: make(map[string]string, len(projects)), member: map[string]bool{}}
	for _, pr := range projects {
		v.modes[pr.ID] = pr.Mode
	}
	var grants []store.ProjectAccess
	if p != nil && p.User != nil {
		grants, err = rd.UserProjectRoles(ctx, p.User.ID, "")
	}
	if err != nil && !apierr.Is(err, apierr.NotFound) {
		return nil, err
	}
	for _, g := range grants {
		v.member[g.Project] = true
	}
	for id, mode := range v.modes {
		v.hides = v.hides || (mode == modePrivate && !v.member[id])
	}
	return v, nil
}

// checkProjectSight answers 404 for a path in a project the principal may
// not see: the project of {projectId}, and that of the flag {featureName}
// names. It runs before authorize, so that a private project's paths
// answer as if it did not exist, whatever the method.
func (s *Server) checkProjectSight(r *http.Request, p *Principal) error {
	project, feature := r.PathValue("projectId"), r.PathValue("featureName")
	if (project == "" && feature == "") || p.can(PermAdmin) {
		return nil
	}
	ctx := withPrincipal(r.Context(), p)
	v, err := s.sightOf(ctx)
	if err != nil {
		return err
	}
	if !v.hidesAny() {
		return nil
	}
	if project != "" && !v.canSee(project) {
		return apierr.New(apierr.NotFound, "project %s not found", project)
	}
	if feature == "" {
		return nil
	}
	var f store.Feature
	err = s.view(ctx, func(rd store.Reader) (err error) {
		f, err = rd.GetFeature(ctx, feature)
		return err
	})
	switch {
	case apierr.Is(err, apierr.NotFound):
		return nil // the handler answers its own 404
	case err != nil:
		return err
	case !v.canSee(f.Project):
		return apierr.New(apierr.NotFound, "feature flag %s not found", feature)
	}
	return nil
}

// visibleFeatures keeps the flags of fs in projects v sees.
func visibleFeatures(v *projectSight, fs []store.Feature) []store.Feature {
	return filterSeen(v, fs, func(f store.Feature) string { return f.Project })
}

// filterSeen keeps the items of list whose project (as projectOf reads
// it) v sees; items of no project stay.
func filterSeen[T any](v *projectSight, list []T, projectOf func(T) string) []T {
	if !v.hidesAny() {
		return list
	}
	out := make([]T, 0, len(list))
	for _, item := range list {
		if pr := projectOf(item); pr == "" || v.canSee(pr) {
			out = append(out, item)
		}
	}
	return out
}

// checkMayPropose refuses, with 403, a change request in project from a
// principal who is not one of its members when the project is protected
// or private.
func (s *Server) checkMayPropose(ctx context.Context, project string) error {
	v, err := s.sightOf(ctx)
	if err != nil {
		return err
	}
	if !v.canPropose(project) {
		return notProposer(project, v)
	}
	return nil
}

// notProposer is the 403 of checkMayPropose.
func notProposer(project string, v *projectSight) error {
	return apierr.New(apierr.NoAccess, "project %s is %s: only its members may propose changes to it", project, v.modes[project])
}
