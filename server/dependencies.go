package server

// Dependencies between flags: a child flag is on only while its parent
// is on (or off, when the dependency asks for that), optionally with one of
// the parent's variants. Only one level is allowed, as in Unleash and in
// the SDKs, which refuse to evaluate deeper chains.

import (
	"context"
	"net/http"
	"slices"
	"strings"

	"github.com/signalbox/signalbox/internal/apierr"
	"github.com/signalbox/signalbox/store"
)

func registerDependencies(s *Server, m mux) {
	deps := projectFeaturesPath + "/{featureName}/dependencies"
	m.admin("GET "+deps, PermRead, s.handleListDependencies)
	m.admin("POST "+deps, PermUpdateFeatureDependency, s.handleAddDependency)
	m.admin("DELETE "+deps, PermUpdateFeatureDependency, s.handleDeleteDependencies)
	m.admin("DELETE "+deps+"/{parent}", PermUpdateFeatureDependency, s.handleDeleteDependency)
	m.admin("GET "+projectFeaturesPath+"/{featureName}/parents", PermRead, s.handleParentOptions)
	m.admin("GET "+projectFeaturesPath+"/{featureName}/parent-variants", PermRead, s.handleParentVariants)
	m.admin("GET /api/admin/projects/{projectId}/dependencies", PermRead, s.handleDependenciesExist)
}

// adminDependency is one parent of a flag (dependentFeatureSchema).
type adminDependency struct {
	Feature  string   `json:"feature"`
	Enabled  bool     `json:"enabled"`
	Variants []string `json:"variants"`
}

func dependencyView(d store.Dependency) adminDependency {
	return adminDependency{Feature: d.Parent, Enabled: d.Enabled, Variants: nonNilList(d.Variants)}
}

func (s *Server) handleListDependencies(w http.ResponseWriter, r *http.Request) error {
	answer := struct {
		Feature      string            `json:"feature"`
		Dependencies []adminDependency `json:"dependencies"`
	}{Dependencies: []adminDependency{}}
	err := s.view(r.Context(), func(rd store.Reader) error {
		f, err := pathFeature(r, rd)
		if err != nil {
			return err
		}
		answer.Feature = f.Name
		deps, err := rd.ListDependencies(r.Context(), f.Name)
		for _, d := range deps {
			answer.Dependencies = append(answer.Dependencies, dependencyView(d))
		}
		return err
	})
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, answer)
}

// dependencyInput is createDependentFeatureSchema; enabled defaults to true.
type dependencyInput struct {
	Feature  string   `json:"feature"`
	Enabled  *bool    `json:"enabled"`
	Variants []string `json:"variants"`
}

// handleAddDependency makes the path's flag depend on the body's. Adding a
// dependency that exists replaces its enabled and variants.
func (s *Server) handleAddDependency(w http.ResponseWriter, r *http.Request) error {
	var in dependencyInput
	if err := decode(w, r, &in); err != nil {
		return err
	}
	ctx := r.Context()
	err := s.change(ctx, func(tx store.Tx) ([]store.Event, error) {
		child, err := editableFeature(r, tx)
		if err != nil {
			return nil, err
		}
		return addDependency(ctx, tx, child, in)
	})
	if err != nil {
		return err
	}
	w.WriteHeader(http.StatusOK)
	return nil
}

// addDependency makes child depend on the flag in names, replacing the
// dependency when there is one.
func addDependency(ctx context.Context, tx store.Tx, child store.Feature, in dependencyInput) ([]store.Event, error) {
	d, err := checkDependency(ctx, tx, child, in)
	if err != nil {
		return nil, err
	}
	existing, err := tx.ListDependencies(ctx, child.Name)
	if err != nil {
		return nil, err
	}
	if i := slices.IndexFunc(existing, func(e store.Dependency) bool { return e.Parent == d.Parent }); i >= 0 {
		if err := tx.UpdateDependency(ctx, d); err != nil {
			return nil, err
		}
		return []store.Event{featureEvent("feature-dependency-added", child, dependencyView(d), dependencyView(existing[i]))}, nil
	}
	if err := tx.CreateDependency(ctx, d); err != nil {
		return nil, err
	}
	return []store.Event{featureEvent("feature-dependency-added", child, dependencyView(d), nil)}, nil
}

// checkDependency validates a new dependency of child: the parent is
// another active flag of the same project, it has no parents of its own,
// the child has no children (one level only), and variants are only given
// when the parent must be on.
func checkDependency(ctx context.Context, r store.Reader, child store.Feature, in dependencyInput) (store.Dependency, error) {
	d := store.Dependency{Child: child.Name, Parent: in.Feature, Enabled: in.Enabled == nil || *in.Enabled, Variants: []string{}}
	if strings.TrimSpace(in.Feature) == "" {
		return d, apierr.Invalid("feature", "feature, the name of the parent flag, is required")
	}
	if in.Feature == child.Name {
		return d, apierr.Invalid("feature", "a feature flag cannot depend on itself")
	}
	parent, err := r.GetFeature(ctx, in.Feature)
	switch {
	case apierr.Is(err, apierr.NotFound):
		return d, apierr.Invalid("feature", "there is no feature flag named %s", in.Feature)
	case err != nil:
		return d, err
	case parent.Archived():
		return d, apierr.Invalid("feature", "feature flag %s is archived", in.Feature)
	case parent.Project != child.Project:
		return d, apierr.Invalid("feature", "feature flag %s is in project %s; a parent must be in the same project as its child", in.Feature, parent.Project)
	}
	grandparents, err := r.ListDependencies(ctx, parent.Name)
	if err != nil {
		return d, err
	}
	if len(grandparents) > 0 {
		return d, apierr.Invalid("feature", "feature flag %s depends on other flags itself; dependencies are one level deep", parent.Name)
	}
	children, err := r.ListChildren(ctx, child.Name)
	if err != nil {
		return d, err
	}
	if len(children) > 0 {
		return d, apierr.Invalid("feature", "feature flag %s has flags depending on it, so it cannot depend on another; dependencies are one level deep", child.Name)
	}
	for _, v := range in.Variants {
		if strings.TrimSpace(v) == "" {
			return d, apierr.Invalid("variants", "variant names cannot be empty")
		}
		if !slices.Contains(d.Variants, v) {
			d.Variants = append(d.Variants, v)
		}
	}
	if !d.Enabled && len(d.Variants) > 0 {
		return d, apierr.Invalid("variants", "variants can only be required of a parent that must be enabled")
	}
	return d, nil
}

func (s *Server) handleDeleteDependency(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	err := s.change(ctx, func(tx store.Tx) ([]store.Event, error) {
		child, err := editableFeature(r, tx)
		if err != nil {
			return nil, err
		}
		return deleteDependency(ctx, tx, child, r.PathValue("parent"))
	})
	if err != nil {
		return err
	}
	w.WriteHeader(http.StatusOK)
	return nil
}

// deleteDependency removes child's dependency on parent; NotFound when
// there is none.
func deleteDependency(ctx context.Context, tx store.Tx, child store.Feature, parent string) ([]store.Event, error) {
	deps, err := tx.ListDependencies(ctx, child.Name)
	if err != nil {
		return nil, err
	}
	i := slices.IndexFunc(deps, func(d store.Dependency) bool { return d.Parent == parent })
	if i < 0 {
		return nil, apierr.New(apierr.NotFound, "feature flag %s does not depend on %s", child.Name, parent)
	}
	if err := tx.DeleteDependency(ctx, child.Name, parent); err != nil {
		return nil, err
	}
	return []store.Event{featureEvent("feature-dependency-removed", child, nil, dependencyView(deps[i]))}, nil
}

func (s *Server) handleDeleteDependencies(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	err := s.change(ctx, func(tx store.Tx) ([]store.Event, error) {
		child, err := editableFeature(r, tx)
		if err != nil {
			return nil, err
		}
		return removeDependencies(ctx, tx, child)
	})
	if err != nil {
		return err
	}
	w.WriteHeader(http.StatusOK)
	return nil
}

// removeDependencies removes every parent of child, recording
// feature-dependencies-removed when there was any.
func removeDependencies(ctx context.Context, tx store.Tx, child store.Feature) ([]store.Event, error) {
	deps, err := tx.ListDependencies(ctx, child.Name)
	if err != nil || len(deps) == 0 {
		return nil, err
	}
	if err := tx.DeleteDependencies(ctx, child.Name); err != nil {
		return nil, err
	}
	before := make([]adminDependency, 0, len(deps))
	for _, d := range deps {
		before = append(before, dependencyView(d))
	}
	return []store.Event{featureEvent("feature-dependencies-removed", child, nil, before)}, nil
}

// handleParentOptions lists the flags the path's flag could depend on:
// active flags of its project, other than itself, without parents; none
// when other flags depend on the path's flag.
func (s *Server) handleParentOptions(w http.ResponseWriter, r *http.Request) error {
	names := []string{}
	err := s.view(r.Context(), func(rd store.Reader) error {
		child, err := pathFeature(r, rd)
		if err != nil {
			return err
		}
		// A flag that others depend on cannot get parents (one level only).
		if children, err := rd.ListChildren(r.Context(), child.Name); err != nil || len(children) > 0 {
			return err
		}
		active := false
		list, err := rd.ListFeatures(r.Context(), store.FeatureFilter{Project: child.Project, Archived: &active})
		if err != nil {
			return err
		}
		deps, err := rd.ListDependencies(r.Context(), "")
		if err != nil {
			return err
		}
		for _, f := range list {
			hasParents := slices.ContainsFunc(deps, func(d store.Dependency) bool { return d.Child == f.Name })
			if f.Name != child.Name && !hasParents {
				names = append(names, f.Name)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, names)
}

// handleParentVariants lists the variant names a child may require of the
// path's flag: its flag-level and strategy variants in every environment.
func (s *Server) handleParentVariants(w http.ResponseWriter, r *http.Request) error {
	names := []string{}
	err := s.view(r.Context(), func(rd store.Reader) error {
		f, err := pathFeature(r, rd)
		if err != nil {
			return err
		}
		fes, err := rd.ListFeatureEnvironments(r.Context(), f.Name)
		if err != nil {
			return err
		}
		for _, fe := range fes {
			for _, v := range fe.Variants {
				names = append(names, v.Name)
			}
		}
		strategies, err := rd.ListStrategies(r.Context(), store.StrategyFilter{Feature: f.Name})
		for _, st := range strategies {
			for _, v := range st.Variants {
				names = append(names, v.Name)
			}
		}
		return err
	})
	if err != nil {
		return err
	}
	slices.Sort(names)
	return writeJSON(w, http.StatusOK, slices.Compact(names))
}

// handleDependenciesExist answers whether any flag of the project has a
// parent (Unleash answers for the whole instance; per project is what the
// path asks).
func (s *Server) handleDependenciesExist(w http.ResponseWriter, r *http.Request) error {
	exists := false
	err := s.view(r.Context(), func(rd store.Reader) error {
		project := r.PathValue("projectId")
		if _, err := rd.GetProject(r.Context(), project); err != nil {
			return err
		}
		list, err := rd.ListFeatures(r.Context(), store.FeatureFilter{Project: project})
		if err != nil {
			return err
		}
		deps, err := rd.ListDependencies(r.Context(), "")
		for _, d := range deps {
			exists = exists || slices.ContainsFunc(list, func(f store.Feature) bool { return f.Name == d.Child })
		}
		return err
	})
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, exists)
}
