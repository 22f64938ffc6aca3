package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/signalbox/signalbox/internal/apierr"
	"github.com/signalbox/signalbox/store"
)

// testFeatureLinks: links belong to a flag, keep their order, change and
// go one by one, need an event, and go with their flag.
func testFeatureLinks(t *testing.T, s store.Store) {
	ctx := t.Context()
	update(t, s, func(tx store.Tx) error {
		for _, name := range []string{"linked", "other"} {
			if _, err := tx.CreateFeature(ctx, store.Feature{Name: name, Project: "default", Type: "release"}); err != nil {
				return err
			}
		}
		return nil
	})
	a := store.FeatureLink{ID: "l1", Feature: "linked", URL: "https://issues.example/1", Title: "Issue", CreatedAt: t0}
	b := store.FeatureLink{ID: "l2", Feature: "linked", URL: "https://dash.example", CreatedAt: t0.Add(time.Microsecond)}
	update(t, s, func(tx store.Tx) error {
		for _, l := range []store.FeatureLink{b, a} {
			if _, err := tx.CreateFeatureLink(ctx, l); err != nil {
				return err
			}
		}
		return nil
	})
	list := func(feature string) []store.FeatureLink {
		return get(t, s, func(ctx context.Context, r store.Reader) ([]store.FeatureLink, error) {
			return r.ListFeatureLinks(ctx, feature)
		})
	}
	if diff := cmp.Diff([]store.FeatureLink{a, b}, list("linked")); diff != "" {
		t.Errorf("ListFeatureLinks (-want +got):\n%s", diff)
	}
	if got := list("other"); len(got) != 0 {
		t.Errorf("another flag's links: %+v", got)
	}

	for _, tt := range []struct {
		name string
		fn   func(ctx context.Context, tx store.Tx) error
		want apierr.Kind
	}{
		{"unknown flag", func(ctx context.Context, tx store.Tx) error {
			_, err := tx.CreateFeatureLink(ctx, store.FeatureLink{ID: "x", Feature: "nope", URL: "https://x"})
			return err
		}, apierr.NotFound},
		{"id taken", func(ctx context.Context, tx store.Tx) error {
			_, err := tx.CreateFeatureLink(ctx, store.FeatureLink{ID: "l1", Feature: "other", URL: "https://x"})
			return err
		}, apierr.NameExists},
		{"update another flag's link", func(ctx context.Context, tx store.Tx) error {
			_, err := tx.UpdateFeatureLink(ctx, store.FeatureLink{ID: "l1", Feature: "other", URL: "https://x"})
			return err
		}, apierr.NotFound},
		{"delete a missing link", func(ctx context.Context, tx store.Tx) error {
			return tx.DeleteFeatureLink(ctx, "linked", "nope")
		}, apierr.NotFound},
	} {
		if k := kindOf(t, s, tt.fn); k != tt.want {
			t.Errorf("%s: kind %q, want %q", tt.name, k, tt.want)
		}
	}
	if err := s.Update(ctx, func(tx store.Tx) error {
		_, err := tx.CreateFeatureLink(ctx, store.FeatureLink{ID: "l3", Feature: "other", URL: "https://x"})
		return err
	}); err != store.ErrUnaudited {
		t.Errorf("CreateFeatureLink without an event: %v, want ErrUnaudited", err)
	}

	a.URL, a.Title = "https://issues.example/2", ""
	update(t, s, func(tx store.Tx) error {
		got, err := tx.UpdateFeatureLink(ctx, a)
		if err == nil && (got.URL != a.URL || got.Title != "" || !got.CreatedAt.Equal(t0)) {
			t.Errorf("UpdateFeatureLink gave %+v", got)
		}
		return err
	})
	update(t, s, func(tx store.Tx) error { return tx.DeleteFeatureLink(ctx, "linked", "l2") })
	if diff := cmp.Diff([]store.FeatureLink{a}, list("")); diff != "" {
		t.Errorf("after update and delete (-want +got):\n%s", diff)
	}
	update(t, s, func(tx store.Tx) error { return tx.DeleteFeature(ctx, "linked") })
	if got := list(""); len(got) != 0 {
		t.Errorf("links of a deleted flag remain: %+v", got)
	}
}
