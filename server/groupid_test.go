package server

import (
	"net/http"
	"testing"

	"github.com/signalbox/signalbox/clientapi"
)

// A flexibleRollout saved without groupId, or with an empty one, gets the
// flag's name as group on every path that saves strategies, as Unleash
// stores it; SDKs hash the group into the bucket, so the admin API and
// the client API must both show it.
func TestFlexibleRolloutGroupIDDefaultsToFlagName(t *testing.T) {
	fx := newFlagFixture(t)
	ts := fx.ts
	strategies := func(flag string) string { return envPath(flag, "development") + "/strategies" }
	// groups returns the groupId of the flag's strategies on the admin API
	// and in the client API payload.
	groups := func(t *testing.T, ts *testServer, flag string) (admin, client []string) {
		t.Helper()
		var list []adminStrategy
		ts.admin("GET", strategies(flag), nil).must(t, http.StatusOK).Decode(t, &list)
		for _, st := range list {
			admin = append(admin, st.Parameters["groupId"])
		}
		var f clientapi.Feature
		ts.request("GET", "/api/client/features/"+flag, testClientToken, nil).must(t, http.StatusOK).Decode(t, &f)
		for _, st := range f.Strategies {
			client = append(client, st.Parameters["groupId"])
		}
		return admin, client
	}
	expect := func(t *testing.T, ts *testServer, flag string, want ...string) {
		t.Helper()
		admin, client := groups(t, ts, flag)
		if len(admin) != len(want) || len(client) != len(want) {
			t.Fatalf("%s: groups %q (admin), %q (client), want %q", flag, admin, client, want)
		}
		for i := range want {
			if admin[i] != want[i] || client[i] != want[i] {
				t.Errorf("%s: strategy %d has group %q (admin), %q (client), want %q", flag, i, admin[i], client[i], want[i])
			}
		}
	}
	rollout := func(params map[string]string) map[string]any {
		return map[string]any{"name": "flexibleRollout", "parameters": params}
	}

	t.Run("create", func(t *testing.T) {
		fx.create("created")
		for _, params := range []map[string]string{
			{"rollout": "50", "stickiness": "default", "groupId": ""},
			{"rollout": "50", "stickiness": "default"},
			nil,
			{"rollout": "50", "groupId": "shared"},
		} {
			fx.addStrategy("created", "development", rollout(params))
		}
		// The deprecated gradual rollouts keep their group as given, as in
		// Unleash.
		fx.addStrategy("created", "development", map[string]any{"name": "gradualRolloutUserId", "parameters": map[string]string{"percentage": "50", "groupId": ""}})
		expect(t, ts, "created", "created", "created", "created", "shared", "")
	})

	t.Run("update", func(t *testing.T) {
		fx.create("updated")
		st := fx.addStrategy("updated", "development", rollout(map[string]string{"rollout": "50", "groupId": "other"}))
		ts.admin("PUT", strategies("updated")+"/"+st.ID, rollout(map[string]string{"rollout": "60", "groupId": ""})).must(t, http.StatusOK)
		expect(t, ts, "updated", "updated")
		ts.admin("PUT", strategies("updated")+"/"+st.ID, map[string]any{"parameters": map[string]string{"rollout": "70"}}).must(t, http.StatusOK)
		expect(t, ts, "updated", "updated")
	})

	t.Run("patch", func(t *testing.T) {
		fx.create("patched")
		st := fx.addStrategy("patched", "development", rollout(map[string]string{"rollout": "50", "groupId": "other"}))
		path := strategies("patched") + "/" + st.ID
		ts.admin("PATCH", path, []any{map[string]any{"op": "replace", "path": "/parameters/groupId", "value": ""}}).must(t, http.StatusOK)
		expect(t, ts, "patched", "patched")
		ts.admin("PATCH", path, []any{map[string]any{"op": "replace", "path": "/parameters/groupId", "value": "other"}}).must(t, http.StatusOK)
		expect(t, ts, "patched", "other")
		ts.admin("PATCH", path, []any{map[string]any{"op": "remove", "path": "/parameters/groupId"}}).must(t, http.StatusOK)
		expect(t, ts, "patched", "patched")
	})

	t.Run("import", func(t *testing.T) {
		fx.create("imported")
		fx.addStrategy("imported", "development", rollout(map[string]string{"rollout": "50", "groupId": "imported"}))
		fx.addStrategy("imported", "development", rollout(map[string]string{"rollout": "50", "groupId": "imported"}))
		doc := exportOf(t, ts, map[string]any{"environment": "development", "features": []string{"imported"}})
		if len(doc.FeatureStrategies) != 2 {
			t.Fatalf("exported strategies %+v", doc.FeatureStrategies)
		}
		doc.FeatureStrategies[0].Parameters["groupId"] = ""
		delete(doc.FeatureStrategies[1].Parameters, "groupId")
		target := newTestServer(t)
		target.admin("POST", featuresBatchPath+"/import", map[string]any{"project": "default", "environment": "development", "data": doc}).must(t, http.StatusOK)
		expect(t, target, "imported", "imported", "imported")
	})
}
