// Package openapi builds the server's OpenAPI 3.0 document (served at
// /docs/openapi.json) from its route table: every route gets its path
// parameters, its security, the permission it needs and the standard error
// responses, and the table in ops.go adds summaries, bodies and response
// schemas (schemas.go, areas.go, addons.go). It knows the server only
// through Route and Facts, so the server imports it and not the reverse.
package openapi

import (
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// The document is generated from the route table so that every endpoint
// an area registers is documented without anyone listing it twice.

// Doc is the subset of an OpenAPI 3.0 document that we write.
type Doc struct {
	OpenAPI    string                `json:"openapi"`
	Info       oaInfo                `json:"info"`
	Tags       []oaTag               `json:"tags"`
	Paths      map[string]oaPathItem `json:"paths"`
	Components oaComponents          `json:"components"`
}

type oaInfo struct {
	Title       string `json:"title"`
	Version     string `json:"version"`
	Description string `json:"description"`
}

type oaTag struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
}

// oaPathItem maps lower-case methods to operations.
type oaPathItem map[string]*oaOperation

type oaOperation struct {
	OperationID string                 `json:"operationId"`
	Summary     string                 `json:"summary,omitempty"`
	Description string                 `json:"description,omitempty"`
	Tags        []string               `json:"tags"`
	Deprecated  bool                   `json:"deprecated,omitempty"`
	Parameters  []*oaParameter         `json:"parameters,omitempty"`
	RequestBody *oaRequestBody         `json:"requestBody,omitempty"`
	Responses   map[string]*oaResponse `json:"responses"`
	Security    []map[string][]string  `json:"security,omitempty"`
	// Permission repeats the needed permission for tools; "" off the admin API.
	Permission string `json:"x-permission,omitempty"`
}

type oaParameter struct {
	Name        string  `json:"name"`
	In          string  `json:"in"`
	Description string  `json:"description,omitempty"`
	Required    bool    `json:"required,omitempty"`
	Style       string  `json:"style,omitempty"`
	Explode     *bool   `json:"explode,omitempty"`
	Schema      *Schema `json:"schema"`
}

type oaRequestBody struct {
	Description string             `json:"description,omitempty"`
	Required    bool               `json:"required,omitempty"`
	Content     map[string]oaMedia `json:"content"`
}

type oaResponse struct {
	Ref         string               `json:"$ref,omitempty"`
	Description string               `json:"description,omitempty"`
	Headers     map[string]*oaHeader `json:"headers,omitempty"`
	Content     map[string]oaMedia   `json:"content,omitempty"`
}

type oaHeader struct {
	Description string  `json:"description,omitempty"`
	Schema      *Schema `json:"schema"`
}

type oaMedia struct {
	Schema *Schema `json:"schema"`
}

type oaComponents struct {
	Schemas         map[string]*Schema           `json:"schemas"`
	Responses       map[string]*oaResponse       `json:"responses"`
	SecuritySchemes map[string]*oaSecurityScheme `json:"securitySchemes"`
}

type oaSecurityScheme struct {
	Type        string `json:"type"`
	In          string `json:"in"`
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
}

// oaOp is what the metadata table knows about one operation beyond the
// route table. Every field is optional.
type oaOp struct {
	ID          string // operationId; generated from the pattern when empty
	Summary     string
	Description string
	Tag         string // overrides the tag derived from the path
	Deprecated  bool
	Params      map[string]Schema // path parameters: type and description by name
	Query       []*oaParameter
	Body        *Schema // JSON request body
	BodyOpt     bool    // the body may be omitted
	Status      int     // success status; 200 when zero
	Resp        *Schema // JSON success body; none when nil
	RespType    string  // media type of Resp when not JSON
	RespDesc    string
	Headers     map[string]string      // success response headers: name → description
	Errors      []int                  // error statuses beyond the standard ones
	More        map[string]*oaResponse // further responses (304, 503, ...)
}

// Route is one route of the server's table, as the document needs it.
type Route struct {
	Pattern    string // ServeMux pattern, "METHOD /path/{param}"
	Auth       string // "admin", "client", "frontend" or "none"
	Permission string // for admin routes
}

// Facts are what the document says of the server that the server
// defines: names, limits and wire values, passed in so the document and
// the behaviour cannot drift apart.
type Facts struct {
	Version            string // the server's version; "dev" when empty
	SessionCookie      string
	SAMLRequestCookie  string
	PasswordRules      string
	MaskedValue        string // what stands for a secret in answers
	MaxDescription     int
	MaxStrategyTitle   int
	LifecycleStages    []string
	ReadPermission     string // the permission every signed-in user has
	MaintenancePattern string // the one admin write allowed in maintenance mode
}

// Build documents routes.
func Build(routes []Route, f Facts) *Doc {
	version := f.Version
	if version == "" {
		version = "dev"
	}
	doc := &Doc{
		OpenAPI: "3.0.3",
		Info:    oaInfo{Title: "Signalbox API", Version: version, Description: oaIntro},
		Paths:   map[string]oaPathItem{},
		Components: oaComponents{
			Schemas: Schemas(f), Responses: oaErrorResponses(), SecuritySchemes: oaSecuritySchemes(f),
		},
	}
	meta := map[string]oaOp{}
	for pattern, op := range describedOps(f) {
		method, path := SplitPattern(pattern)
		meta[method+" "+Shape(path)] = op
	}
	documented := map[string]string{} // path shape → path as documented
	ids := map[string]bool{}
	tags := map[string]bool{}
	for _, rt := range routes {
		method, path := SplitPattern(rt.Pattern)
		shape := Shape(path)
		// Paths that differ only in parameter names are one path in
		// OpenAPI: document them under the first one's names.
		if p, ok := documented[shape]; ok {
			path = p
		} else {
			documented[shape] = path
		}
		m, known := meta[method+" "+shape]
		op := oaOperationFor(f, rt, method, path, m, known)
		if ids[op.OperationID] {
			base := oaGeneratedID(method, path)
			op.OperationID = base
			for n := 2; ids[op.OperationID]; n++ {
				op.OperationID = base + strconv.Itoa(n)
			}
		}
		ids[op.OperationID] = true
		tags[op.Tags[0]] = true
		if doc.Paths[path] == nil {
			doc.Paths[path] = oaPathItem{}
		}
		doc.Paths[path][method] = op
	}
	doc.Tags = oaTagList(tags)
	return doc
}

// SplitPattern splits a ServeMux pattern into a lower-case method and
// an OpenAPI path: host dropped, {name...} as {name}, {$} removed. A
// pattern without a method matches every method; it is documented as GET.
func SplitPattern(pattern string) (method, path string) {
	method, path, found := strings.Cut(strings.TrimSpace(pattern), " ")
	if !found {
		method, path = http.MethodGet, method
	}
	path = strings.TrimSpace(path)
	if i := strings.IndexByte(path, '/'); i > 0 {
		path = path[i:] // a host
	}
	path = strings.ReplaceAll(strings.ReplaceAll(path, "...}", "}"), "{$}", "")
	return strings.ToLower(method), path
}

var ParamRE = regexp.MustCompile(`\{([^}]*)\}`)

// Shape is a path with its parameter names blanked, so that patterns
// that differ only in names compare equal.
func Shape(path string) string { return ParamRE.ReplaceAllString(path, "{}") }

func PathParams(path string) []string {
	var names []string
	for _, m := range ParamRE.FindAllStringSubmatch(path, -1) {
		names = append(names, m[1])
	}
	return names
}

// oaOperationFor builds the operation of one route.
func oaOperationFor(f Facts, rt Route, method, path string, m oaOp, known bool) *oaOperation {
	op := &oaOperation{
		OperationID: m.ID, Summary: m.Summary, Deprecated: m.Deprecated,
		Tags: []string{m.Tag}, Responses: map[string]*oaResponse{},
	}
	if op.OperationID == "" {
		op.OperationID = oaGeneratedID(method, path)
	}
	if m.Tag == "" {
		op.Tags[0] = oaTagFor(path)
	}
	for _, name := range PathParams(path) {
		op.Parameters = append(op.Parameters, oaPathParam(name, m.Params[name]))
	}
	op.Parameters = append(op.Parameters, m.Query...)

	hasBody := m.Body != nil
	if !known && (method == "post" || method == "put" || method == "patch") {
		hasBody = true // undocumented: assume a body and its errors
	}
	if m.Body != nil {
		op.RequestBody = &oaRequestBody{
			Required: !m.BodyOpt,
			Content:  map[string]oaMedia{"application/json": {Schema: m.Body}},
		}
	}

	success := oaSuccess(m)
	if !known {
		success = &oaResponse{Description: "Success; the answer is not described here yet."}
	}
	op.Responses[oaSuccessStatus(method, m, known)] = success
	for code, r := range m.More {
		op.Responses[code] = r
	}
	errs := slices.Clone(m.Errors)
	if rt.Auth != "none" {
		errs = append(errs, http.StatusUnauthorized, http.StatusForbidden)
		if len(m.Query) > 0 {
			errs = append(errs, http.StatusBadRequest)
		}
		if len(PathParams(path)) > 0 {
			errs = append(errs, http.StatusNotFound)
		}
	}
	if hasBody {
		errs = append(errs, http.StatusBadRequest, http.StatusRequestEntityTooLarge, http.StatusUnsupportedMediaType)
	}
	for _, code := range errs {
		op.Responses[strconv.Itoa(code)] = &oaResponse{Ref: "#/components/responses/" + oaErrorNames[code]}
	}
	if rt.Auth == "admin" && method != "get" && method != "head" && rt.Pattern != f.MaintenancePattern && op.Responses["503"] == nil {
		op.Responses["503"] = &oaResponse{Ref: "#/components/responses/" + oaErrorNames[http.StatusServiceUnavailable]}
	}

	var access string
	switch rt.Auth {
	case "admin":
		op.Security = []map[string][]string{{"adminToken": {}}, {"session": {}}}
		op.Permission = rt.Permission
		if rt.Permission == f.ReadPermission || rt.Permission == "" {
			access = "Any signed-in user, personal access token or admin token may call this (permission `READ`)."
		} else {
			access = "Requires `" + string(rt.Permission) + "`: a user whose root role (or a group's) grants it, an admin token, or"
			if strings.Contains(rt.Pattern, "{projectId}") || strings.Contains(rt.Pattern, "{featureName}") {
				access += " a user whose project role (Owner or Member) in the project grants it."
			} else {
				access = strings.TrimSuffix(access, ", or") + "."
			}
		}
	case "client":
		op.Security = []map[string][]string{{"clientToken": {}}}
		access = "Authenticate with a client token; it decides the environment and the projects served."
	case "frontend":
		op.Security = []map[string][]string{{"frontendToken": {}}}
		access = "Authenticate with a frontend token; it decides the environment and the projects served."
	default:
		access = "No authentication."
	}
	op.Description = strings.TrimSpace(m.Description + "\n\n" + access)
	return op
}

func oaSuccessStatus(method string, m oaOp, known bool) string {
	switch {
	case m.Status != 0:
		return strconv.Itoa(m.Status)
	case known || method == "get":
		return "200"
	}
	return "2XX" // undocumented: whatever success the handler answers
}

func oaSuccess(m oaOp) *oaResponse {
	r := &oaResponse{Description: m.RespDesc}
	if r.Description == "" {
		r.Description = "Success."
		if m.Resp == nil {
			r.Description = "Success; no body."
		}
	}
	if m.Resp != nil {
		ct := m.RespType
		if ct == "" {
			ct = "application/json"
		}
		r.Content = map[string]oaMedia{ct: {Schema: m.Resp}}
	}
	for name, desc := range m.Headers {
		if r.Headers == nil {
			r.Headers = map[string]*oaHeader{}
		}
		r.Headers[name] = &oaHeader{Description: desc, Schema: oaString()}
	}
	return r
}

// oaPathParam describes a path parameter: a string unless the operation
// or the list of well-known names says otherwise.
func oaPathParam(name string, override Schema) *oaParameter {
	p := &oaParameter{Name: name, In: "path", Required: true, Schema: oaString()}
	for _, info := range []Schema{oaKnownParams[name], override} {
		if info.Description != "" {
			p.Description = info.Description
		}
		if info.Type != "" {
			p.Schema = &Schema{Type: info.Type}
		}
	}
	return p
}

// oaKnownParams describe path parameters by name (Type and Description
// only).
var oaKnownParams = map[string]Schema{
	"projectId":    {Description: "Id of the project."},
	"featureName":  {Description: "Name of the feature flag."},
	"child":        {Description: "Name of the dependent (child) feature flag."},
	"parent":       {Description: "Name of the parent feature flag."},
	"environment":  {Description: "Name of the environment."},
	"strategyId":   {Description: "Id of the feature strategy."},
	"strategyName": {Description: "Name of the strategy type."},
	"contextField": {Description: "Name of the context field."},
	"type":         {Description: "Tag type."},
	"value":        {Description: "Tag value."},
	"token":        {Description: "The token's id or its full secret."},
	"roleId":       {Type: "integer", Description: "Id of the role."},
	"groupId":      {Type: "integer", Description: "Id of the group."},
	"userId":       {Type: "integer", Description: "Id of the user."},
}

// oaGeneratedID makes an operationId from the method and path:
// "GET /api/admin/projects/{projectId}" → "getAdminProjectsByProjectId".
func oaGeneratedID(method, path string) string {
	var b strings.Builder
	b.WriteString(method)
	for _, seg := range strings.Split(strings.TrimPrefix(path, "/api"), "/") {
		if strings.HasPrefix(seg, "{") {
			b.WriteString("By")
			seg = strings.Trim(seg, "{}")
		}
		for _, word := range strings.FieldsFunc(seg, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
			r := []rune(word)
			b.WriteString(string(unicode.ToUpper(r[0])) + string(r[1:]))
		}
	}
	return b.String()
}

// oaTagFor names the area of a path: the API for client, frontend and
// operational paths; the first segment after /api/admin (or after
// /api/admin/projects/{projectId}) for admin paths.
func oaTagFor(path string) string {
	segs := strings.Split(strings.Trim(path, "/"), "/")
	at := func(i int) string {
		if i < len(segs) {
			return segs[i]
		}
		return ""
	}
	switch {
	case at(0) == "api" && at(1) == "client":
		return "Client API"
	case at(0) == "api" && at(1) == "frontend":
		return "Frontend API"
	case at(0) == "api" && at(1) == "admin" && at(2) != "":
		area := at(2)
		switch {
		case area == "projects" && at(4) != "":
			if tag, ok := oaProjectAreaTags[at(4)]; ok {
				return tag
			}
			return "Projects"
		case area == "user" && at(3) == "tokens":
			return "Personal access tokens"
		case area == "search" && at(3) != "":
			area = at(3)
		}
		if tag, ok := oaAreaTags[area]; ok {
			return tag
		}
		return oaTitle(area)
	}
	if tag, ok := oaAreaTags[at(0)]; ok {
		return tag
	}
	return oaTitle(at(0))
}

var oaAreaTags = map[string]string{
	"auth": "Auth", "logout": "Auth", "health": "Operational", "ready": "Operational",
	"internal-backstage": "Operational", "docs": "Documentation", "edge": "Edge",
	"projects": "Projects", "features": "Features", "archive": "Archive", "features-batch": "Import and export",
	"strategies": "Strategies", "segments": "Segments", "environments": "Environments", "context": "Context",
	"tags": "Tags", "tag-types": "Tags", "user": "Users", "user-admin": "Users", "users": "Users",
	"api-tokens": "API tokens", "events": "Events", "client-metrics": "Metrics", "metrics": "Metrics",
	"feature-types": "Feature types", "groups": "Groups", "roles": "Roles", "playground": "Playground",
}

var oaProjectAreaTags = map[string]string{
	"features": "Features", "api-tokens": "API tokens", "context": "Context",
	"archive": "Archive", "revive": "Archive", "delete": "Archive",
}

// oaTitle makes "tag-types" into "Tag types".
func oaTitle(s string) string {
	if s == "" {
		return "Other"
	}
	s = strings.ReplaceAll(s, "-", " ")
	return strings.ToUpper(s[:1]) + s[1:]
}

// oaTagList lists the tags in use: known ones in a reading order with
// their descriptions, then the others alphabetically.
func oaTagList(used map[string]bool) []oaTag {
	var out []oaTag
	for _, t := range oaKnownTags {
		if used[t.Name] {
			out = append(out, t)
			delete(used, t.Name)
		}
	}
	var rest []string
	for name := range used {
		rest = append(rest, name)
	}
	slices.Sort(rest)
	for _, name := range rest {
		out = append(out, oaTag{Name: name})
	}
	return out
}

var oaKnownTags = []oaTag{
	{"Client API", "What server-side SDKs and proxies poll: flag configuration for local evaluation, plus registration and usage metrics."},
	{"Frontend API", "Flags evaluated on the server for one context, for browser and mobile SDKs."},
	{"Auth", "Signing in with a password and out again."},
	{"Operational", "Liveness, readiness and Prometheus metrics."},
	{"Projects", "Projects group flags; members and health reports."},
	{"Features", "Feature flags, their per-environment state, strategies, variants, tags and dependencies."},
	{"Archive", "Archived feature flags: revive or delete them for good."},
	{"Strategies", "Strategy types that feature strategies use, built in or custom."},
	{"Segments", "Reusable, named lists of constraints."},
	{"Environments", "Environments such as development and production."},
	{"Context", "Context fields that constraints compare."},
	{"Tags", "Tags and tag types."},
	{"Users", "Users, root roles, the own profile and passwords."},
	{"Personal access tokens", "Tokens that act as the user who made them."},
	{"API tokens", "Admin, client and frontend tokens."},
	{"Events", "The audit log."},
	{"Feature types", "Kinds of flags and how long each kind is expected to live."},
	{"Metrics", "Flag usage reported by SDKs, and the applications that report it."},
	{"Import and export", "Moving flags between instances."},
	{"Documentation", "This document and its interactive viewer."},
	{"Edge", "What Edge-style nodes ask of their upstream before serving SDKs."},
}

// oaErrorNames names the shared error responses by status.
var oaErrorNames = map[int]string{
	http.StatusBadRequest:            "BadRequest",
	http.StatusUnauthorized:          "Unauthorized",
	http.StatusForbidden:             "Forbidden",
	http.StatusNotFound:              "NotFound",
	http.StatusConflict:              "Conflict",
	http.StatusRequestEntityTooLarge: "PayloadTooLarge",
	http.StatusUnsupportedMediaType:  "UnsupportedMediaType",
	http.StatusTooManyRequests:       "TooManyRequests",
	http.StatusServiceUnavailable:    "Maintenance",
}

func oaErrorResponses() map[string]*oaResponse {
	desc := map[int]string{
		http.StatusBadRequest:            "The request is invalid: malformed JSON, a body or parameter that breaks the schema (`ValidationError`, `BadDataError`) or a change that is not allowed (`BadRequestError`).",
		http.StatusUnauthorized:          "No credentials, or credentials that are unknown or expired (`AuthenticationRequired`, whose record also has `path` and `type` pointing to the password login); at sign-in, a wrong password (`PasswordMismatch`).",
		http.StatusForbidden:             "The credentials are valid but do not allow this (`NoAccessError`): a missing permission, named in the message with the environment where it applies, or a token of the wrong kind.",
		http.StatusNotFound:              "Something named in the path does not exist (`NotFoundError`).",
		http.StatusConflict:              "The name or id is taken, or the change conflicts with the current state (`NameExistsError`, `ConflictError`).",
		http.StatusRequestEntityTooLarge: "The body is larger than 2 MiB (`PayloadTooLargeError`).",
		http.StatusUnsupportedMediaType:  "The body is not declared as JSON (`ContentTypeError`); send `Content-Type: application/json`.",
		http.StatusTooManyRequests:       "Too many failed attempts; wait and try again (`TooManyRequestsError`).",
		http.StatusServiceUnavailable:    "Maintenance mode is on (`NotReadyError`): admin changes are refused until it is switched off.",
	}
	out := map[string]*oaResponse{}
	for code, name := range oaErrorNames {
		out[name] = &oaResponse{
			Description: desc[code],
			Content:     map[string]oaMedia{"application/json": {Schema: oaRef("ErrorRecord")}},
		}
	}
	return out
}

func oaSecuritySchemes(f Facts) map[string]*oaSecurityScheme {
	return map[string]*oaSecurityScheme{
		"adminToken": {Type: "apiKey", In: "header", Name: "Authorization",
			Description: "An admin token (`*:*.<secret>`) or a personal access token, raw or after `Bearer `."},
		"session": {Type: "apiKey", In: "cookie", Name: f.SessionCookie,
			Description: "The session cookie that `POST /auth/simple/login` sets. Changes (POST, PUT, PATCH, DELETE) made with it must come from the server's own pages, not from another site's (403), and send any body as JSON with `Content-Type: application/json` (415). Requests with a token are not limited so."},
		"clientToken": {Type: "apiKey", In: "header", Name: "Authorization",
			Description: "A client token, `<project>:<environment>.<secret>`, raw or after `Bearer `."},
		"frontendToken": {Type: "apiKey", In: "header", Name: "Authorization",
			Description: "A frontend token, `<project>:<environment>.<secret>`, raw or after `Bearer `."},
	}
}

const oaIntro = `Signalbox is a feature-flag server that speaks the Unleash wire protocol, so Unleash SDKs, proxies and tooling work against it unchanged.

* **Client API** (` + "`/api/client`" + `): flag configuration for server-side SDKs, which evaluate locally. Client token.
* **Frontend API** (` + "`/api/frontend`" + `): flags evaluated for one context, for browser SDKs. Frontend token.
* **Admin API** (` + "`/api/admin`" + `): managing projects, flags, strategies, segments, users and tokens. Admin token, personal access token or session cookie.

### Tokens
Tokens have the form ` + "`<project>:<environment>.<secret>`" + `; ` + "`*`" + ` as project means every project, and admin tokens are ` + "`*:*.<secret>`" + `. Send the token as the whole ` + "`Authorization`" + ` header, with or without ` + "`Bearer `" + `. A token of the wrong kind is refused with 403; a missing, unknown or expired one with 401.

### Root roles
Users hold one root role, given by id or name: Admin 1 (everything), Editor 2 (everything but administration: users, roles, admin tokens, instance settings), Viewer 3 (read only), Owner 4 and Member 5 (project roles, which grant nothing at root level). Every admin operation names the permission it needs.

### Errors
Every failure is an ` + "`ErrorRecord`" + `: ` + "`id`" + ` (also written to the server log for internal errors), ` + "`name`" + ` (the kind, such as ` + "`ValidationError`" + ` or ` + "`NotFoundError`" + `), ` + "`message`" + ` and ` + "`details`" + `. Each kind has exactly one HTTP status.

### Where Signalbox differs from Unleash
* ` + "`sendEmail`" + ` when creating a user is recorded, but no e-mail is sent: Signalbox has no mail delivery.
* A JSON Patch that addresses a missing path is a 400, not a 500.
* ` + "`PUT`" + ` on a flag changes only the properties sent.`
