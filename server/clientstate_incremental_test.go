package server

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/signalbox/signalbox/store"
)

// TestIncrementalClientState drives a random sequence of admin changes and
// after each checks that the state the server brought forward from the
// previous one (store.ClientChangesSince) is exactly a whole read, and so
// are the client API's answer, the delta hydration and the delta from the
// previous revision.
func TestIncrementalClientState(t *testing.T) {
	for _, db := range []struct {
		name string
		open func(*testing.T) *testServer
	}{{"sqlite", newTestServer}, {"postgres", newPostgresTestServer}} {
		t.Run(db.name, func(t *testing.T) {
			t.Parallel()
			ts := db.open(t)
			w := newChangeWalker(t, ts, 1)
			w.check() // every environment's state is cached from here on
			const steps = 300
			incremental := 0
			for range steps {
				from := w.revision()
				w.step()
				if !w.changesFrom(from).Full {
					incremental++
				}
				w.check()
			}
			t.Logf("steps %d, brought forward %d, statuses %v", steps, incremental, w.statuses)
			// Most changes must take the incremental path, or the test proves
			// little.
			if incremental < steps*2/3 {
				t.Errorf("only %d of %d changes were brought forward", incremental, steps)
			}
		})
	}
}

// changeWalker makes random admin changes and checks the server's states.
type changeWalker struct {
	t        *testing.T
	ts       *testServer
	rnd      *rand.Rand
	active   []string
	archived []string
	segments []int
	next     int
	statuses map[string]int // "kind status": how the changes went
	// prev is the whole state of each environment at the last check.
	prev map[string]*deltaState
	rev  int64
	// approver is a session of another admin, to approve change requests.
	approver string
}

var walkerEnvironments = []string{"development", "production"}

func newChangeWalker(t *testing.T, ts *testServer, seed uint64) *changeWalker {
	w := &changeWalker{t: t, ts: ts, rnd: rand.New(rand.NewPCG(seed, 42)), statuses: map[string]int{},
		prev: map[string]*deltaState{}}
	for range 6 {
		w.createFeature()
	}
	w.admin("segment", "POST", "/api/admin/segments", map[string]any{"name": "seg-0", "constraints": w.constraints()})
	w.approver = crUser(t, ts, "approver", "Admin")
	return w
}

// changeRequest applies a change request of two changes to f in
// production, between switching change requests on and off there: one
// step of many events, most of them bookkeeping.
func (w *changeWalker) changeRequest(f string) {
	w.t.Helper()
	config := "/api/admin/projects/default/environments/production/change-requests/config"
	w.admin("cr config", "PUT", config, map[string]any{"changeRequestsEnabled": true, "requiredApprovals": 1})
	res := w.admin("cr", "POST", crProd, []map[string]any{
		{"feature": f, "action": "updateEnabled", "payload": map[string]any{"enabled": w.rnd.IntN(2) == 0}},
		{"feature": f, "action": "addStrategy", "payload": w.strategyBody(f)},
	})
	if res.Status == http.StatusOK {
		id := crDecode(w.t, res).ID
		for _, step := range []struct {
			auth  string
			state string
		}{{testAdminToken, "In review"}, {w.approver, "Approved"}, {w.approver, "Applied"}} {
			res := crState(w.t, w.ts, id, step.auth, map[string]any{"state": step.state})
			w.statuses[fmt.Sprintf("cr %s %d", step.state, res.Status)]++
		}
	}
	w.admin("cr config", "PUT", config, map[string]any{"changeRequestsEnabled": false})
}

func (w *changeWalker) admin(kind, method, path string, body any) response {
	w.t.Helper()
	res := w.ts.admin(method, path, body)
	w.statuses[fmt.Sprintf("%s %d", kind, res.Status)]++
	if res.Status >= 500 {
		w.t.Fatalf("%s %s: %d %s", method, path, res.Status, res.Body)
	}
	return res
}

func (w *changeWalker) pick(list []string) string { return list[w.rnd.IntN(len(list))] }

func (w *changeWalker) featurePath(name string) string {
	return "/api/admin/projects/default/features/" + name
}

func (w *changeWalker) constraints() []any {
	return []any{map[string]any{"contextName": "userId", "operator": "IN",
		"values": []string{fmt.Sprint(w.rnd.IntN(100))}}}
}

func (w *changeWalker) createFeature() {
	name := fmt.Sprintf("f-%02d", w.next)
	w.next++
	if w.admin("create", "POST", "/api/admin/projects/default/features", map[string]any{"name": name}).Status == http.StatusCreated {
		w.active = append(w.active, name)
	}
}

func (w *changeWalker) strategyBody(f string) map[string]any {
	body := map[string]any{"name": "flexibleRollout", "constraints": w.constraints(),
		"parameters": map[string]any{"rollout": fmt.Sprint(w.rnd.IntN(101)), "stickiness": "default", "groupId": f}}
	if len(w.segments) > 0 && w.rnd.IntN(2) == 0 {
		body["segments"] = []int{w.segments[w.rnd.IntN(len(w.segments))]}
	}
	return body
}

// strategyIDs lists the strategies of a flag in an environment.
func (w *changeWalker) strategyIDs(f, env string) []string {
	var list []struct {
		ID string `json:"id"`
	}
	res := w.ts.admin("GET", w.featurePath(f)+"/environments/"+env+"/strategies", nil)
	if res.Status != http.StatusOK {
		return nil
	}
	res.Decode(w.t, &list)
	ids := make([]string, len(list))
	for i, s := range list {
		ids[i] = s.ID
	}
	return ids
}

// step makes one random change.
func (w *changeWalker) step() {
	w.t.Helper()
	if len(w.active) < 3 {
		w.createFeature()
		return
	}
	f, env := w.pick(w.active), w.pick(walkerEnvironments)
	envPath := w.featurePath(f) + "/environments/" + env
	switch n := w.rnd.IntN(100); {
	case n < 18:
		w.admin("toggle", "POST", envPath+"/"+w.pick([]string{"on", "off"}), nil)
	case n < 30:
		w.admin("add strategy", "POST", envPath+"/strategies", w.strategyBody(f))
	case n < 40:
		if ids := w.strategyIDs(f, env); len(ids) > 0 {
			w.admin("update strategy", "PUT", envPath+"/strategies/"+w.pick(ids), w.strategyBody(f))
		}
	case n < 44:
		if ids := w.strategyIDs(f, env); len(ids) > 0 {
			w.admin("delete strategy", "DELETE", envPath+"/strategies/"+w.pick(ids), nil)
		}
	case n < 48:
		if ids := w.strategyIDs(f, env); len(ids) > 1 {
			slices.Reverse(ids)
			order := []map[string]any{}
			for i, id := range ids {
				order = append(order, map[string]any{"id": id, "sortOrder": i})
			}
			w.admin("reorder", "POST", envPath+"/strategies/set-sort-order", order)
		}
	case n < 55:
		variants := []any{}
		for i := range w.rnd.IntN(3) {
			variants = append(variants, map[string]any{"name": fmt.Sprintf("v%d", i), "weightType": "variable",
				"weight": 0, "stickiness": "default"})
		}
		w.admin("variants", "PUT", envPath+"/variants", variants)
	case n < 60:
		w.admin("archive", "DELETE", w.featurePath(f), nil)
		if w.ts.admin("GET", w.featurePath(f), nil).Status == http.StatusNotFound {
			w.active = slices.DeleteFunc(w.active, func(s string) bool { return s == f })
			w.archived = append(w.archived, f)
		}
	case n < 63:
		if len(w.archived) > 0 {
			a := w.pick(w.archived)
			if w.admin("revive", "POST", "/api/admin/archive/revive/"+a, nil).Status == http.StatusOK {
				w.archived = slices.DeleteFunc(w.archived, func(s string) bool { return s == a })
				w.active = append(w.active, a)
			}
		}
	case n < 66: // a whole read: dependencies of others may go with it
		if len(w.archived) > 0 {
			a := w.pick(w.archived)
			if w.admin("delete", "DELETE", "/api/admin/archive/"+a, nil).Status == http.StatusOK {
				w.archived = slices.DeleteFunc(w.archived, func(s string) bool { return s == a })
			}
		}
	case n < 70:
		w.createFeature()
	case n < 75:
		w.admin("tag", "POST", "/api/admin/features/"+f+"/tags", map[string]any{"type": "simple", "value": w.pick([]string{"web", "ios"})})
	case n < 78:
		w.admin("untag", "DELETE", "/api/admin/features/"+f+"/tags/simple/"+w.pick([]string{"web", "ios"}), nil)
	case n < 83:
		w.admin("depend", "POST", w.featurePath(f)+"/dependencies",
			map[string]any{"feature": w.pick(w.active), "enabled": w.rnd.IntN(2) == 0})
	case n < 86:
		w.admin("undepend", "DELETE", w.featurePath(f)+"/dependencies", nil)
	case n < 87:
		w.admin("project env off", "DELETE", "/api/admin/projects/default/environments/production", nil)
	case n < 90:
		w.admin("project env on", "POST", "/api/admin/projects/default/environments", map[string]any{"environment": "production"})
	case n < 93:
		res := w.admin("segment", "POST", "/api/admin/segments",
			map[string]any{"name": fmt.Sprintf("seg-%d", w.next), "constraints": w.constraints()})
		w.next++
		var created struct {
			ID int `json:"id"`
		}
		if res.Status == http.StatusCreated {
			res.Decode(w.t, &created)
			w.segments = append(w.segments, created.ID)
		}
	case n < 96:
		if len(w.segments) > 0 {
			id := w.segments[w.rnd.IntN(len(w.segments))]
			w.admin("segment edit", "PUT", fmt.Sprintf("/api/admin/segments/%d", id),
				map[string]any{"name": fmt.Sprintf("seg-edit-%d", w.next), "constraints": w.constraints()})
			w.next++
		}
	case n < 97:
		w.changeRequest(f)
	default:
		w.admin("metadata", "PUT", w.featurePath(f), map[string]any{"name": f, "description": fmt.Sprint(w.rnd.IntN(1000)),
			"type": w.pick([]string{"release", "experiment"}), "impressionData": w.rnd.IntN(2) == 0})
	}
}

func (w *changeWalker) revision() int64 {
	rev, err := get(w.t, w.ts, func(ctx context.Context, r store.Reader) (int64, error) { return r.Revision(ctx) })
	if err != nil {
		w.t.Fatal(err)
	}
	return rev
}

func (w *changeWalker) changesFrom(rev int64) store.ClientChanges {
	ch, err := get(w.t, w.ts, func(ctx context.Context, r store.Reader) (store.ClientChanges, error) {
		return r.ClientChangesSince(ctx, "production", rev)
	})
	if err != nil {
		w.t.Fatal(err)
	}
	return ch
}

// check compares, in every environment, what the server serves with a
// whole read.
func (w *changeWalker) check() {
	w.t.Helper()
	ctx := context.Background()
	srv := w.ts.srv
	rev := w.revision()
	srv.raiseRevision(rev)
	for _, env := range walkerEnvironments {
		want, err := get(w.t, w.ts, func(ctx context.Context, r store.Reader) (store.ClientState, error) {
			return r.GetClientState(ctx, env)
		})
		if err != nil {
			w.t.Fatal(err)
		}
		got, err := srv.clientState(ctx, env, rev)
		if err != nil {
			w.t.Fatal(err)
		}
		if d := cmp.Diff(&want, got); d != "" {
			w.t.Fatalf("revision %d, %s: state brought forward differs from a whole read (-whole +incremental):\n%s", rev, env, d)
		}

		q := clientQuery{Environment: env}.normalized()
		wantPayload, err := buildPayload(q, &want, nil)
		if err != nil {
			w.t.Fatal(err)
		}
		token := testProdToken
		if env == "development" {
			token = testClientToken
			q = clientQuery{Environment: env, Projects: []string{"default"}}.normalized()
			if wantPayload, err = buildPayload(q, &want, nil); err != nil {
				w.t.Fatal(err)
			}
		}
		res := w.ts.request("GET", "/api/client/features", token, nil).must(w.t, http.StatusOK)
		// The answer may have been built at an earlier revision that
		// served the same content: its meta says so, and only its meta.
		if !bytes.Equal(withoutMeta(res.Body), withoutMeta(wantPayload.body)) || res.Header.Get("ETag") != wantPayload.etag {
			w.t.Fatalf("revision %d, %s: client API answer (ETag %s) differs from a whole read (ETag %s):\n%s\nwant\n%s",
				rev, env, res.Header.Get("ETag"), wantPayload.etag, res.Body, wantPayload.body)
		}

		wantDelta, err := newDeltaState(&want)
		if err != nil {
			w.t.Fatal(err)
		}
		dh, latest, err := srv.deltaLatest(ctx, env)
		if err != nil {
			w.t.Fatal(err)
		}
		if latest.rev != rev || !latest.state.sameAs(wantDelta) {
			w.t.Fatalf("revision %d, %s: delta state at %d differs from a whole read", rev, env, latest.rev)
		}
		hydration, _, _ := dh.events(q, 0, latest)
		if wantHydration := appendHydration(nil, wantDelta, q, rev); !bytes.Equal(hydration, wantHydration) {
			w.t.Fatalf("revision %d, %s: hydration differs from a whole read:\n%s\nwant\n%s", rev, env, hydration, wantHydration)
		}
		if prev := w.prev[env]; prev != nil && w.rev < rev {
			got, _, _ := dh.events(q, w.rev, latest)
			want, _ := appendDelta(nil, prev, wantDelta, q, rev)
			if prev.sameAs(wantDelta) {
				want = nil
			}
			if !bytes.Equal(got, want) {
				w.t.Fatalf("revision %d, %s: delta from %d differs from a whole read:\n%s\nwant\n%s", rev, env, w.rev, got, want)
			}
		}
		w.prev[env] = wantDelta
	}
	w.rev = rev
}

// get reads one value in a view of the server's store.
func get[T any](t *testing.T, ts *testServer, fn func(ctx context.Context, r store.Reader) (T, error)) (T, error) {
	t.Helper()
	var v T
	err := ts.srv.store.View(context.Background(), func(r store.Reader) error {
		var err error
		v, err = fn(context.Background(), r)
		return err
	})
	return v, err
}

// withoutMeta is a client features answer without its meta, the last field.
func withoutMeta(body []byte) []byte {
	if i := bytes.LastIndex(body, []byte(`,"meta":`)); i >= 0 {
		return body[:i]
	}
	return body
}
