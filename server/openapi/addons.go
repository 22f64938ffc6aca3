package openapi

// OpenAPI schemas of the addons API, after Unleash's addonSchema,
// addonCreateUpdateSchema, addonsSchema and integrationEventsSchema.

func oaAddonLists() oaProps {
	return oaProps{
		"events":       oaStrings().d("The event types the addon gets."),
		"projects":     oaStrings().d("The projects whose events the addon gets; empty (or `*`) for all."),
		"environments": oaStrings().d("The environments whose events the addon gets; empty (or `*`) for all."),
	}
}

func oaAddon(f Facts) *Schema {
	p := oaAddonLists()
	p["id"] = oaInteger()
	p["provider"] = oaString().ex("webhook")
	p["description"] = oaString().null()
	p["enabled"] = oaBool()
	p["parameters"] = oaMap(oaAny()).d("The provider's parameters; sensitive ones are shown as `" + f.MaskedValue + "`.")
	return oaObject(p).req("id", "description", "provider", "enabled", "parameters", "events")
}

func oaAddonBody(f Facts) *Schema {
	p := oaAddonLists()
	p["provider"] = oaString().ex("webhook")
	p["description"] = oaString()
	p["enabled"] = oaBool()
	p["parameters"] = oaMap(oaString()).d("The provider's parameters, all strings. On update, `" + f.MaskedValue + "` for a sensitive parameter keeps its stored value.")
	return oaObject(p).req("provider", "enabled", "parameters", "events")
}

func oaAddons(f Facts) *Schema {
	param := oaObject(oaProps{"name": oaString(), "displayName": oaString(), "type": oaString(), "description": oaString(),
		"placeholder": oaString(), "required": oaBool(), "sensitive": oaBool()}).req("name", "displayName", "type", "required", "sensitive")
	provider := oaObject(oaProps{"name": oaString(), "displayName": oaString(), "documentationUrl": oaString(),
		"description": oaString(), "parameters": oaArray(param), "events": oaStrings()}).req("name", "displayName", "documentationUrl", "description")
	return oaObject(oaProps{"addons": oaArray(oaAddon(f)), "providers": oaArray(provider)}).req("addons", "providers")
}

func oaIntegrationEvents() *Schema {
	ev := oaObject(oaProps{
		"id":            oaString().d("The delivery's id."),
		"integrationId": oaInteger().d("The addon's id."),
		"createdAt":     oaDateTime().d("When the delivery was last tried."),
		"state":         oaEnum("success", "failed", "successWithErrors"),
		"stateDetails":  oaString().d("The HTTP status or error of the last attempt, and when the next one is due."),
		"event":         oaRef("Event"),
		"details":       oaMap(oaAny()).d("`attempts`, `state` (pending, running, success, failed), `final`, `statusCode`, `lastError`, `nextAttemptAt`."),
	}).req("id", "integrationId", "createdAt", "state", "stateDetails", "event", "details")
	return oaObject(oaProps{"integrationEvents": oaArray(ev)}).req("integrationEvents")
}
