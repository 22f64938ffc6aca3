package server

// Flag lifecycle: the stages a flag goes through (initial, pre-live, live,
// completed, archived), as Unleash's UI shows them on each flag and counts
// them for the instance (/api/admin/lifecycle/count).
//
// Stages are derived from what the server records anyway: a flag is
// pre-live once an SDK reported it from a non-production environment, live
// once one reported it from production, archived while in the archive.
// Only "completed" is a decision of its own (the flag has done its job and
// can be cleaned up); completions are kept in one instance setting, a map
// from flag name to completion, so that no table is needed for them.

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"time"

	"github.com/signalbox/signalbox/internal/apierr"
	"github.com/signalbox/signalbox/store"
)

// lifecycleSettingName holds the completions.
const lifecycleSettingName = "feature.lifecycle.completed"

const lifecyclePath = "/api/admin/projects/{projectId}/features/{featureName}/lifecycle"

func registerLifecycle(s *Server, m mux) {
	m.admin("GET /api/admin/lifecycle/count", PermRead, s.handleLifecycleCount)
	m.admin("GET "+lifecyclePath, PermRead, s.handleGetLifecycle)
	m.admin("POST "+lifecyclePath+"/complete", PermUpdateFeature, s.handleCompleteFeature)
	m.admin("POST "+lifecyclePath+"/uncomplete", PermUpdateFeature, s.handleUncompleteFeature)
}

// lifecycleCompletion records that a flag was marked completed: kept (the
// code path stays, statusValue naming the variant kept, if any) or
// discarded.
type lifecycleCompletion struct {
	Status      string    `json:"status"`
	StatusValue string    `json:"statusValue,omitempty"`
	At          time.Time `json:"at"`
}

// readCompletions reads the completions of every flag.
func readCompletions(ctx context.Context, rd store.Reader) (map[string]lifecycleCompletion, error) {
	out := map[string]lifecycleCompletion{}
	st, err := rd.GetSetting(ctx, lifecycleSettingName)
	if apierr.Is(err, apierr.NotFound) {
		return out, nil
	} else if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(st.Value, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// lifecycleStage is an item of Unleash's featureLifecycleSchema.
type lifecycleStage struct {
	Stage          string    `json:"stage"`
	Status         string    `json:"status,omitempty"`
	EnteredStageAt time.Time `json:"enteredStageAt"`
}

// lifecycleStages lists the stages a flag has reached, in order, each
// with when it was entered as far as the server knows: pre-live and live
// with the latest report from such an environment.
func lifecycleStages(f store.FeatureOverview, done *lifecycleCompletion) []lifecycleStage {
	stages := []lifecycleStage{{Stage: stageInitial, EnteredStageAt: f.CreatedAt}}
	var pre, live *time.Time
	for _, e := range f.Environments {
		if e.LastSeenAt == nil {
			continue
		}
		p := &pre
		if e.Type == "production" {
			p = &live
		}
		if *p == nil || e.LastSeenAt.After(**p) {
			*p = e.LastSeenAt
		}
	}
	if pre != nil {
		stages = append(stages, lifecycleStage{Stage: stagePreLive, EnteredStageAt: *pre})
	}
	if live != nil {
		stages = append(stages, lifecycleStage{Stage: stageLive, EnteredStageAt: *live})
	}
	if done != nil {
		stages = append(stages, lifecycleStage{Stage: stageCompleted, Status: done.Status, EnteredStageAt: done.At})
	}
	if f.ArchivedAt != nil {
		stages = append(stages, lifecycleStage{Stage: stageArchived, EnteredStageAt: *f.ArchivedAt})
	}
	return stages
}

// currentStage is the last stage reached.
func currentStage(f store.FeatureOverview, done *lifecycleCompletion) searchLifecycle {
	stages := lifecycleStages(f, done)
	last := stages[len(stages)-1]
	return searchLifecycle{Stage: last.Stage, EnteredStageAt: last.EnteredStageAt}
}

// flagOverview reads one flag of the project, archived or not, with its
// environments' types and last reports, as lifecycleStages needs them.
func flagOverview(r *http.Request, rd store.Reader) (store.FeatureOverview, error) {
	ctx := r.Context()
	f, err := pathFeature(r, rd)
	if err != nil && f.Name != "" && f.Archived() && f.Project == r.PathValue("projectId") {
		err = nil // the archive is a stage of its own
	}
	if err != nil {
		return store.FeatureOverview{}, err
	}
	envs, err := rd.ListEnvironments(ctx)
	if err != nil {
		return store.FeatureOverview{}, err
	}
	states, err := rd.ListFeatureEnvironments(ctx, f.Name)
	if err != nil {
		return store.FeatureOverview{}, err
	}
	o := store.FeatureOverview{Feature: f}
	for _, st := range states {
		i := slices.IndexFunc(envs, func(e store.Environment) bool { return e.Name == st.Environment })
		if i >= 0 {
			o.Environments = append(o.Environments, store.FeatureOverviewEnvironment{Name: st.Environment, Type: envs[i].Type, LastSeenAt: st.LastSeenAt})
		}
	}
	return o, nil
}

// handleGetLifecycle is Unleash's getFeatureLifecycle: the stages the
// flag reached, oldest first.
func (s *Server) handleGetLifecycle(w http.ResponseWriter, r *http.Request) error {
	var stages []lifecycleStage
	err := s.view(r.Context(), func(rd store.Reader) error {
		f, err := flagOverview(r, rd)
		if err != nil {
			return err
		}
		done, err := readCompletions(r.Context(), rd)
		if err != nil {
			return err
		}
		var c *lifecycleCompletion
		if d, ok := done[f.Name]; ok {
			c = &d
		}
		stages = lifecycleStages(f, c)
		return nil
	})
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, stages)
}

// handleCompleteFeature is Unleash's complete: the flag is marked
// completed, kept or discarded (statusValue: the variant kept, say).
// Marking it again replaces the mark. Event feature-completed.
func (s *Server) handleCompleteFeature(w http.ResponseWriter, r *http.Request) error {
	var body struct {
		Status      string `json:"status"`
		StatusValue string `json:"statusValue"`
	}
	if err := decode(w, r, &body); err != nil {
		return err
	}
	if body.Status != "kept" && body.Status != "discarded" {
		return apierr.Invalid("status", "status is kept or discarded, not %q", body.Status)
	}
	if err := checkText("statusValue", body.StatusValue, 200); err != nil {
		return err
	}
	return s.answerLifecycleChange(w, r, func(done map[string]lifecycleCompletion, f store.Feature) (store.Event, bool) {
		c := lifecycleCompletion{Status: body.Status, StatusValue: body.StatusValue, At: time.Now().UTC()}
		done[f.Name] = c
		return featureEvent("feature-completed", f, map[string]string{"status": c.Status, "statusValue": c.StatusValue}, nil), true
	})
}

// handleUncompleteFeature is Unleash's uncomplete: the completed mark is
// taken back; a flag without one is left as it is (no event). Event
// feature-uncompleted.
func (s *Server) handleUncompleteFeature(w http.ResponseWriter, r *http.Request) error {
	return s.answerLifecycleChange(w, r, func(done map[string]lifecycleCompletion, f store.Feature) (store.Event, bool) {
		c, ok := done[f.Name]
		if !ok {
			return store.Event{}, false
		}
		delete(done, f.Name)
		return featureEvent("feature-uncompleted", f, nil, map[string]string{"status": c.Status, "statusValue": c.StatusValue}), true
	})
}

// answerLifecycleChange applies edit to the completions of the flag of
// the path and stores them when edit changed something. 200 without a
// body.
func (s *Server) answerLifecycleChange(w http.ResponseWriter, r *http.Request, edit func(map[string]lifecycleCompletion, store.Feature) (store.Event, bool)) error {
	ctx := r.Context()
	err := s.change(ctx, func(tx store.Tx) ([]store.Event, error) {
		f, err := pathFeature(r, tx) // archived flags are NotFound
		if err != nil {
			return nil, err
		}
		done, err := readCompletions(ctx, tx)
		if err != nil {
			return nil, err
		}
		ev, changed := edit(done, f)
		if !changed {
			return nil, nil
		}
		// Completions of flags deleted since are dropped on the way.
		flags, err := tx.ListFeatures(ctx, store.FeatureFilter{})
		if err != nil {
			return nil, err
		}
		names := make(map[string]bool, len(flags))
		for _, fl := range flags {
			names[fl.Name] = true
		}
		for name := range done {
			if !names[name] {
				delete(done, name)
			}
		}
		value, err := json.Marshal(done)
		if err != nil {
			return nil, err
		}
		if _, err := tx.PutSetting(ctx, store.Setting{Name: lifecycleSettingName, Value: value}); err != nil {
			return nil, err
		}
		return []store.Event{ev}, nil
	})
	if err != nil {
		return err
	}
	w.WriteHeader(http.StatusOK)
	return nil
}

// handleLifecycleCount is Unleash's getFeatureLifecycleStageCount: how
// many flags are in each stage now.
func (s *Server) handleLifecycleCount(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	counts := map[string]int{"initial": 0, "preLive": 0, "live": 0, "completed": 0, "archived": 0}
	key := map[string]string{stageInitial: "initial", stagePreLive: "preLive", stageLive: "live", stageCompleted: "completed", stageArchived: "archived"}
	sight, err := s.sightOf(ctx)
	if err != nil {
		return err
	}
	err = s.view(ctx, func(rd store.Reader) error {
		done, err := readCompletions(ctx, rd)
		if err != nil {
			return err
		}
		active, err := rd.ListFeatureOverviews(ctx, false)
		if err != nil {
			return err
		}
		active = filterSeen(sight, active, func(fo store.FeatureOverview) string { return fo.Project })
		for _, f := range active {
			var c *lifecycleCompletion
			if d, ok := done[f.Name]; ok {
				c = &d
			}
			counts[key[currentStage(f, c).Stage]]++
		}
		archived := true
		list, err := rd.ListFeatures(ctx, store.FeatureFilter{Archived: &archived})
		counts["archived"] = len(visibleFeatures(sight, list))
		return err
	})
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, counts)
}
