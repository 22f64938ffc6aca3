package server

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/signalbox/signalbox/server/openapi"
)

// The contract with Unleash's admin API: every operation of Unleash 8.2's
// OpenAPI document is routed here, or on refExempt with the reason it is
// not offered, or on refMissing (not built yet, reported so the coverage
// figure stays honest). Responses the test suite provokes are checked
// against Unleash's schemas by refRecorder, wrapped around every test
// server.

// refExempt lists Unleash operations this server does not offer, by
// operation id, with the reason.
var refExempt = map[string]string{
	"deleteScimUsers": "SCIM provisioning is an Unleash Enterprise feature; this server provisions no users through SCIM, so there are none to delete",
}

// refMissing lists Unleash operations not built yet. Unlike refExempt
// these are meant to be built; the contract test reports them.
var refMissing = []string{}

// Floors of the coverage figures: the contract test fails when fewer
// operations are routed, the full package run when fewer routed
// operations had a success answer checked against Unleash's schema.
const (
	refRoutedFloor    = 210
	refValidatedFloor = 210
)

// refOperation is one operation of the reference document.
type refOperation struct {
	method, path string
	re           *regexp.Regexp // matches request paths of the template
	op           *openapi3.Operation
}

var (
	refOnce sync.Once
	refDoc  *openapi3.T
	refOps  []refOperation
	refErr  error

	// refSeen records, per operation id, whether a success answer was
	// checked and passed, or the first way one broke the schema.
	refMu     sync.Mutex
	refPassed = map[string]bool{}
	refBroken = map[string]string{}
)

// refReferencePath finds Unleash's document: the file named by
// SIGNALBOX_UNLEASH_OPENAPI (scripts/test.sh fetches it from the pinned
// unleash-server when needed), else the copy kept beside the checkout in
// shared/reference.
func refReferencePath() (string, error) {
	if path := os.Getenv("SIGNALBOX_UNLEASH_OPENAPI"); path != "" {
		if _, err := os.Stat(path); err != nil {
			return "", fmt.Errorf("SIGNALBOX_UNLEASH_OPENAPI: %w", err)
		}
		return path, nil
	}
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		path := filepath.Join(dir, "shared", "reference", "unleash-server-8.2-openapi.json")
		if _, err := os.Stat(path); err == nil {
			return path, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("shared/reference/unleash-server-8.2-openapi.json not found beside the checkout")
		}
		dir = parent
	}
}

// missingReference ends a test that needs Unleash's document when it is
// not beside the checkout, as the engine's specification test does without
// its data: the comparison must always run, so it fails rather than skips.
func missingReference(t testing.TB, err error) {
	t.Helper()
	t.Fatalf("Unleash's OpenAPI document is needed: set SIGNALBOX_UNLEASH_OPENAPI to it (scripts/test.sh fetches it from test/unleash's unleash-server) or keep it beside the checkout in shared/reference: %v", err)
}

// refLoad loads the reference document once per test binary.
func refLoad() ([]refOperation, error) {
	refOnce.Do(func() {
		path, err := refReferencePath()
		if err != nil {
			refErr = err
			return
		}
		refDoc, refErr = openapi3.NewLoader().LoadFromFile(path)
		if refErr != nil {
			return
		}
		for _, path := range refDoc.Paths.InMatchingOrder() {
			item := refDoc.Paths.Value(path)
			var expr strings.Builder
			expr.WriteString("^")
			for _, seg := range strings.Split(strings.TrimPrefix(path, "/"), "/") {
				expr.WriteString("/")
				if openapi.ParamRE.MatchString(seg) {
					expr.WriteString(`[^/]+`)
				} else {
					expr.WriteString(regexp.QuoteMeta(seg))
				}
			}
			expr.WriteString("/?$")
			re := regexp.MustCompile(expr.String())
			for method, op := range item.Operations() {
				refOps = append(refOps, refOperation{method: strings.ToLower(method), path: path, re: re, op: op})
			}
		}
		// Literal paths before templated ones of the same length, so
		// /projects/{id} does not take /projects/archive... answers.
		sort.SliceStable(refOps, func(i, j int) bool {
			return strings.Count(refOps[i].path, "{") < strings.Count(refOps[j].path, "{")
		})
	})
	return refOps, refErr
}

// refMatch finds the reference operation of a request.
func refMatch(method, path string) *refOperation {
	ops, err := refLoad()
	if err != nil {
		return nil
	}
	method = strings.ToLower(method)
	for i := range ops {
		if ops[i].method == method && ops[i].re.MatchString(path) {
			return &ops[i]
		}
	}
	return nil
}

// refRecorder checks the success answers of requests that match a
// reference operation against the operation's JSON schema for that
// status, until one passes (after that the operation is covered and its
// answers are no longer checked, which keeps the suite fast).
func refRecorder(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ref := refMatch(r.Method, r.URL.Path)
		if ref == nil {
			next.ServeHTTP(w, r)
			return
		}
		id := ref.op.OperationID
		refMu.Lock()
		done := refPassed[id]
		refMu.Unlock()
		if done {
			next.ServeHTTP(w, r)
			return
		}
		rec := &refCapture{ResponseWriter: w, status: http.StatusOK}
		next.ServeHTTP(rec, r)
		if rec.status < 200 || rec.status > 299 || rec.Header().Get("Content-Encoding") != "" {
			return // a compressed body is checked in its identity form
		}
		verdict := refCheck(ref.op, rec.status, rec.Header().Get("Content-Type"), rec.body.Bytes())
		refMu.Lock()
		defer refMu.Unlock()
		if verdict == "" {
			refPassed[id] = true
		} else if _, seen := refBroken[id]; !seen {
			refBroken[id] = verdict
		}
	})
}

// refStatusAsServed maps operations whose Unleash server answers a success
// status its document does not list to the documented status whose schema
// that answer follows. Unleash's feature-toggle controller creates and
// clones flags with respondWithValidation(201, ...), while its document
// lists only 200; this server answers 201 as the server does.
var refStatusAsServed = map[string]map[int]int{
	"createFeature": {http.StatusCreated: http.StatusOK},
	"cloneFeature":  {http.StatusCreated: http.StatusOK},
}

// refServedShape maps operations whose Unleash server answers a shape
// other than the one its document describes to the parts of an answer
// that must each follow the documented schema, with the reason.
var refServedShape = map[string]struct {
	why   string
	parts func(v any) ([]any, error)
}{
	// The document describes one featureStrategySchema, but Unleash's
	// feature-toggle controller answers getStrategiesForEnvironment's list
	// (Response<FeatureStrategySchema[]>): each item must follow it.
	"getFeatureStrategies": {"Unleash answers a list of the documented strategy", func(v any) ([]any, error) {
		list, ok := v.([]any)
		if !ok {
			return nil, fmt.Errorf("not a list of strategies, as Unleash answers")
		}
		return list, nil
	}},
	// The document describes tagTypeSchema, but Unleash's tag-type
	// controller answers {version, tagType}. This server answers both
	// forms at once: the tag type's properties at the top level, and
	// version and tagType. Both the top level (less version and tagType)
	// and tagType must follow the schema.
	"getTagType": {"Unleash answers {version, tagType}", func(v any) ([]any, error) {
		obj, ok := v.(map[string]any)
		if !ok || obj["tagType"] == nil {
			return nil, fmt.Errorf("no tagType, which Unleash answers")
		}
		top := maps.Clone(obj)
		delete(top, "version")
		delete(top, "tagType")
		return []any{top, obj["tagType"]}, nil
	}},
}

// refCheck returns "" when body is valid for op's answer of status, or
// why not.
func refCheck(op *openapi3.Operation, status int, contentType string, body []byte) string {
	resp := op.Responses.Status(status)
	if documented, ok := refStatusAsServed[op.OperationID][status]; ok && resp == nil {
		resp = op.Responses.Status(documented)
	}
	if resp == nil {
		resp = op.Responses.Default()
	}
	if resp == nil || resp.Value == nil {
		return fmt.Sprintf("status %d is not one of Unleash's", status)
	}
	var schema *openapi3.Schema
	for mt, media := range resp.Value.Content {
		if strings.Contains(mt, "json") && media.Schema != nil {
			schema = media.Schema.Value
		}
	}
	if schema == nil {
		// Unleash answers this status without a JSON body: any body is
		// as good as none.
		return ""
	}
	if !strings.Contains(contentType, "json") {
		return fmt.Sprintf("status %d answered %q, not JSON", status, contentType)
	}
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		return fmt.Sprintf("status %d: not JSON: %v", status, err)
	}
	parts, shape := []any{v}, ""
	if served, ok := refServedShape[op.OperationID]; ok {
		var err error
		if parts, err = served.parts(v); err != nil {
			return fmt.Sprintf("status %d: %v", status, err)
		}
		shape = " (" + served.why + ")"
	}
	for _, part := range parts {
		if err := schema.VisitJSON(part, openapi3.MultiErrors()); err != nil {
			msg := err.Error()
			if len(msg) > 300 {
				msg = msg[:300] + "…"
			}
			return fmt.Sprintf("status %d%s: %s", status, shape, strings.ReplaceAll(msg, "\n", " "))
		}
	}
	return ""
}

// refCapture keeps a copy of the answer.
type refCapture struct {
	http.ResponseWriter
	status int
	body   bytes.Buffer
}

func (c *refCapture) WriteHeader(code int) {
	c.status = code
	c.ResponseWriter.WriteHeader(code)
}

func (c *refCapture) Write(b []byte) (int, error) {
	if c.body.Len() < 8<<20 {
		c.body.Write(b)
	}
	return c.ResponseWriter.Write(b)
}

func (c *refCapture) Flush() {
	if f, ok := c.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// refRouted maps each reference operation id to whether a route of this
// server has its method and path (parameter names aside).
func refRouted(t *testing.T, routes []Route) (routed map[string]bool, all []refOperation) {
	t.Helper()
	ops, err := refLoad()
	if err != nil {
		missingReference(t, err)
	}
	have := map[string]bool{}
	for _, rt := range routes {
		method, path := openapi.SplitPattern(rt.Pattern)
		have[method+" "+openapi.Shape(strings.TrimSuffix(path, "/"))] = true
	}
	routed = map[string]bool{}
	for _, o := range ops {
		routed[o.op.OperationID] = have[o.method+" "+openapi.Shape(strings.TrimSuffix(o.path, "/"))]
	}
	return routed, ops
}

func TestUnleashContract(t *testing.T) {
	ts := newTestServer(t)
	routed, ops := refRouted(t, ts.srv.Routes())
	missing := map[string]bool{}
	for _, id := range refMissing {
		if missing[id] {
			t.Errorf("%s is listed twice as missing", id)
		}
		missing[id] = true
	}
	ids := map[string]bool{}
	var nRouted int
	var unaccounted []string
	for _, o := range ops {
		id := o.op.OperationID
		ids[id] = true
		reason, exempt := refExempt[id]
		switch {
		case routed[id]:
			nRouted++
			if exempt {
				t.Errorf("%s (%s %s) is routed but listed as not offered (%s)", id, strings.ToUpper(o.method), o.path, reason)
			}
			if missing[id] {
				t.Errorf("%s (%s %s) is routed but listed as missing", id, strings.ToUpper(o.method), o.path)
			}
		case exempt && missing[id]:
			t.Errorf("%s is listed both as not offered and as missing", id)
		case exempt:
			if strings.TrimSpace(reason) == "" {
				t.Errorf("%s: exempt without a reason", id)
			}
		case missing[id]:
		default:
			unaccounted = append(unaccounted, fmt.Sprintf("%q, // %s %s", id, strings.ToUpper(o.method), o.path))
		}
	}
	for id := range refExempt {
		if !ids[id] {
			t.Errorf("exempt %s is not an operation of the reference", id)
		}
	}
	for id := range missing {
		if !ids[id] {
			t.Errorf("missing %s is not an operation of the reference", id)
		}
	}
	if len(unaccounted) > 0 {
		t.Errorf("operations neither routed, exempt nor missing:\n%s", strings.Join(unaccounted, "\n"))
	}
	t.Logf("Unleash admin API coverage: %d of %d operations routed; %d not offered; %d missing: %s",
		nRouted, len(ops), len(refExempt), len(refMissing), strings.Join(refMissing, ", "))
	if nRouted < refRoutedFloor {
		t.Errorf("%d operations routed, below the floor of %d", nRouted, refRoutedFloor)
	}
}

// refReport prints, after the package's tests, how many routed operations
// had a success answer checked against Unleash's schema; on a run of the
// whole package (no -run), fewer than refValidatedFloor fails it.
func refReport(code int) int {
	ops, err := refLoad()
	if err != nil || len(refPassed) == 0 {
		return code
	}
	routes := refRoutesOnce()
	if routes == nil {
		return code
	}
	have := map[string]bool{}
	for _, rt := range routes {
		method, path := openapi.SplitPattern(rt.Pattern)
		have[method+" "+openapi.Shape(strings.TrimSuffix(path, "/"))] = true
	}
	var routed, validated int
	var unchecked, broken []string
	for _, o := range ops {
		if !have[o.method+" "+openapi.Shape(strings.TrimSuffix(o.path, "/"))] {
			continue
		}
		routed++
		id := o.op.OperationID
		switch {
		case refPassed[id]:
			validated++
		case refBroken[id] != "":
			broken = append(broken, id+": "+refBroken[id])
		default:
			unchecked = append(unchecked, id)
		}
	}
	slices.Sort(unchecked)
	slices.Sort(broken)
	fmt.Printf("Unleash admin API: %d of %d operations routed; %d of %d routed checked against Unleash's schemas\n", routed, len(ops), validated, routed)
	if testing.Verbose() {
		fmt.Printf("  not checked: %s\n", strings.Join(unchecked, ", "))
		for _, b := range broken {
			fmt.Printf("  breaks Unleash's schema: %s\n", b)
		}
	}
	if f := flag.Lookup("test.run"); f != nil && f.Value.String() == "" && validated < refValidatedFloor {
		fmt.Printf("FAIL: %d routed operations checked against Unleash's schemas, below the floor of %d\n", validated, refValidatedFloor)
		if code == 0 {
			code = 1
		}
	}
	return code
}

var (
	refRoutesMu  sync.Mutex
	refRouteList []Route
)

// refNoteRoutes keeps the route table of the first test server.
func refNoteRoutes(routes []Route) {
	refRoutesMu.Lock()
	defer refRoutesMu.Unlock()
	if refRouteList == nil {
		refRouteList = slices.Clone(routes)
	}
}

func refRoutesOnce() []Route {
	refRoutesMu.Lock()
	defer refRoutesMu.Unlock()
	return refRouteList
}
