package openapi

// Schemas of the OpenAPI document. Field names, types and required lists
// follow the Go wire types (clientapi, UserJSON, TokenJSON, apierr.Body) and
// Unleash's contract where we have no Go type of our own; the
// descriptions are ours.

// Schema is an OpenAPI 3.0 schema object. Build one with the oaX
// constructors and refine it with the chained methods.
type Schema struct {
	Ref                  string             `json:"$ref,omitempty"`
	Type                 string             `json:"type,omitempty"`
	Format               string             `json:"format,omitempty"`
	Description          string             `json:"description,omitempty"`
	Enum                 []any              `json:"enum,omitempty"`
	Default              any                `json:"default,omitempty"`
	Example              any                `json:"example,omitempty"`
	Nullable             bool               `json:"nullable,omitempty"`
	Deprecated           bool               `json:"deprecated,omitempty"`
	Minimum              *float64           `json:"minimum,omitempty"`
	Maximum              *float64           `json:"maximum,omitempty"`
	MinLength            *int               `json:"minLength,omitempty"`
	MaxLength            *int               `json:"maxLength,omitempty"`
	Pattern              string             `json:"pattern,omitempty"`
	Items                *Schema            `json:"items,omitempty"`
	Properties           map[string]*Schema `json:"properties,omitempty"`
	Required             []string           `json:"required,omitempty"`
	AdditionalProperties any                `json:"additionalProperties,omitempty"`
	OneOf                []*Schema          `json:"oneOf,omitempty"`
}

type oaProps = map[string]*Schema

func oaString() *Schema   { return &Schema{Type: "string"} }
func oaInteger() *Schema  { return &Schema{Type: "integer"} }
func oaNumber() *Schema   { return &Schema{Type: "number"} }
func oaBool() *Schema     { return &Schema{Type: "boolean"} }
func oaDateTime() *Schema { return &Schema{Type: "string", Format: "date-time"} }
func oaAny() *Schema      { return &Schema{} }

func oaRef(name string) *Schema { return &Schema{Ref: "#/components/schemas/" + name} }

func oaArray(items *Schema) *Schema { return &Schema{Type: "array", Items: items} }

func oaObject(props oaProps) *Schema { return &Schema{Type: "object", Properties: props} }

// oaMap is an object whose members all have the schema values.
func oaMap(values *Schema) *Schema {
	return &Schema{Type: "object", AdditionalProperties: values}
}

func oaStrings() *Schema { return oaArray(oaString()) }

func oaEnum(values ...string) *Schema {
	s := oaString()
	for _, v := range values {
		s.Enum = append(s.Enum, v)
	}
	return s
}

// d sets the description.
func (s *Schema) d(description string) *Schema { s.Description = description; return s }

// req lists the required properties.
func (s *Schema) req(names ...string) *Schema { s.Required = names; return s }

// closed forbids properties that are not listed.
func (s *Schema) closed() *Schema { s.AdditionalProperties = false; return s }

func (s *Schema) null() *Schema           { s.Nullable = true; return s }
func (s *Schema) dep() *Schema            { s.Deprecated = true; return s }
func (s *Schema) def(v any) *Schema       { s.Default = v; return s }
func (s *Schema) ex(v any) *Schema        { s.Example = v; return s }
func (s *Schema) format(f string) *Schema { s.Format = f; return s }

func (s *Schema) between(lo, hi float64) *Schema {
	s.Minimum, s.Maximum = &lo, &hi
	return s
}

func (s *Schema) atLeast(lo float64) *Schema { s.Minimum = &lo; return s }

func (s *Schema) length(lo, hi int) *Schema {
	s.MinLength, s.MaxLength = &lo, &hi
	return s
}

// oaWith returns a copy of base with extra properties added.
func oaWith(base *Schema, extra oaProps) *Schema {
	c := *base
	c.Properties = oaProps{}
	for k, v := range base.Properties {
		c.Properties[k] = v
	}
	for k, v := range extra {
		c.Properties[k] = v
	}
	return &c
}

var (
	oaOperators = []string{
		"IN", "NOT_IN", "STR_CONTAINS", "STR_STARTS_WITH", "STR_ENDS_WITH",
		"NUM_EQ", "NUM_GT", "NUM_GTE", "NUM_LT", "NUM_LTE", "DATE_AFTER", "DATE_BEFORE",
		"SEMVER_EQ", "SEMVER_GT", "SEMVER_GTE", "SEMVER_LT", "SEMVER_LTE", "REGEX",
	}
	oaFlagTypes    = []string{"release", "experiment", "operational", "kill-switch", "permission", "sunset"}
	oaRootRoles    = []string{"Admin", "Editor", "Viewer", "Owner", "Member"}
	oaPayloadTypes = []string{"string", "json", "csv", "number"}
)

// Schemas returns the component schemas. It builds them afresh so that
// documents never share (and so never mutate) each other's schemas.
func Schemas(f Facts) map[string]*Schema {
	s := map[string]*Schema{}
	oaCommonSchemas(s)
	oaClientSchemas(s)
	oaFeatureSchemas(s, f)
	oaAdminSchemas(s)
	return s
}

func oaCommonSchemas(s map[string]*Schema) {
	s["ErrorRecord"] = oaObject(oaProps{
		"id":      oaString().format("uuid").d("Id of this occurrence; internal errors are logged under it."),
		"name":    oaString().d("Kind of error, such as `ValidationError`, `NoAccessError` or `NotFoundError`; each kind has one HTTP status.").ex("ValidationError"),
		"message": oaString().d("What went wrong, for people."),
		"details": oaArray(oaRef("ErrorDetail")).d("Individual problems; at least one, which repeats the message when there is nothing more specific."),
		"path":    oaString().d("Only with `AuthenticationRequired`: where to sign in (`/auth/simple/login`)."),
		"type":    oaString().d("Only with `AuthenticationRequired`: the sign-in method (`password`)."),
	}).req("id", "name", "message").closed().d("The body of every error answer.")
	s["ErrorDetail"] = oaObject(oaProps{
		"path":    oaString().d("The property the problem is about, when there is one."),
		"message": oaString(),
	}).req("message").closed()
	s["Health"] = oaObject(oaProps{
		"health":  oaEnum("GOOD", "BAD").d("GOOD while the server can answer; `/ready` says BAD while the database does not answer."),
		"message": oaString().d("Why `/ready` says BAD (`database unreachable`), or what fails while it says GOOD (`writes failing: disk full`: reads and SDKs are still served)."),
	}).req("health").closed()
	s["Login"] = oaObject(oaProps{
		"username": oaString().d("User name or e-mail address."),
		"email":    oaString().d("Used when `username` is empty."),
		"password": oaString(),
	}).req("password").d("After five failed attempts for one login within 15 minutes, further attempts are refused for a while.")
	s["Name"] = oaObject(oaProps{"name": oaString()}).req("name")
	s["Patch"] = oaArray(oaRef("PatchOperation")).d("A JSON Patch (RFC 6902), applied to the JSON form of the resource; the result is then validated like a full update.")
	s["PatchOperation"] = oaObject(oaProps{
		"op":    oaEnum("add", "remove", "replace", "copy", "move", "test"),
		"path":  oaString().d("JSON Pointer to the member to change, such as `/parameters/rollout`.").ex("/parameters/rollout"),
		"from":  oaString().d("Source pointer for `copy` and `move`."),
		"value": oaAny().d("New value for `add`, `replace` and `test`."),
	}).req("op", "path")
}

// oaClientSchemas describes the clientapi wire types: the client API
// payload, registration and metrics, and the frontend API.
func oaClientSchemas(s map[string]*Schema) {
	s["Features"] = oaObject(oaProps{
		"version":  oaInteger().d("Format version of the payload; 2."),
		"features": oaArray(oaRef("Feature")),
		"segments": oaArray(oaRef("Segment")).d("Segments that strategies refer to by id. Always sent; constraints are not inlined into strategies."),
		"query":    oaRef("FeaturesQuery"),
		"meta":     oaRef("FeaturesMeta"),
	}).req("version", "features").closed().d("The flag configuration a token may see, for local evaluation.")
	s["FeaturesQuery"] = oaObject(oaProps{
		"tag":                      oaArray(oaStrings()).d("Tag filters as [type, value] pairs."),
		"project":                  oaStrings().d("Projects the answer is limited to; absent for every project."),
		"namePrefix":               oaString(),
		"environment":              oaString().d("Environment the flags were evaluated for: the token's."),
		"inlineSegmentConstraints": oaBool().d("Always false: segments are sent separately."),
	}).closed().d("The filters the answer was built for.")
	s["FeaturesMeta"] = oaObject(oaProps{
		"revisionId": oaInteger().d("Store revision the answer reflects."),
		"etag":       oaString().d("Same value as the ETag header."),
		"queryHash":  oaString().d("Hash of the filters."),
	}).closed()
	s["Feature"] = oaObject(oaProps{
		"name":           oaString(),
		"type":           oaEnum(oaFlagTypes...),
		"description":    oaString(),
		"project":        oaString(),
		"enabled":        oaBool().d("Whether the flag is on in the token's environment; strategies decide for whom."),
		"stale":          oaBool(),
		"impressionData": oaBool().d("Whether SDKs should emit impression events for this flag."),
		"strategies":     oaArray(oaRef("Strategy")).d("Enabled strategies only; the flag is on for a context when any of them matches."),
		"variants":       oaArray(oaRef("Variant")).d("Flag-level variants of the environment."),
		"dependencies":   oaArray(oaRef("Dependency")),
		"segments":       oaArray(oaInteger()).d("Present in some delta payloads; evaluation uses the strategies' segments."),
	}).req("name", "enabled", "strategies", "variants").closed()
	s["Strategy"] = oaObject(oaProps{
		"id":          oaString(),
		"name":        oaString().d("Strategy type, such as `default`, `flexibleRollout`, `userWithId` or a custom type.").ex("flexibleRollout"),
		"sortOrder":   oaInteger(),
		"constraints": oaArray(oaRef("Constraint")).d("All must match."),
		"parameters":  oaRef("Parameters"),
		"segments":    oaArray(oaInteger()).d("Ids of segments whose constraints must all match too."),
		"variants":    oaArray(oaRef("Variant")).d("Strategy variants; when present they win over the flag's."),
	}).req("name", "constraints", "parameters").closed()
	s["Parameters"] = oaMap(oaString()).d("Strategy parameters. Always strings on the wire (`\"rollout\": \"50\"`); numbers and booleans sent by older tools are accepted and kept as their JSON text.")
	s["Constraint"] = oaObject(oaProps{
		"contextName":     oaString().d("Context field to compare, such as `userId`, `appVersion` or a custom property.").ex("userId"),
		"operator":        oaEnum(oaOperators...),
		"values":          oaStrings().d("Values for the list operators (`IN`, `NOT_IN`, `STR_*`); always an array in answers."),
		"value":           oaString().d("Value for the single-value operators (`NUM_*`, `DATE_*`, `SEMVER_*`, `REGEX`)."),
		"caseInsensitive": oaBool().def(false),
		"inverted":        oaBool().def(false).d("Negates the result."),
	}).req("contextName", "operator").closed()
	s["Variant"] = oaObject(oaProps{
		"name":       oaString(),
		"weight":     oaInteger().between(0, 1000).d("Share out of 1000. The server recomputes `variable` weights so that all weights total 1000."),
		"weightType": oaEnum("variable", "fix").d("`fix` keeps the weight as given."),
		"stickiness": oaString().d("Context field that keeps a user on the same variant; `default` tries userId, then sessionId, then random."),
		"payload":    oaRef("Payload"),
		"overrides":  oaArray(oaRef("Override")).d("Flag-level variants only: contexts that always get this variant."),
	}).req("name", "weight").closed()
	s["Payload"] = oaObject(oaProps{
		"type":  oaEnum(oaPayloadTypes...),
		"value": oaString().d("Always a string, also for the json, csv and number types."),
	}).req("type", "value").closed()
	s["Override"] = oaObject(oaProps{
		"contextName": oaString(),
		"values":      oaStrings(),
	}).req("contextName", "values").closed()
	s["Dependency"] = oaObject(oaProps{
		"feature":  oaString().d("Name of the parent flag."),
		"enabled":  oaBool().def(true).d("Whether the parent must be on (default) or off."),
		"variants": oaStrings().d("When not empty, the parent variants that satisfy the dependency; only with `enabled`."),
	}).req("feature").closed()
	s["Segment"] = oaObject(oaProps{
		"id":          oaInteger(),
		"name":        oaString(),
		"constraints": oaArray(oaRef("Constraint")),
	}).req("id", "constraints").closed()
	s["Registration"] = oaObject(oaProps{
		"appName":          oaString(),
		"instanceId":       oaString().d("Defaults to `default`."),
		"connectionId":     oaString(),
		"sdkVersion":       oaString().ex("unleash-client-node:6.0.0"),
		"environment":      oaString().d("Defaults to the token's environment."),
		"strategies":       oaStrings().d("Strategy types the SDK can evaluate."),
		"started":          oaDateTime(),
		"interval":         oaInteger().d("Refresh interval in milliseconds."),
		"platformName":     oaString(),
		"platformVersion":  oaString(),
		"yggdrasilVersion": oaString(),
		"specVersion":      oaString(),
	}).req("appName").d("An SDK instance announcing itself.")
	s["ClientMetrics"] = oaObject(oaProps{
		"appName":          oaString(),
		"instanceId":       oaString(),
		"connectionId":     oaString(),
		"environment":      oaString().d("Defaults to the token's environment."),
		"bucket":           oaRef("MetricsBucket"),
		"platformName":     oaString(),
		"platformVersion":  oaString(),
		"yggdrasilVersion": oaString(),
		"specVersion":      oaString(),
	}).req("appName", "bucket").d("Evaluation counts of one SDK instance over one period.")
	s["MetricsBucket"] = oaObject(oaProps{
		"start":   oaDateTime(),
		"stop":    oaDateTime(),
		"toggles": oaMap(oaRef("ToggleCount")).d("Counts by flag name; unknown names are counted too."),
	}).req("start", "stop")
	s["ToggleCount"] = oaObject(oaProps{
		"yes":      oaInteger().atLeast(0),
		"no":       oaInteger().atLeast(0),
		"variants": oaMap(oaInteger().atLeast(0)).d("How often each variant was handed out."),
	})
	s["Toggles"] = oaObject(oaProps{"toggles": oaArray(oaRef("Toggle"))}).req("toggles").closed()
	s["Toggle"] = oaObject(oaProps{
		"name":           oaString(),
		"enabled":        oaBool(),
		"variant":        oaRef("ToggleVariant"),
		"impressionData": oaBool(),
	}).req("name", "enabled", "variant", "impressionData").closed().d("One flag evaluated for the request's context; configuration is never included.")
	s["ToggleVariant"] = oaObject(oaProps{
		"name":            oaString().d("`disabled` when no variant applies."),
		"enabled":         oaBool(),
		"payload":         oaRef("Payload"),
		"feature_enabled": oaBool().d("Whether the flag itself is on."),
		"featureEnabled":  oaBool().d("Same as `feature_enabled`; SDKs read either."),
	}).req("name", "enabled").closed()
	s["FrontendRequest"] = oaObject(oaProps{
		"context": oaRef("Context"),
		"toggles": oaStrings().d("Evaluate only these flags, listing unknown ones as off; without it, every enabled flag."),
	})
	s["Context"] = oaObject(oaProps{
		"userId":        oaString(),
		"sessionId":     oaString(),
		"remoteAddress": oaString().d("Defaults to the caller's address."),
		"environment":   oaString().d("Defaults to the token's environment."),
		"appName":       oaString(),
		"currentTime":   oaDateTime().d("Evaluate as of this time; invalid values are ignored."),
		"properties":    oaMap(oaString().null()).d("Custom context fields; null means absent."),
	}).d("The evaluation context.")
}

// oaFeatureSchemas describes flags and their configuration on the admin API.
func oaFeatureSchemas(s map[string]*Schema, f Facts) {
	s["AdminFeature"] = oaObject(oaProps{
		"name":           oaString(),
		"type":           oaEnum(oaFlagTypes...),
		"description":    oaString().null(),
		"project":        oaString(),
		"enabled":        oaBool().dep(),
		"stale":          oaBool(),
		"archived":       oaBool(),
		"favorite":       oaBool(),
		"impressionData": oaBool(),
		"createdAt":      oaDateTime().null(),
		"archivedAt":     oaDateTime().null(),
		"lastSeenAt":     oaDateTime().null().dep().d("Use the environments' `lastSeenAt`."),
		"environments":   oaArray(oaRef("FeatureEnvironment")),
		"variants":       oaArray(oaRef("Variant")).dep().d("Use the environments' variants."),
		"tags":           oaArray(oaRef("Tag")).null(),
		"children":       oaStrings().d("Names of flags that depend on this one."),
		"dependencies":   oaArray(oaRef("Dependency")),
		"links": oaArray(oaObject(oaProps{"id": oaString(), "url": oaString(), "title": oaString().null()}).req("id", "url")).
			d("The flag's links, in the answer for one flag (not in lists)."),
	}).req("name").d("A feature flag with its state in every environment.")
	s["FeatureEnvironment"] = oaObject(oaProps{
		"name":                 oaString().d("Environment name."),
		"featureName":          oaString(),
		"environment":          oaString(),
		"type":                 oaString().d("Environment type, such as development or production."),
		"enabled":              oaBool(),
		"sortOrder":            oaInteger(),
		"variantCount":         oaInteger(),
		"strategies":           oaArray(oaRef("FeatureStrategy")),
		"variants":             oaArray(oaRef("Variant")),
		"lastSeenAt":           oaDateTime().null().d("When an SDK last reported using the flag here."),
		"hasStrategies":        oaBool(),
		"hasEnabledStrategies": oaBool(),
	}).req("name", "enabled")
	s["ProjectFeature"] = oaObject(oaProps{
		"name":           oaString(),
		"type":           oaString(),
		"description":    oaString().null(),
		"stale":          oaBool(),
		"favorite":       oaBool(),
		"impressionData": oaBool(),
		"createdAt":      oaDateTime(),
		"environments": oaArray(oaObject(oaProps{
			"name":                 oaString(),
			"type":                 oaString(),
			"enabled":              oaBool(),
			"sortOrder":            oaInteger(),
			"variantCount":         oaInteger(),
			"lastSeenAt":           oaDateTime().null(),
			"hasStrategies":        oaBool(),
			"hasEnabledStrategies": oaBool(),
		}).req("name", "type", "enabled", "sortOrder", "variantCount", "lastSeenAt").closed()),
		"tags": oaArray(oaRef("Tag")).null(),
	}).req("name", "type", "description", "stale", "favorite", "impressionData", "createdAt", "environments").closed().
		d("A flag as its project's list shows it; its strategies and variants are in the flag's own answer.")
	s["ProjectFeatures"] = oaObject(oaProps{
		"version":  oaInteger(),
		"features": oaArray(oaRef("ProjectFeature")),
	}).req("version", "features")
	s["AdminFeatures"] = oaObject(oaProps{
		"version":  oaInteger(),
		"features": oaArray(oaRef("AdminFeature")),
	}).req("version", "features")
	s["CreateFeature"] = oaObject(oaProps{
		"name":           oaString().d("Unique across projects and the archive; URL-safe, no spaces."),
		"type":           oaEnum(oaFlagTypes...).def("release"),
		"description":    oaString().null().length(0, f.MaxDescription),
		"impressionData": oaBool().def(false),
		"tags":           oaArray(oaRef("Tag")),
	}).req("name")
	s["UpdateFeature"] = oaObject(oaProps{
		"description":    oaString().null().length(0, f.MaxDescription),
		"type":           oaEnum(oaFlagTypes...),
		"stale":          oaBool(),
		"archived":       oaBool().d("true archives the flag."),
		"impressionData": oaBool(),
	}).d("Only the properties sent change.")
	s["ValidateFeature"] = oaObject(oaProps{
		"name":      oaString(),
		"projectId": oaString().null(),
	}).req("name")
	s["CloneFeature"] = oaObject(oaProps{
		"name":           oaString().d("Name of the copy."),
		"replaceGroupId": oaBool().def(true).d("Set the rollout groupId of the copied strategies to the new name."),
	}).req("name")
	s["FeatureStrategy"] = oaObject(oaProps{
		"id":          oaString(),
		"name":        oaString().d("Strategy type."),
		"title":       oaString().null(),
		"disabled":    oaBool().null().def(false).d("Disabled strategies are kept but neither evaluated nor sent to SDKs."),
		"featureName": oaString(),
		"sortOrder":   oaInteger(),
		"segments":    oaArray(oaInteger()),
		"constraints": oaArray(oaRef("Constraint")),
		"variants":    oaArray(oaRef("StrategyVariant")),
		"parameters":  oaRef("Parameters"),
	}).req("name")
	strategyBody := oaProps{
		"title":       oaString().null().length(0, f.MaxStrategyTitle),
		"disabled":    oaBool().null(),
		"sortOrder":   oaInteger(),
		"constraints": oaArray(oaRef("Constraint")),
		"variants":    oaArray(oaRef("StrategyVariant")),
		"parameters":  oaRef("Parameters"),
		"segments":    oaArray(oaInteger()),
	}
	s["CreateFeatureStrategy"] = oaWith(oaObject(strategyBody), oaProps{"name": oaString().d("Strategy type.")}).req("name")
	s["UpdateFeatureStrategy"] = oaWith(oaObject(strategyBody), oaProps{"name": oaString().dep()})
	s["StrategyVariant"] = oaObject(oaProps{
		"name":       oaString(),
		"weight":     oaInteger().between(0, 1000),
		"weightType": oaEnum("variable", "fix"),
		"stickiness": oaString(),
		"payload":    oaRef("Payload"),
	}).req("name", "weight", "weightType", "stickiness")
	s["StrategySortOrder"] = oaArray(oaObject(oaProps{
		"id":        oaString(),
		"sortOrder": oaInteger(),
	}).req("id", "sortOrder"))
	s["FeatureVariants"] = oaObject(oaProps{
		"version":  oaInteger(),
		"variants": oaArray(oaRef("Variant")),
	}).req("version", "variants")
	s["PushVariants"] = oaObject(oaProps{
		"variants":     oaArray(oaRef("Variant")),
		"environments": oaStrings(),
	})
	s["FeatureDependencies"] = oaObject(oaProps{
		"feature":      oaString(),
		"dependencies": oaArray(oaRef("Dependency")),
	}).req("feature", "dependencies")
	s["BatchFeatures"] = oaObject(oaProps{"features": oaStrings().d("Flag names.")}).req("features")
	s["ArchiveCheck"] = oaObject(oaProps{
		"hasDeletedDependencies":   oaBool().d("Some of the flags depend on others; archiving removes those dependencies."),
		"parentsWithChildFeatures": oaStrings().d("Flags that other flags outside the list depend on."),
	}).req("hasDeletedDependencies", "parentsWithChildFeatures")
	s["FeatureType"] = oaObject(oaProps{
		"id":           oaString(),
		"name":         oaString(),
		"description":  oaString(),
		"lifetimeDays": oaInteger().null().d("Days after which flags of the type count as potentially stale; null for never."),
	}).req("id", "name", "lifetimeDays")
	s["FeatureTypes"] = oaObject(oaProps{
		"version": oaInteger(),
		"types":   oaArray(oaRef("FeatureType")),
	}).req("version", "types")
	s["FeatureTypeLifetime"] = oaObject(oaProps{
		"lifetimeDays": oaInteger().null().d("null or 0: flags of the type never count as potentially stale."),
	}).req("lifetimeDays")
	s["CreateDependency"] = oaObject(oaProps{
		"feature":  oaString().d("Name of the parent flag."),
		"enabled":  oaBool().def(true).d("When false the parent must be off and `variants` is ignored."),
		"variants": oaStrings(),
	}).req("feature")
	s["Tag"] = oaObject(oaProps{
		"value": oaString().length(2, 50),
		"type":  oaString().length(2, 50).def("simple"),
	}).req("value", "type")
	s["Tags"] = oaObject(oaProps{
		"version": oaInteger(),
		"tags":    oaArray(oaRef("Tag")),
	}).req("version", "tags")
	s["TagWithVersion"] = oaObject(oaProps{
		"version": oaInteger(),
		"tag":     oaRef("Tag"),
	}).req("version", "tag")
	s["UpdateTags"] = oaObject(oaProps{
		"addedTags":   oaArray(oaRef("Tag")),
		"removedTags": oaArray(oaRef("Tag")),
	}).req("addedTags", "removedTags").d("Added tags are applied first, then removed ones.")
	s["TagType"] = oaObject(oaProps{
		"name":        oaString(),
		"description": oaString(),
		"icon":        oaString().null(),
	}).req("name")
	s["TagTypes"] = oaObject(oaProps{
		"version":  oaInteger(),
		"tagTypes": oaArray(oaRef("TagType")),
	}).req("version", "tagTypes")
	s["TagTypeWithVersion"] = oaObject(oaProps{
		"version": oaInteger(),
		"tagType": oaRef("TagType"),
	}).req("version", "tagType").d("The tag type's properties also appear at the top level.")
	s["TagTypeValidation"] = oaObject(oaProps{
		"valid":   oaBool(),
		"tagType": oaRef("TagType"),
	}).req("valid")
}

// oaAdminSchemas describes the rest of the admin API.
func oaAdminSchemas(s map[string]*Schema) {
	s["Project"] = oaObject(oaProps{
		"id":                oaString(),
		"name":              oaString(),
		"description":       oaString().null(),
		"health":            oaNumber().dep(),
		"featureCount":      oaInteger(),
		"memberCount":       oaInteger(),
		"createdAt":         oaDateTime(),
		"updatedAt":         oaDateTime().null(),
		"archivedAt":        oaDateTime().null(),
		"favorite":          oaBool(),
		"mode":              oaEnum("open", "protected", "private"),
		"defaultStickiness": oaString(),
		"featureLimit":      oaInteger().null().d("Most active flags the project may hold; null for no limit."),
		"environments":      oaArray(oaRef("ProjectEnvironment")).d("Environments enabled in the project, when the answer includes them."),
	}).req("id", "name")
	s["ProjectSummary"] = oaObject(oaProps{
		"id":                oaString(),
		"name":              oaString(),
		"description":       oaString().null(),
		"health":            oaInteger().dep().d("Share of the active flags that are neither stale nor past their type's lifetime, 0 to 100."),
		"technicalDebt":     oaInteger().between(0, 100).d("100 minus the health."),
		"featureCount":      oaInteger(),
		"memberCount":       oaInteger(),
		"createdAt":         oaDateTime(),
		"updatedAt":         oaDateTime().null(),
		"favorite":          oaBool(),
		"mode":              oaEnum("open", "protected", "private"),
		"defaultStickiness": oaString(),
	}).req("id", "name").closed()
	s["Projects"] = oaObject(oaProps{
		"version":  oaInteger(),
		"projects": oaArray(oaRef("ProjectSummary")),
	}).req("version", "projects")
	projectBody := oaProps{
		"name":              oaString(),
		"description":       oaString().null(),
		"mode":              oaEnum("open", "protected", "private").def("open"),
		"defaultStickiness": oaString().def("default"),
		"featureLimit":      oaInteger().null(),
		"environments":      oaStrings().d("Environments to enable in the project; default all."),
	}
	s["CreateProject"] = oaWith(oaObject(projectBody), oaProps{"id": oaString().d("URL-safe id; it cannot change later.")}).req("id", "name")
	s["UpdateProject"] = oaObject(projectBody).d("Only the properties sent change; the id cannot.")
	s["HealthReport"] = oaObject(oaProps{
		"version":               oaInteger(),
		"name":                  oaString(),
		"description":           oaString().null(),
		"defaultStickiness":     oaString(),
		"mode":                  oaEnum("open", "protected", "private"),
		"featureLimit":          oaNumber().null().d("null means no limit."),
		"members":               oaInteger(),
		"health":                oaInteger().d("Overall rating, 0 to 100."),
		"technicalDebt":         oaInteger().between(0, 100).d("100 minus the health."),
		"environments":          oaArray(oaRef("ProjectEnvironment")),
		"features":              oaArray(oaRef("AdminFeature")),
		"updatedAt":             oaDateTime().null(),
		"createdAt":             oaDateTime().null(),
		"favorite":              oaBool(),
		"stats":                 oaRef("ProjectStats"),
		"featureNaming":         oaRef("FeatureNaming"),
		"potentiallyStaleCount": oaNumber(),
		"activeCount":           oaNumber(),
		"staleCount":            oaNumber(),
	}).req("version", "name", "defaultStickiness", "mode", "members", "health", "technicalDebt", "environments", "features",
		"potentiallyStaleCount", "activeCount", "staleCount")
	s["ProjectEnvironment"] = oaObject(oaProps{
		"environment":           oaString(),
		"changeRequestsEnabled": oaBool(),
		"defaultStrategy":       oaRef("CreateFeatureStrategy"),
	}).req("environment")
	statNames := []string{"avgTimeToProdCurrentWindow", "createdCurrentWindow", "createdPastWindow", "archivedCurrentWindow",
		"archivedPastWindow", "projectActivityCurrentWindow", "projectActivityPastWindow", "projectMembersAddedCurrentWindow"}
	stats := oaObject(oaProps{}).req(statNames...)
	for _, n := range statNames {
		stats.Properties[n] = oaNumber()
	}
	s["ProjectStats"] = stats
	s["FeatureNaming"] = oaObject(oaProps{
		"pattern":     oaString().null().d("Regular expression without delimiters or flags that new flag names must match."),
		"example":     oaString().null(),
		"description": oaString().null(),
	}).req("pattern")
	s["DoraMetrics"] = oaObject(oaProps{
		"projectAverage": oaNumber().d("Average days from creation until a flag is first enabled in production."),
		"features": oaArray(oaObject(oaProps{
			"name":             oaString(),
			"timeToProduction": oaNumber().d("Days."),
		}).req("name", "timeToProduction")),
	}).req("features")
	s["ProjectUsers"] = oaObject(oaProps{
		"users": oaArray(oaObject(oaProps{
			"id":       oaInteger(),
			"name":     oaString(),
			"email":    oaString().null(),
			"imageUrl": oaString().null(),
			"addedAt":  oaDateTime(),
			"roleId":   oaInteger(),
			"roles":    oaArray(oaInteger()),
			"isAPI":    oaBool().dep(),
		}).req("id")),
		"roles": oaArray(oaRef("Role")),
	}).req("users", "roles")
	s["RoleAccess"] = oaObject(oaProps{
		"groups": oaArray(oaObject(oaProps{"id": oaInteger()}).req("id")),
		"users":  oaArray(oaObject(oaProps{"id": oaInteger()}).req("id")),
	}).req("groups", "users")
	s["Role"] = oaObject(oaProps{
		"id":          oaInteger(),
		"type":        oaString().d("`root` or a project role type."),
		"name":        oaString(),
		"description": oaString(),
		"project":     oaString().null(),
	}).req("id", "type", "name")

	s["StrategyType"] = oaObject(oaProps{
		"name":        oaString(),
		"title":       oaString().null(),
		"displayName": oaString().null(),
		"description": oaString().null(),
		"editable":    oaBool().d("false for the built-in strategies."),
		"deprecated":  oaBool(),
		"parameters":  oaArray(oaRef("StrategyParameter")),
	}).req("name", "displayName", "description", "editable", "deprecated", "parameters")
	s["StrategyParameter"] = oaObject(oaProps{
		"name":        oaString(),
		"type":        oaEnum("string", "percentage", "list", "number", "boolean"),
		"description": oaString(),
		"required":    oaBool(),
	}).req("name", "type")
	s["StrategyTypes"] = oaObject(oaProps{
		"version":    oaInteger(),
		"strategies": oaArray(oaRef("StrategyType")),
	}).req("version", "strategies")
	s["CreateStrategyType"] = oaObject(oaProps{
		"name":        oaString(),
		"title":       oaString(),
		"description": oaString(),
		"editable":    oaBool(),
		"deprecated":  oaBool(),
		"parameters":  oaArray(oaRef("StrategyParameter")),
	}).req("name", "parameters")
	s["UpdateStrategyType"] = oaObject(oaProps{
		"title":       oaString(),
		"description": oaString(),
		"parameters":  oaArray(oaRef("StrategyParameter")),
	}).req("parameters")

	s["AdminSegment"] = oaObject(oaProps{
		"id":             oaInteger(),
		"name":           oaString(),
		"description":    oaString().null(),
		"constraints":    oaArray(oaRef("Constraint")),
		"usedInFeatures": oaInteger().null(),
		"usedInProjects": oaInteger().null(),
		"project":        oaString().null().d("The only project that may use the segment; null for every project."),
		"createdBy":      oaString().null(),
		"createdAt":      oaDateTime(),
	}).req("id", "name", "constraints", "createdAt")
	s["Segments"] = oaObject(oaProps{"segments": oaArray(oaRef("AdminSegment"))})
	s["SegmentStrategies"] = oaObject(oaProps{
		"strategies": oaArray(oaObject(oaProps{
			"id":           oaString(),
			"featureName":  oaString(),
			"projectId":    oaString(),
			"environment":  oaString(),
			"strategyName": oaString(),
		}).req("id", "featureName", "projectId", "environment", "strategyName")),
		"changeRequestStrategies": oaArray(oaAny()).d("Always empty: Signalbox has no change requests."),
	}).req("strategies")
	s["UpsertSegment"] = oaObject(oaProps{
		"name":        oaString(),
		"description": oaString().null(),
		"project":     oaString().null(),
		"constraints": oaArray(oaRef("Constraint")),
	}).req("name", "constraints")

	s["Environment"] = oaObject(oaProps{
		"name":      oaString(),
		"type":      oaString(),
		"enabled":   oaBool(),
		"protected": oaBool(),
		"sortOrder": oaInteger(),
	}).req("name", "type", "enabled", "protected", "sortOrder")
	s["Environments"] = oaObject(oaProps{
		"version":      oaInteger(),
		"environments": oaArray(oaRef("Environment")),
	}).req("version", "environments")
	s["CreateEnvironment"] = oaObject(oaProps{
		"name":      oaString(),
		"type":      oaString().d("Such as development, test or production."),
		"enabled":   oaBool().def(true),
		"sortOrder": oaInteger(),
	}).req("name", "type")
	s["ProjectEnvironments"] = oaObject(oaProps{
		"version": oaInteger(),
		"environments": oaArray(oaWith(s["Environment"], oaProps{
			"visible":         oaBool(),
			"defaultStrategy": oaRef("CreateFeatureStrategy"),
		}).d("Every environment; `enabled` says whether it is enabled in the project.")),
	}).req("version", "environments")
	s["ContextField"] = oaObject(oaProps{
		"name":           oaString(),
		"description":    oaString().null(),
		"stickiness":     oaBool().d("Whether the field can be used for stickiness."),
		"sortOrder":      oaInteger(),
		"createdAt":      oaDateTime().null(),
		"legalValues":    oaArray(oaRef("LegalValue")).d("When not empty, the only values the field takes."),
		"usedInFeatures": oaInteger().null().d("Flags whose constraints use the field."),
		"usedInProjects": oaInteger().null(),
		"project":        oaString().d("The project the field belongs to; absent for a global field."),
	}).req("name")
	s["LegalValue"] = oaObject(oaProps{
		"value":       oaString(),
		"description": oaString(),
	}).req("value")

	s["User"] = oaObject(oaUserProps(oaInteger().d("Root role id: Admin 1, Editor 2, Viewer 3, Owner 4, Member 5."))).
		req("id").closed().d("A user; the password hash is never included.")
	s["CreateUserResponse"] = oaObject(oaUserProps(oaRef("RootRole"))).req("id").closed().
		d("A user as the create and update operations answer it: `rootRole` is the id or the name that was sent.")
	s["RootRole"] = &Schema{
		Description: "A root role by id (Admin 1, Editor 2, Viewer 3, Owner 4, Member 5) or by name.",
		OneOf:       []*Schema{oaInteger().between(1, 5), oaEnum(oaRootRoles...)},
	}
	s["Users"] = oaObject(oaProps{
		"users":     oaArray(oaRef("User")),
		"rootRoles": oaArray(oaRef("Role")),
	}).req("users")
	s["CreateUser"] = oaObject(oaProps{
		"username":  oaString().d("Required when there is no e-mail."),
		"email":     oaString().d("Required when there is no username."),
		"name":      oaString(),
		"password":  oaString().d("Without one the user cannot sign in with a password until it is set."),
		"rootRole":  oaRef("RootRole"),
		"sendEmail": oaBool().def(true).d("Recorded on the user as `emailSent`, but Signalbox sends no e-mail."),
	}).req("rootRole")
	s["UpdateUser"] = oaObject(oaProps{
		"email":    oaString(),
		"name":     oaString(),
		"rootRole": oaRef("RootRole"),
	}).d("Only the properties sent change.")
	s["TokenUser"] = oaObject(oaProps{
		"id": oaInteger(), "name": oaString(), "email": oaString(), "token": oaString().d("The token of the link, as sent."),
		"createdBy": oaString().null().d("Who made the link."), "role": oaRef("Role"),
	}).req("id", "email", "token", "createdBy", "role").closed().d("The user a password reset link is for.")
	s["ResetPassword"] = oaObject(oaProps{"token": oaString().d("The `token` of the reset link."), "password": oaString()}).req("token", "password").closed()
	s["InviteLink"] = oaObject(oaProps{
		"secret":    oaString().d("The link's secret, also its id in this API."),
		"url":       oaString().null().d("The link to share: this server's `/new-user?invite=…` page."),
		"name":      oaString(),
		"enabled":   oaBool().d("Whether people can sign up with it: false once disabled or expired."),
		"expiresAt": oaDateTime(),
		"createdAt": oaDateTime(),
		"createdBy": oaString().null(),
		"users":     oaArray(oaRef("User")).null().d("Who signed up with it, in that order."),
		"role":      oaRef("Role"),
	}).req("secret", "url", "name", "expiresAt", "createdAt", "createdBy", "enabled", "role").closed().d("An invite link (Unleash's public sign-up token).")
	s["Password"] = oaObject(oaProps{
		"password":        oaString(),
		"oldPassword":     oaString(),
		"confirmPassword": oaString(),
	}).req("password")
	s["Profile"] = oaObject(oaProps{
		"rootRole":          oaRef("Role"),
		"projects":          oaStrings().d("Projects the user is a member of."),
		"features":          oaArray(oaAny()).dep().d("Always empty."),
		"groups":            oaArray(oaAny()),
		"subscriptions":     oaStrings(),
		"canChangePassword": oaBool(),
	}).req("rootRole", "projects", "features")
	s["Me"] = oaObject(oaProps{
		"user": oaRef("User").d("For an admin token, a description of the token; never its secret."),
		"permissions": oaArray(oaObject(oaProps{"permission": oaString()}).req("permission")).
			d("Root-level permissions the caller holds; `ADMIN` alone stands for all."),
		"feedback": oaArray(oaAny()),
		"splash":   oaMap(oaBool()),
	}).req("user", "permissions")
	s["Pat"] = oaObject(oaProps{
		"id":          oaInteger(),
		"secret":      oaString().d("Only in the answer that creates the token."),
		"description": oaString(),
		"createdAt":   oaDateTime(),
		"seenAt":      oaDateTime().null(),
		"expiresAt":   oaDateTime().null(),
		"userId":      oaInteger(),
	}).req("id", "createdAt", "expiresAt")
	s["Pats"] = oaObject(oaProps{"pats": oaArray(oaRef("Pat"))})
	s["Link"] = oaObject(oaProps{"url": oaString().d("An http or https URL."), "title": oaString().null()}).req("url")
	s["InsightsDebt"] = oaObject(oaProps{"rating": oaInteger(), "activeCount": oaInteger(), "potentiallyStaleCount": oaInteger(), "staleCount": oaInteger()}).
		req("rating", "activeCount", "potentiallyStaleCount", "staleCount")
	s["OutdatedSdks"] = oaObject(oaProps{"sdks": oaArray(oaObject(oaProps{
		"sdkVersion": oaString().d("`<sdk name>:<version>`, e.g. unleash-client-node:5.0.0."), "applications": oaStrings(),
	}).req("sdkVersion", "applications").closed())}).req("sdks").closed()
	s["CreatePat"] = oaObject(oaProps{
		"description": oaString(),
		"expiresAt":   oaDateTime(),
	}).req("description", "expiresAt")

	s["ApiToken"] = oaObject(oaProps{
		"secret": oaString().d("The whole token, `<project>:<environment>.<secret>`, in the answer that creates it; " +
			"in every other answer its shown form (the scope and the first characters, ending in `…`), which names the token in the paths that change or delete it."),
		"tokenName":   oaString(),
		"type":        oaEnum("admin", "client", "frontend"),
		"project":     oaString().d("The single project, `*` for every project, or `[]` when there are several (see `projects`)."),
		"projects":    oaStrings(),
		"environment": oaString().d("`*` for admin tokens."),
		"expiresAt":   oaDateTime().null(),
		"createdAt":   oaDateTime(),
		"seenAt":      oaDateTime().null(),
		"alias":       oaString().null(),
		"secure":      oaBool().d("Always true: only a hash of the secret is kept, so the secret of a listed token cannot be copied."),
	}).req("tokenName", "type", "projects", "createdAt").closed()
	s["ApiTokens"] = oaObject(oaProps{"tokens": oaArray(oaRef("ApiToken"))}).req("tokens")
	s["CreateApiToken"] = oaObject(oaProps{
		"tokenName":   oaString(),
		"type":        oaString().d("`admin`, `client` or `frontend`, in any case; `backend` means client."),
		"environment": oaString().d("Environment of client and frontend tokens; default `development`."),
		"project":     oaString().d("One project, or `*` for all."),
		"projects":    oaStrings(),
		"expiresAt":   oaDateTime(),
	}).req("tokenName", "type")
	s["UpdateApiToken"] = oaObject(oaProps{"expiresAt": oaDateTime()}).req("expiresAt")

	s["Event"] = oaObject(oaProps{
		"id":              oaInteger().atLeast(1).d("Increases with every event."),
		"createdAt":       oaDateTime(),
		"type":            oaString().d("Such as `feature-created` or `feature-strategy-update`.").ex("feature-created"),
		"createdBy":       oaString(),
		"createdByUserId": oaInteger().null(),
		"environment":     oaString().null(),
		"project":         oaString().null(),
		"featureName":     oaString().null(),
		"data":            oaAny().null().d("The subject after the change, or null. An object for most types; a list where the subject is one (the dependencies that `feature-dependencies-removed` removed)."),
		"preData":         oaAny().null().d("The subject before the change, or null; shaped like `data`."),
		"tags":            oaArray(oaRef("Tag")).null(),
	}).req("id", "createdAt", "type", "createdBy")
	s["Events"] = oaObject(oaProps{
		"version":     oaInteger().d("1."),
		"toggleName":  oaString().d("Only when listing one flag's events."),
		"events":      oaArray(oaRef("Event")),
		"totalEvents": oaInteger(),
	}).req("version", "events")
	s["EventSearch"] = oaObject(oaProps{
		"type":    oaString().d("Event type, exact and case-sensitive."),
		"project": oaString(),
		"feature": oaString(),
		"query":   oaString().d("Free text matched against the type, the creator and the data."),
		"limit":   oaInteger().between(1, 100).def(100),
		"offset":  oaInteger().d("Event id to start listing from."),
	})
	s["EventSearchResult"] = oaObject(oaProps{
		"events": oaArray(oaRef("Event")),
		"total":  oaInteger(),
	}).req("events", "total")

	app := oaObject(oaProps{
		"appName":     oaString(),
		"sdkVersion":  oaString(),
		"strategies":  oaStrings(),
		"description": oaString(),
		"url":         oaString(),
		"color":       oaString(),
		"icon":        oaString(),
	}).req("appName", "strategies")
	s["Application"] = app
	s["Applications"] = oaObject(oaProps{
		"total":        oaInteger(),
		"applications": oaArray(oaRef("Application")),
	}).req("applications")
	s["ApplicationDetails"] = oaWith(app, oaProps{
		"usage": oaArray(oaObject(oaProps{
			"project":      oaString(),
			"environments": oaStrings(),
		}).req("project", "environments").closed()).d("The projects and environments of the flags the application reported in the last 48 hours."),
	})
	s["FeatureMetric"] = oaObject(oaProps{
		"featureName": oaString(),
		"appName":     oaString(),
		"environment": oaString(),
		"timestamp":   oaDateTime().d("Start of the hour the counts belong to."),
		"yes":         oaInteger(),
		"no":          oaInteger(),
		"variants":    oaMap(oaInteger()).null(),
	}).req("featureName", "appName", "environment", "timestamp", "yes", "no")
	s["FeatureMetrics"] = oaObject(oaProps{
		"version":  oaInteger(),
		"maturity": oaString(),
		"data":     oaArray(oaRef("FeatureMetric")).d("Hourly counts of the last 48 hours."),
	}).req("version", "data")
	s["FeatureUsage"] = oaObject(oaProps{
		"version":          oaInteger(),
		"maturity":         oaString(),
		"featureName":      oaString(),
		"lastHourUsage":    oaArray(oaRef("FeatureMetric")),
		"seenApplications": oaStrings(),
		"totalUsage": oaArray(oaObject(oaProps{"environment": oaString(), "yes": oaInteger(), "no": oaInteger()}).
			req("environment", "yes", "no").closed()).d("Per environment, the counts of the last 48 hours; hour by hour they are getRawFeatureMetrics' with hoursBack=48."),
	}).req("version", "featureName", "lastHourUsage", "seenApplications")
}

// oaUserProps are the properties of UserJSON; rootRole differs between
// the plain and the create/update form.
func oaUserProps(rootRole *Schema) oaProps {
	return oaProps{
		"id":            oaInteger(),
		"name":          oaString().null(),
		"email":         oaString(),
		"username":      oaString().null(),
		"imageUrl":      oaString(),
		"isAPI":         oaBool().dep().d("Only on the admin token answering `GET /api/admin/user`: true."),
		"loginAttempts": oaInteger().atLeast(0).d("Failed sign-ins since the last successful one."),
		"emailSent":     oaBool(),
		"rootRole":      rootRole,
		"seenAt":        oaDateTime().null().d("Last sign-in."),
		"createdAt":     oaDateTime(),
		"accountType":   oaEnum("User", "Service Account"),
		"permissions":   oaStrings().dep().d("Always empty."),
	}
}
