package migrate

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/signalbox/signalbox/clientapi"
	"github.com/signalbox/signalbox/server"
	"github.com/signalbox/signalbox/store"
	"github.com/signalbox/signalbox/store/sqlstore"
)

func openStore(t *testing.T) store.Store {
	t.Helper()
	st, err := sqlstore.Open(t.Context(), filepath.Join(t.TempDir(), "signalbox.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// fast makes retries quick.
func fast(c *client) { c.backoff = time.Millisecond; c.attempts = 3 }

func run(t *testing.T, st store.Store, u *fakeUnleash, merge, dry bool) (*Report, error) {
	t.Helper()
	return Run(t.Context(), st, Options{URL: u.srv.URL, Token: adminToken, Merge: merge, DryRun: dry, client: fast, Logf: t.Logf})
}

func mustRun(t *testing.T, st store.Store, u *fakeUnleash) *Report {
	t.Helper()
	r, err := run(t, st, u, false, false)
	if err != nil {
		t.Fatalf("migration: %v", err)
	}
	return r
}

func read[T any](t *testing.T, st store.Store, fn func(ctx context.Context, r store.Reader) (T, error)) T {
	t.Helper()
	var v T
	if err := st.View(t.Context(), func(r store.Reader) error {
		var err error
		v, err = fn(t.Context(), r)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return v
}

func asJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func hasNote(r *Report, object, reason string) bool {
	for _, n := range r.NotCarried {
		if strings.Contains(n.Object, object) && strings.Contains(n.Reason, reason) {
			return true
		}
	}
	return false
}

func TestFromUnleashMapsEveryKind(t *testing.T) {
	u := newFakeUnleash(t)
	st := openStore(t)
	report := mustRun(t, st, u)
	ctx := t.Context()

	envs := read(t, st, func(ctx context.Context, r store.Reader) ([]store.Environment, error) { return r.ListEnvironments(ctx) })
	var envDesc []string
	for _, e := range envs {
		envDesc = append(envDesc, fmt.Sprintf("%s/%s/%d", e.Name, e.Type, e.SortOrder))
	}
	if got, want := strings.Join(envDesc, " "), "development/development/1 production/production/2 staging/test/3"; got != want {
		t.Errorf("environments: %s, want %s", got, want)
	}

	payments := read(t, st, func(ctx context.Context, r store.Reader) (store.Project, error) { return r.GetProject(ctx, "payments") })
	if payments.Name != "Payments" || payments.Mode != "protected" || payments.DefaultStickiness != "userId" || payments.Description != "money" {
		t.Errorf("project payments: %+v", payments)
	}
	pes := read(t, st, func(ctx context.Context, r store.Reader) ([]store.ProjectEnvironment, error) {
		return r.ListProjectEnvironments(ctx, "payments")
	})
	if len(pes) != 2 || pes[0].Environment != "development" || pes[1].Environment != "staging" ||
		pes[1].DefaultStrategy == nil || pes[1].DefaultStrategy.Parameters["rollout"] != "50" {
		t.Errorf("payments environments: %s", asJSON(pes))
	}
	defEnvs := read(t, st, func(ctx context.Context, r store.Reader) ([]store.ProjectEnvironment, error) {
		return r.ListProjectEnvironments(ctx, "default")
	})
	if len(defEnvs) != 2 {
		t.Errorf("default environments: %s", asJSON(defEnvs))
	}

	seg7 := read(t, st, func(ctx context.Context, r store.Reader) (store.Segment, error) { return r.GetSegment(ctx, 7) })
	seg9 := read(t, st, func(ctx context.Context, r store.Reader) (store.Segment, error) { return r.GetSegment(ctx, 9) })
	if seg7.Name != "beta" || seg7.Constraints[0].Operator != "STR_STARTS_WITH" || seg9.Project != "payments" {
		t.Errorf("segments keep their ids: %+v %+v", seg7, seg9)
	}

	def := read(t, st, func(ctx context.Context, r store.Reader) (store.StrategyDefinition, error) {
		return r.GetStrategyDefinition(ctx, "byTenant")
	})
	if def.Title != "By tenant" || !def.Editable || len(def.Parameters) != 1 || def.Parameters[0].Type != "list" {
		t.Errorf("custom strategy type: %+v", def)
	}
	field := read(t, st, func(ctx context.Context, r store.Reader) (store.ContextField, error) {
		return r.GetContextField(ctx, "tenant")
	})
	if len(field.LegalValues) != 2 || field.LegalValues[0].Description != "Acme" || !field.Stickiness || field.SortOrder != 10 {
		t.Errorf("context field: %+v", field)
	}
	if _, err := tagType(t, st, "team"); err != nil {
		t.Errorf("tag type team: %v", err)
	}

	strategies := read(t, st, func(ctx context.Context, r store.Reader) ([]store.Strategy, error) {
		return r.ListStrategies(ctx, store.StrategyFilter{Feature: "checkout", Environment: "development"})
	})
	if len(strategies) != 2 {
		t.Fatalf("checkout strategies: %s", asJSON(strategies))
	}
	s0, s1 := strategies[0], strategies[1]
	if s0.ID != "6d3f6f0e-0d6c-4b3a-9d7b-5b8f6f1e2a01" || s0.Title != "half" || s0.Parameters["groupId"] != "checkout" ||
		asJSON(s0.Segments) != "[7]" || len(s0.Constraints) != 1 || len(s0.Variants) != 1 || s0.Variants[0].Payload.Value != `{"c":1}` {
		t.Errorf("first strategy: %s", asJSON(s0))
	}
	if s1.ID != "6d3f6f0e-0d6c-4b3a-9d7b-5b8f6f1e2a02" || !s1.Disabled || s1.SortOrder != 1 || s1.Parameters["userIds"] != "u1,u2" {
		t.Errorf("second strategy: %s", asJSON(s1))
	}
	fe := read(t, st, func(ctx context.Context, r store.Reader) (store.FeatureEnvironment, error) {
		return r.GetFeatureEnvironment(ctx, "checkout", "development")
	})
	if !fe.Enabled || len(fe.Variants) != 2 || fe.Variants[0].Name != "b" || fe.Variants[1].Overrides[0].Values[0] != "u9" || fe.Variants[1].Payload.Value != "A" {
		t.Errorf("checkout in development: %s", asJSON(fe))
	}
	checkout := read(t, st, func(ctx context.Context, r store.Reader) (store.Feature, error) { return r.GetFeature(ctx, "checkout") })
	if !checkout.ImpressionData || checkout.Description != "new checkout" {
		t.Errorf("checkout: %+v", checkout)
	}
	deps := read(t, st, func(ctx context.Context, r store.Reader) ([]store.Dependency, error) {
		return r.ListDependencies(ctx, "checkout-v2")
	})
	if asJSON(deps) != `[{"Child":"checkout-v2","Parent":"checkout","Enabled":true,"Variants":["a"]}]` {
		t.Errorf("dependencies: %s", asJSON(deps))
	}
	tags := read(t, st, func(ctx context.Context, r store.Reader) ([]store.FeatureTag, error) {
		return r.ListFeatureTags(ctx, "checkout")
	})
	if len(tags) != 1 || tags[0].Type != "team" || tags[0].Value != "web" {
		t.Errorf("tags: %+v", tags)
	}
	banner := read(t, st, func(ctx context.Context, r store.Reader) (store.Feature, error) { return r.GetFeature(ctx, "banner") })
	if banner.Type != "release" || !banner.Stale || !hasNote(report, "flag banner", `flag type "nonsense"`) {
		t.Errorf("flag of an unknown type: %+v, notes %+v", banner, report.NotCarried)
	}
	old := read(t, st, func(ctx context.Context, r store.Reader) (store.Feature, error) {
		return r.GetFeature(ctx, "old-thing")
	})
	if !old.Archived() || !old.ArchivedAt.Equal(time.Date(2025, 2, 1, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("archived flag: %+v", old)
	}

	for _, secret := range []string{clientToken, "*:production.unleash-frontend-secret", adminToken} {
		tok := read(t, st, func(ctx context.Context, r store.Reader) (store.APIToken, error) {
			return r.GetAPITokenByHash(ctx, store.HashSecret(secret))
		})
		if tok.TokenName == "" {
			t.Errorf("token %s not carried", secret)
		}
		if secret == clientToken && (tok.Type != store.TokenClient || tok.Environment != "development" || asJSON(tok.Projects) != `["default"]`) {
			t.Errorf("backend token: %+v", tok)
		}
	}
	if !hasNote(report, "API token hidden", "secret") {
		t.Errorf("a token without secret is not listed: %+v", report.NotCarried)
	}
	if !hasNote(report, "API token shown-only", "cannot be copied") {
		t.Errorf("a token shown only in part is not listed: %+v", report.NotCarried)
	}
	alice := read(t, st, func(ctx context.Context, r store.Reader) (store.User, error) {
		return r.GetUserByLogin(ctx, "alice@example.com")
	})
	bob := read(t, st, func(ctx context.Context, r store.Reader) (store.User, error) {
		return r.GetUserByLogin(ctx, "bob@example.com")
	})
	if alice.RootRole != store.RoleEditor || alice.Name != "Alice" || alice.PasswordHash != "" || bob.RootRole != store.RoleViewer {
		t.Errorf("users: %+v %+v", alice, bob)
	}
	if !hasNote(report, "user bob@example.com", "Auditor") || !hasNote(report, "passwords", "reset") {
		t.Errorf("notes: %+v", report.NotCarried)
	}

	access := read(t, st, func(ctx context.Context, r store.Reader) ([]store.ProjectAccess, error) {
		return r.ListProjectAccess(ctx, store.AccessFilter{Project: "payments"})
	})
	var grants []string
	for _, g := range access {
		grants = append(grants, fmt.Sprintf("%d:%d", g.UserID, g.RoleID))
	}
	if got, want := strings.Join(grants, " "), fmt.Sprintf("%d:%d %d:%d", alice.ID, store.RoleOwner, bob.ID, store.RoleMember); got != want {
		t.Errorf("project roles %s, want %s", got, want)
	}
	if !hasNote(report, "project role Auditor in payments", "custom project roles") {
		t.Errorf("custom project role not listed: %+v", report.NotCarried)
	}

	events := read(t, st, func(ctx context.Context, r store.Reader) ([]store.Event, error) {
		return r.ListEvents(ctx, store.EventFilter{Feature: "checkout"})
	})
	if len(events) == 0 {
		t.Fatal("no audit events for checkout")
	}
	for _, e := range events {
		if e.CreatedBy != actor || !strings.Contains(string(e.Data), "migrated from Unleash at "+u.srv.URL) {
			t.Errorf("event %s by %q: %s", e.Type, e.CreatedBy, e.Data)
		}
	}
	_ = ctx
}

func tagType(t *testing.T, st store.Store, name string) (store.TagType, error) {
	var tt store.TagType
	err := st.View(t.Context(), func(r store.Reader) (err error) {
		tt, err = r.GetTagType(t.Context(), name)
		return err
	})
	return tt, err
}

func revision(t *testing.T, st store.Store) int64 {
	t.Helper()
	rev, err := st.Revision(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return rev
}

func TestSecondRunChangesNothing(t *testing.T) {
	u := newFakeUnleash(t)
	st := openStore(t)
	first := mustRun(t, st, u)
	if first.Changes == 0 {
		t.Fatal("first run changed nothing")
	}
	rev := revision(t, st)
	second := mustRun(t, st, u)
	if second.Changes != 0 || revision(t, st) != rev {
		t.Errorf("second run: %d changes, revision %d → %d; counts %v", second.Changes, rev, revision(t, st), second.Counts)
	}
	// A change in the source is carried by the next run, and only it.
	u.set("/api/admin/segments", obj{"segments": arr{
		obj{"id": 7, "name": "beta", "description": "beta users", "constraints": arr{obj{"contextName": "userId", "operator": "STR_STARTS_WITH", "values": arr{"b-"}}}},
		obj{"id": 9, "name": "tenants", "project": "payments", "constraints": arr{obj{"contextName": "tenant", "operator": "IN", "values": arr{"acme", "globex"}, "caseInsensitive": false, "inverted": false}}},
	}})
	third := mustRun(t, st, u)
	if third.Changes != 1 || third.Counts["segment"][updated] != 1 {
		t.Errorf("after one segment changed: %d changes, %v", third.Changes, third.Counts)
	}
}

func TestDryRunWritesNothing(t *testing.T) {
	u := newFakeUnleash(t)
	st := openStore(t)
	rev := revision(t, st)
	r, err := run(t, st, u, false, true)
	if err != nil {
		t.Fatal(err)
	}
	if r.Changes == 0 || r.Counts["flag"][created] != 5 || !hasNote(r, "API token hidden", "secret") {
		t.Errorf("dry run report: %d changes, %v, %+v", r.Changes, r.Counts, r.NotCarried)
	}
	if revision(t, st) != rev {
		t.Error("the dry run wrote events")
	}
	fs := read(t, st, func(ctx context.Context, r store.Reader) ([]store.Feature, error) {
		return r.ListFeatures(ctx, store.FeatureFilter{})
	})
	if len(fs) != 0 {
		t.Errorf("the dry run wrote flags: %v", fs)
	}
	var out bytes.Buffer
	printReport(&out, r)
	for _, want := range []string{"Dry run", "flag", "Not carried over", "hidden"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, out.String())
		}
	}
}

func TestFailures(t *testing.T) {
	t.Run("refused token", func(t *testing.T) {
		u := newFakeUnleash(t)
		st := openStore(t)
		_, err := Run(t.Context(), st, Options{URL: u.srv.URL, Token: "wrong", client: fast})
		if err == nil || !strings.Contains(err.Error(), "401") || !strings.Contains(err.Error(), "token was refused") {
			t.Errorf("error %v", err)
		}
		if u.hits["/api/admin/environments"] != 1 {
			t.Errorf("a 401 was retried: %d requests", u.hits["/api/admin/environments"])
		}
	})
	t.Run("unreachable", func(t *testing.T) {
		srv := httptest.NewServer(http.NotFoundHandler())
		addr := srv.URL
		srv.Close()
		_, err := Run(t.Context(), openStore(t), Options{URL: addr, Token: adminToken, client: fast})
		if err == nil || !strings.Contains(err.Error(), "giving up after 3 attempts") {
			t.Errorf("error %v", err)
		}
	})
	t.Run("transient 500 and 429 are retried", func(t *testing.T) {
		u := newFakeUnleash(t)
		u.fail("/api/admin/projects/default/features/checkout", http.StatusInternalServerError, 2)
		u.fail("/api/admin/segments", http.StatusTooManyRequests, 1)
		st := openStore(t)
		mustRun(t, st, u)
	})
	t.Run("a 500 that lasts fails the run, which resumes later", func(t *testing.T) {
		u := newFakeUnleash(t)
		u.fail("/api/admin/projects/payments/features/pay-later", http.StatusInternalServerError, 3)
		st := openStore(t)
		if _, err := run(t, st, u, false, false); err == nil || !strings.Contains(err.Error(), "500") {
			t.Fatalf("error %v", err)
		}
		mustRun(t, st, u)
		if again := mustRun(t, st, u); again.Changes != 0 {
			t.Errorf("after resuming, a further run changed %d objects", again.Changes)
		}
	})
	t.Run("a run stopped while writing resumes", func(t *testing.T) {
		u := newFakeUnleash(t)
		st := openStore(t)
		ctx, cancel := context.WithCancel(t.Context())
		var once sync.Once
		_, err := Run(ctx, st, Options{URL: u.srv.URL, Token: adminToken, client: fast, Logf: func(format string, args ...any) {
			if strings.HasPrefix(fmt.Sprintf(format, args...), "flag checkout created") {
				once.Do(cancel)
			}
		}})
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("error %v", err)
		}
		if _, err := read(t, st, func(ctx context.Context, r store.Reader) (store.Feature, error) { return r.GetFeature(ctx, "checkout") }), error(nil); err != nil {
			t.Fatal(err)
		}
		r := mustRun(t, st, u)
		if r.Counts["flag"][unchanged] != 1 || r.Counts["flag"][created] != 4 {
			t.Errorf("resumed run: %v", r.Counts)
		}
		if again := mustRun(t, st, u); again.Changes != 0 {
			t.Errorf("a further run changed %d objects", again.Changes)
		}
	})
}

func TestTargetWithOtherData(t *testing.T) {
	u := newFakeUnleash(t)
	st := openStore(t)
	err := st.Update(t.Context(), func(tx store.Tx) error {
		ctx := t.Context()
		if _, err := tx.CreateProject(ctx, store.Project{ID: "other", Name: "Other", Mode: "open", DefaultStickiness: "default"}); err != nil {
			return err
		}
		if _, err := tx.CreateFeature(ctx, store.Feature{Name: "checkout", Project: "other", Type: "release"}); err != nil {
			return err
		}
		if _, err := tx.CreateFeature(ctx, store.Feature{Name: "banner", Project: "default", Type: "operational", Description: "ours"}); err != nil {
			return err
		}
		_, err := tx.AppendEvent(ctx, store.Event{Type: "feature-created", CreatedBy: "test"})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := run(t, st, u, false, false); !errors.Is(err, ErrOtherData) {
		t.Fatalf("without --merge: %v", err)
	}
	if _, err := run(t, st, u, false, true); !errors.Is(err, ErrOtherData) {
		t.Fatalf("dry, without --merge: %v", err)
	}
	r, err := run(t, st, u, true, false)
	if err != nil {
		t.Fatal(err)
	}
	if !hasNote(r, "flag checkout", `project "other"`) || !hasNote(r, "dependency checkout-v2 → checkout", "parent") {
		t.Errorf("clash not reported: %+v", r.NotCarried)
	}
	f := read(t, st, func(ctx context.Context, r store.Reader) (store.Feature, error) { return r.GetFeature(ctx, "checkout") })
	if f.Project != "other" {
		t.Errorf("the target's flag was moved to %s", f.Project)
	}
	banner := read(t, st, func(ctx context.Context, r store.Reader) (store.Feature, error) { return r.GetFeature(ctx, "banner") })
	if banner.Description != "ours" || banner.Type != "operational" || !hasNote(r, "flag banner", "did not come from this source") {
		t.Errorf("the target's own flag of a source flag's name: %+v, notes %+v", banner, r.NotCarried)
	}
	// Merging again: the flags this source wrote are its own now, the
	// target's are still left alone, and nothing changes.
	again, err := run(t, st, u, true, false)
	if err != nil || again.Changes != 0 || again.Counts["flag"][unchanged] != 3 || !hasNote(again, "flag banner", "did not come from this source") {
		t.Errorf("second merge: %v, %d changes %v, notes %+v", err, again.Changes, again.Counts, again.NotCarried)
	}
	if _, err := read(t, st, func(ctx context.Context, r store.Reader) (store.Feature, error) {
		return r.GetFeature(ctx, "pay-later")
	}), error(nil); err != nil {
		t.Fatal(err)
	}
	// Another source is refused once the target holds this one's data.
	other := newFakeUnleash(t)
	if _, err := run(t, st, other, false, false); !errors.Is(err, ErrOtherData) {
		t.Errorf("a second source without --merge: %v", err)
	}
}

// clientPayload is what Unleash answers on /api/client/features for the
// client token of the fixture (project default, development).
func clientPayload() clientapi.Features {
	zero, one := 0, 1
	_ = one
	on := true
	return clientapi.Features{Version: 2, Features: []clientapi.Feature{
		{Name: "banner", Type: "release", Enabled: false, Stale: true, Strategies: []clientapi.Strategy{}, Variants: []clientapi.Variant{}},
		{Name: "checkout", Type: "release", Enabled: true, ImpressionData: true, Strategies: []clientapi.Strategy{
			{ID: "6d3f6f0e-0d6c-4b3a-9d7b-5b8f6f1e2a01", Name: "flexibleRollout", SortOrder: &zero,
				Parameters:  clientapi.Parameters{"rollout": "50", "stickiness": "default", "groupId": "checkout"},
				Constraints: []clientapi.Constraint{{ContextName: "appName", Operator: "IN", Values: []string{"web"}}},
				Segments:    []int{7},
				Variants:    []clientapi.Variant{{Name: "blue", Weight: 1000, WeightType: "variable", Stickiness: "default", Payload: &clientapi.Payload{Type: "json", Value: `{"c":1}`}}}},
		}, Variants: []clientapi.Variant{
			{Name: "b", Weight: 500, WeightType: "variable", Stickiness: "default"},
			{Name: "a", Weight: 500, WeightType: "variable", Stickiness: "default", Payload: &clientapi.Payload{Type: "string", Value: "A"}, Overrides: []clientapi.Override{{ContextName: "userId", Values: []string{"u9"}}}},
		}},
		{Name: "checkout-v2", Type: "experiment", Enabled: true, Strategies: []clientapi.Strategy{
			{ID: "6d3f6f0e-0d6c-4b3a-9d7b-5b8f6f1e2a03", Name: "default", SortOrder: &zero, Parameters: clientapi.Parameters{}, Constraints: []clientapi.Constraint{
				{ContextName: "currentTime", Operator: "DATE_AFTER", Value: "2025-01-01T00:00:00.000Z"},
				{ContextName: "version", Operator: "SEMVER_GT", Value: "1.2.3", Inverted: true},
			}},
		}, Variants: []clientapi.Variant{}, Dependencies: []clientapi.Dependency{{Feature: "checkout", Enabled: &on, Variants: []string{"a"}}}},
	}, Segments: []clientapi.Segment{
		{ID: 7, Name: "beta", Constraints: []clientapi.Constraint{{ContextName: "userId", Operator: "STR_STARTS_WITH", Values: []string{"beta-"}}}},
	}}
}

// signalbox serves the migrated store as the server does.
func signalbox(t *testing.T, st store.Store) string {
	t.Helper()
	srv, err := server.New(t.Context(), st, server.Config{})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(hs.Close)
	return hs.URL
}

func TestVerify(t *testing.T) {
	u := newFakeUnleash(t)
	u.set("/api/client/features", clientPayload())
	st := openStore(t)
	mustRun(t, st, u)
	sb := signalbox(t, st)

	diffs, err := Verify(t.Context(), VerifyOptions{UnleashURL: u.srv.URL, SignalboxURL: sb, ClientTokens: []string{clientToken}, Contexts: 600, client: fast})
	if err != nil {
		t.Fatal(err)
	}
	if len(diffs) != 0 {
		t.Fatalf("differences after migrating: %+v", diffs)
	}

	var stdout, stderr bytes.Buffer
	env := func(string) string { return "" }
	args := []string{"verify", "--url", u.srv.URL, "--signalbox-url", sb, "--client-token", clientToken, "--contexts", "200"}
	if code := Main(t.Context(), args, env, &stdout, &stderr); code != 0 || !strings.Contains(stdout.String(), "Identical") {
		t.Errorf("verify: exit %d\n%s%s", code, stdout.String(), stderr.String())
	}

	// A rollout that differs is found both in the payload and in answers.
	p := clientPayload()
	p.Features[1].Strategies[0].Parameters["rollout"] = "40"
	p.Segments[0].Constraints[0].Values = []string{"alpha-"}
	u.set("/api/client/features", p)
	diffs, err = Verify(t.Context(), VerifyOptions{UnleashURL: u.srv.URL, SignalboxURL: sb, ClientTokens: []string{clientToken}, Contexts: 600, client: fast})
	if err != nil {
		t.Fatal(err)
	}
	var payload, answers bool
	for _, d := range diffs {
		payload = payload || (d.Flag == "checkout" && strings.Contains(d.What, "payload differs"))
		answers = answers || (d.Flag == "checkout" && strings.Contains(d.What, "answers differ"))
	}
	if !payload || !answers {
		t.Errorf("differences: %+v", diffs)
	}
	stdout.Reset()
	if code := Main(t.Context(), args, env, &stdout, &stderr); code != 1 {
		t.Errorf("verify with differences: exit %d\n%s", code, stdout.String())
	}
}

func TestMainUsage(t *testing.T) {
	env := func(k string) string { return map[string]string{"DATA_DIR": t.TempDir()}[k] }
	tests := []struct {
		args []string
		code int
		want string
	}{
		{nil, 2, "usage"},
		{[]string{"nope"}, 2, "unknown command"},
		{[]string{"from-unleash"}, 2, "--url is required"},
		{[]string{"from-unleash", "--url", "ftp://x"}, 2, "not an http(s) URL"},
		{[]string{"from-unleash", "--url", "http://127.0.0.1:1"}, 2, "--token is required"},
		{[]string{"verify", "--url", "http://127.0.0.1:1"}, 2, "--client-token is required"},
		{[]string{"from-unleash", "-h"}, 0, "UNLEASH_SOURCE_TOKEN"},
	}
	for _, tt := range tests {
		var stdout, stderr bytes.Buffer
		code := Main(t.Context(), tt.args, env, &stdout, &stderr)
		if code != tt.code || !strings.Contains(stderr.String(), tt.want) {
			t.Errorf("%v: exit %d, stderr %q", tt.args, code, stderr.String())
		}
	}
}

func TestMainFromUnleash(t *testing.T) {
	u := newFakeUnleash(t)
	dir := t.TempDir()
	env := func(k string) string {
		return map[string]string{"DATA_DIR": dir, "UNLEASH_SOURCE_URL": u.srv.URL + "/", "UNLEASH_SOURCE_TOKEN": adminToken}[k]
	}
	var stdout, stderr bytes.Buffer
	if code := Main(t.Context(), []string{"from-unleash"}, env, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout.String(), stderr.String())
	}
	if !strings.Contains(stdout.String(), "flag") || !strings.Contains(stderr.String(), "flag checkout created") {
		t.Errorf("summary:\n%s\nlog:\n%s", stdout.String(), stderr.String())
	}
	stdout.Reset()
	if code := Main(t.Context(), []string{"from-unleash"}, env, &stdout, &stderr); code != 0 {
		t.Fatalf("second run: exit %d\n%s", code, stderr.String())
	}
}

func TestProgressBar(t *testing.T) {
	var out bytes.Buffer
	bar := progressBar(&out)
	bar(1, 4)
	bar(4, 4)
	want := "\r[#######.......................] 1/4 flags\r[##############################] 4/4 flags\n"
	if out.String() != want {
		t.Errorf("progress bar %q, want %q", out.String(), want)
	}
	if isTerminal(&out) {
		t.Error("a buffer counted as a terminal")
	}
}

// A segment id that the target uses for another segment is mapped to a new
// id, consistently in every strategy, and SDKs still get the same answers.
func TestSegmentIDTakenInTarget(t *testing.T) {
	u := newFakeUnleash(t)
	u.set("/api/client/features", clientPayload())
	st := openStore(t)
	err := st.Update(t.Context(), func(tx store.Tx) error {
		if _, err := tx.CreateSegment(t.Context(), store.Segment{ID: 7, Name: "local", Constraints: []clientapi.Constraint{}}); err != nil {
			return err
		}
		_, err := tx.AppendEvent(t.Context(), store.Event{Type: "segment-created", CreatedBy: "test"})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	r, err := run(t, st, u, true, false)
	if err != nil {
		t.Fatal(err)
	}
	if !hasNote(r, "segment beta", "id 7 is taken") {
		t.Errorf("notes: %+v", r.NotCarried)
	}
	segs := read(t, st, func(ctx context.Context, r store.Reader) ([]store.Segment, error) {
		return r.ListSegments(ctx, store.SegmentFilter{})
	})
	betaID := 0
	for _, s := range segs {
		if s.Name == "beta" {
			betaID = s.ID
		}
	}
	if betaID == 0 || betaID == 7 {
		t.Fatalf("segments: %+v", segs)
	}
	s := read(t, st, func(ctx context.Context, r store.Reader) (store.Strategy, error) {
		return r.GetStrategy(ctx, "6d3f6f0e-0d6c-4b3a-9d7b-5b8f6f1e2a01")
	})
	if asJSON(s.Segments) != fmt.Sprintf("[%d]", betaID) {
		t.Errorf("strategy segments %v, want [%d]", s.Segments, betaID)
	}
	if again, err := run(t, st, u, true, false); err != nil || again.Changes != 0 {
		t.Errorf("second run: %v, %d changes", err, again.Changes)
	}
	diffs, err := Verify(t.Context(), VerifyOptions{UnleashURL: u.srv.URL, SignalboxURL: signalbox(t, st), ClientTokens: []string{clientToken}, Contexts: 300, client: fast})
	if err != nil || len(diffs) != 0 {
		t.Errorf("verify: %v %+v", err, diffs)
	}
}
