package openapi

// Schemas of the answers of single areas.

// From the delta area.
// oaDeltaEvents documents the body of GET /api/client/delta and the data of
// stream messages.
func oaDeltaEvents() *Schema {
	event := oaObject(oaProps{
		"type":        oaEnum("hydration", "feature-updated", "feature-removed", "segment-updated", "segment-removed"),
		"eventId":     oaInteger().d("The store revision the event brings the client to."),
		"features":    oaArray(oaRef("Feature")).d("hydration: every flag of the scope."),
		"segments":    oaArray(oaRef("Segment")).d("hydration: every segment."),
		"feature":     oaRef("Feature"),
		"featureName": oaString().d("feature-removed: the flag gone from the scope (archived, deleted, or moved out)."),
		"project":     oaString().d("feature-removed: the project the flag was in."),
		"segment":     oaRef("Segment"),
		"segmentId":   oaInteger().d("segment-removed: the deleted segment."),
	})
	event.Required = []string{"type", "eventId"}
	return oaObject(oaProps{"events": oaArray(event)})
}

// From the frontend_cors area.
// oaFrontendSettings documents the body of POST /api/admin/ui-config/cors.
func oaFrontendSettings() *Schema {
	return oaObject(oaProps{
		"frontendApiOrigins": oaArray(oaString()).d("Origins the frontend API answers browsers from, such as `https://app.example.com`: scheme, host and port as browsers send them in the `Origin` header (no path or trailing slash). `*` allows any origin, and so does an empty list."),
	}).req("frontendApiOrigins")
}

// From the frontend_cors area.
// oaUIConfig documents GET /api/admin/ui-config.
func oaUIConfig() *Schema {
	return oaObject(oaProps{
		"version":     oaString().d("The server's version."),
		"unleashUrl":  oaString().d("The address of the server: the configured public URL, or the scheme and host of the request."),
		"baseUriPath": oaString().d("The path the server is served under; always empty."),
		"versionInfo": oaObject(oaProps{
			"current":  oaObject(oaProps{"oss": oaString()}).d("The running version."),
			"latest":   oaObject(nil).d("Always empty: the server does not look up releases."),
			"isLatest": oaBool(),
		}).req("current", "latest", "isLatest"),
		"frontendApiOrigins": oaArray(oaString()).d("The origins the frontend API allows (CORS): the saved setting, or the configured default."),
	}).req("version", "unleashUrl", "baseUriPath", "versionInfo", "frontendApiOrigins")
}

// From the groups area.
func oaGroupProps() oaProps {
	return oaProps{
		"name":        oaString().d("Unique among groups."),
		"description": oaString().null(),
		"mappingsSSO": oaStrings().d("Names of single-sign-on groups whose members belong to this group."),
		"rootRole":    oaNumber().null().d("Id of the Admin (1), Editor (2) or Viewer (3) role, given to every member on top of their own root role; the most powerful applies."),
	}
}

// From the groups area.
func oaGroup() *Schema {
	return oaWith(oaObject(oaGroupProps()), oaProps{
		"id":        oaInteger(),
		"createdBy": oaString().null(),
		"createdAt": oaDateTime().null(),
		"users": oaArray(oaObject(oaProps{
			"joinedAt":  oaDateTime(),
			"createdBy": oaString().null().d("Who added the user."),
			"user":      oaRef("User"),
		}).req("user")),
		"projects":  oaStrings().d("Projects in which the group holds a role."),
		"userCount": oaInteger(),
	}).req("name")
}

// From the groups area.
func oaGroupBody() *Schema {
	return oaWith(oaObject(oaGroupProps()), oaProps{
		"users": oaArray(oaObject(oaProps{
			"user": oaObject(oaProps{"id": oaInteger()}).req("id"),
		}).req("user")).d("The members."),
	}).req("name")
}

// From the import_export area.
func oaExportQuery() *Schema {
	return oaObject(oaProps{
		"environment":  oaString().d("The environment whose configuration is exported."),
		"downloadFile": oaBool().d("Answer as a file download (`Content-Disposition: attachment`) instead of plain JSON."),
		"features":     oaStrings().d("Selects active flags by name; an empty list selects every active flag. Unknown names are a 404."),
		"tag":          oaString().d("Selects the active flags that carry a tag with this value, of any tag type."),
		"project":      oaString().d("Selects the active flags of this project."),
	}).req("environment").d("Give exactly one of `features`, `tag` and `project`.")
}

// From the import_export area.
func oaExportResult() *Schema {
	return oaObject(oaProps{
		"features": oaArray(oaObject(oaProps{
			"name":           oaString(),
			"type":           oaString(),
			"description":    oaString().null(),
			"project":        oaString(),
			"stale":          oaBool(),
			"impressionData": oaBool(),
			"archived":       oaBool(),
		}).req("name")).d("The flags, without timestamps, sorted by name."),
		"featureStrategies": oaArray(oaRef("FeatureStrategy")).d("Their strategies in the exported environment; `featureName` names the flag."),
		"featureEnvironments": oaArray(oaObject(oaProps{
			"name":        oaString().d("The flag's name."),
			"featureName": oaString(),
			"environment": oaString(),
			"enabled":     oaBool(),
			"variants":    oaArray(oaRef("Variant")),
		}).req("name", "enabled")).d("Each flag's state and variants in the exported environment."),
		"contextFields": oaArray(oaObject(oaProps{
			"name":        oaString(),
			"description": oaString().null(),
			"stickiness":  oaBool(),
			"sortOrder":   oaInteger(),
			"legalValues": oaArray(oaRef("LegalValue")),
		}).req("name")).d("The context fields the strategies' constraints and stickiness refer to."),
		"featureTags": oaArray(oaObject(oaProps{
			"featureName": oaString(),
			"tagType":     oaString(),
			"tagValue":    oaString(),
			"type":        oaString().dep().d("Older spelling of `tagType`; read on import."),
		}).req("featureName", "tagValue")),
		"segments": oaArray(oaObject(oaProps{
			"id":   oaInteger(),
			"name": oaString(),
		}).req("id", "name")).d("The segments the strategies use. An import finds them by name: they must exist in the target."),
		"tagTypes":     oaArray(oaRef("TagType")).d("The tag types of `featureTags`."),
		"dependencies": oaArray(oaRef("FeatureDependencies")).d("The parents of each exported flag that has any."),
	}).req("features", "featureStrategies").d("Unleash's export format; Signalbox and Unleash read each other's exports.")
}

// From the import_export area.
func oaImportBody() *Schema {
	return oaObject(oaProps{
		"project":     oaString().d("The project to import into."),
		"environment": oaString().d("The environment to import into; it need not be the exported one."),
		"data":        oaExportResult(),
	}).req("project", "environment", "data")
}

// From the import_export area.
func oaImportValidation() *Schema {
	item := oaObject(oaProps{
		"message":       oaString(),
		"affectedItems": oaStrings(),
	}).req("message", "affectedItems")
	return oaObject(oaProps{
		"errors":      oaArray(item).d("Problems that prevent the import."),
		"warnings":    oaArray(item).d("What the import would overwrite or should be checked."),
		"permissions": oaArray(item).d("Permissions the import needs that the caller lacks (also: change requests enabled in the environment)."),
	}).req("errors", "warnings", "permissions")
}

// From the playground area.
func oaOutcome(d string) *Schema {
	return (&Schema{OneOf: []*Schema{oaBool(), oaEnum("unknown")}}).d(d)
}

// From the playground area.
func oaPlaygroundContext(multi bool) *Schema {
	value := oaString()
	if multi {
		value = &Schema{OneOf: []*Schema{oaString(), oaStrings()}}
		value.d("One value, several separated by commas, or a list of values.")
	}
	s := oaObject(oaProps{
		"appName":       value,
		"userId":        value,
		"sessionId":     value,
		"remoteAddress": value,
		"environment":   value,
		"currentTime":   value,
		"properties":    oaMap(value).d("Further context fields; fields at the top level that are not named here are properties too."),
	}).req("appName").d("The context to evaluate for (sdkContextSchema). `environment` defaults to the environment evaluated in.")
	s.AdditionalProperties = true
	return s
}

// From the playground area.
func oaPlaygroundProjects() *Schema {
	return (&Schema{OneOf: []*Schema{oaStrings(), oaEnum("*")}}).
		d("`\"*\"` (the default) for every project, or a list of project ids (an empty list selects no flag).")
}

// From the playground area.
func oaPlaygroundRequest() *Schema {
	return oaObject(oaProps{
		"environment": oaString().d("The environment to evaluate in."),
		"projects":    oaPlaygroundProjects(),
		"context":     oaPlaygroundContext(false),
	}).req("environment", "context")
}

// From the playground area.
func oaAdvancedPlaygroundRequest() *Schema {
	return oaObject(oaProps{
		"environments": oaArray(oaString()).d("The environments to evaluate in."),
		"projects":     oaPlaygroundProjects(),
		"context":      oaPlaygroundContext(true),
	}).req("environments", "context")
}

// From the playground area.
func oaPlaygroundConstraint() *Schema {
	return oaObject(oaProps{
		"contextName":     oaString(),
		"operator":        oaString(),
		"caseInsensitive": oaBool(),
		"inverted":        oaBool(),
		"values":          oaStrings(),
		"value":           oaString(),
		"result":          oaBool().d("Whether the constraint matched, after inversion."),
	}).req("contextName", "operator", "result").closed()
}

// From the playground area.
func oaPlaygroundVariant(advanced bool) *Schema {
	props := oaProps{
		"name":            oaString().d("`disabled` when the flag is off or gives no variant."),
		"enabled":         oaBool(),
		"payload":         oaObject(oaProps{"type": oaString(), "value": oaString()}).req("type", "value").closed(),
		"feature_enabled": oaBool(),
	}
	if !advanced {
		props["featureEnabled"] = oaBool().dep()
	}
	return oaObject(props).req("name", "enabled").closed()
}

// From the playground area.
func oaPlaygroundStrategy() *Schema {
	variants := oaArray(oaRef("Variant"))
	complete := oaObject(oaProps{
		"evaluationStatus": oaEnum("complete"),
		"enabled":          oaBool(),
		"variant":          oaObject(oaProps{"name": oaString(), "enabled": oaBool(), "payload": oaObject(oaProps{"type": oaString(), "value": oaString()}).req("type", "value").closed()}).req("name", "enabled").closed().null(),
		"variants":         variants,
	}).req("evaluationStatus", "enabled").closed()
	incomplete := oaObject(oaProps{
		"evaluationStatus": oaEnum("incomplete", "unevaluated").d("incomplete: a strategy this server cannot evaluate (enabled is false when a constraint or segment fails, else unknown); unevaluated: a disabled strategy."),
		"enabled":          &Schema{OneOf: []*Schema{oaBool(), oaEnum("unknown")}},
	}).req("evaluationStatus", "enabled").closed()
	return oaObject(oaProps{
		"name":        oaString(),
		"title":       oaString(),
		"id":          oaString(),
		"result":      &Schema{OneOf: []*Schema{complete, incomplete}},
		"disabled":    oaBool().null(),
		"segments":    oaArray(oaObject(oaProps{"id": oaInteger(), "name": oaString(), "result": oaBool(), "constraints": oaArray(oaPlaygroundConstraint())}).req("id", "name", "result", "constraints").closed()),
		"constraints": oaArray(oaPlaygroundConstraint()),
		"parameters":  oaMap(oaString()),
		"links":       oaObject(oaProps{"edit": oaString()}).req("edit"),
	}).req("id", "name", "result", "segments", "constraints", "parameters", "disabled", "links").closed()
}

// From the playground area.
func oaPlaygroundFeature(advanced bool) *Schema {
	props := oaProps{
		"name":      oaString(),
		"projectId": oaString(),
		"strategies": oaObject(oaProps{
			"result": oaOutcome("True when a strategy is on (or the flag has none), unknown when none is on but one could not be evaluated."),
			"data":   oaArray(oaPlaygroundStrategy()),
		}).req("result", "data").closed(),
		"isEnabledInCurrentEnvironment": oaBool(),
		"isEnabled":                     oaBool().d("What an SDK would answer: the flag is on in the environment, its dependencies are satisfied and a strategy is on."),
		"variant":                       oaPlaygroundVariant(advanced),
		"variants":                      oaArray(oaRef("Variant")),
	}
	req := []string{"name", "projectId", "isEnabled", "isEnabledInCurrentEnvironment", "variant", "variants", "strategies"}
	if advanced {
		props["environment"] = oaString()
		props["context"] = oaMap(oaString()).d("The combination of context values evaluated, with properties at the top level.")
		req = append(req, "environment", "context")
	} else {
		props["hasUnsatisfiedDependency"] = oaBool()
	}
	return oaObject(props).req(req...).closed()
}

// From the playground area.
func oaPlaygroundResponse() *Schema {
	return oaObject(oaProps{
		"input":    oaPlaygroundRequest(),
		"features": oaArray(oaPlaygroundFeature(false)),
	}).req("features", "input").closed()
}

// From the playground area.
func oaAdvancedPlaygroundResponse() *Schema {
	return oaObject(oaProps{
		"input": oaAdvancedPlaygroundRequest(),
		"features": oaArray(oaObject(oaProps{
			"name":         oaString(),
			"projectId":    oaString(),
			"environments": oaMap(oaArray(oaPlaygroundFeature(true))).d("By environment, one evaluation per combination of context values."),
		}).req("name", "projectId", "environments").closed()),
		"warnings": oaObject(oaProps{"invalidContextProperties": oaStrings().d("Context fields ignored because they are neither strings nor lists of strings.")}),
	}).req("features", "input").closed()
}

// From the project_access area.
func oaRoleIDs() *Schema {
	return oaObject(oaProps{
		"roles": oaArray(oaInteger()).d("Ids of project roles (Owner 4, Member 5); the exact set to hold, possibly empty."),
	}).req("roles")
}

// From the project_access area.
func oaProjectAccess() *Schema {
	roleProps := oaProps{
		"addedAt": oaDateTime().d("When the first of these roles was granted."),
		"roleId":  oaInteger().d("The first of the roles."),
		"roles":   oaArray(oaInteger()).d("Ids of the project roles held."),
	}
	return oaObject(oaProps{
		"users": oaArray(oaWith(oaObject(oaProps{
			"id":       oaInteger(),
			"name":     oaString(),
			"email":    oaString().null(),
			"username": oaString().null(),
			"imageUrl": oaString().null(),
			"isAPI":    oaBool().dep(),
		}), roleProps).req("id", "roleId", "roles")).d("Users who hold roles themselves."),
		"groups": oaArray(oaWith(oaGroup(), roleProps).req("id", "name", "roleId", "roles")).d("Groups that hold roles; they apply to each member."),
		"roles":  oaArray(oaRef("Role")).d("The project roles."),
	}).req("users", "groups", "roles")
}

// From the project_access area.
func oaAddProjectAccess() *Schema {
	ref := oaObject(oaProps{"id": oaInteger()}).req("id")
	return oaObject(oaProps{
		"roles":  oaArray(oaInteger()).d("Ids of project roles to grant; at least one."),
		"users":  oaArray(ref).d("Users to grant them to."),
		"groups": oaArray(ref).d("Groups to grant them to."),
	}).req("roles")
}

// From the saml area.
// oaSAMLSettings documents the settings resource, for openapi_ops.go.
func oaSAMLSettings() *Schema {
	return oaObject(oaProps{
		"enabled":         oaBool().d("Whether people can sign in with SAML. Needs the server's public URL (`SIGNALBOX_URL`), from which the service provider's entity id and callback URL derive."),
		"entityId":        oaString().d("The identity provider's SAML 2.0 entity id (issuer): any string of at most 1024 characters without control characters, usually a URL or URN."),
		"signOnUrl":       oaString().d("The identity provider's single sign-on URL (HTTP-Redirect binding)."),
		"certificate":     oaString().d("The identity provider's X.509 signing certificate, PEM or bare base64. Several PEM certificates may be given (rollover); a private key is refused."),
		"signOutUrl":      oaString().d("The identity provider's sign-out URL (stored; single logout is not performed)."),
		"spCertificate":   oaString().d("A signing certificate for sign-out requests (stored). The service provider's own key and certificate are generated by the server and published in its metadata."),
		"autoCreate":      oaBool().d("Create people the identity provider vouches for when no user has their e-mail address, if its domain is in `emailDomains`."),
		"emailDomains":    oaString().d("Comma-separated e-mail domains (exact) whose people may be created, such as `example.com, example.org`. Required with `autoCreate`."),
		"defaultRootRole": oaEnum("Viewer", "Editor", "Admin").d("Root role of created users; Viewer when empty."),
	}).req("entityId", "signOnUrl", "certificate")
}

// From the search area.
// oaSearchFeatures documents the answer of the flag search.
func oaSearchFeatures(f Facts) *Schema {
	env := oaObject(oaProps{
		"name": oaString(), "environment": oaString(), "featureName": oaString(), "type": oaString(),
		"enabled": oaBool(), "sortOrder": oaInteger(), "variantCount": oaInteger(),
		"lastSeenAt":    oaDateTime().null(),
		"hasStrategies": oaBool(), "hasEnabledStrategies": oaBool().d("Whether a strategy that is not disabled is there."),
	}).req("name", "enabled", "type").closed()
	flag := oaObject(oaProps{
		"name": oaString(), "type": oaString(), "description": oaString().null(),
		"dependencyType": oaEnum("parent", "child").null().d("`child` when the flag depends on another, `parent` when another depends on it."),
		"project":        oaString(), "stale": oaBool(), "favorite": oaBool().d("Whether the caller starred the flag."),
		"impressionData": oaBool(), "createdAt": oaDateTime().null(), "archivedAt": oaDateTime().null(),
		"createdBy":    oaObject(oaProps{"id": oaInteger().d("0 when the creator was not a person (an API token)."), "name": oaString(), "imageUrl": oaString()}).req("id", "name", "imageUrl").closed(),
		"environments": oaArray(env).d("The environments of the flag's project."),
		"segments":     oaStrings().d("Names of the segments its strategies use."),
		"tags":         oaArray(oaRef("Tag")).null(),
		"lifecycle": oaObject(oaProps{
			"stage":          oaEnum(f.LifecycleStages...),
			"enteredStageAt": oaDateTime(),
		}).req("stage", "enteredStageAt").closed(),
	}).req("name", "description", "dependencyType", "type", "project", "stale", "favorite", "impressionData", "createdAt", "createdBy", "environments", "segments", "archivedAt").closed()
	return oaObject(oaProps{
		"features": oaArray(flag).d("The page of matching flags."),
		"total":    oaInteger().d("How many flags match, on every page."),
	}).req("features").closed()
}

// From the search area.
// oaSearchFeaturesQuery documents the flag search's query parameters.
func oaSearchFeaturesQuery() []*oaParameter {
	is := "with `IS`, `IS_NOT`, `IS_ANY_OF` or `IS_NONE_OF`, e.g. `IS_ANY_OF:a,b`"
	include := "with `INCLUDE`, `DO_NOT_INCLUDE`, `INCLUDE_ALL_OF`, `INCLUDE_ANY_OF`, `EXCLUDE_IF_ANY_OF` or `EXCLUDE_ALL`"
	return []*oaParameter{
		oaQuery("query", "Text found (ignoring case) in the name, the description or a tag (`type:value`); several separated by commas match any.", oaString()),
		oaQuery("project", "Project id, "+is+".", oaString().ex("IS:default")),
		oaQuery("state", "`active`, `stale` or `potentially-stale` (older than its type's lifetime), "+is+".", oaString().ex("IS:active")),
		oaQuery("lifecycle", "Lifecycle stage (`initial`, `pre-live`, `live`, `archived`), "+is+". `IS:archived` searches the archive.", oaString().ex("IS:live")),
		oaQuery("type", "Flag type, "+is+".", oaString().ex("IS:release")),
		oaQuery("createdBy", "Id of the person who created the flag, "+is+".", oaString().ex("IS:1")),
		oaQuery("tag", "Tags as `type:value`, "+include+".", oaString().ex("INCLUDE:simple:my_tag")),
		oaQuery("segment", "Segment names, "+include+".", oaString().ex("INCLUDE:pro-users")),
		{Name: "status", In: "query", Description: "`environment:enabled` or `environment:disabled`; a flag matching any of those given is found.", Schema: oaStrings()},
		oaQuery("archived", "`IS:true` searches the archive, `IS:false` (the default) active flags.", oaEnum("IS:true", "IS:false")),
		oaQuery("favorite", "`IS:true`: only the flags the caller starred; `IS:false`: only the others.", oaString()),
		oaQuery("favoritesFirst", "`true`: the caller's starred flags before the others, each part sorted as asked.", oaString()),
		oaQuery("createdAt", "`IS_BEFORE:YYYY-MM-DD` or `IS_ON_OR_AFTER:YYYY-MM-DD` (UTC).", oaString().ex("IS_ON_OR_AFTER:2024-01-31")),
		oaQuery("lastSeenAt", "`IS_BEFORE:YYYY-MM-DD` or `IS_ON_OR_AFTER:YYYY-MM-DD` (UTC); flags never seen do not match.", oaString()),
		oaQuery("sortBy", "`createdAt` (default), `name`, `type`, `project`, `description`, `stale`, `lifecycle`, `lastSeenAt` or `environment:<name>` (by whether the flag is on there); ties by name.", oaString()),
		oaQuery("sortOrder", "`asc` (default) or `desc`.", oaEnum("asc", "desc")),
		oaQuery("offset", "Matching flags to skip.", oaString().ex("0")),
		oaQuery("limit", "Flags per page: 50 by default, at most 1000 (larger values are lowered).", oaString().ex("50")),
	}
}

// oaSAMLNoPublicURL documents the 503 of the SAML routes, for
// ops.go.
var oaSAMLNoPublicURL = map[string]*oaResponse{"503": oaJSON(
	"The server's public URL (`SIGNALBOX_URL`) is not configured; SAML needs it (`NotReadyError`).", oaRef("ErrorRecord"))}
