package migrate

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// fakeUnleash plays the parts of Unleash's HTTP API that the migration and
// verify read, with answers shaped as Unleash 8 gives them.
type fakeUnleash struct {
	t      *testing.T
	srv    *httptest.Server
	token  string
	mu     sync.Mutex
	routes map[string]any
	// failures makes the next n requests of a path answer with the status.
	failures map[string]failure
	hits     map[string]int
}

type failure struct {
	status int
	n      int
}

const adminToken = "*:*.unleash-admin-secret"
const clientToken = "default:development.unleash-client-secret"

func newFakeUnleash(t *testing.T) *fakeUnleash {
	f := &fakeUnleash{t: t, token: adminToken, routes: map[string]any{}, failures: map[string]failure{}, hits: map[string]int{}}
	for path, body := range fixture() {
		f.routes[path] = body
	}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeUnleash) serve(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	path := r.URL.Path
	if r.URL.RawQuery != "" && strings.HasPrefix(path, "/api/admin/search") {
		path += "?archived=" + r.URL.Query().Get("archived")
	}
	f.hits[path]++
	if fl, ok := f.failures[path]; ok && fl.n != 0 {
		fl.n--
		f.failures[path] = fl
		http.Error(w, `{"message":"injected"}`, fl.status)
		return
	}
	auth := r.Header.Get("Authorization")
	want := f.token
	if strings.HasPrefix(path, "/api/client/") {
		want = clientToken
	}
	if auth != want {
		w.WriteHeader(http.StatusUnauthorized)
		w.Write([]byte(`{"name":"AuthenticationRequired","message":"You must log in to use Unleash."}`))
		return
	}
	body, ok := f.routes[path]
	if !ok {
		http.Error(w, `{"message":"not found"}`, http.StatusNotFound)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(body)
}

func (f *fakeUnleash) set(path string, body any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.routes[path] = body
}

func (f *fakeUnleash) fail(path string, status, n int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.failures[path] = failure{status: status, n: n}
}

type obj = map[string]any
type arr = []any

// fixture is a small Unleash: three environments, two projects, segments,
// a custom strategy type, flags with constraints, segments, strategy and
// flag variants, a dependency, tags, an archived flag, tokens and users.
func fixture() map[string]any {
	constraintTenant := obj{"contextName": "tenant", "operator": "IN", "values": arr{"acme", "globex"}, "caseInsensitive": false, "inverted": false}
	return map[string]any{
		"/api/admin/environments": obj{"version": 1, "environments": arr{
			obj{"name": "development", "type": "development", "enabled": true, "protected": false, "sortOrder": 1},
			obj{"name": "production", "type": "production", "enabled": true, "protected": false, "sortOrder": 2},
			obj{"name": "staging", "type": "test", "enabled": true, "protected": false, "sortOrder": 3},
		}},
		// As the open-source server does, the list shows "default" only;
		// payments is found through its flags and read from its overview.
		"/api/admin/projects": obj{"version": 1, "projects": arr{
			obj{"id": "default", "name": "Default", "description": "Default project", "mode": "open", "defaultStickiness": "default"},
		}},
		"/api/admin/projects/payments/overview": obj{"name": "Payments", "description": "money", "mode": "protected", "defaultStickiness": "userId", "environments": arr{}},
		"/api/admin/search/features?archived=IS:false": obj{"total": 5, "features": arr{
			obj{"name": "checkout", "project": "default"}, obj{"name": "checkout-v2", "project": "default"},
			obj{"name": "banner", "project": "default"}, obj{"name": "pay-later", "project": "payments"},
		}},
		"/api/admin/environments/project/default": obj{"version": 1, "environments": arr{
			obj{"name": "development", "type": "development", "enabled": true, "protected": false, "sortOrder": 1, "visible": true},
			obj{"name": "production", "type": "production", "enabled": true, "protected": false, "sortOrder": 2, "visible": true},
			obj{"name": "staging", "type": "test", "enabled": true, "protected": false, "sortOrder": 3, "visible": false},
		}},
		"/api/admin/environments/project/payments": obj{"version": 1, "environments": arr{
			obj{"name": "development", "type": "development", "enabled": true, "protected": false, "sortOrder": 1, "visible": true},
			obj{"name": "production", "type": "production", "enabled": true, "protected": false, "sortOrder": 2, "visible": false},
			obj{"name": "staging", "type": "test", "enabled": true, "protected": false, "sortOrder": 3, "visible": true,
				"defaultStrategy": obj{"name": "flexibleRollout", "parameters": obj{"rollout": "50", "stickiness": "userId", "groupId": ""}, "constraints": arr{}}},
		}},
		"/api/admin/feature-types": obj{"version": 1, "types": arr{
			obj{"id": "release", "name": "Release", "description": "Release feature flags are used to release new features.", "lifetimeDays": 60},
			obj{"id": "experiment", "name": "Experiment", "description": "Experiment", "lifetimeDays": 40},
		}},
		"/api/admin/tag-types": obj{"version": 1, "tagTypes": arr{
			obj{"name": "simple", "description": "Used to simplify filtering of features", "icon": "#"},
			obj{"name": "team", "description": "owning team", "icon": ""},
		}},
		"/api/admin/context": arr{
			obj{"name": "userId", "description": "Allows you to constrain on userId", "stickiness": true, "sortOrder": 1, "legalValues": arr{}},
			obj{"name": "tenant", "description": "customer", "stickiness": true, "sortOrder": 10, "legalValues": arr{obj{"value": "acme", "description": "Acme"}, obj{"value": "globex"}}},
		},
		"/api/admin/segments": obj{"segments": arr{
			obj{"id": 7, "name": "beta", "description": "beta users", "constraints": arr{obj{"contextName": "userId", "operator": "STR_STARTS_WITH", "values": arr{"beta-"}}}},
			obj{"id": 9, "name": "tenants", "project": "payments", "constraints": arr{constraintTenant}},
		}},
		"/api/admin/strategies": obj{"version": 1, "strategies": arr{
			obj{"name": "default", "displayName": "Standard", "description": "on", "editable": false, "deprecated": false, "parameters": arr{}},
			obj{"name": "flexibleRollout", "displayName": "Gradual rollout", "editable": false, "parameters": arr{}},
			obj{"name": "byTenant", "displayName": "By tenant", "description": "custom", "editable": true, "deprecated": false,
				"parameters": arr{obj{"name": "tenants", "type": "list", "description": "who", "required": true}}},
		}},
		"/api/admin/projects/default/features": obj{"version": 2, "features": arr{obj{"name": "checkout"}, obj{"name": "checkout-v2"}, obj{"name": "banner"}}},
		"/api/admin/projects/default/features/checkout": obj{
			"name": "checkout", "type": "release", "project": "default", "description": "new checkout", "stale": false, "impressionData": true,
			"tags": arr{obj{"type": "team", "value": "web"}},
			"environments": arr{
				obj{"name": "development", "enabled": true, "strategies": arr{
					obj{"id": "6d3f6f0e-0d6c-4b3a-9d7b-5b8f6f1e2a01", "name": "flexibleRollout", "title": "half", "disabled": false, "sortOrder": 0,
						"parameters":  obj{"rollout": "50", "stickiness": "default", "groupId": "checkout"},
						"constraints": arr{obj{"contextName": "appName", "operator": "IN", "values": arr{"web"}}},
						"segments":    arr{7},
						"variants":    arr{obj{"name": "blue", "weight": 1000, "weightType": "variable", "stickiness": "default", "payload": obj{"type": "json", "value": `{"c":1}`}}}},
					obj{"id": "6d3f6f0e-0d6c-4b3a-9d7b-5b8f6f1e2a02", "name": "userWithId", "sortOrder": 1, "disabled": true,
						"parameters": obj{"userIds": "u1,u2"}, "constraints": arr{}, "segments": arr{}},
				}, "variants": arr{
					obj{"name": "a", "weight": 500, "weightType": "variable", "stickiness": "default", "payload": obj{"type": "string", "value": "A"}, "overrides": arr{obj{"contextName": "userId", "values": arr{"u9"}}}},
					obj{"name": "b", "weight": 500, "weightType": "variable", "stickiness": "default"},
				}},
				obj{"name": "production", "enabled": false, "strategies": arr{}, "variants": arr{}},
			},
		},
		// The flag's answer sorts variants by name; this route keeps the
		// stored order that SDKs get.
		"/api/admin/projects/default/features/checkout/environments/development/variants": obj{"version": 1, "variants": arr{
			obj{"name": "b", "weight": 500, "weightType": "variable", "stickiness": "default"},
			obj{"name": "a", "weight": 500, "weightType": "variable", "stickiness": "default", "payload": obj{"type": "string", "value": "A"}, "overrides": arr{obj{"contextName": "userId", "values": arr{"u9"}}}},
		}},
		"/api/admin/projects/default/features/checkout-v2": obj{
			"name": "checkout-v2", "type": "experiment", "project": "default",
			"dependencies": arr{obj{"feature": "checkout", "enabled": true, "variants": arr{"a"}}},
			"tags":         arr{},
			"environments": arr{
				obj{"name": "development", "enabled": true, "strategies": arr{
					obj{"id": "6d3f6f0e-0d6c-4b3a-9d7b-5b8f6f1e2a03", "name": "default", "sortOrder": 0, "parameters": obj{}, "constraints": arr{
						obj{"contextName": "currentTime", "operator": "DATE_AFTER", "value": "2025-01-01T00:00:00.000Z", "values": arr{}},
						obj{"contextName": "version", "operator": "SEMVER_GT", "value": "1.2.3", "values": arr{}, "inverted": true},
					}},
				}, "variants": arr{}},
				obj{"name": "production", "enabled": true, "strategies": arr{}, "variants": arr{}},
			},
		},
		"/api/admin/projects/default/features/banner": obj{
			"name": "banner", "type": "nonsense", "project": "default", "stale": true,
			"tags":         arr{obj{"type": "simple", "value": "ui"}},
			"environments": arr{obj{"name": "development", "enabled": false, "strategies": arr{}, "variants": arr{}}},
		},
		"/api/admin/projects/payments/features": obj{"version": 2, "features": arr{obj{"name": "pay-later"}}},
		"/api/admin/projects/payments/features/pay-later": obj{
			"name": "pay-later", "type": "release", "project": "payments",
			"tags": arr{},
			"environments": arr{
				obj{"name": "development", "enabled": true, "strategies": arr{
					obj{"id": "6d3f6f0e-0d6c-4b3a-9d7b-5b8f6f1e2a04", "name": "byTenant", "sortOrder": 0, "parameters": obj{"tenants": "acme"}, "segments": arr{9}, "constraints": arr{}},
					obj{"id": "6d3f6f0e-0d6c-4b3a-9d7b-5b8f6f1e2a05", "name": "remoteAddress", "sortOrder": 1, "parameters": obj{"IPs": "10.0.0.0/8"}, "constraints": arr{
						obj{"contextName": "amount", "operator": "NUM_GTE", "value": "100", "values": arr{}}}},
				}, "variants": arr{}},
				obj{"name": "staging", "enabled": false, "strategies": arr{}, "variants": arr{}},
			},
		},
		"/api/admin/search/features?archived=IS:true": obj{"total": 1, "features": arr{
			obj{"name": "old-thing", "type": "release", "project": "default", "archivedAt": "2025-02-01T00:00:00.000Z", "createdAt": "2024-02-01T00:00:00.000Z"},
		}},
		"/api/admin/api-tokens": obj{"tokens": arr{
			obj{"secret": clientToken, "tokenName": "web-backend", "type": "backend", "environment": "development", "project": "default", "projects": arr{"default"}},
			obj{"secret": "*:production.unleash-frontend-secret", "tokenName": "web-frontend", "type": "frontend", "environment": "production", "projects": arr{"*"}},
			obj{"secret": adminToken, "tokenName": "admin", "type": "admin", "environment": "*", "projects": arr{"*"}},
			obj{"tokenName": "hidden", "type": "client", "environment": "development", "projects": arr{"*"}},
			// A Signalbox source lists the shown form of a secret.
			obj{"secret": "*:development.1a2b…", "secure": true, "tokenName": "shown-only", "type": "client", "environment": "development", "projects": arr{"*"}},
		}},
		// Enterprise servers have project roles.
		"/api/admin/projects/payments/access": obj{
			"roles": arr{obj{"id": 4, "name": "Owner", "type": "project"}, obj{"id": 5, "name": "Member", "type": "project"}, obj{"id": 12, "name": "Auditor", "type": "custom"}},
			"users": arr{
				obj{"id": 2, "email": "alice@example.com", "roleId": 4, "roles": arr{4}},
				obj{"id": 3, "email": "bob@example.com", "roleId": 5, "roles": arr{5, 12}},
			},
			"groups": arr{},
		},
		"/api/admin/user-admin": obj{
			"rootRoles": arr{obj{"id": 1, "name": "Admin", "type": "root"}, obj{"id": 2, "name": "Editor", "type": "root"}, obj{"id": 3, "name": "Viewer", "type": "root"}, obj{"id": 10, "name": "Auditor", "type": "root-custom"}},
			"users": arr{
				obj{"id": 1, "username": "admin", "name": "", "rootRole": 1},
				obj{"id": 2, "email": "alice@example.com", "name": "Alice", "rootRole": 2},
				obj{"id": 3, "email": "bob@example.com", "name": "Bob", "rootRole": 10},
			},
		},
	}
}
