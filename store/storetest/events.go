package storetest

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/signalbox/signalbox/internal/apierr"
	"github.com/signalbox/signalbox/store"
)

func testEvents(t *testing.T, s store.Store) {
	ctx := t.Context()
	e := store.Event{
		Type: "feature-created", CreatedAt: t0, CreatedBy: "alice@example.com", CreatedByUserID: 7,
		Project: "default", Environment: "production", FeatureName: "f",
		Data:    json.RawMessage(`{"name":"f","enabled":true,"n":[1,2]}`),
		PreData: json.RawMessage(`{"name":"f","enabled":false}`),
		Tags:    []store.Tag{{Type: "simple", Value: "web"}},
	}
	var ids []int64
	for i := 0; i < 3; i++ {
		if err := s.Update(ctx, func(tx store.Tx) error {
			id, err := tx.AppendEvent(ctx, e)
			ids = append(ids, id)
			return err
		}); err != nil {
			t.Fatal(err)
		}
	}
	for i := 1; i < len(ids); i++ {
		if ids[i] <= ids[i-1] {
			t.Errorf("event ids do not increase: %v", ids)
		}
	}
	if ids[0] < 1 {
		t.Errorf("first event id %d, want at least 1", ids[0])
	}

	got := get(t, s, func(ctx context.Context, r store.Reader) (store.Event, error) { return r.GetEvent(ctx, ids[0]) })
	want := e
	want.ID = ids[0]
	diff(t, "event", want, got, cmpopts.IgnoreFields(store.Event{}, "Data", "PreData"))
	if !sameJSON(want.Data, got.Data) || !sameJSON(want.PreData, got.PreData) {
		t.Errorf("JSON changed: data %s, preData %s", got.Data, got.PreData)
	}

	// A minimal event: NULLs read back as zero values, CreatedAt is set.
	update(t, s, func(tx store.Tx) error {
		id, err := tx.AppendEvent(ctx, store.Event{Type: "user-created", CreatedBy: "system"})
		if err != nil {
			return err
		}
		got, err := tx.GetEvent(ctx, id)
		if got.Data != nil || got.PreData != nil || got.Project != "" || got.CreatedByUserID != 0 || got.CreatedAt.IsZero() {
			t.Errorf("minimal event read back as %+v", got)
		}
		return err
	})

	runErrCases(t, s, []errCase{
		{"invalid data", func(ctx context.Context, tx store.Tx) error {
			_, err := tx.AppendEvent(ctx, store.Event{Type: "x", CreatedBy: "y", Data: json.RawMessage(`{nope`)})
			return err
		}, apierr.BadData},
		{"invalid preData", func(ctx context.Context, tx store.Tx) error {
			_, err := tx.AppendEvent(ctx, store.Event{Type: "x", CreatedBy: "y", PreData: json.RawMessage(`[1,`)})
			return err
		}, apierr.BadData},
		{"missing", func(ctx context.Context, tx store.Tx) error {
			_, err := tx.GetEvent(ctx, 1<<40)
			return err
		}, apierr.NotFound},
	})
}

func testEventFilters(t *testing.T, s store.Store) {
	ctx := t.Context()
	events := []store.Event{
		{Type: "feature-created", CreatedBy: "alice@example.com", Project: "web", FeatureName: "a", Data: json.RawMessage(`{"note":"Big Launch"}`)},
		{Type: "feature-updated", CreatedBy: "bob", Project: "web", FeatureName: "a", Data: json.RawMessage(`{"note":"100% done_ok"}`)},
		{Type: "feature-created", CreatedBy: "bob", Project: "app", FeatureName: "b"},
		{Type: "tag-type-created", CreatedBy: "carol", Data: json.RawMessage(`{"name":"team"}`)},
	}
	ids := make([]int64, len(events))
	update(t, s, func(tx store.Tx) error {
		for i, e := range events {
			id, err := tx.AppendEvent(ctx, e)
			if err != nil {
				return err
			}
			ids[i] = id
		}
		return nil
	})
	// update appended a "test" event after them.
	tests := []struct {
		name string
		f    store.EventFilter
		want []int64
	}{
		{"type", store.EventFilter{Type: "feature-created"}, []int64{ids[2], ids[0]}},
		{"project", store.EventFilter{Project: "web"}, []int64{ids[1], ids[0]}},
		{"feature", store.EventFilter{Feature: "b"}, []int64{ids[2]}},
		{"query matches type", store.EventFilter{Query: "TAG-TYPE"}, []int64{ids[3]}},
		{"query matches creator", store.EventFilter{Query: "ALICE@"}, []int64{ids[0]}},
		{"query matches data, ignoring case", store.EventFilter{Query: "big launch"}, []int64{ids[0]}},
		{"query percent is literal", store.EventFilter{Query: "100%"}, []int64{ids[1]}},
		{"query underscore matches itself", store.EventFilter{Query: "e_o"}, []int64{ids[1]}},
		{"query underscore is no wildcard", store.EventFilter{Query: "b_g"}, nil},
		{"combined", store.EventFilter{Type: "feature-created", Project: "web"}, []int64{ids[0]}},
		{"limit", store.EventFilter{Project: "web", Limit: 1}, []int64{ids[1]}},
		{"offset", store.EventFilter{Project: "web", Limit: 1, Offset: 1}, []int64{ids[0]}},
		{"offset without limit", store.EventFilter{Type: "feature-created", Offset: 1}, []int64{ids[0]}},
		{"ascending", store.EventFilter{Project: "web", Ascending: true}, []int64{ids[0], ids[1]}},
		{"after and before", store.EventFilter{AfterID: ids[0], BeforeID: ids[3], Ascending: true}, []int64{ids[1], ids[2]}},
		{"except a project, keeping events of none", store.EventFilter{ExceptProjects: []string{"web"}, BeforeID: ids[3] + 1, Ascending: true}, []int64{ids[2], ids[3]}},
		{"except two projects", store.EventFilter{ExceptProjects: []string{"app", "web"}, Type: "feature-created"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []int64
			for _, e := range get(t, s, func(ctx context.Context, r store.Reader) ([]store.Event, error) {
				return r.ListEvents(ctx, tt.f)
			}) {
				got = append(got, e.ID)
			}
			diff(t, "ids", tt.want, got)
			count := tt.f
			count.Limit, count.Offset = 0, 0
			var all []store.Event
			n := get(t, s, func(ctx context.Context, r store.Reader) (int64, error) {
				var err error
				if all, err = r.ListEvents(ctx, count); err != nil {
					return 0, err
				}
				return r.CountEvents(ctx, tt.f)
			})
			if n != int64(len(all)) {
				t.Errorf("CountEvents = %d, ListEvents without limit has %d", n, len(all))
			}
		})
	}
}
