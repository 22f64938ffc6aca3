package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/signalbox/signalbox/internal/apierr"
	"github.com/signalbox/signalbox/store"
)

func testChangeRequests(t *testing.T, s store.Store) {
	ctx := t.Context()
	alice := store.Actor{Key: "user:7", Name: "alice", UserID: 7}
	bob := store.Actor{Key: "user:8", Name: "bob", UserID: 8}
	robot := store.Actor{Key: "token:3", Name: "ci-token"}
	update(t, s, func(tx store.Tx) error {
		if _, err := tx.CreateProject(ctx, store.Project{ID: "other", Name: "Other"}); err != nil {
			return err
		}
		return tx.CreateProjectEnvironment(ctx, store.ProjectEnvironment{Project: "other", Environment: store.EnvProduction})
	})

	t.Run("Config", func(t *testing.T) {
		got := get(t, s, func(ctx context.Context, r store.Reader) (store.ChangeRequestConfig, error) {
			return r.GetChangeRequestConfig(ctx, "default", store.EnvProduction)
		})
		diff(t, "default config", store.ChangeRequestConfig{Project: "default", Environment: store.EnvProduction, RequiredApprovals: 1}, got)
		update(t, s, func(tx store.Tx) error {
			got, err := tx.SetChangeRequestConfig(ctx, store.ChangeRequestConfig{Project: "default", Environment: store.EnvProduction, Enabled: true, RequiredApprovals: 2})
			diff(t, "set config", store.ChangeRequestConfig{Project: "default", Environment: store.EnvProduction, Enabled: true, RequiredApprovals: 2}, got)
			return err
		})
		// Setting again replaces.
		update(t, s, func(tx store.Tx) error {
			_, err := tx.SetChangeRequestConfig(ctx, store.ChangeRequestConfig{Project: "default", Environment: store.EnvProduction, Enabled: true, RequiredApprovals: 3})
			return err
		})
		list := get(t, s, func(ctx context.Context, r store.Reader) ([]store.ChangeRequestConfig, error) {
			return r.ListChangeRequestConfigs(ctx, "default")
		})
		diff(t, "configs", []store.ChangeRequestConfig{
			{Project: "default", Environment: store.EnvDevelopment, RequiredApprovals: 1},
			{Project: "default", Environment: store.EnvProduction, Enabled: true, RequiredApprovals: 3},
		}, list)
		if k := readKind(t, s, func(ctx context.Context, r store.Reader) error {
			_, err := r.ListChangeRequestConfigs(ctx, "nope")
			return err
		}); k != apierr.NotFound {
			t.Errorf("configs of an unknown project: %q, want NotFound", k)
		}
		runErrCases(t, s, []errCase{
			{"environment not enabled for the project", func(ctx context.Context, tx store.Tx) error {
				_, err := tx.SetChangeRequestConfig(ctx, store.ChangeRequestConfig{Project: "other", Environment: store.EnvDevelopment, Enabled: true, RequiredApprovals: 1})
				return err
			}, apierr.NotFound},
			{"unknown project", func(ctx context.Context, tx store.Tx) error {
				_, err := tx.SetChangeRequestConfig(ctx, store.ChangeRequestConfig{Project: "nope", Environment: store.EnvProduction, RequiredApprovals: 1})
				return err
			}, apierr.NotFound},
			{"no approvals", func(ctx context.Context, tx store.Tx) error {
				_, err := tx.SetChangeRequestConfig(ctx, store.ChangeRequestConfig{Project: "default", Environment: store.EnvProduction, Enabled: true})
				return err
			}, apierr.BadData},
		})
		// Disabling the environment for the project drops its settings.
		update(t, s, func(tx store.Tx) error {
			if _, err := tx.SetChangeRequestConfig(ctx, store.ChangeRequestConfig{Project: "other", Environment: store.EnvProduction, Enabled: true, RequiredApprovals: 4}); err != nil {
				return err
			}
			if err := tx.DeleteProjectEnvironment(ctx, "other", store.EnvProduction); err != nil {
				return err
			}
			return tx.CreateProjectEnvironment(ctx, store.ProjectEnvironment{Project: "other", Environment: store.EnvProduction})
		})
		got = get(t, s, func(ctx context.Context, r store.Reader) (store.ChangeRequestConfig, error) {
			return r.GetChangeRequestConfig(ctx, "other", store.EnvProduction)
		})
		if got.Enabled || got.RequiredApprovals != 1 {
			t.Errorf("config survived disabling the environment: %+v", got)
		}
	})

	var first store.ChangeRequest
	t.Run("Lifecycle", func(t *testing.T) {
		update(t, s, func(tx store.Tx) error {
			var err error
			first, err = tx.CreateChangeRequest(ctx, store.ChangeRequest{
				Project: "default", Environment: store.EnvProduction, Title: "Roll out checkout", State: store.ChangeRequestDraft,
				MinApprovals: 2, CreatedBy: alice, CreatedAt: t0,
			})
			return err
		})
		want := store.ChangeRequest{ID: first.ID, Project: "default", Environment: store.EnvProduction, Title: "Roll out checkout",
			State: store.ChangeRequestDraft, MinApprovals: 2, CreatedBy: alice, CreatedAt: t0}
		diff(t, "created request", want, first)
		if first.ID == 0 || first.Changes == nil || first.Approvals == nil || first.Rejections == nil || first.Comments == nil {
			t.Errorf("want an id and non-nil lists: %+v", first)
		}

		payload := json.RawMessage(`{"name":"flexibleRollout","parameters":{"rollout":"50"},"constraints":[]}`)
		snapshot := json.RawMessage(`{"id":"s1","disabled":false}`)
		var c1, c2, c3 store.Change
		update(t, s, func(tx store.Tx) error {
			var err error
			if c1, err = tx.AddChange(ctx, store.Change{ChangeRequestID: first.ID, Feature: "checkout", Action: "addStrategy",
				Payload: payload, CreatedBy: alice, CreatedAt: t0}); err != nil {
				return err
			}
			if c2, err = tx.AddChange(ctx, store.Change{ChangeRequestID: first.ID, Feature: "checkout", Action: "updateStrategy",
				Payload: json.RawMessage(`{"id":"s1"}`), Snapshot: snapshot, CreatedBy: bob}); err != nil {
				return err
			}
			c3, err = tx.AddChange(ctx, store.Change{ChangeRequestID: first.ID, Action: "deleteSegment", Payload: json.RawMessage(`{"id":4}`), CreatedBy: robot})
			return err
		})
		if c1.ID == 0 || c2.ID <= c1.ID || c3.ID <= c2.ID {
			t.Errorf("change ids %d, %d, %d: want increasing", c1.ID, c2.ID, c3.ID)
		}
		if c2.CreatedAt.IsZero() {
			t.Error("AddChange set no CreatedAt")
		}
		update(t, s, func(tx store.Tx) error {
			if err := tx.AddApproval(ctx, first.ID, store.Review{By: bob, CreatedAt: t0}); err != nil {
				return err
			}
			if err := tx.AddApproval(ctx, first.ID, store.Review{By: robot, CreatedAt: t0.Add(time.Second)}); err != nil {
				return err
			}
			return tx.AddRejection(ctx, first.ID, store.Review{By: bob, CreatedAt: t0.Add(2 * time.Second)})
		})
		// Comments are operational: no event needed.
		var comment store.Comment
		err := s.Update(ctx, func(tx store.Tx) error {
			var err error
			comment, err = tx.AddComment(ctx, first.ID, store.Comment{Text: "looks good", By: bob, CreatedAt: t0})
			return err
		})
		if err != nil {
			t.Fatalf("AddComment without an event: %v", err)
		}
		if comment.ID == 0 {
			t.Error("AddComment assigned no id")
		}

		got := get(t, s, func(ctx context.Context, r store.Reader) (store.ChangeRequest, error) {
			return r.GetChangeRequest(ctx, first.ID)
		})
		want.Changes = []store.Change{c1, c2, c3}
		want.Approvals = []store.Review{{By: bob, CreatedAt: t0}, {By: robot, CreatedAt: t0.Add(time.Second)}}
		want.Rejections = []store.Review{{By: bob, CreatedAt: t0.Add(2 * time.Second)}}
		want.Comments = []store.Comment{{ID: comment.ID, Text: "looks good", By: bob, CreatedAt: t0}}
		diff(t, "request with everything", want, got, jsonEqual)
		if !sameJSON(got.Changes[0].Payload, payload) || got.Changes[0].Snapshot != nil || !sameJSON(got.Changes[1].Snapshot, snapshot) {
			t.Errorf("payload or snapshot not kept: %s / %s / %s", got.Changes[0].Payload, got.Changes[0].Snapshot, got.Changes[1].Snapshot)
		}

		// Update replaces the request's own fields, schedule included.
		at := t0.Add(time.Hour)
		update(t, s, func(tx store.Tx) error {
			cr := got
			cr.Title, cr.State, cr.MinApprovals = "Renamed", store.ChangeRequestScheduled, 1
			cr.Schedule = &store.ChangeRequestSchedule{At: at, Status: store.ScheduleFailed, FailureReason: "strategy gone"}
			cr.Changes = nil // ignored
			updated, err := tx.UpdateChangeRequest(ctx, cr)
			if err != nil {
				return err
			}
			if updated.Title != "Renamed" || updated.State != store.ChangeRequestScheduled || updated.MinApprovals != 1 || len(updated.Changes) != 3 {
				t.Errorf("updated request: %+v", updated)
			}
			diff(t, "schedule", &store.ChangeRequestSchedule{At: at, Status: store.ScheduleFailed, FailureReason: "strategy gone"}, updated.Schedule)
			cr.Schedule = nil
			cr.State = store.ChangeRequestInReview
			updated, err = tx.UpdateChangeRequest(ctx, cr)
			if updated.Schedule != nil {
				t.Errorf("schedule not cleared: %+v", updated.Schedule)
			}
			return err
		})

		// ClearApprovals keeps rejections; DeleteChange removes one change.
		update(t, s, func(tx store.Tx) error {
			if err := tx.ClearApprovals(ctx, first.ID); err != nil {
				return err
			}
			return tx.DeleteChange(ctx, first.ID, c2.ID)
		})
		got = get(t, s, func(ctx context.Context, r store.Reader) (store.ChangeRequest, error) {
			return r.GetChangeRequest(ctx, first.ID)
		})
		if len(got.Approvals) != 0 || len(got.Rejections) != 1 || len(got.Changes) != 2 || got.Changes[1].ID != c3.ID {
			t.Errorf("after clearing approvals and deleting a change: %+v", got)
		}
		// An actor approves once; after a clear they may approve again.
		update(t, s, func(tx store.Tx) error { return tx.AddApproval(ctx, first.ID, store.Review{By: bob}) })

		runErrCases(t, s, []errCase{
			{"second approval by the same actor", func(ctx context.Context, tx store.Tx) error {
				return tx.AddApproval(ctx, first.ID, store.Review{By: bob})
			}, apierr.NameExists},
			{"request of unknown project", func(ctx context.Context, tx store.Tx) error {
				_, err := tx.CreateChangeRequest(ctx, store.ChangeRequest{Project: "nope", Environment: store.EnvProduction, State: store.ChangeRequestDraft, MinApprovals: 1, CreatedBy: alice})
				return err
			}, apierr.NotFound},
			{"request of unknown environment", func(ctx context.Context, tx store.Tx) error {
				_, err := tx.CreateChangeRequest(ctx, store.ChangeRequest{Project: "default", Environment: "nope", State: store.ChangeRequestDraft, MinApprovals: 1, CreatedBy: alice})
				return err
			}, apierr.NotFound},
			{"update unknown request", func(ctx context.Context, tx store.Tx) error {
				_, err := tx.UpdateChangeRequest(ctx, store.ChangeRequest{ID: 9999, State: store.ChangeRequestDraft})
				return err
			}, apierr.NotFound},
			{"delete unknown request", func(ctx context.Context, tx store.Tx) error { return tx.DeleteChangeRequest(ctx, 9999) }, apierr.NotFound},
			{"change of unknown request", func(ctx context.Context, tx store.Tx) error {
				_, err := tx.AddChange(ctx, store.Change{ChangeRequestID: 9999, Action: "archiveFeature", Feature: "f", CreatedBy: alice})
				return err
			}, apierr.NotFound},
			{"invalid payload", func(ctx context.Context, tx store.Tx) error {
				_, err := tx.AddChange(ctx, store.Change{ChangeRequestID: first.ID, Action: "archiveFeature", Payload: json.RawMessage(`{`), CreatedBy: alice})
				return err
			}, apierr.BadData},
			{"delete change of another request", func(ctx context.Context, tx store.Tx) error {
				return tx.DeleteChange(ctx, first.ID+1000, c1.ID)
			}, apierr.NotFound},
			{"delete deleted change", func(ctx context.Context, tx store.Tx) error { return tx.DeleteChange(ctx, first.ID, c2.ID) }, apierr.NotFound},
			{"approve unknown request", func(ctx context.Context, tx store.Tx) error {
				return tx.AddApproval(ctx, 9999, store.Review{By: bob})
			}, apierr.NotFound},
			{"reject unknown request", func(ctx context.Context, tx store.Tx) error {
				return tx.AddRejection(ctx, 9999, store.Review{By: bob})
			}, apierr.NotFound},
			{"clear approvals of unknown request", func(ctx context.Context, tx store.Tx) error { return tx.ClearApprovals(ctx, 9999) }, apierr.NotFound},
			{"comment on unknown request", func(ctx context.Context, tx store.Tx) error {
				_, err := tx.AddComment(ctx, 9999, store.Comment{Text: "x", By: bob})
				return err
			}, apierr.NotFound},
		})
		if k := readKind(t, s, func(ctx context.Context, r store.Reader) error {
			_, err := r.GetChangeRequest(ctx, 9999)
			return err
		}); k != apierr.NotFound {
			t.Errorf("GetChangeRequest of an unknown id: %q, want NotFound", k)
		}
		err = s.Update(ctx, func(tx store.Tx) error {
			_, err := tx.CreateChangeRequest(ctx, store.ChangeRequest{Project: "default", Environment: store.EnvProduction, State: store.ChangeRequestDraft, MinApprovals: 1, CreatedBy: alice})
			return err
		})
		if !errors.Is(err, store.ErrUnaudited) {
			t.Errorf("CreateChangeRequest without an event: %v, want ErrUnaudited", err)
		}
	})

	t.Run("List", func(t *testing.T) {
		due := t0.Add(time.Hour)
		var ids []int
		update(t, s, func(tx store.Tx) error {
			for _, cr := range []store.ChangeRequest{
				{Project: "default", Environment: store.EnvDevelopment, State: store.ChangeRequestDraft, CreatedBy: bob},
				{Project: "other", Environment: store.EnvProduction, State: store.ChangeRequestApproved, CreatedBy: alice},
				{Project: "default", Environment: store.EnvProduction, State: store.ChangeRequestScheduled, CreatedBy: robot,
					Schedule: &store.ChangeRequestSchedule{At: due, Status: store.SchedulePending}},
				{Project: "default", Environment: store.EnvProduction, State: store.ChangeRequestScheduled, CreatedBy: robot,
					Schedule: &store.ChangeRequestSchedule{At: due.Add(-time.Minute), Status: store.ScheduleFailed, FailureReason: "x"}},
			} {
				cr.MinApprovals = 1
				created, err := tx.CreateChangeRequest(ctx, cr)
				if err != nil {
					return err
				}
				ids = append(ids, created.ID)
			}
			_, err := tx.AddChange(ctx, store.Change{ChangeRequestID: ids[1], Feature: "other-flag", Action: "archiveFeature", CreatedBy: alice})
			return err
		})
		all := []int{ids[3], ids[2], ids[1], ids[0], first.ID}
		for _, tt := range []struct {
			name string
			f    store.ChangeRequestFilter
			want []int
		}{
			{"all, newest first", store.ChangeRequestFilter{}, all},
			{"limit", store.ChangeRequestFilter{Limit: 2}, all[:2]},
			{"project", store.ChangeRequestFilter{Project: "other"}, []int{ids[1]}},
			{"project and environment", store.ChangeRequestFilter{Project: "default", Environment: store.EnvDevelopment}, []int{ids[0]}},
			{"states", store.ChangeRequestFilter{States: []string{store.ChangeRequestDraft, store.ChangeRequestApproved}}, []int{ids[1], ids[0]}},
			{"no states", store.ChangeRequestFilter{States: []string{}}, nil},
			{"feature", store.ChangeRequestFilter{Feature: "other-flag"}, []int{ids[1]}},
			{"feature of several changes, once", store.ChangeRequestFilter{Feature: "checkout"}, []int{first.ID}},
			{"author", store.ChangeRequestFilter{CreatedBy: robot.Key}, []int{ids[3], ids[2]}},
			{"due: pending only", store.ChangeRequestFilter{DueBy: &due}, []int{ids[2]}},
			{"not yet due", store.ChangeRequestFilter{DueBy: ptr(due.Add(-time.Second))}, nil},
		} {
			t.Run(tt.name, func(t *testing.T) {
				var got []int
				for _, cr := range get(t, s, func(ctx context.Context, r store.Reader) ([]store.ChangeRequest, error) {
					return r.ListChangeRequests(ctx, tt.f)
				}) {
					got = append(got, cr.ID)
				}
				diff(t, "ids", tt.want, got)
			})
		}
		// Listed requests are complete.
		list := get(t, s, func(ctx context.Context, r store.Reader) ([]store.ChangeRequest, error) {
			return r.ListChangeRequests(ctx, store.ChangeRequestFilter{Project: "default", Environment: store.EnvProduction})
		})
		one := get(t, s, func(ctx context.Context, r store.Reader) (store.ChangeRequest, error) {
			return r.GetChangeRequest(ctx, first.ID)
		})
		diff(t, "listed request", one, list[len(list)-1], jsonEqual)
	})

	t.Run("Delete", func(t *testing.T) {
		update(t, s, func(tx store.Tx) error { return tx.DeleteChangeRequest(ctx, first.ID) })
		if k := readKind(t, s, func(ctx context.Context, r store.Reader) error {
			_, err := r.GetChangeRequest(ctx, first.ID)
			return err
		}); k != apierr.NotFound {
			t.Errorf("deleted request: %q, want NotFound", k)
		}
		if list := get(t, s, func(ctx context.Context, r store.Reader) ([]store.ChangeRequest, error) {
			return r.ListChangeRequests(ctx, store.ChangeRequestFilter{Feature: "checkout"})
		}); len(list) != 0 {
			t.Errorf("changes of a deleted request still match: %d", len(list))
		}
	})
}

// jsonEqual compares JSON documents by value: a database may reorder keys.
// Empty ones are left to cmpopts.EquateEmpty.
var jsonEqual = cmp.FilterValues(func(a, b json.RawMessage) bool { return len(a) > 0 && len(b) > 0 },
	cmp.Comparer(func(a, b json.RawMessage) bool { return sameJSON(a, b) }))
