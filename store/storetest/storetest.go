// Package storetest is the contract suite of store.Store: every
// implementation must pass Run, and each dialect of store/sqlstore runs it.
// The tests depend on nothing but the store interface and the seed data of
// the first migration.
package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/signalbox/signalbox/internal/apierr"
	"github.com/signalbox/signalbox/store"
)

// Opener returns a new store holding only the seed data. It must close the
// store when t ends (t.Cleanup).
type Opener func(t *testing.T) store.Store

// Run runs every contract test, in parallel, each on a store of its own.
func Run(t *testing.T, open Opener) {
	tests := []contractTest{
		{"Seed", testSeed},
		{"Projects", testProjects},
		{"ProjectEnvironments", testProjectEnvironments},
		{"Environments", testEnvironments},
		{"Features", testFeatures},
		{"FeatureTypes", testFeatureTypes},
		{"FeatureEnvironments", testFeatureEnvironments},
		{"Strategies", testStrategies},
		{"Segments", testSegments},
		{"ContextFields", testContextFields},
		{"TagTypes", testTagTypes},
		{"FeatureTags", testFeatureTags},
		{"Dependencies", testDependencies},
		{"StrategyDefinitions", testStrategyDefinitions},
		{"Users", testUsers},
		{"SignInNames", testSignInNames},
		{"Sessions", testSessions},
		{"APITokens", testAPITokens},
		{"Events", testEvents},
		{"EventFilters", testEventFilters},
		{"ClientApplications", testClientApplications},
		{"ClientMetrics", testClientMetrics},
		{"ClientRegistrations", testClientRegistrations},
		{"OperateMetrics", testOperateMetrics},
		{"ClientRetention", testClientRetention},
		{"ClientState", testClientState},
		{"ClientChanges", testClientChanges},
		{"TxRollback", testTxRollback},
		{"TxUnaudited", testTxUnaudited},
		{"TxUsableAfterError", testTxUsableAfterError},
		{"ViewIsReadOnly", testViewIsReadOnly},
		{"RevisionAfterEveryWrite", testRevisionAfterEveryWrite},
		{"UpdatesSerialized", testUpdatesSerialized},
		{"ConcurrentUpdates", testConcurrentUpdates},
		{"ProjectAccess", testProjectAccess},
		{"Addons", testAddons},
		{"AddonDeliveries", testAddonDeliveries},
		{"ChangeRequests", testChangeRequests},
		{"FeatureLinks", testFeatureLinks},
		{"Groups", testGroups},
		{"GroupMembers", testGroupMembers},
		{"ProjectContextFields", testProjectContextFields},
		{"ResetTokens", testResetTokens},
		{"SegmentIDs", testSegmentIDs},
		{"Settings", testSettings},
		{"SignupTokens", testSignupTokens},
		{"StreamedClients", testStreamedClients},
		{"UsedIDs", testUsedIDs},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.fn(t, open(t))
		})
	}
}

// contractTest is one named test of the suite.
type contractTest struct {
	name string
	fn   func(t *testing.T, s store.Store)
}

// t0 is a time with microseconds, the precision the store keeps.
var t0 = time.Date(2026, 3, 4, 5, 6, 7, 891011000, time.UTC)

// update runs fn in an Update and appends an event, as every admin change
// must; it fails the test on any error.
func update(t *testing.T, s store.Store, fn func(tx store.Tx) error) {
	t.Helper()
	if err := tryUpdate(t, s, fn); err != nil {
		t.Fatalf("Update: %v", err)
	}
}

// tryUpdate is update returning the error of fn or of the commit.
func tryUpdate(t *testing.T, s store.Store, fn func(tx store.Tx) error) error {
	t.Helper()
	return s.Update(t.Context(), func(tx store.Tx) error {
		if err := fn(tx); err != nil {
			return err
		}
		_, err := tx.AppendEvent(t.Context(), store.Event{Type: "test", CreatedBy: "storetest"})
		return err
	})
}

// view runs fn in a View and fails the test on error.
func view(t *testing.T, s store.Store, fn func(r store.Reader) error) {
	t.Helper()
	if err := s.View(t.Context(), fn); err != nil {
		t.Fatalf("View: %v", err)
	}
}

// get reads one value in a View.
func get[T any](t *testing.T, s store.Store, fn func(ctx context.Context, r store.Reader) (T, error)) T {
	t.Helper()
	var v T
	view(t, s, func(r store.Reader) error {
		var err error
		v, err = fn(t.Context(), r)
		return err
	})
	return v
}

// kindOf runs fn in an Update (appending an event) and returns the apierr
// kind of its error, "" for none.
func kindOf(t *testing.T, s store.Store, fn func(ctx context.Context, tx store.Tx) error) apierr.Kind {
	t.Helper()
	err := tryUpdate(t, s, func(tx store.Tx) error { return fn(t.Context(), tx) })
	return kind(t, err)
}

// readKind is kindOf for a View.
func readKind(t *testing.T, s store.Store, fn func(ctx context.Context, r store.Reader) error) apierr.Kind {
	t.Helper()
	return kind(t, s.View(t.Context(), func(r store.Reader) error { return fn(t.Context(), r) }))
}

func kind(t *testing.T, err error) apierr.Kind {
	t.Helper()
	if err == nil {
		return ""
	}
	var e *apierr.Error
	if !errors.As(err, &e) {
		t.Fatalf("error is not an *apierr.Error: %v", err)
	}
	return e.Kind
}

// errCase is one expected failure.
type errCase struct {
	name string
	fn   func(ctx context.Context, tx store.Tx) error
	want apierr.Kind
}

// runErrCases checks each case in its own Update.
func runErrCases(t *testing.T, s store.Store, cases []errCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := kindOf(t, s, c.fn); got != c.want {
				t.Errorf("error kind = %q, want %q", got, c.want)
			}
		})
	}
}

var cmpOpts = []cmp.Option{cmpopts.EquateEmpty()}

func diff(t *testing.T, what string, want, got any, opts ...cmp.Option) {
	t.Helper()
	if d := cmp.Diff(want, got, append(opts, cmpOpts...)...); d != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", what, d)
	}
}

// sameJSON reports whether a and b encode the same JSON value; databases
// may reorder object keys.
func sameJSON(a, b json.RawMessage) bool {
	if len(a) == 0 || len(b) == 0 {
		return len(a) == len(b)
	}
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return cmp.Equal(x, y)
}

func ptr[T any](v T) *T { return &v }
