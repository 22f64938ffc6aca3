package openapi

import (
	"net/http"

	"github.com/signalbox/signalbox/store"
)

// describedOps adds what the route table cannot know to the operations of the
// OpenAPI document, keyed by route pattern. Parameter names in the keys
// do not matter ("{projectId}" matches a route's "{project}"); entries for
// routes that are not registered are ignored, and routes without an entry
// are still documented, with generic responses. Operation ids are
// Unleash's where it has the operation, so generated clients keep their
// method names.
func describedOps(f Facts) map[string]oaOp {
	return map[string]oaOp{
		// Operational and authentication.
		"GET /health": {ID: "getHealth", Summary: "Liveness", Resp: oaRef("Health"),
			Description: "Answers GOOD while the process serves requests; it does not touch the database."},
		"GET /ready": {ID: "getReady", Summary: "Readiness", Resp: oaRef("Health"),
			Description: "Answers GOOD while the database answers and takes writes.",
			More:        map[string]*oaResponse{"503": oaJSON("The database does not answer, or refuses writes for lack of disk space (`message` says which).", oaRef("Health"))}},
		"GET /internal-backstage/prometheus": {ID: "getPrometheusMetrics", Summary: "Prometheus metrics",
			Resp: oaString(), RespType: "text/plain", RespDesc: "Metrics in the Prometheus text format, including `feature_toggle_usage_total` from SDK metrics."},
		"POST /auth/simple/login": {ID: "login", Summary: "Sign in with a password", Body: oaRef("Login"), Resp: oaRef("User"),
			Description: "Starts a session. The answer sets the session cookie, which then authenticates admin API calls. `username` may be the username or the e-mail (at most 256 characters); `password` at most 1,024. " +
				"Failed attempts are limited per account (username and e-mail together) and per client address: after 5 failures for an account (30 for an address) each further one doubles the wait before the next attempt, from 1 second up to 5 minutes; a success clears the account's count. " +
				"A refused attempt is a 429 whose message and `Retry-After` say how many seconds to wait. From a browser, only the server's own pages may sign in (403 otherwise).",
			Headers: map[string]string{"Set-Cookie": "The `" + f.SessionCookie + "` session cookie (HttpOnly, SameSite=Lax)."},
			Errors:  []int{http.StatusUnauthorized, http.StatusForbidden, http.StatusTooManyRequests}},
		"POST /auth/logout": {ID: "logout", Summary: "Sign out",
			Description: "Ends the session of the cookie, if any. From a browser, only the server's own pages may sign out (403 otherwise). A page's form post (`Accept: text/html`) is redirected to `/` (303).",
			Errors:      []int{http.StatusForbidden}},
		"POST /logout": {ID: "logoutPost", Summary: "Sign out", Description: "Same as `POST /auth/logout`.", Errors: []int{http.StatusForbidden}},
		"GET /auth/saml/metadata": {ID: "getSamlMetadata", Summary: "SAML service provider metadata", Tag: "Auth",
			Resp: oaString(), RespType: "application/samlmetadata+xml",
			Description: "The SAML 2.0 metadata of this server as a service provider: entity id (this URL), assertion consumer service (`/auth/saml/callback`, HTTP-POST) and signing certificate. Import it into the identity provider. The key pair is generated at first use and kept in the database. URLs are built from the server's public URL (`SIGNALBOX_URL`), never from request headers; 503 when it is not configured.", More: oaSAMLNoPublicURL},
		"GET /auth/saml/login": {ID: "samlLogin", Summary: "Sign in with SAML", Tag: "Auth", Status: http.StatusFound,
			RespDesc: "Redirects to the identity provider's `signOnUrl` with a signed authentication request (HTTP-Redirect binding).",
			Headers: map[string]string{"Location": "The identity provider's sign-on URL with `SAMLRequest`, `SigAlg` and `Signature`.",
				"Set-Cookie": "`" + f.SAMLRequestCookie + "`: the ids of this browser's pending requests, signed, for 10 minutes."},
			Description: "Starts a SAML sign-in. 404 while SAML is not enabled; 503 when the server's public URL (`SIGNALBOX_URL`) is not configured.", Errors: []int{http.StatusNotFound}, More: oaSAMLNoPublicURL},
		"POST /auth/saml/callback": {ID: "samlCallback", Summary: "SAML assertion consumer service", Tag: "Auth", Status: http.StatusFound,
			RespDesc:    "Signed in; redirects to `/`.",
			Headers:     map[string]string{"Location": "`/`", "Set-Cookie": "The `" + f.SessionCookie + "` session cookie (HttpOnly, SameSite=Lax)."},
			Description: "The identity provider posts its answer here as a form (`SAMLResponse`, HTTP-POST binding). The answer must be signed with the configured certificate, name this server as audience, be within its validity period and answer a sign-in started in this browser; each answer signs in once (its ids are kept in the database until it expires, for every instance). The person is found by e-mail address (NameID or an e-mail attribute); an unknown person is created with `defaultRootRole` when `autoCreate` is on and the address's domain is in `emailDomains` (event `user-created`). The person's memberships of groups with `mappingsSSO` then follow the groups in the answer (attribute `groups`, `memberOf` or similar): they join the groups whose mappings name one of them (event `group-user-added`) and leave those whose mappings name none (event `group-user-removed`); groups without mappings are left alone. 401 when the answer is not accepted or the person may not sign in; 404 while SAML is not enabled; 503 when the server's public URL (`SIGNALBOX_URL`) is not configured.",
			Errors:      []int{http.StatusBadRequest, http.StatusUnauthorized, http.StatusNotFound, http.StatusUnsupportedMediaType}, More: oaSAMLNoPublicURL},
		"GET /api/admin/auth/saml/settings": {ID: "getSamlSettings", Summary: "Get the SAML settings", Tag: "Auth", Resp: oaSAMLSettings(),
			Description: "The stored SAML sign-on settings; before any were saved, SAML is disabled and the strings are empty."},
		"POST /api/admin/auth/saml/settings": {ID: "setSamlSettings", Summary: "Save the SAML settings", Tag: "Auth", Body: oaSAMLSettings(), Resp: oaSAMLSettings(),
			Description: "Replaces the SAML sign-on settings and answers them as stored. SAML can be `enabled` only when the server's public URL (`SIGNALBOX_URL`) is configured. `entityId` is any string of at most 1024 characters without control characters, `signOnUrl` an http(s) URL, `certificate` must parse as X.509 (and, when enabled, not be expired), `defaultRootRole` one of Viewer, Editor, Admin, and `autoCreate` needs `emailDomains`. Event `setting-updated`."},
		"GET /api/admin/ui-config": {ID: "getUiConfig", Summary: "Get the instance configuration", Tag: "Admin UI", Resp: oaUIConfig(),
			Description: "Unleash's UI configuration, reduced to what this server has: its version and address, and `frontendApiOrigins`, the origins the frontend API allows (CORS)."},
		"POST /api/admin/ui-config/cors": {ID: "setCors", Summary: "Set the frontend API's allowed origins", Tag: "Admin UI", Body: oaFrontendSettings(), Status: http.StatusNoContent,
			Description: "Replaces the origins browser SDKs may call the frontend API (`/api/frontend` and below) from. Each entry is `*` or an origin as browsers send it (`https://app.example.com`, `http://localhost:3000`: no path, no trailing slash, no default port); `*` or an empty list allows any origin. Until this is first saved, the server's configured default applies (`UNLEASH_FRONTEND_API_ORIGINS`, default `*`). Takes effect on the next request. Event `setting-created` the first time, then `setting-updated`."},
		"GET /docs/openapi.json": {ID: "getOpenApiDocument", Summary: "This OpenAPI document", Resp: oaObject(nil),
			Description: "Generated from the routes the server registered, so it lists every endpoint."},
		"GET /docs/openapi": {ID: "getOpenApiUiRedirect", Summary: "Redirect to the API explorer", Status: http.StatusMovedPermanently,
			RespDesc: "Redirects to `/docs/openapi/`.", Headers: map[string]string{"Location": "`/docs/openapi/`"}},
		"GET /docs/openapi/": {ID: "getOpenApiUi", Summary: "Interactive API explorer", Resp: oaString(), RespType: "text/html",
			Description: "Swagger UI for this document, and below this path its scripts and styles. Everything is served from the binary; nothing is loaded from other sites."},

		// The admin web UI: every page path answers the same HTML shell, whose
		// script renders the page named by the path.
		"GET /":                     oaUIPage("getUiHome", "Admin web UI: start page (redirects to the projects)"),
		"GET /login":                oaUIPage("getUiLogin", "Admin web UI: sign-in page"),
		"GET /projects":             oaUIPage("getUiProjects", "Admin web UI: projects"),
		"GET /projects/{projectId}": oaUIPage("getUiProject", "Admin web UI: a project's flags"),
		"GET /projects/{projectId}/features/{featureName}": oaUIPage("getUiFeature", "Admin web UI: one flag"),
		"GET /archive":      oaUIPage("getUiArchive", "Admin web UI: archived flags"),
		"GET /events":       oaUIPage("getUiEvents", "Admin web UI: event log"),
		"GET /playground":   oaUIPage("getUiPlayground", "Admin web UI: playground"),
		"GET /segments":     oaUIPage("getUiSegments", "Admin web UI: segments"),
		"GET /context":      oaUIPage("getUiContext", "Admin web UI: context fields"),
		"GET /environments": oaUIPage("getUiEnvironments", "Admin web UI: environments"),
		"GET /assets/{path}": {ID: "getUiAsset", Summary: "Admin web UI: scripts and styles", Tag: "Web UI", Resp: oaString(), RespType: "text/javascript",
			RespDesc:    "The file, `text/javascript` or `text/css`, cached as immutable: the first path segment is a hash over every file of the UI, so a new build has new URLs.",
			Headers:     map[string]string{"ETag": "The file's hash.", "Cache-Control": "`public, max-age=31536000, immutable`"},
			Description: "Files of the web UI, embedded in the binary. 404 for unknown files and for the hash of another build.",
			More:        map[string]*oaResponse{"304": {Description: "Not modified (If-None-Match)."}}, Errors: []int{http.StatusNotFound}},
		"GET /auth/providers": {ID: "getAuthProviders", Summary: "Ways to sign in", Tag: "Auth",
			Resp:        oaObject(map[string]*Schema{"password": oaBool(), "saml": oaBool()}),
			Description: "Which sign-in methods are on: `password` always, `saml` when SAML sign-in is enabled. The sign-in page uses it to show its SAML button."},

		// Client API.
		"GET /api/client/features": {ID: "getAllClientFeatures", Summary: "Flag configuration for server-side SDKs", Resp: oaRef("Features"),
			Description: "Every flag the token may see, with the strategies, variants and segments SDKs need to evaluate locally. The answer is cached per store revision; poll with `If-None-Match` to get a cheap 304 while nothing changed.",
			Query: []*oaParameter{
				oaQuery("namePrefix", "Only flags whose name starts with this.", oaString()),
				oaQuery("project", "Only flags of these projects (within the token's).", oaStrings()),
				oaQuery("tag", "Only flags with one of these tags, each `type:value`.", oaStrings()),
				{Name: "If-None-Match", In: "header", Description: "An ETag of an earlier answer; strong or weak form, a list or `*`.", Schema: oaString()},
			},
			Headers: map[string]string{"ETag": "Changes whenever the answer would; send it back in `If-None-Match`.", "Cache-Control": "`no-cache`",
				"fetch-mode": "`streaming` to an SDK instance (told apart by `unleash-connection-id`, else `unleash-appname` and `unleash-instanceid`) that held a stream on the cluster within the last day, or to every SDK with `SIGNALBOX_ADVERTISE_STREAMING=all`: it then goes back to its stream. Such an instance gets this 200 once even when its ETag matches, as SDKs read the header on a 200 only. `polling` while the server would refuse a stream (at its limit, shutting down)."},
			More: map[string]*oaResponse{"304": {Description: "Not modified since the ETag sent; no body."}}},
		"GET /api/client/delta": {ID: "getClientFeaturesDelta", Summary: "Changes since a revision, for delta polling", Resp: oaDeltaEvents(),
			Description: "The events that bring an SDK from the revision in `If-None-Match` to the newest: `segment-updated`, `feature-updated`, `feature-removed`, `segment-removed`. Without `If-None-Match`, or with a revision this server no longer remembers (it keeps the last 100 per environment), the answer is one `hydration` event with the whole scope, even an empty one. The `ETag` is the revision.",
			Query: []*oaParameter{
				oaQuery("namePrefix", "Only flags whose name starts with this.", oaString()),
				oaQuery("project", "Only flags of these projects (within the token's).", oaStrings()),
				oaQuery("tag", "Only flags with one of these tags, each `type:value`.", oaStrings()),
				{Name: "If-None-Match", In: "header", Description: "The ETag (revision) of the last answer applied.", Schema: oaString()},
			},
			Headers: map[string]string{"ETag": "The revision the events lead to, quoted.", "fetch-mode": "As on `GET /api/client/features`, without the 200 in place of a 304."},
			More:    map[string]*oaResponse{"304": {Description: "Nothing the scope sees changed since the revision sent."}}},
		"GET /api/client/streaming": {ID: "streamClientFeatures", Summary: "Flag changes as Server-Sent Events", Resp: oaString(), RespType: "text/event-stream",
			RespDesc:    "Events `unleash-connected` (first: a hydration, or with a `Last-Event-ID` still remembered the events since) and `unleash-updated`, each with `id:` the revision and data `{\"events\":[...]}` as `GET /api/client/delta` answers; comment heartbeats. At shutdown the stream just ends (no `fetch-mode` event), so that SDKs reconnect.",
			Description: "Streams the token's scope (no filters) to server-side SDKs (`unleash-client` `experimentalMode: {type: 'streaming'}`). 429 when the server serves its maximum of streams: SDKs then poll, and are asked back by `fetch-mode: streaming` on a poll once there is room.",
			Query:       []*oaParameter{{Name: "Last-Event-ID", In: "header", Description: "The last revision received; replayed from when still remembered, otherwise a hydration.", Schema: oaString()}},
			Errors:      []int{http.StatusTooManyRequests}},
		"GET /api/client/features/{featureName}": {ID: "getClientFeature", Summary: "One flag's configuration", Resp: oaRef("Feature"),
			Description: "One flag as `GET /api/client/features` lists it; 404 when the token cannot see it."},
		"POST /api/client/register": {ID: "registerClientApplication", Summary: "Register an SDK instance", Body: oaRef("Registration"), Status: http.StatusAccepted,
			Description: "SDKs announce themselves at start; the application and instance then show on the admin API, in the token's environment (a token of every environment may name an existing one). Names are at most 200 bytes and at most 100 strategies are listed (400 otherwise); past 1,000 tracked applications or 1,000 instances of one, registrations are answered 202 but not kept."},
		"POST /api/client/metrics": {ID: "registerClientMetrics", Summary: "Report flag usage", Body: oaRef("ClientMetrics"), Status: http.StatusAccepted,
			Description: "Counts are buffered and written to the store periodically (every 10 seconds by default); they also feed the `feature_toggle_usage_total` Prometheus counter. Only flags of the token's projects count, for the token's environment (a token of every environment may name an existing one); other names, and entries past the server's bounds, are dropped and counted in `feature_toggle_usage_dropped_total`."},
		"POST /api/client/metrics/bulk": {ID: "clientBulkMetrics", Summary: "Report usage for many applications", Status: http.StatusAccepted,
			Body: oaObject(oaProps{
				"applications": oaArray(oaRef("Registration")).d("Registrations of the SDKs behind the sender, at most 10,000."),
				"metrics": oaArray(oaObject(oaProps{
					"featureName": oaString(), "appName": oaString(), "environment": oaString(), "timestamp": oaDateTime(),
					"yes": oaInteger(), "no": oaInteger(), "variants": oaObject(nil),
				}).req("featureName", "appName", "environment")).d("Per-flag counts, at most 10,000."),
			}).req("applications", "metrics"),
			Description: "What an Edge-style node sends for the SDKs behind it: each registration and each application's counts are taken as if that SDK had sent them with the node's token, within the same bounds as `/api/client/metrics`."},

		// Frontend API.
		"GET /api/frontend": {ID: "getFrontendFeatures", Summary: "Enabled flags for a context", Resp: oaRef("Toggles"), Query: oaContextQuery(),
			Description: "Evaluates every flag for the context given as query parameters and lists those that are on."},
		"POST /api/frontend": {ID: "getFrontendApiFeaturesWithPost", Summary: "Evaluate flags for a context", Body: oaRef("FrontendRequest"), BodyOpt: true, Resp: oaRef("Toggles"),
			Description: "Like the GET form with the context in the body. With `toggles`, exactly those flags are listed, on or off; without a body, every enabled flag."},
		"GET /api/frontend/all": {ID: "getAllFrontendFeatures", Summary: "All flags for a context", Resp: oaRef("Toggles"), Query: oaContextQuery(),
			Description: "Like `GET /api/frontend`, but flags that are off are listed too."},
		"POST /api/frontend/all": {ID: "getAllFrontendFeaturesWithPost", Summary: "All flags for a context", Body: oaRef("FrontendRequest"), BodyOpt: true, Resp: oaRef("Toggles"),
			Description: "Like `POST /api/frontend`, but flags that are off are listed too."},
		// CORS preflights (OPTIONS) of the frontend API are answered by its
		// CORS policy and are not documented as operations.
		"POST /api/frontend/client/metrics":  {ID: "registerFrontendMetrics", Summary: "Report flag usage from a browser SDK", Body: oaRef("ClientMetrics")},
		"POST /api/frontend/client/register": {ID: "registerFrontendClient", Summary: "Register a browser SDK", Body: oaRef("Registration")},

		// Projects.
		"GET /api/admin/projects":             {ID: "getProjects", Summary: "List projects", Resp: oaRef("Projects")},
		"POST /api/admin/projects":            {ID: "createProject", Summary: "Create a project", Body: oaRef("CreateProject"), Status: http.StatusCreated, Resp: oaRef("Project"), Errors: []int{http.StatusConflict}},
		"GET /api/admin/projects/{projectId}": {ID: "getProject", Summary: "Get a project", Resp: oaRef("Project")},
		"PUT /api/admin/projects/{projectId}": {ID: "updateProject", Summary: "Update a project", Body: oaRef("UpdateProject"), Resp: oaRef("Project")},
		"DELETE /api/admin/projects/{projectId}": {ID: "deleteProject", Summary: "Delete a project",
			Description: "Only a project without flags (archived ones included) and without tokens scoped to it can be deleted; the default project never.", Errors: []int{http.StatusBadRequest}},
		"GET /api/admin/projects/{projectId}/health-report": {ID: "getProjectHealthReport", Summary: "Project health report", Resp: oaRef("HealthReport"),
			Description: "The project's active flags with counts of active, stale and potentially stale ones and an overall health rating.\n\n" +
				"- A flag is **potentially stale** when it is not marked stale and is older than its flag type's lifetime (`lifetimeDays`); types without a lifetime never make flags potentially stale.\n" +
				"- `activeCount` counts the flags not marked stale (potentially stale ones included), `staleCount` those marked stale, `potentiallyStaleCount` the potentially stale ones.\n" +
				"- `health` is the percentage, rounded to a whole number, of the active flags that are neither stale nor potentially stale; 100 when there are none.\n" +
				"- `stats` compare two windows: the current one is the last 30 days, the past one the 30 days before. Created and archived counts come from the flags' creation and archiving times (deleted flags are not counted); `projectActivity…` counts the project's audit events; `projectMembersAddedCurrentWindow` counts the users given access by `project-user-added` and `project-access-added` events; `avgTimeToProdCurrentWindow` is the mean time to production (see the DORA endpoint) of the flags that first reached production in the current window, 0 when none did.\n" +
				"- `environments` show each environment's default strategy; without a project default it is the built-in gradual rollout to 100% (its empty `groupId` stands for the flag's name)."},
		"GET /api/admin/projects/{projectId}/dora": {ID: "getProjectDora", Summary: "Time to production", Resp: oaRef("DoraMetrics"),
			Description: "For each flag of the project (archived ones included) that reached production, the days from its creation until it was first enabled (event `feature-environment-enabled`) in an environment of type `production`, rounded to one decimal. " +
				"Flags that never reached production are not listed. `projectAverage` is the mean over the listed flags, 0 when none is listed."},
		"GET /api/admin/projects/{projectId}/users": {ID: "getProjectUsers", Summary: "Project members and roles", Resp: oaRef("ProjectUsers"), Deprecated: true,
			Description: "Kept for older tools; use the project's access endpoints."},
		"POST /api/admin/projects/{projectId}/role/{roleId}/access": {ID: "addAccessToProject", Summary: "Grant a project role", Body: oaRef("RoleAccess"), Deprecated: true,
			Description: "Gives the role in the path to the listed users and groups. Kept for older tools; use the project's access endpoints."},
		"GET /api/admin/projects/{projectId}/access": {ID: "getProjectAccess", Summary: "Who holds which role in the project", Resp: oaProjectAccess(),
			Description: "The users and groups that hold project roles here, each with its roles, and the project roles there are. A group's roles apply to each of its members."},
		"POST /api/admin/projects/{projectId}/access": {ID: "addProjectAccess", Summary: "Grant project roles", Body: oaAddProjectAccess(),
			Description: "Grants each listed role to each listed user and group. Roles already held stay as they are. Granting to groups also needs `PROJECT_GROUP_ACCESS_WRITE`. The project's Owners hold both permissions in it."},
		"PUT /api/admin/projects/{projectId}/users/{userId}/roles": {ID: "setUserRoles", Summary: "Set a user's project roles", Body: oaRoleIDs(),
			Description: "The user holds exactly the listed project roles afterwards; an empty list removes them all. The project's Owners may do this."},
		"DELETE /api/admin/projects/{projectId}/users/{userId}/roles": {ID: "removeUserAccess", Summary: "Remove a user from the project",
			Description: "The user loses every role held in the project themselves (roles through groups stay). 404 when they hold none. The project's Owners may do this."},
		"PUT /api/admin/projects/{projectId}/groups/{groupId}/roles": {ID: "setGroupRoles", Summary: "Set a group's project roles", Body: oaRoleIDs(),
			Description: "The group holds exactly the listed project roles afterwards; an empty list removes them all. The project's Owners may do this."},
		"DELETE /api/admin/projects/{projectId}/groups/{groupId}/roles": {ID: "removeGroupAccess", Summary: "Remove a group from the project",
			Description: "The group loses every role it holds in the project. 404 when it holds none. The project's Owners may do this."},
		"POST /api/admin/projects/{projectId}/environments": {ID: "addEnvironmentToProject", Summary: "Enable an environment in the project", Body: oaRef("ProjectEnvironment"), Errors: []int{http.StatusConflict}},
		"POST /api/admin/projects/{projectId}/environments/{environment}/default-strategy": {ID: "addDefaultStrategyToProjectEnvironment", Summary: "Set the project's default strategy for an environment",
			Body: oaRef("CreateFeatureStrategy"), Resp: oaRef("CreateFeatureStrategy"),
			Description: "The strategy that turning a flag on adds when it has no enabled strategy."},
		"DELETE /api/admin/projects/{projectId}/environments/{environment}": {ID: "removeEnvironmentFromProject", Summary: "Disable an environment in the project"},
		"GET /api/admin/projects/{projectId}/api-tokens": {ID: "getProjectApiTokens", Summary: "List the project's tokens", Resp: oaRef("ApiTokens"),
			Description: "The client and frontend tokens that serve this project alone, as `GET /api/admin/api-tokens` lists tokens (never their secrets). 404 for an unknown project."},
		"POST /api/admin/projects/{projectId}/api-tokens": {ID: "createProjectApiToken", Summary: "Create a token for the project", Body: oaRef("CreateApiToken"),
			Status: http.StatusCreated, Resp: oaRef("ApiToken"),
			Description: "A client (`backend`) or frontend token of this project alone, as `POST /api/admin/api-tokens` would create with `projects: [projectId]`; a `project` or `projects` in the body may only name this project. Event `api-token-created`. 404 for an unknown project."},
		"DELETE /api/admin/projects/{projectId}/api-tokens/{token}": {ID: "deleteProjectApiToken", Summary: "Delete a project token",
			Description: "Deletes the token (by secret or id) when it serves this project alone; 404 for a token of other projects, 200 for one that does not exist (then without an event). Event `api-token-deleted`."},

		// Features.
		"GET /api/admin/projects/{projectId}/features": {ID: "getFeatures", Summary: "List the project's flags", Resp: oaRef("ProjectFeatures"),
			Description: "Archived flags are not listed."},
		"POST /api/admin/projects/{projectId}/features": {ID: "createFeature", Summary: "Create a flag", Body: oaRef("CreateFeature"), Status: http.StatusCreated, Resp: oaRef("AdminFeature"),
			Description: "The flag starts off in every environment.", Errors: []int{http.StatusConflict}},
		"POST /api/admin/features/validate": {ID: "validateFeature", Summary: "Check that a flag name is valid and free", Body: oaRef("ValidateFeature"),
			Errors: []int{http.StatusConflict}},
		"GET /api/admin/projects/{projectId}/features/{featureName}": {ID: "getFeature", Summary: "Get a flag", Resp: oaRef("AdminFeature")},
		"POST /api/admin/projects/{projectId}/features/{featureName}/link": {ID: "createFeatureLink", Summary: "Link a flag to a URL", Status: http.StatusNoContent,
			Body:        oaRef("Link"),
			Description: "Adds a link (an http or https URL of at most 2,000 characters, an optional title of at most 100) to the flag; links show in the flag's answer under `links`, with the id the server gave them. At most 50 per flag. 400 for an archived flag. Event: `feature-link-added`."},
		"PUT /api/admin/projects/{projectId}/features/{featureName}/link/{linkId}": {ID: "updateFeatureLink", Summary: "Change a flag's link", Status: http.StatusNoContent,
			Body: oaRef("Link"), Description: "Replaces the link's URL and title. 404 when the flag has no such link. Event: `feature-link-updated`."},
		"DELETE /api/admin/projects/{projectId}/features/{featureName}/link/{linkId}": {ID: "deleteFeatureLink", Summary: "Remove a flag's link", Status: http.StatusNoContent,
			Description: "404 when the flag has no such link. Event: `feature-link-removed`."},
		"PUT /api/admin/projects/{projectId}/features/{featureName}": {ID: "updateFeature", Summary: "Update a flag's metadata", Body: oaRef("UpdateFeature"), Resp: oaRef("AdminFeature"),
			Description: "Only the properties sent change; `archived: true` archives the flag."},
		"PATCH /api/admin/projects/{projectId}/features/{featureName}": {ID: "patchFeature", Summary: "Patch a flag's metadata", Body: oaRef("Patch"), Resp: oaRef("AdminFeature")},
		"DELETE /api/admin/projects/{projectId}/features/{featureName}": {ID: "archiveFeature", Summary: "Archive a flag", Status: http.StatusAccepted,
			Description: "The flag leaves the client payload; it can be revived from the archive."},
		"POST /api/admin/projects/{projectId}/features/{featureName}/clone": {ID: "cloneFeature", Summary: "Copy a flag", Body: oaRef("CloneFeature"), Status: http.StatusCreated, Resp: oaRef("AdminFeature"),
			Errors: []int{http.StatusConflict}},
		"GET /api/admin/projects/{projectId}/features/{featureName}/environments/{environment}": {ID: "getFeatureEnvironment", Summary: "A flag in one environment", Resp: oaRef("FeatureEnvironment")},
		"POST /api/admin/projects/{projectId}/features/{featureName}/environments/{environment}/on": {ID: "toggleFeatureEnvironmentOn", Summary: "Turn a flag on in an environment",
			Resp: oaRef("AdminFeature"), Query: oaActivateQuery(),
			Description: "Without an enabled strategy, the project's default strategy (a 100% gradual rollout) is added first."},
		"POST /api/admin/projects/{projectId}/features/{featureName}/environments/{environment}/off": {ID: "toggleFeatureEnvironmentOff", Summary: "Turn a flag off in an environment",
			Resp: oaRef("AdminFeature")},
		"POST /api/admin/projects/{projectId}/bulk_features/environments/{environment}/on": {ID: "bulkToggleFeaturesEnvironmentOn", Summary: "Turn several flags on in an environment",
			Body: oaRef("BatchFeatures"), Query: oaActivateQuery(), Description: "All or none: one flag that cannot be turned on fails the request."},
		"POST /api/admin/projects/{projectId}/bulk_features/environments/{environment}/off": {ID: "bulkToggleFeaturesEnvironmentOff", Summary: "Turn several flags off in an environment",
			Body: oaRef("BatchFeatures")},
		"GET /api/admin/features": {ID: "getAllToggles", Summary: "List every active flag", Resp: oaRef("AdminFeatures"), Deprecated: true,
			Description: "Kept for older tools; list a project's flags instead.", Query: []*oaParameter{
				oaQuery("namePrefix", "Only flags whose name starts with this.", oaString()),
				oaQuery("project", "Only flags of this project.", oaString()),
				oaQuery("tag", "Only flags with one of these tags, each `type:value`.", oaStrings()),
			}},
		"GET /api/admin/features/{featureName}": {ID: "getToggle", Summary: "Get a flag by name", Resp: oaRef("AdminFeature"), Deprecated: true,
			Description: "Kept for older tools; read it through its project instead."},
		"GET /api/admin/projects/{projectId}/features/{featureName}/environments/{environment}/strategies": {ID: "getFeatureStrategies", Summary: "List a flag's strategies in an environment",
			Resp: oaArray(oaRef("FeatureStrategy"))},
		"POST /api/admin/projects/{projectId}/features/{featureName}/environments/{environment}/strategies": {ID: "addFeatureStrategy", Summary: "Add a strategy", Body: oaRef("CreateFeatureStrategy"),
			Resp: oaRef("FeatureStrategy"), Description: "The strategy type must exist and its required parameters be given. A `flexibleRollout` without `groupId`, or with an empty one, gets the flag's name as group (here and on every other route that saves strategies), as Unleash stores it."},
		"POST /api/admin/projects/{projectId}/features/{featureName}/environments/{environment}/strategies/set-sort-order": {ID: "setStrategySortOrder", Summary: "Reorder strategies",
			Body: oaRef("StrategySortOrder")},
		"GET /api/admin/projects/{projectId}/features/{featureName}/environments/{environment}/strategies/{strategyId}": {ID: "getFeatureStrategy", Summary: "Get a strategy", Resp: oaRef("FeatureStrategy")},
		"PUT /api/admin/projects/{projectId}/features/{featureName}/environments/{environment}/strategies/{strategyId}": {ID: "updateFeatureStrategy", Summary: "Replace a strategy",
			Body: oaRef("UpdateFeatureStrategy"), Resp: oaRef("FeatureStrategy")},
		"PATCH /api/admin/projects/{projectId}/features/{featureName}/environments/{environment}/strategies/{strategyId}": {ID: "patchFeatureStrategy", Summary: "Patch a strategy",
			Body: oaRef("Patch"), Resp: oaRef("FeatureStrategy"),
			Description: "Applies JSON Patch operations (`add`, `remove`, `replace`, `copy`, `move`, `test`) to the strategy's JSON form and validates the result as a full update. A malformed patch, an object instead of an array, an unknown `op` or a path that does not exist is a 400. Disabling the last enabled strategy turns the environment off."},
		"DELETE /api/admin/projects/{projectId}/features/{featureName}/environments/{environment}/strategies/{strategyId}": {ID: "deleteFeatureStrategy", Summary: "Delete a strategy"},
		"GET /api/admin/projects/{projectId}/features/{featureName}/environments/{environment}/variants": {ID: "getEnvironmentFeatureVariants", Summary: "A flag's variants in an environment",
			Resp: oaRef("FeatureVariants")},
		"PUT /api/admin/projects/{projectId}/features/{featureName}/environments/{environment}/variants": {ID: "overwriteEnvironmentFeatureVariants", Summary: "Replace the variants in an environment",
			Body: oaArray(oaRef("Variant")), Resp: oaRef("FeatureVariants"), Description: "Weights of `variable` variants are recomputed so that all weights total 1000."},
		"PATCH /api/admin/projects/{projectId}/features/{featureName}/environments/{environment}/variants": {ID: "patchEnvironmentsFeatureVariants", Summary: "Patch the variants in an environment",
			Body: oaRef("Patch"), Resp: oaRef("FeatureVariants"), Description: "The patch applies to the array of variants; weights are recomputed afterwards."},
		"PUT /api/admin/projects/{projectId}/features/{featureName}/variants-batch": {ID: "overwriteFeatureVariantsOnEnvironments", Summary: "Replace the variants in several environments",
			Body: oaRef("PushVariants"), Resp: oaRef("FeatureVariants")},
		"GET /api/admin/projects/{projectId}/features/{featureName}/variants": {ID: "getFeatureVariants", Summary: "A flag's variants", Resp: oaRef("FeatureVariants"), Deprecated: true,
			Description: "The variants of the flag's first environment; use the per-environment variants."},
		"PUT /api/admin/projects/{projectId}/features/{featureName}/variants": {ID: "overwriteFeatureVariants", Summary: "Replace the variants in every environment",
			Body: oaArray(oaRef("Variant")), Resp: oaRef("FeatureVariants"), Deprecated: true},
		"PATCH /api/admin/projects/{projectId}/features/{featureName}/variants": {ID: "patchFeatureVariants", Summary: "Patch the variants in every environment",
			Body: oaRef("Patch"), Resp: oaRef("FeatureVariants"), Deprecated: true},
		"GET /api/admin/projects/{projectId}/features/{child}/dependencies":     {ID: "listFeatureDependencies", Summary: "A flag's dependencies", Resp: oaRef("FeatureDependencies")},
		"GET /api/admin/projects/{projectId}/features/{child}/parents":          {ID: "listParentOptions", Summary: "Flags this one could depend on", Resp: oaStrings()},
		"GET /api/admin/projects/{projectId}/features/{parent}/parent-variants": {ID: "listParentVariantOptions", Summary: "Variants of a possible parent", Resp: oaStrings()},
		"GET /api/admin/projects/{projectId}/dependencies":                      {ID: "checkDependenciesExist", Summary: "Whether any flag of the project has dependencies", Resp: oaBool()},
		"POST /api/admin/projects/{projectId}/features/{child}/dependencies": {ID: "addFeatureDependency", Summary: "Make a flag depend on another", Body: oaRef("CreateDependency"),
			Description: "The parent must be an active flag of the same project that depends on nothing itself: dependencies are one level deep."},
		"DELETE /api/admin/projects/{projectId}/features/{child}/dependencies":          {ID: "deleteFeatureDependencies", Summary: "Remove all of a flag's dependencies"},
		"DELETE /api/admin/projects/{projectId}/features/{child}/dependencies/{parent}": {ID: "deleteFeatureDependency", Summary: "Remove one dependency"},
		"GET /api/admin/features/{featureName}/tags":                                    {ID: "listTags", Summary: "List a flag's tags", Resp: oaRef("Tags")},
		"POST /api/admin/features/{featureName}/tags": {ID: "addTag", Summary: "Tag a flag", Body: oaRef("Tag"), Status: http.StatusCreated, Resp: oaRef("Tag"),
			Description: "Idempotent: adding a tag the flag has succeeds again. The tag type must exist.", Headers: map[string]string{"Location": "The tag's URL."}},
		"PUT /api/admin/features/{featureName}/tags": {ID: "updateTags", Summary: "Add and remove tags", Body: oaRef("UpdateTags"), Resp: oaRef("Tags"),
			Description: "Adds `addedTags` first, then removes `removedTags` (removing a tag the flag lacks is no error), and answers the flag's tags. Events `feature-tagged` for each new tag, `feature-untagged` for each tag removed.",
			Headers:     map[string]string{"Location": "The flag's tags."}},
		"DELETE /api/admin/features/{featureName}/tags/{type}/{value}": {ID: "removeTag", Summary: "Remove a tag from a flag"},
		"GET /api/admin/archive/features":                              {ID: "getArchivedFeatures", Summary: "List archived flags", Resp: oaRef("AdminFeatures")},
		"GET /api/admin/archive/features/{projectId}":                  {ID: "getArchivedFeaturesByProjectId", Summary: "List a project's archived flags", Resp: oaRef("AdminFeatures")},
		"POST /api/admin/archive/revive/{featureName}":                 {ID: "reviveFeature", Summary: "Revive an archived flag", Description: "The flag comes back off in every environment."},
		"DELETE /api/admin/archive/{featureName}":                      {ID: "deleteFeature", Summary: "Delete an archived flag for good"},
		"POST /api/admin/projects/{projectId}/archive":                 {ID: "archiveFeatures", Summary: "Archive several flags", Body: oaRef("BatchFeatures"), Status: http.StatusAccepted},
		"POST /api/admin/projects/{projectId}/archive/validate":        {ID: "validateArchiveFeatures", Summary: "What archiving several flags would break", Body: oaRef("BatchFeatures"), Resp: oaRef("ArchiveCheck")},
		"POST /api/admin/projects/{projectId}/revive":                  {ID: "reviveFeatures", Summary: "Revive several archived flags", Body: oaRef("BatchFeatures")},
		"POST /api/admin/projects/{projectId}/delete":                  {ID: "deleteFeatures", Summary: "Delete several archived flags for good", Body: oaRef("BatchFeatures")},

		// Strategy types.
		"GET /api/admin/strategies":                            {ID: "getAllStrategies", Summary: "List strategy types", Resp: oaRef("StrategyTypes")},
		"POST /api/admin/strategies":                           {ID: "createStrategy", Summary: "Create a custom strategy type", Body: oaRef("CreateStrategyType"), Status: http.StatusCreated, Resp: oaRef("StrategyType"), Errors: []int{http.StatusConflict}},
		"GET /api/admin/strategies/{name}":                     {ID: "getStrategy", Summary: "Get a strategy type", Resp: oaRef("StrategyType")},
		"PUT /api/admin/strategies/{name}":                     {ID: "updateStrategy", Summary: "Update a custom strategy type", Body: oaRef("UpdateStrategyType"), Resp: oaRef("StrategyType"), Description: "Built-in types cannot be changed."},
		"DELETE /api/admin/strategies/{name}":                  {ID: "removeStrategy", Summary: "Delete a custom strategy type", Description: "Built-in types cannot be deleted."},
		"POST /api/admin/strategies/{strategyName}/deprecate":  {ID: "deprecateStrategy", Summary: "Deprecate a strategy type", Description: "Marks the type as deprecated; strategies that use it keep working."},
		"POST /api/admin/strategies/{strategyName}/reactivate": {ID: "reactivateStrategy", Summary: "Reactivate a deprecated strategy type"},

		// Segments.
		"GET /api/admin/segments":           {ID: "getSegments", Summary: "List segments", Resp: oaRef("Segments")},
		"POST /api/admin/segments":          {ID: "createSegment", Summary: "Create a segment", Body: oaRef("UpsertSegment"), Status: http.StatusCreated, Resp: oaRef("AdminSegment"), Errors: []int{http.StatusConflict}},
		"POST /api/admin/segments/validate": {ID: "validateSegment", Summary: "Check that a segment name is free", Body: oaRef("Name"), Status: http.StatusNoContent, Errors: []int{http.StatusConflict}},
		"GET /api/admin/segments/{id}":      {ID: "getSegment", Params: oaNumericID, Summary: "Get a segment", Resp: oaRef("AdminSegment")},
		"PUT /api/admin/segments/{id}": {ID: "updateSegment", Params: oaNumericID, Summary: "Update a segment", Body: oaRef("UpsertSegment"), Status: http.StatusNoContent, Errors: []int{http.StatusConflict},
			Description: "Flags using the segment see the new constraints at once."},
		"DELETE /api/admin/segments/{id}": {ID: "removeSegment", Params: oaNumericID, Summary: "Delete a segment", Status: http.StatusNoContent, Errors: []int{http.StatusConflict},
			Description: "A segment that strategies still use cannot be deleted."},
		"GET /api/admin/segments/{id}/strategies": {ID: "getStrategiesBySegmentId", Params: oaNumericID, Summary: "Strategies that use a segment", Resp: oaRef("SegmentStrategies")},

		// Environments, context fields and tags.
		"GET /api/admin/environments":        {ID: "getAllEnvironments", Summary: "List environments", Resp: oaRef("Environments")},
		"GET /api/admin/environments/{name}": {ID: "getEnvironment", Summary: "Get an environment", Resp: oaRef("Environment")},
		"POST /api/admin/environments": {ID: "createEnvironment", Summary: "Create an environment", Body: oaRef("CreateEnvironment"), Status: http.StatusCreated, Resp: oaRef("Environment"),
			Headers: map[string]string{"Location": "The environment's URL."}, Errors: []int{http.StatusConflict}},
		"PUT /api/admin/environments/{name}": {ID: "updateEnvironment", Summary: "Update an environment", Body: oaRef("CreateEnvironment"), Resp: oaRef("Environment"),
			Description: "Only the properties sent change; environments cannot be renamed."},
		"DELETE /api/admin/environments/{name}": {ID: "deleteEnvironment", Summary: "Delete an environment", Errors: []int{http.StatusBadRequest},
			Description: "Protected environments cannot be deleted."},
		"PUT /api/admin/environments/sort-order":          {ID: "updateSortOrder", Summary: "Reorder environments", Body: oaMap(oaInteger()).d("Sort order by environment name.")},
		"GET /api/admin/environments/project/{projectId}": {ID: "getProjectEnvironments", Summary: "Environments and whether the project uses them", Resp: oaRef("ProjectEnvironments")},
		"POST /api/admin/environments/{name}/on":          {ID: "toggleEnvironmentOn", Summary: "Enable an environment", Status: http.StatusNoContent},
		"POST /api/admin/environments/{name}/off":         {ID: "toggleEnvironmentOff", Summary: "Disable an environment", Status: http.StatusNoContent},
		"GET /api/admin/context": {ID: "getContextFields", Summary: "List context fields", Resp: oaArray(oaRef("ContextField")), Query: []*oaParameter{oaContextInclude()},
			Description: "The global context fields, built-ins included; with `include=project` also every project's own."},
		"POST /api/admin/context":                  {ID: "createContextField", Summary: "Create a context field", Body: oaRef("ContextField"), Status: http.StatusCreated, Resp: oaRef("ContextField"), Errors: []int{http.StatusConflict}},
		"GET /api/admin/context/{contextField}":    {ID: "getContextField", Summary: "Get a context field", Resp: oaRef("ContextField")},
		"PUT /api/admin/context/{contextField}":    {ID: "updateContextField", Summary: "Update a context field", Body: oaRef("ContextField"), Resp: oaRef("ContextField")},
		"POST /api/admin/context/validate":         {ID: "validateContextFieldName", Summary: "Check that a context field name is free", Body: oaRef("Name"), Errors: []int{http.StatusConflict}},
		"DELETE /api/admin/context/{contextField}": {ID: "deleteContextField", Summary: "Delete a context field"},
		"GET /api/admin/tags":                      {ID: "getTags", Summary: "List tags", Resp: oaRef("Tags")},
		"POST /api/admin/tags": {ID: "createTag", Summary: "Create a tag", Body: oaRef("Tag"), Status: http.StatusCreated, Resp: oaRef("TagWithVersion"), Errors: []int{http.StatusConflict},
			Description: "Creates a tag before any flag carries it, so that it is offered when tagging: a type that exists (default `simple`) and a value, 2 to 50 characters each; it is listed with the tags flags carry until deleted. 409 when the tag exists already. Event `tag-created`."},
		"GET /api/admin/tags/{type}":            {ID: "getTagsByType", Summary: "List tags of a type", Resp: oaRef("Tags")},
		"GET /api/admin/tags/{type}/{value}":    {ID: "getTag", Summary: "Get a tag", Resp: oaRef("TagWithVersion")},
		"DELETE /api/admin/tags/{type}/{value}": {ID: "deleteTag", Summary: "Delete a tag"},
		"GET /api/admin/tag-types":              {ID: "getTagTypes", Summary: "List tag types", Resp: oaRef("TagTypes")},
		"POST /api/admin/tag-types":             {ID: "createTagType", Summary: "Create a tag type", Body: oaRef("TagType"), Status: http.StatusCreated, Resp: oaRef("TagType"), Errors: []int{http.StatusConflict}},
		"GET /api/admin/tag-types/{name}":       {ID: "getTagType", Summary: "Get a tag type", Resp: oaRef("TagTypeWithVersion")},
		"POST /api/admin/tag-types/validate":    {ID: "validateTagType", Summary: "Check a new tag type", Body: oaRef("TagType"), Resp: oaRef("TagTypeValidation"), Errors: []int{http.StatusConflict}},
		"GET /api/admin/feature-types":          {ID: "getAllFeatureTypes", Summary: "List flag types", Resp: oaRef("FeatureTypes")},
		"PUT /api/admin/feature-types/{id}/lifetime": {ID: "updateFeatureTypeLifetime", Params: oaFlagTypeID, Summary: "Set a flag type's expected lifetime",
			Body: oaRef("FeatureTypeLifetime"), Resp: oaRef("FeatureType")},
		"PUT /api/admin/feature-types/{id}/lifetimes": {ID: "updateFeatureTypeLifetimes", Params: oaFlagTypeID, Summary: "Set a flag type's expected lifetime",
			Body: oaRef("FeatureTypeLifetime"), Resp: oaRef("FeatureType"), Description: "Same as `PUT …/lifetime`."},
		"PUT /api/admin/tag-types/{name}":    {ID: "updateTagType", Summary: "Update a tag type", Body: oaRef("TagType"), Resp: oaRef("TagType")},
		"DELETE /api/admin/tag-types/{name}": {ID: "deleteTagType", Summary: "Delete a tag type"},

		// Addons.
		"GET /api/admin/addons": {ID: "getAddons", Tag: "Addons", Summary: "List addons and addon providers", Resp: oaAddons(f),
			Description: "Sensitive parameters (the webhook's `url`, `authorization` and `customHeaders`) are shown as `*****`."},
		"POST /api/admin/addons": {ID: "createAddon", Tag: "Addons", Summary: "Create an addon", Body: oaAddonBody(f), Resp: oaAddon(f),
			Description: "Admins only. The one provider is `webhook`: each event of the chosen types (and projects and environments, when listed) after its creation is POSTed to `url`, as the event's JSON or rendered through the mustache `bodyTemplate` over `{event, eventJson}`; failed attempts (no answer, 5xx, 429) are retried with exponential backoff, 5 attempts in all. Event `addon-config-created`."},
		"GET /api/admin/addons/{id}": {ID: "getAddon", Tag: "Addons", Params: oaNumericID, Summary: "Get an addon", Resp: oaAddon(f)},
		"PUT /api/admin/addons/{id}": {ID: "updateAddon", Tag: "Addons", Params: oaNumericID, Summary: "Update an addon", Body: oaAddonBody(f), Resp: oaAddon(f),
			Description: "Admins only. Replaces the addon; a sensitive parameter sent as `*****` keeps its stored value. Event `addon-config-updated`."},
		"DELETE /api/admin/addons/{id}": {ID: "deleteAddon", Tag: "Addons", Params: oaNumericID, Summary: "Delete an addon",
			Description: "Admins only. Its pending deliveries are dropped. Event `addon-config-deleted`."},
		"GET /api/admin/addons/{id}/events": {ID: "getIntegrationEvents", Tag: "Addons", Params: oaNumericID, Summary: "The addon's deliveries", Resp: oaIntegrationEvents(),
			Query:       []*oaParameter{oaQuery("limit", "At most this many (default 50, at most 1000).", oaInteger()), oaQuery("offset", "Skip this many.", oaInteger())},
			Description: "Admins only. The deliveries tried at least once, newest event first: `success`, or `failed` with the last error, and in `details` whether it is final or when the next attempt is due."},

		// Users.
		"GET /api/admin/user": {ID: "getMe", Summary: "The caller and their permissions", Resp: oaRef("Me")},
		"GET /api/admin/user/profile": {ID: "getProfile", Summary: "The signed-in user's role and projects", Resp: oaRef("Profile"),
			Description: "Needs a user (session or personal access token); an API token gets a 400.", Errors: []int{http.StatusBadRequest}},
		"POST /api/admin/user/change-password": {ID: "changeMyPassword", Summary: "Change the own password", Body: oaRef("Password"),
			Description: "`oldPassword` is required when the user has a password; wrong guesses count towards the sign-in limit of the account (429 with `Retry-After` when it is reached). The new password must follow the password rules (see `validate-password`).",
			Errors:      []int{http.StatusTooManyRequests}},
		"GET /api/admin/user/tokens": {ID: "getPats", Summary: "List the own personal access tokens", Resp: oaRef("Pats")},
		"POST /api/admin/user/tokens": {ID: "createPat", Summary: "Create a personal access token", Body: oaRef("CreatePat"), Status: http.StatusCreated, Resp: oaRef("Pat"),
			Description: "The token acts as the signed-in user with the user's root role. Its secret is only in this answer."},
		"DELETE /api/admin/user/tokens/{id}": {ID: "deletePat", Params: oaNumericID, Summary: "Delete a personal access token"},
		"GET /api/admin/user-admin":          {ID: "getUsers", Summary: "List users", Resp: oaRef("Users")},
		"POST /api/admin/user-admin": {ID: "createUser", Summary: "Create a user", Body: oaRef("CreateUser"), Status: http.StatusCreated, Resp: oaRef("CreateUserResponse"),
			Description: "Needs a username or an e-mail address. `sendEmail` is recorded but no e-mail is sent.",
			Headers:     map[string]string{"Location": "The new user's URL."}, Errors: []int{http.StatusConflict}},
		"GET /api/admin/user-admin/search": {ID: "searchUsers", Summary: "Find users", Resp: oaArray(oaRef("User")),
			Query: []*oaParameter{oaQuery("q", "Matched against name, username and e-mail.", oaString())}},
		"POST /api/admin/user-admin/validate-password": {ID: "validateUserPassword", Summary: "Check a password against the rules", Body: oaRef("Password"),
			Description: "Every password set (by an admin, by its user, or as the first admin's at start-up) needs " + f.PasswordRules + ". A refusal names the rule broken."},
		"GET /api/admin/user-admin/{id}": {ID: "getUser", Params: oaNumericID, Summary: "Get a user", Resp: oaRef("User")},
		"PUT /api/admin/user-admin/{id}": {ID: "updateUser", Params: oaNumericID, Summary: "Update a user", Body: oaRef("UpdateUser"), Resp: oaRef("CreateUserResponse"),
			Description: "Only the properties sent change."},
		"DELETE /api/admin/user-admin/{id}":               {ID: "deleteUser", Params: oaNumericID, Summary: "Delete a user"},
		"POST /api/admin/user-admin/{id}/change-password": {ID: "changeUserPassword", Params: oaNumericID, Summary: "Set a user's password", Body: oaRef("Password")},

		// Groups.
		"GET /api/admin/groups": {ID: "getGroups", Summary: "List groups", Resp: oaObject(oaProps{"groups": oaArray(oaGroup())}).req("groups")},
		"POST /api/admin/groups": {ID: "createGroup", Summary: "Create a group", Body: oaGroupBody(), Status: http.StatusCreated, Resp: oaGroup(),
			Description: "The group's root role, if any, applies to each member on top of their own; the most powerful of them counts.",
			Headers:     map[string]string{"Location": "The new group's URL."}, Errors: []int{http.StatusConflict}},
		"GET /api/admin/groups/{groupId}": {ID: "getGroup", Summary: "Get a group", Resp: oaGroup()},
		"PUT /api/admin/groups/{groupId}": {ID: "updateGroup", Summary: "Replace a group's details and members", Body: oaGroupBody(), Resp: oaGroup(),
			Description: "Overrides every detail: a property left out is cleared, and the members become exactly the listed users.", Errors: []int{http.StatusConflict}},
		"DELETE /api/admin/groups/{groupId}": {ID: "deleteGroup", Summary: "Delete a group",
			Description: "Its members lose the group's root role and the project roles it held."},

		// API tokens.
		"GET /api/admin/api-tokens": {ID: "getAllApiTokens", Summary: "List API tokens", Resp: oaRef("ApiTokens"), Description: "Secrets are never listed."},
		"POST /api/admin/api-tokens": {ID: "createApiToken", Summary: "Create an API token", Body: oaRef("CreateApiToken"), Status: http.StatusCreated, Resp: oaRef("ApiToken"),
			Description: "The answer carries the full token, `<project>:<environment>.<secret>` (admin tokens `*:*.<secret>`), once; only its hash is stored. Admins create any token; others client and frontend tokens only for projects in which they hold a project role (Owner or Member), never for all projects (`*`)."},
		"GET /api/admin/api-tokens/{name}": {ID: "getApiTokensByName", Summary: "Tokens with a name", Resp: oaRef("ApiTokens"),
			Description: "The tokens whose `tokenName` is the path parameter."},
		"PUT /api/admin/api-tokens/{token}": {ID: "updateApiToken", Summary: "Change a token's expiry", Body: oaRef("UpdateApiToken"), Resp: oaRef("ApiToken"),
			Description: "The path names the token by its id or its full secret. A time in the past ends the token at once."},
		"DELETE /api/admin/api-tokens/{token}": {ID: "deleteApiToken", Summary: "Delete an API token",
			Description: "The path names the token by its id or its full secret. The token stops working at once."},

		// Import and export.
		"POST /api/admin/features-batch/export": {ID: "exportFeatures", Summary: "Export flags", Body: oaExportQuery(), Resp: oaExportResult(),
			Description: "The selected active flags with their configuration in one environment, and what it refers to (context fields, segments by name, tags and tag types, dependencies). Event `features-exported`.",
			Headers:     map[string]string{"Content-Disposition": "With `downloadFile`: `attachment; filename=export-<YYYY-MM-DD>.json`."},
			Errors:      []int{http.StatusNotFound}},
		"POST /api/admin/features-batch/validate": {ID: "validateImport", Summary: "Check an import", Body: oaImportBody(), Resp: oaImportValidation(),
			Description: "Runs the import without keeping anything and answers what stops it (`errors`: flags in another project or archived, unknown flag or strategy types, missing segments, legal values the target lacks, invalid data), what it overwrites (`warnings`, also custom strategy types) and the permissions it needs that the caller lacks. 404 for an unknown project or environment. " +
				"It only reads (a read-only transaction; the import's writes are previewed in memory), so it never holds up the server's writes. Whoever may not change the project's flags (UPDATE_FEATURE there) is refused with 403 before the document is read. The body may be up to 16 MiB (413 beyond).",
			Errors: []int{http.StatusNotFound}},
		"POST /api/admin/features-batch/import": {ID: "importToggles", Summary: "Import flags", Body: oaImportBody(),
			Description: "Imports an export into a project and environment in one transaction: creates or updates each flag, replaces its strategies and variants in the environment, its tags and its dependencies, sets its state there, and creates missing context fields and tag types. 400 when validation finds errors, 403 when a needed permission is missing (UPDATE_FEATURE in the project first of all, even for an empty document) or change requests are enabled in the environment. An import that imports nothing records nothing. " +
				"Events `feature-import` per flag, `features-imported` once, and `context-field-created`, `tag-type-created`, `feature-environment-enabled`/`-disabled` where they apply.",
			Errors: []int{http.StatusNotFound}},

		// Change requests (Unleash Enterprise's paths).
		"GET /api/admin/projects/{projectId}/change-requests/config": {ID: "getChangeRequestConfig", Tag: oaCRTag, Summary: "Change request settings per environment",
			Resp: oaArray(oaCRConfig()), Description: "One entry per environment of the project. `changeRequestEnabled` and `changeRequestsEnabled` say the same (Unleash's UI reads the first)."},
		"PUT /api/admin/projects/{projectId}/environments/{environment}/change-requests/config": {ID: "updateProjectChangeRequestConfig", Tag: oaCRTag,
			Summary: "Turn change requests on or off in an environment", Status: http.StatusNoContent, Body: oaObject(oaProps{
				"changeRequestsEnabled": oaBool(),
				"requiredApprovals":     oaNumber().d("Approvals a request needs; clamped to 1–10. Unchanged when absent."),
			}).req("changeRequestsEnabled"),
			Description: "While change requests are on, direct edits of the project's flags in the environment answer 403 (archiving flags and changing dependencies: in any environment with change requests). Project Owners and Admins may turn them on or ask for more approvals; only Admins may turn them off or ask for fewer (403 otherwise). Records `change-request-configuration-updated`."},
		"POST /api/admin/projects/{projectId}/environments/{environment}/change-requests": {ID: "changeRequestAddChanges", Tag: oaCRTag,
			Summary: "Propose changes", Body: &Schema{OneOf: []*Schema{oaCRChangeBody(), oaArray(oaCRChangeBody())}}, Resp: oaChangeRequest(),
			Description: "Adds one change, or a list of changes, to the caller's draft for the environment, creating the draft (`change-request-created`) if there is none; one `change-added` per change. Each change is checked as if it were applied now, after the draft's other changes, so an invalid one is refused (400, 404, 409) here rather than at apply time. Needs the permission of the direct endpoint of each action as well. 400 when change requests are not enabled in the environment. Users are told apart by user id (session or personal access token), API tokens by token id: that is whose draft it is. A request proposed through an API token counts as proposed by the user who created the token, who may not approve it.",
			Errors:      []int{http.StatusConflict}},
		"GET /api/admin/projects/{projectId}/change-requests": {ID: "getChangeRequests", Tag: oaCRTag, Summary: "List change requests",
			Resp: oaArray(oaChangeRequest()), Description: "Every state, newest first, at most 300."},
		"GET /api/admin/projects/{projectId}/change-requests/pending": {ID: "getPendingChangeRequests", Tag: oaCRTag, Summary: "Pending change requests",
			Resp: oaArray(oaChangeRequest()), Description: "Those in Draft, In review or Approved, newest first."},
		"GET /api/admin/projects/{projectId}/change-requests/pending/{featureName}": {ID: "getPendingChangeRequestsForFeature", Tag: oaCRTag,
			Summary: "Pending change requests of a flag", Resp: oaArray(oaChangeRequest()), Description: "Pending requests with at least one change to the flag."},
		"GET /api/admin/projects/{projectId}/change-requests/count": {ID: "getChangeRequestCount", Tag: oaCRTag, Summary: "Change requests by state",
			Resp: oaCRCount(), Description: "`reviewRequired` counts those In review."},
		"GET /api/admin/projects/{projectId}/change-requests/scheduled": {ID: "getScheduledChangeRequests", Tag: oaCRTag, Summary: "Scheduled change requests",
			Resp: oaArray(oaChangeRequest()), Query: []*oaParameter{
				oaQuery("feature", "Only those changing this flag.", oaString()),
				oaQuery("strategyId", "Only those changing this strategy.", oaString()),
			}},
		"GET /api/admin/projects/{projectId}/change-requests/{changeRequestId}": {ID: "getChangeRequest", Tag: oaCRTag, Params: oaCRParams,
			Summary: "Get a change request", Resp: oaChangeRequest(),
			Description: "While the request can still be applied, changes whose target moved since they were proposed carry `conflict`."},
		"DELETE /api/admin/projects/{projectId}/change-requests/{changeRequestId}": {ID: "deleteChangeRequest", Tag: oaCRTag, Params: oaCRParams,
			Summary: "Discard a change request", Description: "The author (or an Admin) discards a request that was not applied. Records `change-request-discarded`.",
			Errors: []int{http.StatusBadRequest}},
		"PUT /api/admin/projects/{projectId}/change-requests/{changeRequestId}/state": {ID: "updateChangeRequestState", Tag: oaCRTag, Params: oaCRParams,
			Summary: "Review, apply, schedule, reject or cancel", Resp: oaChangeRequest(), Body: oaObject(oaProps{
				"state":       oaEnum(store.ChangeRequestDraft, store.ChangeRequestInReview, store.ChangeRequestApproved, store.ChangeRequestCancelled, store.ChangeRequestApplied, store.ChangeRequestRejected, store.ChangeRequestScheduled),
				"scheduledAt": oaDateTime().d("Required with `Scheduled`; in the future."),
				"comment":     oaString().d("Added as a comment with the transition."),
			}).req("state"),
			Description: "Draft → In review (author; `change-request-sent-to-review`). In review → Approved by a person (a user by session or personal access token; API tokens cannot review) other than the author, the creator of the author's API token, or anyone who changed the request, with APPROVE_CHANGE_REQUEST in the project (`change-request-approval-added` until `minApprovals` is reached, then `change-request-approved`; the author gets 403, a second approval by the same person 409). Approved or Scheduled → Applied with APPLY_CHANGE_REQUEST: every change in one transaction with its own events, then `change-request-applied`; 409 while a change conflicts. Approved or Scheduled → Scheduled with `scheduledAt` (`change-request-scheduled`); the server applies it when due. In review, Approved or Scheduled → Rejected by a reviewer other than the author (`change-request-rejected`). Any open state → Cancelled by the author (`change-request-cancelled`). Applied, Cancelled and Rejected are final.",
			Errors:      []int{http.StatusConflict}},
		"POST /api/admin/projects/{projectId}/change-requests/{changeRequestId}/comments": {ID: "addChangeRequestComment", Tag: oaCRTag, Params: oaCRParams,
			Summary: "Comment on a change request", Body: oaObject(oaProps{"text": oaString()}).req("text"), Status: http.StatusCreated, Resp: oaCRComment(),
			Description: "Needs UPDATE_FEATURE in the project, as taking part in its change requests does. Records `change-request-comment-added`."},
		"PUT /api/admin/projects/{projectId}/change-requests/{changeRequestId}/changes/{changeId}": {ID: "editChange", Tag: oaCRTag, Params: oaCRParams,
			Summary: "Edit a change", Body: oaCRChangeBody(), Resp: oaChangeRequest(),
			Description: "The author replaces a change: the old one is removed and the new one gets a new id, so later edits must use the latest id. `feature` defaults to the old change's. An Approved or Scheduled request returns to In review without approvals or schedule. Records `change-edited`.",
			Errors:      []int{http.StatusConflict}},
		"DELETE /api/admin/projects/{projectId}/change-requests/{changeRequestId}/changes/{changeId}": {ID: "discardChange", Tag: oaCRTag, Params: oaCRParams,
			Summary: "Discard a change", Resp: oaChangeRequest(),
			Description: "The author removes a change; an Approved or Scheduled request returns to In review. Records `change-discarded`.",
			Errors:      []int{http.StatusBadRequest}},

		// Events and metrics.
		"POST /api/admin/events/search": {ID: "searchEventsPost", Summary: "Search the audit log", Body: oaRef("EventSearch"), BodyOpt: true, Resp: oaRef("Events"),
			Description: "Newest first. Filters combine; without any, the latest events are listed."},
		"GET /api/admin/search/events": {ID: "searchEvents", Summary: "Search the audit log", Resp: oaRef("EventSearchResult"), Query: []*oaParameter{
			oaQuery("query", "Free text matched against the type, the creator and the data.", oaString()),
			oaQuery("type", "Event type.", oaString()),
			oaQuery("project", "Project.", oaString()),
			oaQuery("feature", "Flag name.", oaString()),
			oaQuery("offset", "Number of events to skip.", oaInteger().atLeast(0)),
			oaQuery("limit", "Number of events to list, at most 100.", oaInteger().between(1, 100)),
		}},
		"GET /api/admin/search/features": {ID: "searchFeatures", Summary: "Search flags", Tag: "Search", Resp: oaSearchFeatures(f), Query: oaSearchFeaturesQuery(),
			Description: "Flags filtered, sorted and paged as Unleash's flag table asks for them: active flags unless `archived=IS:true` (or `lifecycle=IS:archived`). Each filter parameter takes an operator and values; every filter given must match. The lifecycle stage is the last one reached: `archived` in the archive, `completed` once marked so (`.../lifecycle/complete`), `live` once an SDK reported the flag from a production environment, `pre-live` once one reported it from another, else `initial`. `total` counts all matches; the cost of a page does not grow with the number of database rows per flag."},
		"POST /edge/validate": {ID: "getValidTokens", Summary: "Check which tokens are valid", Tag: "Edge",
			Body: oaObject(oaProps{"tokens": oaStrings().d("Token strings, at most 1,000.")}).req("tokens"),
			Resp: oaObject(oaProps{"tokens": oaArray(oaObject(oaProps{
				"token": oaString(), "type": oaEnum("client", "frontend"), "projects": oaStrings().d("`[\"*\"]` for every project."), "environment": oaString(),
			}).req("token", "type", "projects", "environment").closed())}).req("tokens").closed(),
			Description: "For each valid client or frontend token in the list: its type, projects and environment, so that an Edge-style node (`signalbox edge`, Unleash Edge) can serve SDKs with it. Unknown, expired, admin and personal tokens are left out. No credentials needed: the answer tells nothing to someone who does not hold the token."},
		"POST /edge/issue-token": {ID: "edgeCreateOrReturnTokens", Summary: "Get or create client tokens for an Edge node", Tag: "Edge",
			Body: oaObject(oaProps{"tokens": oaArray(oaObject(oaProps{
				"environment": oaString().d("An existing environment."),
				"projects":    oaStrings().d("Existing projects, or `[\"*\"]` (or none) for every project."),
			}).req("environment", "projects").closed()).d("At most 100.")}).req("tokens"),
			Resp: oaObject(oaProps{"tokens": oaArray(oaObject(oaProps{
				"token": oaString(), "type": oaEnum("client"), "projects": oaStrings().d("Sorted; `[\"*\"]` for every project."), "environment": oaString(),
			}).req("token", "type", "projects", "environment").closed()).d("One per requested item, in order.")}).req("tokens").closed(),
			Errors: []int{http.StatusBadRequest, http.StatusForbidden},
			Description: "For each environment and projects: the client token issued to the caller before, still valid, or a new one (event `api-token-created`, named `edge_<environment>_<projects>`). " +
				"The caller authenticates with an admin token or a personal access token in `Authorization` (a session cannot: 400); issued secrets are derived from that secret and never stored, so only the same caller gets the same token back, and a token deleted by an admin is replaced by a new one. " +
				"Admins may ask for any projects; others only for projects in which they are Owner or Member (403 otherwise, and for `*`)."},
		"POST /api/admin/constraints/validate": {ID: "validateConstraint", Summary: "Validate a constraint", Tag: "Features", Body: oaRef("Constraint"), Status: http.StatusNoContent,
			Description: "204 when a flag strategy would accept the constraint: a known operator, values that parse as that operator needs (numbers, dates, semantic versions, a regular expression), and, when the context field has legal values, only those. Context fields that are not defined accept any value, as on strategies. 400 with the reason otherwise."},
		"GET /api/admin/maintenance": {ID: "getMaintenance", Summary: "Is maintenance mode on?", Tag: "Maintenance", Resp: oaObject(oaProps{"enabled": oaBool()}).req("enabled").closed(),
			Description: "Whether maintenance mode is on: while it is, every admin API change other than switching it off is refused with 503. SDKs are not affected."},
		"POST /api/admin/maintenance": {ID: "toggleMaintenance", Summary: "Switch maintenance mode on or off", Tag: "Maintenance", Body: oaObject(oaProps{"enabled": oaBool()}).req("enabled"), Status: http.StatusNoContent,
			Description: "`{\"enabled\": true}` starts maintenance mode: from then on every admin API change (any method but GET) except this one is refused with 503 `NotReadyError`, on every instance sharing the database; the client and frontend APIs keep serving, and SDK registrations and metrics are still recorded. `{\"enabled\": false}` ends it. Event `setting-created` the first time, then `setting-updated`."},
		"GET /api/admin/user/roles": {ID: "getUserRoles", Summary: "The caller's roles", Tag: "Users",
			Resp:        oaObject(oaProps{"version": oaInteger(), "roles": oaArray(oaObject(oaProps{"id": oaInteger(), "type": oaString(), "name": oaString(), "description": oaString(), "project": oaString().null()}).req("id", "type", "name"))}).req("version", "roles"),
			Query:       []*oaParameter{oaQuery("projectId", "Only the project roles held in this project.", oaString())},
			Description: "The caller's effective root role (their own or a group's, the strongest; Admin for an admin token), then each project role they hold, directly or through a group, once."},
		"GET /api/admin/user/permissions": {ID: "getUserPermissions", Summary: "The caller's permissions in a project", Tag: "Users",
			Resp: oaObject(oaProps{"project": oaString(), "permissions": oaArray(oaObject(oaProps{"permission": oaString()}).req("permission")).
				d("The permissions the caller's root role grants, with those of the project roles they hold in `project`, themselves or through a group; `ADMIN` alone stands for all.")}).req("project", "permissions"),
			Query:       []*oaParameter{oaQuery("project", "The project; without it, the root-level permissions alone (as `GET /api/admin/user`).", oaString())},
			Description: "What the caller may do in one project, for showing or hiding controls: a project Owner or Member holds project permissions (such as `APPROVE_CHANGE_REQUEST` or `UPDATE_FEATURE_STRATEGY`) that their root role lacks. Every request is still checked on its own. An unknown project is 404.",
			Errors:      []int{http.StatusNotFound}},
		"GET /api/admin/user-admin/access": {ID: "getBaseUsersAndGroups", Summary: "People and groups to share with", Tag: "Users",
			Resp: oaObject(oaProps{
				"users":  oaArray(oaObject(oaProps{"id": oaInteger(), "name": oaString(), "email": oaString(), "username": oaString(), "imageUrl": oaString(), "accountType": oaString()}).req("id")),
				"groups": oaArray(oaObject(oaProps{"id": oaInteger(), "name": oaString(), "userCount": oaInteger(), "rootRole": oaInteger().null()}).req("name")),
			}),
			Description: "Every person (not service accounts, not deleted) with no more than id, name, e-mail, username and picture, and every group with its member count: what anyone needs to choose whom to give a project role."},
		"GET /api/admin/user-admin/admin-count": {ID: "getAdminCount", Summary: "Count the admins", Tag: "Users",
			Resp:        oaObject(oaProps{"password": oaInteger(), "noPassword": oaInteger(), "service": oaInteger()}).req("password", "noPassword", "service").closed(),
			Description: "People whose own root role is Admin, with a password and without one (they sign in another way, or have not set one yet), and service accounts with the Admin root role. Deleted users and admins only through a group are not counted."},
		"GET /api/admin/event-creators": {ID: "getEventCreators", Summary: "People who made audit events", Tag: "Events",
			Resp:        oaArray(oaObject(oaProps{"id": oaInteger(), "name": oaString().d("Name, else username, else e-mail.")}).req("id", "name").closed()),
			Description: "Every person who made an audit event, deleted people included, by id; for the event log's filter. Changes made with API tokens have no person."},
		"GET /api/admin/projects/{projectId}/flag-creators": {ID: "getProjectFlagCreators", Summary: "People who created the project's flags", Tag: "Projects",
			Resp:        oaArray(oaObject(oaProps{"id": oaInteger(), "name": oaString().d("Name, else username, else e-mail.")}).req("id", "name").closed()),
			Description: "Every person who created a flag of the project (archived flags included), by id; for the flag table's filter. 404 for an unknown project."},
		"POST /api/admin/record-ui-error": {ID: "uiObservability", Summary: "Report an error of the UI", Tag: "Admin UI", Status: http.StatusNoContent,
			Body:        oaObject(oaProps{"errorMessage": oaString(), "errorStack": oaString()}).req("errorMessage"),
			Description: "The report is written to the server log (level WARN) with who sent it: the message cut to 1,000 characters and the stack to 4,000. At most 30 reports a minute are logged; further ones are answered alike and counted in the next line logged."},
		"GET /api/admin/telemetry/settings": {ID: "getTelemetrySettings", Summary: "Telemetry settings", Tag: "Telemetry",
			Resp:        oaObject(oaProps{"versionInfoCollectionEnabled": oaBool(), "featureInfoCollectionEnabled": oaBool()}).req("versionInfoCollectionEnabled", "featureInfoCollectionEnabled").closed(),
			Description: "Both false: this server collects and sends neither version nor usage information."},
		"POST /api/admin/projects/{projectId}/stale": {ID: "staleFeatures", Summary: "Mark flags stale or not", Tag: "Features", Status: http.StatusAccepted,
			Body:        oaObject(oaProps{"features": oaStrings().d("Flag names, at most 5,000."), "stale": oaBool()}).req("features", "stale"),
			Description: "Marks the named flags of the project stale (`stale: true`) or not. Names that are not active flags of the project are ignored. Events for each flag whose mark changed: `feature-metadata-updated` and `feature-stale-on` or `feature-stale-off`. 404 for an unknown project."},
		"PUT /api/admin/projects/{projectId}/tags": {ID: "addTagToFeatures", Summary: "Tag flags of a project", Tag: "Tags",
			Body: oaObject(oaProps{"features": oaStrings().d("Flag names, at most 5,000."), "tags": oaObject(oaProps{
				"addedTags": oaArray(oaRef("Tag")), "removedTags": oaArray(oaRef("Tag")),
			}).req("addedTags", "removedTags")}).req("features", "tags"),
			Description: "Adds `addedTags` to each named flag, then removes `removedTags`; a tag's type defaults to `simple` and must exist. Every name must be an active flag of the project: otherwise 404 and nothing changes. Events: `feature-tagged` for each tag new to a flag, `feature-untagged` for each tag a flag lost. 200 without a body."},
		"GET /api/admin/lifecycle/count": {ID: "getFeatureLifecycleStageCount", Summary: "Flags per lifecycle stage", Tag: "Lifecycle",
			Resp:        oaObject(oaProps{"initial": oaInteger(), "preLive": oaInteger(), "live": oaInteger(), "completed": oaInteger(), "archived": oaInteger()}).req("initial", "preLive", "live", "completed", "archived").closed(),
			Description: "How many flags are in each lifecycle stage now: `archived` in the archive; otherwise `completed` once marked so, `live` once an SDK reported the flag from a production environment, `preLive` once one reported it from another, else `initial`."},
		"GET /api/admin/projects/{projectId}/features/{featureName}/lifecycle": {ID: "getFeatureLifecycle", Summary: "A flag's lifecycle", Tag: "Lifecycle",
			Resp: oaArray(oaObject(oaProps{
				"stage":          oaEnum(f.LifecycleStages...),
				"status":         oaString().d("For `completed`: `kept` or `discarded`."),
				"enteredStageAt": oaDateTime().d("For `pre-live` and `live`: the latest report from such an environment."),
			}).req("stage", "enteredStageAt").closed()),
			Description: "The stages the flag reached, oldest first: `initial` (created), `pre-live` (reported by an SDK from a non-production environment), `live` (reported from production), `completed` (marked so), `archived`. 404 for an unknown flag or one of another project."},
		"POST /api/admin/projects/{projectId}/features/{featureName}/lifecycle/complete": {ID: "complete", Summary: "Mark a flag completed", Tag: "Lifecycle",
			Body:        oaObject(oaProps{"status": oaEnum("kept", "discarded"), "statusValue": oaString().d("What was kept, e.g. a variant; at most 200 characters.")}).req("status").closed(),
			Description: "The flag has done its job: its code path was `kept` or `discarded`. Marking it again replaces the mark. 404 for an archived flag. Event `feature-completed`. 200 without a body."},
		"POST /api/admin/projects/{projectId}/features/{featureName}/lifecycle/uncomplete": {ID: "uncomplete", Summary: "Take back a completed mark", Tag: "Lifecycle",
			Description: "Removes the flag's completed mark; a flag without one is left as it is (no event). 404 for an archived flag. Event `feature-uncompleted`. 200 without a body."},
		"GET /api/admin/projects/{projectId}/overview": {ID: "getProjectOverview", Summary: "A project's overview", Tag: "Projects",
			Resp: oaObject(oaProps{
				"version": oaInteger(), "name": oaString(), "description": oaString().null(), "defaultStickiness": oaString(),
				"mode": oaEnum("open", "protected", "private"), "featureLimit": oaInteger().null(), "featureNaming": oaObject(nil),
				"members": oaInteger(), "health": oaInteger().dep(), "technicalDebt": oaInteger().between(0, 100),
				"environments":      oaArray(oaObject(oaProps{"environment": oaString(), "changeRequestsEnabled": oaBool(), "defaultStrategy": oaObject(nil)})),
				"featureTypeCounts": oaArray(oaObject(oaProps{"type": oaString(), "count": oaInteger()}).req("type", "count")),
				"stats":             oaObject(nil).d("As in the health report: flags created and archived, events and members added, in the last 30 days and the 30 before."),
				"createdAt":         oaDateTime().null(), "updatedAt": oaDateTime().null(), "favorite": oaBool().d("Whether the caller starred the project."),
				"onboardingStatus": oaObject(oaProps{"status": oaEnum("onboarding-started", "first-flag-created", "onboarded"), "feature": oaString()}).req("status"),
			}).req("version", "name", "onboardingStatus"),
			Description: "The project's settings, member count (directly or through a group), environments with their default strategies, active flags per type, health (`technicalDebt` is 100 minus it) and 30-day statistics. `onboardingStatus` is `onboarding-started` without flags, `first-flag-created` (naming the oldest) until an SDK reports one of its flags, then `onboarded`."},
		"GET /api/admin/projects/{projectId}/status": {ID: "getProjectStatus", Summary: "A project's status", Tag: "Projects",
			Resp: oaObject(oaProps{
				"activityCountByDate": oaArray(oaObject(oaProps{"date": oaString().ex("2024-01-31"), "count": oaInteger()}).req("date", "count")),
				"resources":           oaObject(oaProps{"apiTokens": oaInteger(), "members": oaInteger(), "segments": oaInteger()}).req("apiTokens", "members", "segments"),
				"health":              oaObject(oaProps{"current": oaInteger()}).req("current"),
				"technicalDebt":       oaObject(oaProps{"current": oaInteger()}).req("current"),
				"lifecycleSummary":    oaMap(oaObject(oaProps{"averageDays": oaNumber().null().d("Always null: when flags entered each stage is not kept."), "currentFlags": oaInteger(), "last30Days": oaInteger().d("`archived` only: flags archived in the last 30 days.")})),
				"staleFlags":          oaObject(oaProps{"total": oaInteger()}).req("total"),
			}).req("activityCountByDate", "resources", "health", "technicalDebt", "lifecycleSummary", "staleFlags"),
			Description: "The project's audit events per UTC day over the last year (days without events left out), its own API tokens (of this project alone), the users given a role in it directly, its own segments, health, flags per lifecycle stage (`initial`, `preLive`, `live`, `completed`, `archived`), and how many flags are stale or potentially stale. 404 for an unknown project."},
		"POST /api/admin/metrics/applications/{appName}": {ID: "createApplication", Summary: "Describe an application", Tag: "Metrics", Status: http.StatusAccepted,
			Body:        oaObject(oaProps{"description": oaString(), "url": oaString(), "color": oaString(), "icon": oaString(), "strategies": oaStrings().d("Only for a new application: at most 100.")}),
			Description: "Creates the application (as if an SDK had registered it) or replaces its `description`, `url`, `color` and `icon`; members left out keep their value. Texts are at most 1,000 characters. Events `application-created` or `application-updated`. 202 without a body."},
		"DELETE /api/admin/metrics/applications/{appName}": {ID: "deleteApplication", Summary: "Delete an application",
			Tag: "Metrics", Description: "Deletes the application and its instances; its metrics stay. 200 also when there is no such application (then without an event). Event `application-deleted`."},
		"GET /api/admin/metrics/applications/{appName}/overview": {ID: "getApplicationOverview", Summary: "An application's overview", Tag: "Metrics",
			Resp: oaObject(oaProps{
				"projects": oaStrings(), "featureCount": oaInteger(),
				"environments": oaArray(oaObject(oaProps{"name": oaString(), "instanceCount": oaInteger(), "sdks": oaStrings(), "frontendSdks": oaStrings(), "backendSdks": oaStrings(),
					"lastSeen": oaDateTime().null(), "issues": oaObject(oaProps{"missingFeatures": oaStrings(), "outdatedSdks": oaStrings()})})),
				"issues": oaObject(oaProps{"missingStrategies": oaStrings()}),
			}).req("projects", "featureCount", "environments", "issues"),
			Description: "The projects and number of flags the application reported metrics for (all kept metrics), and per environment its instances, SDK versions (browser and mobile SDKs apart from backend ones) and latest report. `missingStrategies` lists the strategies it announced that are not defined here; `missingFeatures` and `outdatedSdks` are always empty (metrics of unknown flags are not kept; SDK versions are not judged). 404 for an application that never registered."},
		"GET /api/admin/metrics/instances/{appName}/environment/{environment}": {ID: "getApplicationEnvironmentInstances", Summary: "An application's recent instances", Tag: "Metrics",
			Resp:        oaObject(oaProps{"instances": oaArray(oaObject(oaProps{"instanceId": oaString(), "sdkVersion": oaString().null(), "clientIp": oaString().null(), "lastSeen": oaDateTime()}).req("instanceId"))}).req("instances"),
			Description: "The application's instances in the environment seen in the last 24 hours, most recent first; an empty list for unknown names."},
		"GET /api/admin/projects/{projectId}/applications": {ID: "getProjectApplications", Summary: "Applications using a project's flags", Tag: "Projects",
			Resp: oaObject(oaProps{"total": oaInteger(), "applications": oaArray(oaObject(oaProps{
				"name": oaString(), "environments": oaStrings(), "instances": oaStrings(),
				"sdks": oaArray(oaObject(oaProps{"name": oaString(), "versions": oaStrings()}).req("name", "versions")),
			}).req("name", "environments", "instances", "sdks"))}).req("total", "applications"),
			Query: []*oaParameter{
				oaQuery("query", "Only applications whose name contains this, ignoring case.", oaString()),
				oaQuery("offset", "Applications to skip.", oaString()), oaQuery("limit", "Applications per page: 50 by default, at most 1000.", oaString()),
				oaQuery("sortBy", "`appName` (the only order).", oaString()), oaQuery("sortOrder", "`asc` (default) or `desc`.", oaEnum("asc", "desc")),
			},
			Description: "The applications that reported metrics of the project's flags in the last 48 hours, with their environments, instances and SDKs (name and versions). 404 for an unknown project."},
		"GET /api/admin/instance-admin/statistics": {ID: "getInstanceAdminStats", Summary: "Instance statistics", Tag: "Instance Admin",
			Resp: oaObject(oaProps{
				"instanceId": oaString().d("Generated at first use, shared by every instance using the database."), "timestamp": oaDateTime(), "versionOSS": oaString().d("This server's version."),
				"users": oaInteger(), "featureToggles": oaInteger().d("Active flags."), "projects": oaInteger(), "contextFields": oaInteger(), "roles": oaInteger(),
				"groups": oaInteger(), "environments": oaInteger(), "segments": oaInteger(), "strategies": oaInteger().d("Strategy types defined."),
				"SAMLenabled": oaBool(), "OIDCenabled": oaBool().d("Always false: OIDC is not offered."),
				"clientApps":               oaArray(oaObject(oaProps{"range": oaEnum("allTime", "30d", "7d"), "count": oaInteger()})),
				"apiTokens":                oaObject(oaProps{"admin": oaInteger(), "client": oaInteger(), "frontend": oaInteger()}),
				"maxEnvironmentStrategies": oaInteger(), "maxConstraints": oaInteger(), "maxConstraintValues": oaInteger(),
				"sum": oaString().d("SHA-256 (hex) of this answer's JSON with `sum` empty."),
			}).req("instanceId"),
			Description: "Counts of what the instance holds (people not deleted, active flags, projects, ...), applications seen in the last 7 and 30 days and in all, API tokens by type, and the largest number of strategies of one flag in one environment, of constraints of one strategy and of values of one constraint."},
		"GET /api/admin/instance-admin/statistics/csv": {ID: "getInstanceAdminStatsCsv", Summary: "Instance statistics as CSV", Tag: "Instance Admin",
			Resp: oaString(), RespType: "text/csv",
			Description: "The statistics as one header line and one value line, columns in name order; `clientApps` and `apiTokens` become one column per entry (`clientApps30d`, `apiTokensAdmin`, ...)."},
		"GET /api/admin/context/{contextField}/strategies": {ID: "getStrategiesByContextField", Summary: "Strategies using a context field", Tag: "Context",
			Resp: oaObject(oaProps{"strategies": oaArray(oaObject(oaProps{"id": oaString(), "featureName": oaString(), "projectId": oaString(), "environment": oaString(), "strategyName": oaString()}).
				req("id", "featureName", "projectId", "environment", "strategyName"))}).req("strategies"),
			Description: "Every flag strategy (of active and archived flags) with a constraint on the field; an empty list for a field nothing uses or that does not exist."},
		"POST /api/admin/context/{contextField}/legal-values": {ID: "updateContextFieldLegalValue", Summary: "Add or describe a legal value", Tag: "Context",
			Body:        oaObject(oaProps{"value": oaString().d("At most 100 characters."), "description": oaString().d("At most 1,000 characters.")}).req("value").closed(),
			Description: "Adds the value to the field's legal values, or replaces its description when the field has it already (no change, no event). Event `context-field-updated`. 200 without a body; 404 for an unknown field."},
		"DELETE /api/admin/context/{contextField}/legal-values/{legalValue}": {ID: "deleteContextFieldLegalValue", Summary: "Remove a legal value", Tag: "Context",
			Description: "The value is no longer legal for new constraints; constraints that use it are left as they are. 200 also when the field did not have it (then without an event). Event `context-field-updated`. 404 for an unknown field."},

		// A project's own context fields: the global operations limited to the
		// fields that belong to the project.
		"GET /api/admin/projects/{projectId}/context": {ID: "getContextFieldsForProject", Summary: "List a project's context fields", Tag: "Context",
			Resp: oaArray(oaRef("ContextField")), Query: []*oaParameter{oaContextInclude()},
			Description: "The context fields that belong to the project (not the global ones, unless `include=root`). 404 for an unknown project."},
		"POST /api/admin/projects/{projectId}/context": {ID: "createContextFieldForProject", Summary: "Create a project's context field", Tag: "Context",
			Body: oaRef("ContextField"), Status: http.StatusCreated, Resp: oaRef("ContextField"), Headers: map[string]string{"Location": "The field's URL in the project."},
			Errors:      []int{http.StatusConflict, http.StatusNotFound},
			Description: "A context field of this project alone; `project` in the body, if sent, must name it. Names are unique across global and project fields (409 when taken, built-ins included). Needs UPDATE_PROJECT_CONTEXT in the project (its Owners, Editors and Admins). Event `context-field-created` in the project."},
		"POST /api/admin/projects/{projectId}/context/validate": {ID: "validateContextFieldNameForProject", Summary: "Check that a context field name is free", Tag: "Context",
			Body: oaRef("Name"), Errors: []int{http.StatusConflict, http.StatusNotFound},
			Description: "200 when no context field, global or of any project, has the name; 409 when one has; 404 for an unknown project."},
		"GET /api/admin/projects/{projectId}/context/{contextField}": {ID: "getContextFieldForProject", Summary: "Get a project's context field", Tag: "Context",
			Resp: oaRef("ContextField"), Errors: []int{http.StatusNotFound}, Description: "404 unless the field belongs to the project."},
		"PUT /api/admin/projects/{projectId}/context/{contextField}": {ID: "updateContextFieldForProject", Summary: "Update a project's context field", Tag: "Context",
			Body: oaRef("ContextField"), Resp: oaRef("ContextField"), Errors: []int{http.StatusNotFound},
			Description: "Only the properties sent change; a field never moves to another project (400). 404 unless the field belongs to the project. Event `context-field-updated` in the project."},
		"DELETE /api/admin/projects/{projectId}/context/{contextField}": {ID: "deleteContextFieldForProject", Summary: "Delete a project's context field", Tag: "Context",
			Errors: []int{http.StatusNotFound}, Description: "404 unless the field belongs to the project. Constraints that use it are left as they are. Event `context-field-deleted` in the project."},
		"GET /api/admin/projects/{projectId}/context/{contextField}/strategies": {ID: "getStrategiesByContextFieldForProject", Summary: "Strategies using a context field", Tag: "Context",
			Resp: oaObject(oaProps{"strategies": oaArray(oaObject(oaProps{"id": oaString(), "featureName": oaString(), "projectId": oaString(), "environment": oaString(), "strategyName": oaString()}).
				req("id", "featureName", "projectId", "environment", "strategyName"))}).req("strategies"),
			Description: "As the global operation: every flag strategy with a constraint on the field, of any project. 404 for an unknown project."},
		"POST /api/admin/projects/{projectId}/context/{contextField}/legal-values": {ID: "updateContextFieldLegalValueForProject", Summary: "Add or describe a legal value", Tag: "Context",
			Body:        oaObject(oaProps{"value": oaString().d("At most 100 characters."), "description": oaString().d("At most 1,000 characters.")}).req("value").closed(),
			Description: "As the global operation, for a field of the project (404 otherwise). Event `context-field-updated` in the project."},
		"DELETE /api/admin/projects/{projectId}/context/{contextField}/legal-values/{legalValue}": {ID: "deleteContextFieldLegalValueForProject", Summary: "Remove a legal value", Tag: "Context",
			Description: "As the global operation, for a field of the project (404 otherwise). Event `context-field-updated` in the project."},
		"GET /api/admin/user-admin/inactive": {ID: "getInactiveUsers", Summary: "Inactive users", Tag: "Users",
			Resp: oaObject(oaProps{"version": oaInteger(), "inactiveUsers": oaArray(oaObject(oaProps{
				"id": oaInteger(), "name": oaString().null(), "email": oaString(), "username": oaString().null(),
				"seenAt": oaDateTime().null(), "createdAt": oaDateTime(), "patSeenAt": oaDateTime().null(),
			}).req("id"))}).req("version", "inactiveUsers"),
			Description: "People (not service accounts, not deleted) who were created, last signed in and last used a personal access token more than 180 days ago."},
		"POST /api/admin/user-admin/inactive/delete": {ID: "deleteInactiveUsers", Summary: "Delete inactive users", Tag: "Users",
			Body:        oaObject(oaProps{"ids": oaArray(oaInteger()).d("At most 10,000.")}).req("ids"),
			Description: "Of the ids given, those of inactive users (as listed by `GET /api/admin/user-admin/inactive`) are deleted; other ids, and the caller's own, are left alone. Event `user-deleted` for each. 200 without a body."},
		"POST /api/admin/segments/strategies": {ID: "updateFeatureStrategySegments", Summary: "Set a strategy's segments", Tag: "Segments", Status: http.StatusCreated,
			Body: oaObject(oaProps{"projectId": oaString(), "strategyId": oaString(), "environmentId": oaString(), "segmentIds": oaArray(oaInteger())}).req("projectId", "strategyId", "environmentId", "segmentIds"),
			Resp: oaObject(oaProps{"projectId": oaString(), "strategyId": oaString(), "environmentId": oaString(), "segmentIds": oaArray(oaInteger()).d("As stored: ascending, each once.")}),
			Description: "The strategy's segments become exactly `segmentIds`. The strategy must be in the project and environment named (404 otherwise, or when its flag is archived); segments must exist and be global or of that project (400). Environments under change requests refuse direct edits (403). Event `feature-strategy-update` when the segments change. " +
				"The permission is checked at root level, since the project is in the body, not the path."},
		"GET /api/admin/segments/strategies/{strategyId}": {ID: "getSegmentsByStrategyId", Summary: "A strategy's segments", Tag: "Segments",
			Resp:        oaObject(oaProps{"segments": oaArray(oaObject(nil))}).req("segments"),
			Description: "The segments the strategy uses, as `GET /api/admin/segments` lists them; an empty list for an unknown strategy."},
		"GET /auth/reset/validate": {ID: "validateToken", Summary: "Whose password reset link this is", Tag: "Auth",
			Query: []*oaParameter{{Name: "token", In: "query", Required: true, Schema: oaString(), Description: "The `token` of the reset link."}},
			Resp:  oaRef("TokenUser"),
			Description: "Answers the user a working password reset link is for, so that its page can greet them. 401 for a link that is unknown, used, replaced by a newer one or expired (links work for 24 hours); 400 without a token. " +
				"Checks are limited per client address like sign-ins (429 with `Retry-After`).",
			Errors: []int{http.StatusUnauthorized, http.StatusTooManyRequests}},
		"POST /auth/reset/password": {ID: "changePassword", Summary: "Set a new password with a reset link", Tag: "Auth", Body: oaRef("ResetPassword"),
			Description: "Sets the user's password once with a working reset link: the link is used up and every session of the user ends. The password must follow the password rules (400 otherwise; the link stays usable). " +
				"401 for a link that is unknown, used, replaced or expired. Limited per client address like sign-ins (429). Event `user-updated` (`passwordChanged`, `resetLinkUsed`). 200 without a body.",
			Errors: []int{http.StatusUnauthorized, http.StatusForbidden, http.StatusTooManyRequests}},
		"POST /auth/reset/password-email": {ID: "sendResetPasswordEmail", Summary: "Ask for a password reset e-mail", Tag: "Auth",
			Body: oaObject(oaProps{"email": oaString().d("At most 256 characters.")}).req("email").closed(),
			Description: "Signalbox sends no e-mail, so this answers as Unleash does without a mail server: 200 without a body whether or not the address has an account, and no link is made. An admin makes one instead (`POST /api/admin/user-admin/reset-password`). " +
				"Requests are limited per address asked for and per client (429).",
			Errors: []int{http.StatusForbidden, http.StatusTooManyRequests}},
		"POST /api/admin/user-admin/reset-password": {ID: "resetUserPassword", Summary: "Make a password reset link for a user", Tag: "Users",
			Body: oaObject(oaProps{"id": oaString().d("The user's e-mail, as Unleash sends it; a username or a numeric user id also works.")}).req("id").closed(),
			Resp: oaObject(oaProps{"resetPasswordUrl": oaString().d("The link to hand over: this server's `/reset-password?token=…` page, built from `SIGNALBOX_URL` or else the address of the request.")}).req("resetPasswordUrl").closed(),
			Description: "A link with which the user sets a new password once, within 24 hours; it replaces the user's previous link. Signalbox sends no e-mail: pass the link on yourself. The token is stored only as a hash. " +
				"404 for an unknown user, 400 for a service account. Event `user-updated` (`resetLinkCreated`).",
			Errors: []int{http.StatusNotFound}},
		"GET /api/admin/invite-link/tokens": {ID: "getAllPublicSignupTokens", Summary: "List invite links", Tag: "Public signup tokens",
			Resp: oaObject(oaProps{"tokens": oaArray(oaRef("InviteLink"))}).req("tokens").closed(), Description: "Every invite link, oldest first."},
		"POST /api/admin/invite-link/tokens": {ID: "createPublicSignupToken", Summary: "Make an invite link", Tag: "Public signup tokens", Status: http.StatusCreated,
			Body: oaObject(oaProps{"name": oaString().d("At most 255 characters."), "expiresAt": oaDateTime().d("In the future.")}).req("name", "expiresAt").closed(),
			Resp: oaRef("InviteLink"), Headers: map[string]string{"Location": "The link's address in this API."},
			Description: "A link with a random secret with which people create accounts with the Viewer role until it expires or is disabled. At most 100 links. Event `public-signup-token-created` (without the secret)."},
		"GET /api/admin/invite-link/tokens/{token}": {ID: "getPublicSignupToken", Summary: "Get an invite link", Tag: "Public signup tokens",
			Params: map[string]Schema{"token": *oaString().d("The link's secret.")}, Resp: oaRef("InviteLink"),
			Description: "404 for an unknown secret.", Errors: []int{http.StatusNotFound}},
		"PUT /api/admin/invite-link/tokens/{token}": {ID: "updatePublicSignupToken", Summary: "Change or disable an invite link", Tag: "Public signup tokens",
			Params:      map[string]Schema{"token": *oaString().d("The link's secret.")},
			Body:        oaObject(oaProps{"expiresAt": oaDateTime().d("A past time ends the link."), "enabled": oaBool().d("`false` disables the link.")}).closed(),
			Resp:        oaRef("InviteLink"),
			Description: "Changes the expiry, or disables or enables the link; at least one of the two (400 otherwise). 404 for an unknown secret. Event `public-signup-token-updated`.",
			Errors:      []int{http.StatusNotFound}},
		"GET /invite/{token}/validate": {ID: "validatePublicSignupToken", Summary: "Check an invite link", Tag: "Public signup tokens",
			Params:      map[string]Schema{"token": *oaString().d("The link's secret.")},
			Description: "200 without a body for a link that is enabled and not expired; 400 for any other, as Unleash answers. Checks are limited per client address like sign-ins (429 with `Retry-After`).",
			Errors:      []int{http.StatusTooManyRequests}},
		"POST /invite/{token}/signup": {ID: "addPublicSignupTokenUser", Summary: "Create an account with an invite link", Tag: "Public signup tokens",
			Params: map[string]Schema{"token": *oaString().d("The link's secret.")},
			Body: oaObject(oaProps{"email": oaString(), "name": oaString(), "username": oaString().d("Optional; unique."),
				"password": oaString().d("Must follow the password rules.")}).req("email", "name", "password").closed(),
			Resp: oaRef("User"),
			Description: "Creates a user with the link's role (Viewer) and the password chosen; the person then signs in as anyone does. 400 for a link that does not work (unknown, disabled or expired) and for bad input, 409 for an e-mail or username already taken. " +
				"Checks are limited per client address like sign-ins (429). Event `public-signup-token-user-added`.",
			Errors: []int{http.StatusConflict, http.StatusForbidden, http.StatusTooManyRequests}},
		"POST /auth/reset/validate-password": {ID: "validatePassword", Summary: "Check a new password against the rules", Tag: "Auth",
			Body:        oaObject(oaProps{"password": oaString()}).req("password").closed(),
			Description: "200 when every password change would accept the password, 400 with the rule it breaks otherwise. No sign-in needed; nothing is stored."},
		"POST /api/admin/projects/{projectId}/favorites": {ID: "addFavoriteProject", Summary: "Star a project", Tag: "Projects",
			Description: "The caller stars the project (at most 1,000 starred projects). Only people have favorites: 400 for an API token. Event `project-favorited` when it was not starred. 200 without a body; 404 for an unknown project."},
		"DELETE /api/admin/projects/{projectId}/favorites": {ID: "removeFavoriteProject", Summary: "Unstar a project", Tag: "Projects",
			Description: "The caller takes back their star. 400 for an API token. Event `project-unfavorited` when it was starred. 200 without a body; 404 for an unknown project."},
		"POST /api/admin/projects/{projectId}/features/{featureName}/favorites": {ID: "addFavoriteFeature", Summary: "Star a flag", Tag: "Features",
			Description: "The caller stars the flag (at most 1,000 starred flags); the flag search shows it as `favorite` and can list it first. 400 for an API token. Event `feature-favorited` when it was not starred. 200 without a body; 404 for a flag not in the project."},
		"DELETE /api/admin/projects/{projectId}/features/{featureName}/favorites": {ID: "removeFavoriteFeature", Summary: "Unstar a flag", Tag: "Features",
			Description: "The caller takes back their star. 400 for an API token. Event `feature-unfavorited` when it was starred. 200 without a body; 404 for a flag not in the project."},
		"GET /api/admin/personal-dashboard": {ID: "getPersonalDashboard", Summary: "The caller's dashboard", Tag: "Personal dashboard",
			Resp: oaObject(oaProps{
				"projects":      oaArray(oaObject(oaProps{"id": oaString(), "name": oaString(), "health": oaInteger().dep(), "technicalDebt": oaInteger(), "memberCount": oaInteger(), "featureCount": oaInteger()})),
				"flags":         oaArray(oaObject(oaProps{"name": oaString(), "project": oaString(), "type": oaString()})),
				"admins":        oaArray(oaObject(oaProps{"id": oaInteger(), "name": oaString(), "username": oaString(), "imageUrl": oaString(), "email": oaString()})),
				"projectOwners": oaArray(oaObject(oaProps{"ownerType": oaEnum("user"), "name": oaString(), "imageUrl": oaString().null(), "email": oaString().null()})),
			}).req("projects", "flags", "admins", "projectOwners"),
			Description: "The projects in which the caller holds a role (directly or through a group) or that they starred, with technical debt, member and active flag counts; the active flags they created or starred; the people whose own root role is Admin; and the people who directly own one of those projects. Only people have a dashboard: 400 for an API token."},
		"POST /api/admin/feedback": {ID: "createFeedback", Summary: "Answer or dismiss a questionnaire", Tag: "Admin UI",
			Body:        oaObject(oaProps{"feedbackId": oaString().d("At most 100 characters."), "neverShow": oaBool()}).req("feedbackId"),
			Resp:        oaObject(oaProps{"userId": oaInteger(), "feedbackId": oaString(), "neverShow": oaBool(), "given": oaDateTime().null()}).closed(),
			Description: "Remembers that the caller answered (`given` is now) or dismissed (`neverShow`) one of the UI's questionnaires; `GET /api/admin/user` lists it in `feedback`. At most 200 are kept per person. Only people: 400 for an API token. Event `setting-updated`."},
		"PUT /api/admin/feedback/{id}": {ID: "updateFeedback", Summary: "Change a questionnaire's answer", Tag: "Admin UI",
			Body:        oaObject(oaProps{"userId": oaInteger().d("Ignored: always the caller."), "neverShow": oaBool(), "given": oaDateTime().null()}),
			Resp:        oaObject(oaProps{"userId": oaInteger(), "feedbackId": oaString(), "neverShow": oaBool(), "given": oaDateTime().null()}).closed(),
			Description: "Sets `neverShow` and `given` of one of the caller's questionnaires; members left out keep their value. 400 for an API token. Event `setting-updated`."},
		"POST /api/admin/splash/{id}": {ID: "updateSplashSettings", Summary: "Mark a splash screen seen", Tag: "Admin UI",
			Resp:        oaObject(oaProps{"userId": oaInteger(), "splashId": oaString(), "seen": oaBool()}).req("userId", "splashId", "seen").closed(),
			Description: "Remembers that the caller saw the splash screen; `GET /api/admin/user` lists it in `splash`. 400 for an API token. Event `setting-updated`."},
		"GET /api/admin/personal-dashboard/{projectId}": {ID: "getPersonalDashboardProjectDetails", Summary: "A project on the caller's dashboard", Tag: "Personal dashboard",
			Resp: oaObject(oaProps{
				"owners": oaArray(oaObject(oaProps{"ownerType": oaEnum("user", "group", "system"), "name": oaString(), "imageUrl": oaString().null(), "email": oaString().null()})),
				"roles":  oaArray(oaObject(oaProps{"id": oaInteger(), "name": oaString(), "type": oaEnum("custom", "project")})),
				"latestEvents": oaArray(oaObject(oaProps{"id": oaInteger(), "summary": oaString().null().d("Always null."), "createdBy": oaString(),
					"createdByImageUrl": oaString(), "createdAt": oaDateTime()})),
				"onboardingStatus": oaObject(oaProps{"status": oaString(), "feature": oaString()}),
				"insights":         oaObject(nil).d("totalFlags, activeFlags, staleFlags, potentiallyStaleFlags, health, technicalDebt; the windowed averages are null (not kept)."),
			}).req("owners", "roles", "latestEvents", "onboardingStatus", "insights"),
			Description: "The project's owners (people and groups with the Owner role; `system` when there are none), the caller's roles in it, its 10 latest events, onboarding status and health figures. 404 for an unknown project; only people have a dashboard: 400 for an API token."},
		"GET /api/admin/events": {ID: "getEvents", Summary: "Latest events", Resp: oaRef("Events"), Deprecated: true,
			Description: "Use the event search.", Query: []*oaParameter{oaQuery("project", "Only events of this project.", oaString())}},
		"GET /api/admin/events/{featureName}": {ID: "getEventsForToggle", Summary: "A flag's events", Resp: oaRef("Events"), Deprecated: true, Description: "Use the event search."},
		"GET /api/admin/client-metrics/features/{name}": {ID: "getFeatureUsageSummary", Summary: "Usage of a flag", Resp: oaRef("FeatureUsage"),
			Description: "Evaluation counts of the last hour and the applications that used the flag."},
		"GET /api/admin/client-metrics/features/{name}/raw": {ID: "getRawFeatureMetrics", Summary: "Hourly usage of a flag", Resp: oaRef("FeatureMetrics")},
		"GET /api/admin/metrics/applications":               {ID: "getApplications", Summary: "List SDK applications", Resp: oaRef("Applications")},
		"GET /api/admin/projects/{projectId}/insights": {ID: "getProjectInsights", Summary: "A project's insights", Tag: "Projects",
			Resp: oaObject(oaProps{
				"stats":             oaObject(nil).d("As in the health report: flags created and archived, events and members added, in the last 30 days and the 30 before."),
				"health":            oaRef("InsightsDebt").d("Deprecated: use technicalDebt. rating is the health, 0 to 100."),
				"technicalDebt":     oaRef("InsightsDebt").d("rating is 100 minus the health."),
				"leadTime":          oaObject(nil).d("As `/dora`: days from creation to the first enabling in a production environment."),
				"featureTypeCounts": oaArray(oaObject(oaProps{"type": oaString(), "count": oaInteger()})),
				"members":           oaObject(oaProps{"currentMembers": oaInteger(), "change": oaInteger().d("Members added in the last 30 days.")}).req("currentMembers", "change"),
			}).req("stats", "leadTime", "featureTypeCounts", "health", "technicalDebt", "members"),
			Description: "The figures of the project's health report, DORA lead time, active flags by type and members, in one answer. 404 for an unknown project."},
		"GET /api/admin/metrics/sdks/outdated": {ID: "getOutdatedSdks", Summary: "SDK versions that should be upgraded", Resp: oaRef("OutdatedSdks"),
			Description: "Versions of the official server SDKs older than the oldest release Unleash recommends (Node 5.3.2, Java 9.2.0, Go 4.1.0, Python 5.11.0, Ruby 5.0.0, .NET 4.1.3, PHP 2.3.0), as registered SDK instances report them, with the applications running each."},
		"GET /api/admin/projects/{projectId}/sdks/outdated": {ID: "getOutdatedProjectSdks", Summary: "Outdated SDK versions used with a project", Resp: oaRef("OutdatedSdks"),
			Description: "As `/api/admin/metrics/sdks/outdated`, for the applications that reported one of the project's flags in the last two days. 404 for an unknown project."},
		"GET /api/admin/metrics/unknown-flags": {ID: "getUnknownFlags", Summary: "Flags SDKs asked about that do not exist",
			Resp: oaObject(oaProps{"unknownFlags": oaArray(oaObject(oaProps{
				"name": oaString(), "lastSeenAt": oaDateTime(), "lastEventAt": oaDateTime().null(),
				"reports": oaArray(oaObject(oaProps{"appName": oaString(), "environments": oaArray(oaObject(oaProps{
					"environment": oaString(), "seenAt": oaDateTime()}).req("environment", "seenAt").closed())}).req("appName", "environments").closed()),
			}).req("name", "lastSeenAt").closed())}).req("unknownFlags").closed(),
			Description: "Names SDKs reported in their metrics during the last 24 hours that are no flag (archived flags count as flags), most recent first, with the applications and environments that reported them. Bounded: at most 1,000 names, 20 applications each, 10 environments each; a flood of made-up names cannot grow it."},
		"GET /api/admin/metrics/applications/{appName}": {ID: "getApplication", Summary: "An application and where it is used", Resp: oaRef("ApplicationDetails")},

		// Playground.
		"POST /api/admin/playground": {ID: "getPlayground", Summary: "Evaluate every flag for a context, with reasons", Tag: "Playground",
			Body: oaPlaygroundRequest(), Resp: oaPlaygroundResponse(),
			Description: "Evaluates the flags of the selected projects in one environment for the given context, exactly as an SDK would with the environment's current configuration, and explains each answer: whether the flag is on in the environment, whether its dependencies are satisfied, and the verdict of every strategy (disabled ones included, as `unevaluated`), constraint and segment. Strategies the server cannot evaluate (custom strategies) are `incomplete` with `enabled` `unknown` when nothing else rules them out. 400 when the environment does not exist or `context.appName` is missing."},
		"POST /api/admin/playground/advanced": {ID: "getAdvancedPlayground", Summary: "Evaluate every flag for combinations of contexts and environments", Tag: "Playground",
			Body: oaAdvancedPlaygroundRequest(), Resp: oaAdvancedPlaygroundResponse(),
			Description: "As the playground, in several environments, and each context field may have several values (a list, or a string with values separated by commas): every combination is evaluated. At most 1000 evaluations per flag (environments times combinations); more is a 400. Context fields of other types are ignored and listed in `warnings.invalidContextProperties`. " +
				"The answer is written flag by flag as it is computed (no `Content-Length`), so a request holds one flag's evaluations at a time whatever the number of flags; an answer cut short is not valid JSON. " +
				"Each user or token may have 2 of these requests in progress; a third is a 429 with `Retry-After`.",
			Errors: []int{http.StatusTooManyRequests}},
		"GET /api/admin/roles": oaOp{ID: "getRoles", Summary: "List roles with their permissions", Tag: "Users",
			Resp: oaObject(oaProps{
				"version": oaInteger().d("Always 1."),
				"roles": oaArray(oaObject(oaProps{
					"id":          oaInteger(),
					"type":        oaString().d("`root` or `project`."),
					"name":        oaString(),
					"description": oaString(),
					"permissions": oaArray(oaObject(oaProps{
						"name":        oaString().d("The permission's name, such as `CREATE_FEATURE`."),
						"displayName": oaString().d("What it lets the holder do, in plain words."),
						"type":        oaString().d("`root` when granted everywhere, `project` when granted in the projects where the role is held."),
					}).req("name", "displayName", "type")).d("What the role grants. Admin grants `ADMIN`, which implies every permission."),
				}).req("id", "type", "name", "description", "permissions")),
			}).req("version", "roles"),
			Description: "The root roles (Admin, Editor, Viewer) and the project roles (Owner, Member), each with the permissions it grants: root roles everywhere, project roles in the projects where they are held, directly or through a group."},
		"GET /api/admin/instance-admin/info": oaOp{ID: "getInstanceInfo", Summary: "Instance version and database", Tag: "Instance Admin",
			Resp: oaObject(oaProps{
				"version":  oaString().d("The server's version."),
				"database": oaEnum("sqlite", "postgres", "unknown").d("The database the server stores its data in."),
			}).req("version", "database"),
			Description: "What the administration page shows about the running instance beyond the statistics: its version and its kind of database (embedded SQLite or PostgreSQL)."},
	}
}

var (
	oaNumericID  = map[string]Schema{"id": {Type: "integer", Description: "Numeric id."}}
	oaFlagTypeID = map[string]Schema{"id": {Description: "The flag type, such as `release`."}}
)

func oaQuery(name, description string, schema *Schema) *oaParameter {
	return &oaParameter{Name: name, In: "query", Description: description, Schema: schema}
}

// oaActivateQuery is the parameter that decides what turning a flag on
// does when all its strategies are disabled.
func oaActivateQuery() []*oaParameter {
	return []*oaParameter{oaQuery("shouldActivateDisabledStrategies",
		"When every strategy is disabled: true enables them, otherwise the default strategy is added.", oaBool())}
}

func oaJSON(description string, schema *Schema) *oaResponse {
	return &oaResponse{Description: description, Content: map[string]oaMedia{"application/json": {Schema: schema}}}
}

// oaContextInclude is the include parameter of the context field lists.
func oaContextInclude() *oaParameter {
	return oaQuery("include", "`project` on the global list adds every project's fields; `root` on a project's list adds the global fields.", oaString())
}

// oaContextQuery are the query parameters that make up the evaluation
// context of the frontend API's GET forms.
func oaContextQuery() []*oaParameter {
	explode := true
	return []*oaParameter{
		oaQuery("userId", "", oaString()),
		oaQuery("sessionId", "", oaString()),
		oaQuery("remoteAddress", "Defaults to the caller's address.", oaString()),
		oaQuery("environment", "Defaults to the token's environment.", oaString()),
		oaQuery("appName", "", oaString()),
		oaQuery("currentTime", "Evaluate as of this time (RFC 3339).", oaDateTime()),
		{Name: "properties", In: "query", Style: "deepObject", Explode: &explode, Schema: oaMap(oaString()),
			Description: "Custom context fields as `properties[name]=value`. Any other unknown parameter becomes a property too."},
	}
}

// Change request schemas.

const oaCRTag = "Change requests"

var oaCRParams = map[string]Schema{
	"changeRequestId": {Type: "integer", Description: "Numeric id of the change request."},
	"changeId":        {Type: "integer", Description: "Numeric id of the change; it changes with every edit."},
}

func oaCRConfig() *Schema {
	return oaObject(oaProps{
		"environment":           oaString(),
		"type":                  oaString(),
		"changeRequestEnabled":  oaBool(),
		"changeRequestsEnabled": oaBool(),
		"requiredApprovals":     oaInteger().between(1, 10),
	}).req("environment", "type", "changeRequestEnabled", "changeRequestsEnabled", "requiredApprovals")
}

func CRActions() *Schema {
	return oaEnum("updateSegment", "deleteSegment", "updateEnabled", "addStrategy", "updateStrategy", "deleteStrategy",
		"archiveFeature", "patchVariant", "reorderStrategy", "addDependency", "deleteDependency")
}

func oaCRChangeBody() *Schema {
	return oaObject(oaProps{
		"feature": oaString().d("The flag; required except for segment actions."),
		"action":  CRActions(),
		"payload": oaAny().d("Depends on the action: updateEnabled `{enabled, shouldActivateDisabledStrategies}`; addStrategy and updateStrategy a strategy (updateStrategy with `id`, changing only what is sent); deleteStrategy `{id}`; patchVariant `{variants}`; reorderStrategy `[{id, sortOrder}]`; addDependency `{feature, enabled, variants}`; deleteDependency nothing (all parents) or `{feature}`; updateSegment a segment with `id`; deleteSegment `{id}`; archiveFeature nothing."),
	}).req("action")
}

func oaCRUser() *Schema {
	return oaObject(oaProps{
		"id":       oaInteger().d("The user's id; absent for API tokens."),
		"username": oaString().d("Username, e-mail or token name."),
		"imageUrl": oaString().null(),
	}).req("username")
}

func oaCRChange() *Schema {
	return oaObject(oaProps{
		"id":        oaInteger(),
		"action":    CRActions(),
		"conflict":  oaString().d("Why the change can no longer be applied as proposed: its flag, strategy or segment is gone, or changed since. Absent when there is no conflict."),
		"payload":   oaAny(),
		"createdBy": oaCRUser(),
		"createdAt": oaDateTime(),
	}).req("id", "action", "payload", "createdBy", "createdAt")
}

func oaCRComment() *Schema {
	return oaObject(oaProps{"id": oaInteger(), "text": oaString(), "createdBy": oaCRUser(), "createdAt": oaDateTime()}).
		req("id", "text", "createdBy", "createdAt")
}

func oaChangeRequest() *Schema {
	review := oaObject(oaProps{"createdBy": oaCRUser(), "createdAt": oaDateTime()}).req("createdBy", "createdAt")
	return oaObject(oaProps{
		"id":           oaInteger(),
		"title":        oaString().d("`Change request #<id>` unless set."),
		"environment":  oaString(),
		"minApprovals": oaInteger().d("Approvals needed, from the environment's setting when the request was created."),
		"project":      oaString(),
		"features": oaArray(oaObject(oaProps{
			"name":     oaString(),
			"conflict": oaString().d("Set when the flag is gone, archived or out of the environment."),
			"changes":  oaArray(oaCRChange()),
			"defaultChange": oaObject(oaProps{"action": oaString(), "payload": oaAny()}).req("action", "payload").
				d("The default strategy that switching the flag on will add, when no enabled strategy is there."),
		}).req("name", "changes")),
		"segments":   oaArray(oaWith(oaCRChange(), oaProps{"name": oaString()}).req("id", "action", "payload", "createdBy", "createdAt", "name")),
		"approvals":  oaArray(review),
		"rejections": oaArray(review),
		"comments":   oaArray(oaCRComment()),
		"createdBy":  oaCRUser(),
		"createdAt":  oaDateTime(),
		"state":      oaEnum(store.ChangeRequestDraft, store.ChangeRequestInReview, store.ChangeRequestApproved, store.ChangeRequestApplied, store.ChangeRequestCancelled, store.ChangeRequestRejected, store.ChangeRequestScheduled),
		"schedule": oaObject(oaProps{
			"scheduledAt":   oaDateTime(),
			"status":        oaEnum(store.SchedulePending, store.ScheduleFailed),
			"failureReason": oaString().null(),
		}).req("scheduledAt", "status").d("Only while the state is Scheduled."),
	}).req("id", "environment", "minApprovals", "project", "features", "segments", "createdBy", "createdAt", "state")
}

func oaCRCount() *Schema {
	props := oaProps{}
	names := []string{"total", "draft", "reviewRequired", "approved", "applied", "rejected", "cancelled", "scheduled"}
	for _, n := range names {
		props[n] = oaInteger()
	}
	return oaObject(props).req(names...)
}

// oaUIPage documents a page of the web UI.
func oaUIPage(id, summary string) oaOp {
	return oaOp{ID: id, Summary: summary, Tag: "Web UI", Resp: oaString(), RespType: "text/html",
		RespDesc:    "The HTML shell of the web UI (no-cache, ETag); its script renders the page.",
		Description: "Served from the binary with a strict Content-Security-Policy. The page reads and changes data only through the admin API with the session cookie.",
		More:        map[string]*oaResponse{"304": {Description: "Not modified (If-None-Match)."}}}
}

// Described lists the route patterns the document describes beyond what
// the route table tells.
func Described(f Facts) []string {
	ops := describedOps(f)
	out := make([]string, 0, len(ops))
	for pattern := range ops {
		out = append(out, pattern)
	}
	return out
}
