package server

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/signalbox/signalbox/clientapi"
	"github.com/signalbox/signalbox/store"
)

func TestSwitchOnAddsDefaultStrategy(t *testing.T) {
	fx := newFlagFixture(t)
	fx.create("f")

	before := fx.lastEvent()
	var f adminFeature
	fx.ts.admin("POST", envPath("f", "development")+"/on", nil).must(t, http.StatusOK).Decode(t, &f)
	events := fx.expectEvents(before, "f", "feature-strategy-add", "feature-environment-enabled")
	if events[1].Environment != "development" || events[1].Project != "default" {
		t.Errorf("event %+v", events[1])
	}
	dev := f.Environments[0]
	if !dev.Enabled || !f.Enabled || len(dev.Strategies) != 1 || !dev.HasEnabledStrategies {
		t.Fatalf("development after on: %+v", dev)
	}
	want := clientapi.Parameters{"rollout": "100", "stickiness": "default", "groupId": "f"}
	if st := dev.Strategies[0]; st.Name != "flexibleRollout" || !cmp.Equal(st.Parameters, want) {
		t.Errorf("default strategy %+v", st)
	}
	if f.Environments[1].Enabled {
		t.Error("production was switched on too")
	}

	before = fx.lastEvent()
	fx.ts.admin("POST", envPath("f", "development")+"/on", nil).must(t, http.StatusOK)
	fx.expectEvents(before, "f") // already on: nothing recorded, no second strategy
	if n := len(fx.feature("f").Environments[0].Strategies); n != 1 {
		t.Errorf("%d strategies after a second on", n)
	}

	before = fx.lastEvent()
	fx.ts.admin("POST", envPath("f", "development")+"/off", map[string]any{"ignored": true}).must(t, http.StatusOK)
	fx.expectEvents(before, "f", "feature-environment-disabled")
	after := fx.feature("f").Environments[0]
	if after.Enabled || len(after.Strategies) != 1 {
		t.Errorf("off must keep strategies: %+v", after)
	}

	before = fx.lastEvent()
	fx.ts.admin("POST", envPath("f", "development")+"/on", nil).must(t, http.StatusOK)
	fx.expectEvents(before, "f", "feature-environment-enabled") // it has an enabled strategy now
}

func TestSwitchOnWithDisabledStrategies(t *testing.T) {
	fx := newFlagFixture(t)
	fx.create("a")
	fx.create("b")
	for _, flag := range []string{"a", "b"} {
		fx.addStrategy(flag, "development", map[string]any{"name": "default", "disabled": true})
	}

	before := fx.lastEvent()
	fx.ts.admin("POST", envPath("a", "development")+"/on", nil).must(t, 200)
	fx.expectEvents(before, "a", "feature-strategy-add", "feature-environment-enabled")
	if n := len(fx.feature("a").Environments[0].Strategies); n != 2 {
		t.Errorf("want the default strategy added next to the disabled one, got %d strategies", n)
	}

	before = fx.lastEvent()
	fx.ts.admin("POST", envPath("b", "development")+"/on?shouldActivateDisabledStrategies=true", nil).must(t, 200)
	fx.expectEvents(before, "b", "feature-strategy-update", "feature-environment-enabled")
	b := fx.feature("b").Environments[0]
	if len(b.Strategies) != 1 || b.Strategies[0].Disabled {
		t.Errorf("want the disabled strategy enabled: %+v", b.Strategies)
	}
}

func TestSwitchOnUsesProjectDefaultStrategy(t *testing.T) {
	fx := newFlagFixture(t)
	fx.create("f")
	fx.storeChange(func(ctx context.Context, tx store.Tx) error {
		return tx.UpdateProjectEnvironment(ctx, store.ProjectEnvironment{Project: "default", Environment: "production",
			DefaultStrategy: &store.StrategyTemplate{Name: "flexibleRollout", Parameters: clientapi.Parameters{"rollout": "25", "groupId": "", "stickiness": "userId"}}})
	})
	var f adminFeature
	fx.ts.admin("POST", envPath("f", "production")+"/on", nil).must(t, 200).Decode(t, &f)
	st := f.Environments[1].Strategies[0]
	want := clientapi.Parameters{"rollout": "25", "stickiness": "userId", "groupId": "f"}
	if !cmp.Equal(st.Parameters, want) {
		t.Errorf("project default strategy: %+v", st)
	}
}

func TestFeatureEnvironmentRoutes(t *testing.T) {
	fx := newFlagFixture(t)
	fx.addProject("other")
	fx.create("f")
	fx.addStrategy("f", "development", map[string]any{"name": "default"})

	res := fx.ts.admin("GET", envPath("f", "development"), nil).must(t, 200)
	var env adminFeatureEnv
	res.Decode(t, &env)
	if env.Name != "f" || env.FeatureName != "f" || env.Environment != "development" || env.Enabled || len(env.Strategies) != 1 || !env.HasStrategies {
		t.Errorf("feature environment %s", res.Body)
	}
	var raw map[string]json.RawMessage
	res.Decode(t, &raw)
	if string(raw["variants"]) != "[]" || string(raw["lastSeenAt"]) != "null" {
		t.Errorf("lists and nulls: %s", res.Body)
	}

	fx.ts.admin("POST", "/api/admin/projects/other/features", map[string]any{"name": "o"}).must(t, 201)
	notFound := []struct{ method, path string }{
		{"GET", envPath("f", "nope")},
		{"GET", envPath("nope", "development")},
		{"POST", envPath("nope", "development") + "/on"},
		{"POST", envPath("f", "nope") + "/off"},
		{"POST", envPath("o", "development") + "/on"},                               // another project's flag
		{"POST", "/api/admin/projects/other/features/o/environments/production/on"}, // not in the project
		{"GET", "/api/admin/projects/nope/features/f/environments/development"},     // unknown project
	}
	for _, tt := range notFound {
		mustError(t, fx.ts.admin(tt.method, tt.path, nil), http.StatusNotFound, "NotFoundError", "")
	}

	t.Run("bulk", func(t *testing.T) {
		fx.create("g")
		bulk := "/api/admin/projects/default/bulk_features/environments/development"
		mustError(t, fx.ts.admin("POST", bulk+"/on", map[string]any{}), 400, "ValidationError", "features")
		mustError(t, fx.ts.admin("POST", bulk+"/on", map[string]any{"features": []string{"f", "nope"}}), 404, "NotFoundError", "")
		if fx.feature("f").Environments[0].Enabled {
			t.Fatal("a failed bulk request switched a flag on")
		}
		before := fx.lastEvent()
		fx.ts.admin("POST", bulk+"/on", map[string]any{"features": []string{"f", "g"}}).must(t, 200)
		fx.expectEvents(before, "", "feature-environment-enabled", "feature-strategy-add", "feature-environment-enabled")
		before = fx.lastEvent()
		fx.ts.admin("POST", bulk+"/off", map[string]any{"features": []string{"f", "g"}}).must(t, 200)
		fx.expectEvents(before, "", "feature-environment-disabled", "feature-environment-disabled")
	})
}
