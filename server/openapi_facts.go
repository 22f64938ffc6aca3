package server

import "github.com/signalbox/signalbox/server/openapi"

// buildOpenAPI documents routes with package openapi, handing it what the
// document says of this server's own names, limits and wire values.
func buildOpenAPI(routes []Route, version string) *openapi.Doc {
	rs := make([]openapi.Route, len(routes))
	for i, rt := range routes {
		rs[i] = openapi.Route{Pattern: rt.Pattern, Auth: rt.Auth, Permission: string(rt.Permission)}
	}
	return openapi.Build(rs, openAPIFacts(version))
}

func openAPIFacts(version string) openapi.Facts {
	return openapi.Facts{
		Version:            version,
		SessionCookie:      SessionCookie,
		SAMLRequestCookie:  samlRequestCookie,
		PasswordRules:      PasswordRules,
		MaskedValue:        maskedValue,
		MaxDescription:     maxDescription,
		MaxStrategyTitle:   maxStrategyTitle,
		LifecycleStages:    []string{stageInitial, stagePreLive, stageLive, stageCompleted, stageArchived},
		ReadPermission:     string(PermRead),
		MaintenancePattern: maintenancePattern,
	}
}
