package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"

	"github.com/signalbox/signalbox/clientapi"
	"github.com/signalbox/signalbox/internal/apierr"
	"github.com/signalbox/signalbox/server/openapi"
	"github.com/signalbox/signalbox/store"
)

// oaLoad fetches the served document and loads it with kin-openapi,
// which resolves every $ref.
func oaLoad(t *testing.T, ts *testServer) *openapi3.T {
	t.Helper()
	res := ts.request("GET", docsJSONPath, "", nil).must(t, http.StatusOK)
	if ct := res.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type %q", ct)
	}
	doc, err := openapi3.NewLoader().LoadFromData(res.Body)
	if err != nil {
		t.Fatalf("loading the document: %v", err)
	}
	return doc
}

func TestOpenAPIDocumentsEveryRoute(t *testing.T) {
	ts := newTestServer(t)
	doc := oaLoad(t, ts)
	byShape := map[string]string{}
	for _, path := range doc.Paths.InMatchingOrder() {
		byShape[openapi.Shape(path)] = path
	}
	var undescribed []string
	for _, rt := range ts.srv.Routes() {
		method, path := openapi.SplitPattern(rt.Pattern)
		item := doc.Paths.Value(byShape[openapi.Shape(path)])
		if item == nil {
			t.Errorf("%s: path not documented", rt.Pattern)
			continue
		}
		op := item.GetOperation(strings.ToUpper(method))
		if op == nil {
			t.Errorf("%s: method not documented", rt.Pattern)
			continue
		}
		if op.Summary == "" {
			undescribed = append(undescribed, rt.Pattern)
		}
		var schemes []string
		if op.Security != nil {
			for _, req := range *op.Security {
				for name := range req {
					schemes = append(schemes, name)
				}
			}
		}
		slices.Sort(schemes)
		want := map[string][]string{"admin": {"adminToken", "session"}, "client": {"clientToken"}, "frontend": {"frontendToken"}}[rt.Auth]
		if !slices.Equal(schemes, want) {
			t.Errorf("%s (%s): security %v, want %v", rt.Pattern, rt.Auth, schemes, want)
		}
		if rt.Auth == "admin" {
			if op.Extensions["x-permission"] != string(rt.Permission) || !strings.Contains(op.Description, string(rt.Permission)) {
				t.Errorf("%s: permission %s not documented: %v / %q", rt.Pattern, rt.Permission, op.Extensions["x-permission"], op.Description)
			}
			for _, code := range []int{401, 403} {
				if op.Responses.Status(code) == nil {
					t.Errorf("%s: no %d response", rt.Pattern, code)
				}
			}
		}
		for _, name := range openapi.PathParams(byShape[openapi.Shape(path)]) {
			if p := op.Parameters.GetByInAndName("path", name); p == nil || !p.Required {
				t.Errorf("%s: path parameter %s missing", rt.Pattern, name)
			}
		}
	}
	if len(undescribed) > 0 {
		t.Logf("routes documented from the route table only (no entry in the openapi package): %s", strings.Join(undescribed, ", "))
	}
}

func TestOpenAPIValidates(t *testing.T) {
	ts := newTestServer(t)
	doc := oaLoad(t, ts)
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatalf("invalid OpenAPI document: %v", err)
	}
	// A document built from hypothetical routes of every kind validates
	// too, including two paths that differ only in parameter names.
	routes := append(slices.Clone(ts.srv.Routes()),
		Route{Pattern: "GET /api/admin/api-tokens/{name}", Auth: "admin", Permission: PermReadAPIToken},
		Route{Pattern: "DELETE /api/admin/api-tokens/{token}", Auth: "admin", Permission: PermDeleteAPIToken},
		Route{Pattern: "POST /api/admin/widgets/{widgetId}/parts/{rest...}", Auth: "admin", Permission: PermUpdateProject},
		Route{Pattern: "GET /api/admin/widgets/{$}", Auth: "admin", Permission: PermRead},
	)
	registered := map[string]bool{}
	for _, rt := range routes {
		method, path := openapi.SplitPattern(rt.Pattern)
		registered[method+" "+openapi.Shape(path)] = true
	}
	for _, pattern := range openapi.Described(openAPIFacts("test")) {
		if method, path := openapi.SplitPattern(pattern); !registered[method+" "+openapi.Shape(path)] {
			routes = append(routes, Route{Pattern: pattern, Auth: "admin", Permission: PermAdmin})
		}
	}
	data, err := json.Marshal(buildOpenAPI(routes, "test"))
	if err != nil {
		t.Fatal(err)
	}
	full, err := openapi3.NewLoader().LoadFromData(data)
	if err != nil {
		t.Fatal(err)
	}
	if err := full.Validate(context.Background()); err != nil {
		t.Fatalf("document with every described route: %v", err)
	}
	if full.Paths.Value("/api/admin/api-tokens/{name}").Delete == nil {
		t.Error("routes differing only in parameter names must share a path")
	}
	if op := full.Paths.Value("/api/admin/projects/{projectId}/users").Get; op == nil || !op.Deprecated {
		t.Error("GET /api/admin/projects/{projectId}/users must be deprecated")
	}
	if op := full.Paths.Value("/api/admin/projects/{projectId}/role/{roleId}/access").Post; op == nil || !op.Deprecated {
		t.Error("POST .../role/{roleId}/access must be deprecated")
	}
	for path, want := range map[string]string{"/api/admin/user-admin/{id}": "integer", "/api/admin/feature-types/{id}/lifetime": "string"} {
		if p := full.Paths.Value(path).Put.Parameters.GetByInAndName("path", "id"); p == nil || !p.Schema.Value.Type.Is(want) {
			t.Errorf("%s: id must be of type %s", path, want)
		}
	}
}

// oaChecker sends requests and checks them and their answers against the
// served document.
type oaChecker struct {
	t   *testing.T
	ts  *testServer
	doc *openapi3.T
}

func newOAChecker(t *testing.T, ts *testServer) *oaChecker {
	doc := oaLoad(t, ts)
	return &oaChecker{t: t, ts: ts, doc: doc}
}

// do sends a request (body as for testServer.request) and fails the test
// unless the status is want and the answer matches the document; a
// successful request must match it too.
func (c *oaChecker) do(method, path, token string, body any, want int) response {
	t := c.t
	t.Helper()
	res := c.ts.request(method, path, token, body)
	if res.Status != want {
		t.Errorf("%s %s: status %d, want %d; %s", method, path, res.Status, want, res.Body)
		return res
	}
	route, params := oaFindRoute(t, c.doc, method, path)
	if route == nil {
		return res
	}
	ctx := context.Background()
	req := httptest.NewRequest(method, path, nil)
	if body != nil && res.Status < 300 {
		data, ok := body.(string)
		if !ok {
			b, _ := json.Marshal(body)
			data = string(b)
		}
		req = httptest.NewRequest(method, path, strings.NewReader(data))
		req.Header.Set("Content-Type", "application/json")
	}
	in := &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route,
		Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc, MultiError: true}}
	if res.Status < 300 {
		if err := openapi3filter.ValidateRequest(ctx, in); err != nil {
			t.Errorf("%s %s: the request breaks the document: %v", method, path, err)
		}
	}
	err := openapi3filter.ValidateResponse(ctx, &openapi3filter.ResponseValidationInput{
		RequestValidationInput: in, Status: res.Status, Header: res.Header, Body: io.NopCloser(bytes.NewReader(res.Body)),
		Options: &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true},
	})
	if err != nil {
		t.Errorf("%s %s → %d: the answer breaks the document: %v\n%s", method, path, res.Status, err, res.Body)
	}
	return res
}

// has reports whether the server registered a route for method and path,
// so that checks of areas that are not there yet can be skipped.
func (c *oaChecker) has(method, path string) bool {
	route, _ := oaMatch(c.doc, method, path)
	return route != nil
}

func TestOpenAPIResponsesMatchSchemas(t *testing.T) {
	ts := newTestServer(t)
	seg := oaSeedSegment(t, ts)
	seedFlag(t, ts, "checkout.v2", store.Strategy{
		Name:        "flexibleRollout",
		Parameters:  clientapi.Parameters{"rollout": "100", "stickiness": "default", "groupId": "checkout.v2"},
		Constraints: []clientapi.Constraint{{ContextName: "appVersion", Operator: "SEMVER_GTE", Value: "1.0.0"}, {ContextName: "userId", Operator: "NOT_IN", Values: []string{"9"}}},
		Segments:    []int{seg},
		Variants:    []clientapi.Variant{{Name: "a", Weight: 1000, WeightType: "variable", Stickiness: "default", Payload: &clientapi.Payload{Type: "json", Value: `{"x":1}`}}},
	}, clientapi.Variant{Name: "blue", Weight: 1000, WeightType: "variable", Stickiness: "userId",
		Overrides: []clientapi.Override{{ContextName: "userId", Values: []string{"1"}}}})
	seedFlag(t, ts, "plain", store.Strategy{Name: "default"})
	c := newOAChecker(t, ts)

	reg := clientapi.Registration{AppName: "web", InstanceID: "i-1", SDKVersion: "unleash-client-node:6.0.0", Strategies: []string{"default"}, Started: time.Now().UTC(), Interval: 15000}
	metrics := clientapi.Metrics{AppName: "web", InstanceID: "i-1", Bucket: clientapi.MetricsBucket{
		Start: time.Now().Add(-time.Minute).UTC(), Stop: time.Now().UTC(),
		Toggles: map[string]clientapi.ToggleCount{"checkout.v2": {Yes: 3, No: 1, Variants: map[string]int64{"a": 3}}}}}
	for _, x := range []struct {
		method, path, token string
		body                any
		status              int
	}{
		{"GET", "/api/client/features", testClientToken, nil, 200},
		{"GET", "/api/client/features?namePrefix=check&tag=simple:x", testClientToken, nil, 200},
		{"GET", "/api/client/features/checkout.v2", testClientToken, nil, 200},
		{"GET", "/api/client/features/missing", testClientToken, nil, 404},
		{"GET", "/api/client/features", "", nil, 401},
		{"GET", "/api/client/features", testFrontendToken, nil, 403},
		{"POST", "/api/client/register", testClientToken, reg, 202},
		{"POST", "/api/client/register", testClientToken, map[string]any{"instanceId": "x"}, 400},
		{"POST", "/api/client/metrics", testClientToken, metrics, 202},
		{"GET", "/api/frontend?userId=7&properties[plan]=pro", testFrontendToken, nil, 200},
		{"GET", "/api/frontend/all", testFrontendToken, nil, 200},
		{"POST", "/api/frontend", testFrontendToken, map[string]any{"context": map[string]any{"userId": "1"}, "toggles": []string{"checkout.v2", "nope"}}, 200},
		{"GET", "/api/frontend", testClientToken, nil, 403},
		{"GET", "/health", "", nil, 200},
		{"GET", "/ready", "", nil, 200},
		{"POST", "/auth/simple/login", "", map[string]any{"username": "admin", "password": testAdminPassword}, 200},
		{"POST", "/auth/simple/login", "", map[string]any{"username": "admin", "password": "wrong"}, 401},
		{"POST", "/auth/simple/login", "", "{not json", 400},
	} {
		c.do(x.method, x.path, x.token, x.body, x.status)
	}
}

// The main admin operations answer what the document says. Areas that are
// not registered are skipped.
func TestOpenAPIAdminResponsesMatchSchemas(t *testing.T) {
	ts := newTestServer(t)
	c := newOAChecker(t, ts)
	step := func(method, path string, body any, want int) response {
		t.Helper()
		if !c.has(method, path) {
			t.Logf("skipped %s %s: not registered", method, path)
			return response{}
		}
		return c.do(method, path, testAdminToken, body, want)
	}
	const flag = "/api/admin/projects/web/features/checkout"
	const env = flag + "/environments/development"

	step("GET", "/api/admin/projects", nil, 200)
	c.do("GET", "/api/admin/projects", "", nil, 401)
	c.do("GET", "/api/admin/projects", testClientToken, nil, 403)
	step("POST", "/api/admin/projects", map[string]any{"id": "web", "name": "Web", "description": "The shop"}, 201)
	step("POST", "/api/admin/projects", map[string]any{"id": "web", "name": "Web"}, 409)
	step("GET", "/api/admin/projects/web", nil, 200)
	step("PUT", "/api/admin/projects/web", map[string]any{"name": "Web shop"}, 200)

	step("POST", "/api/admin/projects/web/features", map[string]any{"name": "checkout", "type": "release", "description": "New checkout"}, 201)
	step("POST", "/api/admin/projects/web/features", map[string]any{"name": "checkout"}, 409)
	step("POST", "/api/admin/projects/web/features", map[string]any{"name": "has space"}, 400)
	step("POST", "/api/admin/projects/web/features", "{}", 400)
	step("POST", "/api/admin/projects/web/features", map[string]any{"name": "parent"}, 201)
	step("POST", "/api/admin/features/validate", map[string]any{"name": "free.name"}, 200)
	step("GET", "/api/admin/projects/web/features", nil, 200)
	step("GET", "/api/admin/projects/web/features/nope", nil, 404)
	step("PUT", flag, map[string]any{"description": "Faster checkout", "stale": false}, 200)
	step("PATCH", flag, []map[string]any{{"op": "replace", "path": "/description", "value": "Patched"}}, 200)

	st := step("POST", env+"/strategies", map[string]any{
		"name":        "flexibleRollout",
		"parameters":  map[string]string{"rollout": "50", "stickiness": "default", "groupId": "checkout"},
		"constraints": []map[string]any{{"contextName": "userId", "operator": "IN", "values": []string{"1", "2"}}},
		"variants":    []map[string]any{{"name": "a", "weight": 1000, "weightType": "variable", "stickiness": "default", "payload": map[string]string{"type": "string", "value": "x"}}},
	}, 200).Object()
	if id, _ := st["id"].(string); id != "" {
		step("GET", env+"/strategies/"+id, nil, 200)
		step("PATCH", env+"/strategies/"+id, []map[string]any{{"op": "replace", "path": "/parameters/rollout", "value": "75"}}, 200)
		step("PATCH", env+"/strategies/"+id, []map[string]any{{"op": "replace", "path": "/nothing/here", "value": 1}}, 400)
		step("PATCH", env+"/strategies/"+id, map[string]any{"op": "replace"}, 400)
		step("PUT", env+"/strategies/"+id, map[string]any{"name": "flexibleRollout", "parameters": map[string]string{"rollout": "20", "stickiness": "default", "groupId": "checkout"}}, 200)
	}
	step("GET", env+"/strategies", nil, 200)
	step("POST", env+"/on", nil, 200)
	step("GET", env, nil, 200)
	step("PUT", env+"/variants", []map[string]any{{"name": "blue", "weight": 500, "weightType": "variable", "stickiness": "default",
		"payload": map[string]string{"type": "json", "value": `{"a":1}`}, "overrides": []map[string]any{{"contextName": "userId", "values": []string{"7"}}}},
		{"name": "green", "weight": 500, "weightType": "variable", "stickiness": "default"}}, 200)
	step("GET", env+"/variants", nil, 200)
	step("POST", flag+"/dependencies", map[string]any{"feature": "parent", "enabled": true}, 200)
	step("GET", flag+"/dependencies", nil, 200)
	step("GET", flag, nil, 200)
	c.do("GET", "/api/client/features", testAdminToken, nil, 403)
	c.do("GET", "/api/client/features", testClientToken, nil, 200)

	seg := step("POST", "/api/admin/segments", map[string]any{"name": "beta", "constraints": []map[string]any{{"contextName": "userId", "operator": "IN", "values": []string{"1"}}}}, 201).Object()
	step("GET", "/api/admin/segments", nil, 200)
	if id, ok := seg["id"].(float64); ok {
		step("GET", fmt.Sprintf("/api/admin/segments/%d", int(id)), nil, 200)
		step("GET", fmt.Sprintf("/api/admin/segments/%d/strategies", int(id)), nil, 200)
	}

	user := step("POST", "/api/admin/user-admin", map[string]any{"username": "ed", "email": "ed@example.com", "rootRole": "Editor", "sendEmail": true}, 201).Object()
	step("POST", "/api/admin/user-admin", map[string]any{"username": "nobody"}, 400)
	step("GET", "/api/admin/user-admin", nil, 200)
	if id, ok := user["id"].(float64); ok {
		step("GET", fmt.Sprintf("/api/admin/user-admin/%d", int(id)), nil, 200)
		step("PUT", fmt.Sprintf("/api/admin/user-admin/%d", int(id)), map[string]any{"rootRole": 3}, 200)
	}
	step("GET", "/api/admin/user-admin/search?q=ed", nil, 200)
	step("GET", "/api/admin/user", nil, 200)
	step("GET", "/api/admin/user/profile", nil, 400)

	step("POST", "/api/admin/api-tokens", map[string]any{"tokenName": "ci", "type": "client", "environment": "development", "projects": []string{"web"}}, 201)
	step("GET", "/api/admin/api-tokens", nil, 200)

	step("POST", "/api/admin/strategies", map[string]any{"name": "byRegion", "description": "Users in some regions",
		"parameters": []map[string]any{{"name": "regions", "type": "list", "required": true}}}, 201)
	step("POST", "/api/admin/context", map[string]any{"name": "region", "stickiness": true, "legalValues": []map[string]string{{"value": "eu"}}}, 201)
	step("POST", "/api/admin/tag-types", map[string]any{"name": "team", "description": "Owning team"}, 201)
	step("POST", "/api/admin/environments", map[string]any{"name": "staging", "type": "test"}, 201)
	step("GET", "/api/admin/strategies", nil, 200)
	step("GET", "/api/admin/strategies/flexibleRollout", nil, 200)
	step("GET", "/api/admin/environments", nil, 200)
	step("GET", "/api/admin/environments/project/web", nil, 200)
	step("GET", "/api/admin/context", nil, 200)
	step("GET", "/api/admin/tag-types", nil, 200)
	step("GET", "/api/admin/feature-types", nil, 200)

	step("DELETE", flag+"/dependencies", nil, 200)
	step("DELETE", flag, nil, 202)
	step("GET", "/api/admin/archive/features", nil, 200)
	step("POST", "/api/admin/events/search", map[string]any{"project": "web", "limit": 50}, 200)
	step("GET", "/api/admin/search/events?project=web&limit=10", nil, 200)
	step("GET", "/api/admin/events", nil, 200)
	step("GET", "/api/admin/events/checkout", nil, 200)
}

// oaSeedSegment stores a segment directly and returns its id.
func oaSeedSegment(t *testing.T, ts *testServer) int {
	t.Helper()
	ctx := withPrincipal(context.Background(), &Principal{Token: &store.APIToken{TokenName: "test"}})
	var id int
	err := ts.srv.change(ctx, func(tx store.Tx) ([]store.Event, error) {
		s, err := tx.CreateSegment(ctx, store.Segment{Name: "beta", Constraints: []clientapi.Constraint{{ContextName: "userId", Operator: "IN", Values: []string{"1", "7"}}}})
		id = s.ID
		return []store.Event{{Type: "segment-created"}}, err
	})
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// oaFindRoute finds the documented operation for a concrete request path.
func oaFindRoute(t *testing.T, doc *openapi3.T, method, path string) (*routers.Route, map[string]string) {
	t.Helper()
	route, params := oaMatch(doc, method, path)
	if route == nil {
		t.Errorf("%s %s: no documented operation", method, path)
	}
	return route, params
}

// oaMatch finds the operation for a concrete request path; nil if none.
func oaMatch(doc *openapi3.T, method, rawPath string) (*routers.Route, map[string]string) {
	path, _, _ := strings.Cut(rawPath, "?")
	segs := strings.Split(path, "/")
	for _, tmpl := range doc.Paths.InMatchingOrder() {
		parts := strings.Split(tmpl, "/")
		if len(parts) != len(segs) {
			continue
		}
		params := map[string]string{}
		for i, p := range parts {
			if strings.HasPrefix(p, "{") && segs[i] != "" {
				params[strings.Trim(p, "{}")] = segs[i]
			} else if p != segs[i] {
				params = nil
				break
			}
		}
		item := doc.Paths.Value(tmpl)
		if op := item.GetOperation(method); params != nil && op != nil {
			return &routers.Route{Spec: doc, Path: tmpl, PathItem: item, Method: method, Operation: op}, params
		}
	}
	return nil, nil
}

// The wire types and their schemas must list the same properties.
func TestOpenAPISchemasMatchWireTypes(t *testing.T) {
	schemas := openapi.Schemas(openAPIFacts("test"))
	for name, v := range map[string]any{
		"Features": clientapi.Features{}, "FeaturesQuery": clientapi.Query{}, "FeaturesMeta": clientapi.Meta{},
		"Feature": clientapi.Feature{}, "Strategy": clientapi.Strategy{}, "Constraint": clientapi.Constraint{},
		"Variant": clientapi.Variant{}, "Payload": clientapi.Payload{}, "Override": clientapi.Override{},
		"Dependency": clientapi.Dependency{}, "Segment": clientapi.Segment{},
		"Registration": clientapi.Registration{}, "ClientMetrics": clientapi.Metrics{},
		"MetricsBucket": clientapi.MetricsBucket{}, "ToggleCount": clientapi.ToggleCount{},
		"Toggles": clientapi.Toggles{}, "Toggle": clientapi.ToggleResult{}, "ToggleVariant": clientapi.VariantResult{},
		"Context": clientapi.Context{}, "User": UserJSON{}, "CreateUserResponse": UserJSON{}, "ApiToken": TokenJSON{},
		"ErrorRecord": apierr.Body{}, "ErrorDetail": apierr.Detail{},
	} {
		var fields []string
		typ := reflect.TypeOf(v)
		for i := range typ.NumField() {
			if tag, _, _ := strings.Cut(typ.Field(i).Tag.Get("json"), ","); tag != "" && tag != "-" {
				fields = append(fields, tag)
			}
		}
		var props []string
		for p := range schemas[name].Properties {
			props = append(props, p)
		}
		slices.Sort(fields)
		slices.Sort(props)
		if !slices.Equal(fields, props) {
			t.Errorf("schema %s has %v, Go type %s has %v", name, props, typ, fields)
		}
	}
}

func TestDocsUIServedFromBinary(t *testing.T) {
	ts := newTestServer(t)
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := noRedirect.Get(ts.url + "/docs/openapi")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusMovedPermanently || res.Header.Get("Location") != docsUIPath {
		t.Errorf("/docs/openapi: %d to %q", res.StatusCode, res.Header.Get("Location"))
	}

	page := ts.request("GET", docsUIPath, "", nil).must(t, http.StatusOK)
	if ct := page.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/html") {
		t.Errorf("Content-Type %q", ct)
	}
	html := string(page.Body)
	if !strings.Contains(html, `"`+docsJSONPath+`"`) {
		t.Error("the page does not load " + docsJSONPath)
	}
	refs := regexp.MustCompile(`(?i)(?:src|href)\s*=\s*["']([^"']+)["']`).FindAllStringSubmatch(html, -1)
	var scripts int
	for _, m := range refs {
		ref := m[1]
		if strings.Contains(ref, "://") || strings.HasPrefix(ref, "//") {
			t.Errorf("the page loads %s from another site", ref)
			continue
		}
		if !strings.HasPrefix(ref, "/") {
			ref = docsUIPath + ref
		}
		asset := ts.request("GET", ref, "", nil).must(t, http.StatusOK)
		if len(asset.Body) == 0 {
			t.Errorf("%s is empty", ref)
		}
		if strings.HasSuffix(ref, ".js") {
			scripts++
		}
	}
	if scripts < 2 {
		t.Errorf("expected the Swagger UI scripts among %v", refs)
	}
	bundle := ts.request("GET", docsUIPath+"swagger-ui-bundle.js", "", nil).must(t, http.StatusOK)
	if len(bundle.Body) < 100_000 || !bytes.Contains(bundle.Body, []byte("SwaggerUIBundle")) {
		t.Errorf("swagger-ui-bundle.js: %d bytes", len(bundle.Body))
	}
	// The documentation routes are in the route table, hence documented.
	doc := oaLoad(t, ts)
	for _, path := range []string{docsJSONPath, docsUIPath, "/docs/openapi"} {
		if item := doc.Paths.Value(path); item == nil || item.Get == nil {
			t.Errorf("%s is not documented", path)
		}
	}
}
