package server

// While change requests are enabled in an environment, the flags of the
// project can only be changed there through change requests: the direct
// endpoints answer 403. Archiving a flag and changing its dependencies
// affect every environment, so they are refused while change requests are
// enabled in any environment of the project. Applying a change request
// goes through the same write functions without these checks.

import (
	"context"
	"net/http"

	"github.com/signalbox/signalbox/internal/apierr"
	"github.com/signalbox/signalbox/store"
)

// checkDirectEdit refuses a direct change of project's flags in env while
// change requests are enabled there.
func checkDirectEdit(ctx context.Context, r store.Reader, project, env string) error {
	c, err := r.GetChangeRequestConfig(ctx, project, env)
	if err != nil || !c.Enabled {
		return err
	}
	return changeRequestsRequired(project, env)
}

// checkDirectProjectEdit refuses a direct change that affects every
// environment of project while change requests are enabled in any.
func checkDirectProjectEdit(ctx context.Context, r store.Reader, project string) error {
	list, err := r.ListChangeRequestConfigs(ctx, project)
	if err != nil {
		return err
	}
	for _, c := range list {
		if c.Enabled {
			return changeRequestsRequired(project, c.Environment)
		}
	}
	return nil
}

// checkRequirementKept refuses, unless p is an Admin, what would drop the
// change-request requirement of env in project (every project when
// project is ""): removing the environment from the project, or deleting
// it. Otherwise removing and re-adding it would switch the review off,
// which only Admins may do (see handleSetChangeRequestConfig).
func checkRequirementKept(ctx context.Context, rd store.Reader, p *Principal, project, env string) error {
	if p.can(PermAdmin) {
		return nil
	}
	projects := []string{project}
	if project == "" {
		all, err := rd.ListProjects(ctx)
		if err != nil {
			return err
		}
		projects = projects[:0]
		for _, pr := range all {
			projects = append(projects, pr.ID)
		}
	}
	for _, pr := range projects {
		c, err := rd.GetChangeRequestConfig(ctx, pr, env)
		if apierr.Is(err, apierr.NotFound) {
			continue
		}
		if err != nil {
			return err
		}
		if c.Enabled {
			return apierr.New(apierr.NoAccess,
				"change requests are enabled in environment %s of project %s; only an Admin can remove the environment while they are", env, pr)
		}
	}
	return nil
}

func changeRequestsRequired(project, env string) error {
	return apierr.New(apierr.NoAccess,
		"change requests are enabled in environment %s of project %s: propose this change in a change request (POST /api/admin/projects/%s/environments/%s/change-requests)",
		env, project, project, env)
}

// editableFeatureEnv is pathFeatureEnv for direct writes.
func editableFeatureEnv(r *http.Request, rd store.Reader) (featureEnvTarget, error) {
	t, err := pathFeatureEnv(r, rd)
	if err == nil {
		err = checkDirectEdit(r.Context(), rd, t.feature.Project, t.env.Name)
	}
	return t, err
}

// editableFeature is pathFeature for direct writes that affect every
// environment of the flag.
func editableFeature(r *http.Request, rd store.Reader) (store.Feature, error) {
	f, err := pathFeature(r, rd)
	if err == nil {
		err = checkDirectProjectEdit(r.Context(), rd, f.Project)
	}
	return f, err
}
