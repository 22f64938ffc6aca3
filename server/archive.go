package server

// The archive: archiving flags (one or many), listing archived flags,
// reviving them and deleting them for good. Archived flags keep their
// configuration but are not served to SDKs; only archived flags can be
// deleted, so that a flag in use is never removed by one request.

import (
	"context"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/signalbox/signalbox/internal/apierr"
	"github.com/signalbox/signalbox/store"
)

func registerArchive(s *Server, m mux) {
	m.admin("DELETE "+projectFeaturesPath+"/{featureName}", PermDeleteFeature, s.handleArchiveFeature)
	m.admin("GET /api/admin/archive/features", PermRead, s.handleListArchived)
	m.admin("GET /api/admin/archive/features/{projectId}", PermRead, s.handleListArchived)
	m.admin("POST /api/admin/archive/revive/{featureName}", PermUpdateFeature, s.handleReviveFeature)
	m.admin("DELETE /api/admin/archive/{featureName}", PermDeleteFeature, s.handleDeleteArchived)
	m.admin("POST /api/admin/projects/{projectId}/archive", PermDeleteFeature, s.handleBulkArchive)
	m.admin("POST /api/admin/projects/{projectId}/archive/validate", PermRead, s.handleValidateArchive)
	m.admin("POST /api/admin/projects/{projectId}/revive", PermUpdateFeature, s.handleBulkRevive)
	m.admin("POST /api/admin/projects/{projectId}/delete", PermDeleteFeature, s.handleBulkDelete)
}

// batchFeatures is the body of the bulk routes (batchFeaturesSchema).
type batchFeatures struct {
	Features []string `json:"features"`
}

func (b batchFeatures) check() error {
	if b.Features == nil {
		return apierr.Invalid("features", "features, a list of feature flag names, is required")
	}
	return nil
}

// archiveFeatures archives features (active ones, read in this
// transaction). A flag that other flags depend on can only be archived
// together with them. Archiving removes the flag's own dependencies, as
// Unleash does, so a revived flag starts without parents.
func (s *Server) archiveFeatures(ctx context.Context, tx store.Tx, features []store.Feature) ([]store.Event, error) {
	batch := make(map[string]bool, len(features))
	for _, f := range features {
		batch[f.Name] = true
	}
	for _, f := range features {
		children, err := tx.ListChildren(ctx, f.Name)
		if err != nil {
			return nil, err
		}
		for _, c := range children {
			if !batch[c] {
				return nil, apierr.New(apierr.Validation, "feature flag %s cannot be archived while %s depends on it; remove that dependency or archive both", f.Name, c)
			}
		}
	}
	now := s.now().UTC().Truncate(time.Microsecond)
	var events []store.Event
	for _, before := range features {
		removed, err := removeDependencies(ctx, tx, before)
		if err != nil {
			return nil, err
		}
		events = append(events, removed...)
		f := before
		f.ArchivedAt = &now
		if f, err = tx.UpdateFeature(ctx, f); err != nil {
			return nil, err
		}
		events = append(events, featureEvent("feature-archived", f, metaOf(f), metaOf(before)))
	}
	return events, nil
}

// reviveFeature brings an archived flag back, switched off in every
// environment (as Unleash does), so that reviving never changes what
// users see until someone switches it on again.
func reviveFeature(ctx context.Context, tx store.Tx, before store.Feature) ([]store.Event, error) {
	f := before
	f.ArchivedAt = nil
	f, err := tx.UpdateFeature(ctx, f)
	if err != nil {
		return nil, err
	}
	fes, err := tx.ListFeatureEnvironments(ctx, f.Name)
	if err != nil {
		return nil, err
	}
	for _, fe := range fes {
		if fe.Enabled {
			fe.Enabled = false
			if _, err := tx.UpdateFeatureEnvironment(ctx, fe); err != nil {
				return nil, err
			}
		}
	}
	return []store.Event{featureEvent("feature-revived", f, metaOf(f), metaOf(before))}, nil
}

// deleteFeature deletes an archived flag with everything attached to it.
func deleteFeature(ctx context.Context, tx store.Tx, f store.Feature) ([]store.Event, error) {
	tags, err := tx.ListFeatureTags(ctx, f.Name)
	if err != nil {
		return nil, err
	}
	if err := tx.DeleteFeature(ctx, f.Name); err != nil {
		return nil, err
	}
	e := featureEvent("feature-deleted", f, nil, metaOf(f))
	for _, t := range tags {
		e.Tags = append(e.Tags, t.Tag)
	}
	return []store.Event{e}, nil
}

// archivedFeature reads a flag by name that must be in the archive.
func archivedFeature(ctx context.Context, r store.Reader, name string) (store.Feature, error) {
	f, err := r.GetFeature(ctx, name)
	if err == nil && !f.Archived() {
		err = apierr.New(apierr.Validation, "feature flag %s is not archived; archive it first", name)
	}
	return f, err
}

func (s *Server) handleArchiveFeature(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	err := s.change(ctx, func(tx store.Tx) ([]store.Event, error) {
		f, err := editableFeature(r, tx)
		if err != nil {
			return nil, err
		}
		return s.archiveFeatures(ctx, tx, []store.Feature{f})
	})
	if err != nil {
		return err
	}
	w.WriteHeader(http.StatusAccepted)
	return nil
}

// handleListArchived lists archived flags, of one project when the path
// names one (an unknown project is 404 rather than an empty list).
func (s *Server) handleListArchived(w http.ResponseWriter, r *http.Request) error {
	archived := true
	views, err := s.featureViewsFor(r.Context(), true, store.FeatureFilter{Project: r.PathValue("projectId"), Archived: &archived})
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, featureList{Version: 2, Features: views})
}

func (s *Server) handleReviveFeature(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	err := s.change(ctx, func(tx store.Tx) ([]store.Event, error) {
		f, err := archivedFeature(ctx, tx, r.PathValue("featureName"))
		if err != nil {
			return nil, err
		}
		return reviveFeature(ctx, tx, f)
	})
	if err != nil {
		return err
	}
	w.WriteHeader(http.StatusOK)
	return nil
}

func (s *Server) handleDeleteArchived(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	err := s.change(ctx, func(tx store.Tx) ([]store.Event, error) {
		f, err := archivedFeature(ctx, tx, r.PathValue("featureName"))
		if err != nil {
			return nil, err
		}
		return deleteFeature(ctx, tx, f)
	})
	if err != nil {
		return err
	}
	w.WriteHeader(http.StatusOK)
	return nil
}

// batchTargets reads the flags a bulk route names: each must exist (404),
// belong to the project and be archived or active as the route needs (400).
// Names given twice count once. All are checked before anything changes.
func batchTargets(ctx context.Context, r store.Reader, project string, names []string, archived bool) ([]store.Feature, error) {
	if _, err := r.GetProject(ctx, project); err != nil {
		return nil, err
	}
	var out []store.Feature
	for i, name := range names {
		if slices.ContainsFunc(out, func(f store.Feature) bool { return f.Name == name }) {
			continue
		}
		p := "features[" + strconv.Itoa(i) + "]"
		f, err := r.GetFeature(ctx, name)
		switch {
		case err != nil:
			return nil, err
		case f.Project != project:
			return nil, apierr.Invalid(p, "feature flag %s belongs to project %s, not %s", name, f.Project, project)
		case archived && !f.Archived():
			return nil, apierr.Invalid(p, "feature flag %s is not archived", name)
		case !archived && f.Archived():
			return nil, apierr.Invalid(p, "feature flag %s is already archived", name)
		}
		out = append(out, f)
	}
	return out, nil
}

// bulk runs one bulk route: it reads the body, resolves the flags and
// applies fn to them in one transaction, then answers status.
func (s *Server) bulk(w http.ResponseWriter, r *http.Request, archived bool, status int,
	fn func(ctx context.Context, tx store.Tx, features []store.Feature) ([]store.Event, error)) error {
	var in batchFeatures
	if err := decode(w, r, &in); err != nil {
		return err
	}
	if err := in.check(); err != nil {
		return err
	}
	ctx := r.Context()
	err := s.change(ctx, func(tx store.Tx) ([]store.Event, error) {
		features, err := batchTargets(ctx, tx, r.PathValue("projectId"), in.Features, archived)
		if err != nil {
			return nil, err
		}
		return fn(ctx, tx, features)
	})
	if err != nil {
		return err
	}
	w.WriteHeader(status)
	return nil
}

func (s *Server) handleBulkArchive(w http.ResponseWriter, r *http.Request) error {
	return s.bulk(w, r, false, http.StatusAccepted, func(ctx context.Context, tx store.Tx, features []store.Feature) ([]store.Event, error) {
		if err := checkDirectProjectEdit(ctx, tx, r.PathValue("projectId")); err != nil {
			return nil, err
		}
		return s.archiveFeatures(ctx, tx, features)
	})
}

func (s *Server) handleBulkRevive(w http.ResponseWriter, r *http.Request) error {
	return s.bulk(w, r, true, http.StatusOK, func(ctx context.Context, tx store.Tx, features []store.Feature) ([]store.Event, error) {
		var events []store.Event
		for _, f := range features {
			more, err := reviveFeature(ctx, tx, f)
			if err != nil {
				return nil, err
			}
			events = append(events, more...)
		}
		return events, nil
	})
}

func (s *Server) handleBulkDelete(w http.ResponseWriter, r *http.Request) error {
	return s.bulk(w, r, true, http.StatusOK, func(ctx context.Context, tx store.Tx, features []store.Feature) ([]store.Event, error) {
		var events []store.Event
		for _, f := range features {
			more, err := deleteFeature(ctx, tx, f)
			if err != nil {
				return nil, err
			}
			events = append(events, more...)
		}
		return events, nil
	})
}

// handleValidateArchive tells what archiving the listed flags would do:
// whether some of them have parents (those dependencies would go), and
// which of them other flags outside the list depend on (which blocks it).
func (s *Server) handleValidateArchive(w http.ResponseWriter, r *http.Request) error {
	var in batchFeatures
	if err := decode(w, r, &in); err != nil {
		return err
	}
	if err := in.check(); err != nil {
		return err
	}
	answer := struct {
		HasDeletedDependencies   bool     `json:"hasDeletedDependencies"`
		ParentsWithChildFeatures []string `json:"parentsWithChildFeatures"`
	}{ParentsWithChildFeatures: []string{}}
	err := s.view(r.Context(), func(rd store.Reader) error {
		ctx := r.Context()
		if _, err := rd.GetProject(ctx, r.PathValue("projectId")); err != nil {
			return err
		}
		for _, name := range in.Features {
			deps, err := rd.ListDependencies(ctx, name)
			if err != nil {
				return err
			}
			answer.HasDeletedDependencies = answer.HasDeletedDependencies || len(deps) > 0
			children, err := rd.ListChildren(ctx, name)
			if err != nil {
				return err
			}
			for _, c := range children {
				if !slices.Contains(in.Features, c) && !slices.Contains(answer.ParentsWithChildFeatures, name) {
					answer.ParentsWithChildFeatures = append(answer.ParentsWithChildFeatures, name)
				}
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, answer)
}
