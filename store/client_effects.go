package store

// ClientEffect is what an event type says about its change's effect on the
// client state, for reading only what changed since a cached state.
type ClientEffect int

const (
	// EffectUnknown: the change may touch any feature or segment; only a
	// whole read is safe. Every type not listed below has it, so that a
	// new kind of change is never missed, only read in full.
	EffectUnknown ClientEffect = iota
	// EffectNone: the change never touches what the client API serves.
	EffectNone
	// EffectFeature: the change touches at most the event's own feature
	// (FeatureName; an event of this type without one is EffectUnknown).
	EffectFeature
	// EffectSegments: the change touches the segments and nothing else
	// (a segment in use can be neither deleted nor moved off its users).
	EffectSegments
)

// clientEffects lists the event types whose effect is known. A feature's
// deletion is absent on purpose: it also drops its children's dependencies
// (ON DELETE CASCADE) without an event of theirs. So are bulk changes that
// name no single feature (project environments, tag and tag type
// deletions, imports, environments, projects).
var clientEffects = map[string]ClientEffect{
	// The feature, its environments, strategies, variants, tags and
	// dependencies.
	"feature-created":                      EffectFeature,
	"feature-updated":                      EffectFeature,
	"feature-metadata-updated":             EffectFeature,
	"feature-project-change":               EffectFeature,
	"feature-archived":                     EffectFeature,
	"feature-revived":                      EffectFeature,
	"feature-stale-on":                     EffectFeature,
	"feature-stale-off":                    EffectFeature,
	"feature-potentially-stale-on":         EffectFeature,
	"feature-environment-enabled":          EffectFeature,
	"feature-environment-disabled":         EffectFeature,
	"feature-strategy-add":                 EffectFeature,
	"feature-strategy-update":              EffectFeature,
	"feature-strategy-remove":              EffectFeature,
	"strategy-order-changed":               EffectFeature,
	"feature-variants-updated":             EffectFeature,
	"feature-environment-variants-updated": EffectFeature,
	"feature-tagged":                       EffectFeature,
	"feature-untagged":                     EffectFeature,
	"feature-dependency-added":             EffectFeature,
	"feature-dependency-removed":           EffectFeature,
	"feature-dependencies-removed":         EffectFeature,
	"feature-completed":                    EffectFeature,
	"feature-uncompleted":                  EffectFeature,
	"feature-link-added":                   EffectFeature,
	"feature-link-updated":                 EffectFeature,
	"feature-link-removed":                 EffectFeature,
	"feature-favorited":                    EffectFeature,
	"feature-unfavorited":                  EffectFeature,

	"segment-created": EffectSegments,
	"segment-updated": EffectSegments,
	"segment-deleted": EffectSegments,

	// Users, access, tokens, settings, integrations and applications.
	"user-created": EffectNone, "user-updated": EffectNone, "user-deleted": EffectNone,
	"group-created": EffectNone, "group-updated": EffectNone, "group-deleted": EffectNone,
	"group-user-added": EffectNone, "group-user-removed": EffectNone,
	"role-created": EffectNone, "role-updated": EffectNone, "role-deleted": EffectNone,
	"project-access-added": EffectNone, "project-access-updated": EffectNone,
	"project-access-user-roles-updated": EffectNone, "project-access-group-roles-updated": EffectNone,
	"project-access-user-roles-deleted": EffectNone, "project-access-group-roles-deleted": EffectNone,
	"project-user-added": EffectNone, "project-user-removed": EffectNone, "project-user-role-changed": EffectNone,
	"project-group-added": EffectNone, "project-group-removed": EffectNone, "project-group-role-changed": EffectNone,
	"project-favorited": EffectNone, "project-unfavorited": EffectNone,
	"api-token-created": EffectNone, "api-token-updated": EffectNone, "api-token-deleted": EffectNone,
	"pat-created": EffectNone, "pat-deleted": EffectNone,
	"public-signup-token-created": EffectNone, "public-signup-token-updated": EffectNone,
	"public-signup-token-user-added": EffectNone,
	"service-account-created":        EffectNone, "service-account-updated": EffectNone, "service-account-deleted": EffectNone,
	"setting-created": EffectNone, "setting-updated": EffectNone, "setting-deleted": EffectNone,
	"addon-config-created": EffectNone, "addon-config-updated": EffectNone, "addon-config-deleted": EffectNone,
	"incoming-webhook-created": EffectNone, "incoming-webhook-updated": EffectNone, "incoming-webhook-deleted": EffectNone,
	"incoming-webhook-token-created": EffectNone, "incoming-webhook-token-updated": EffectNone,
	"incoming-webhook-token-deleted": EffectNone,
	"banner-created":                 EffectNone, "banner-updated": EffectNone, "banner-deleted": EffectNone,
	"application-created": EffectNone, "application-updated": EffectNone, "application-deleted": EffectNone,
	"client-metrics": EffectNone, "client-register": EffectNone, "features-exported": EffectNone,
	// A flag type's definition (its lifetime), not any flag's type.
	"feature-type-updated": EffectNone,
	// Change request bookkeeping: applying a request writes each of its
	// changes as that change's own event.
	"change-request-created": EffectNone, "change-request-discarded": EffectNone,
	"change-added": EffectNone, "change-discarded": EffectNone, "change-edited": EffectNone,
	"change-request-rejected": EffectNone, "change-request-approved": EffectNone,
	"change-request-approval-added": EffectNone, "change-request-cancelled": EffectNone,
	"change-request-sent-to-review": EffectNone, "change-request-applied": EffectNone,
	"change-request-scheduled": EffectNone, "scheduled-change-request-executed": EffectNone,
	"change-request-scheduled-application-success": EffectNone,
	"change-request-scheduled-application-failure": EffectNone,
	"change-request-configuration-updated":         EffectNone,
	"change-request-comment-added":                 EffectNone,
}

// ClientEffectOf returns the effect of an event of type typ.
func ClientEffectOf(typ string) ClientEffect { return clientEffects[typ] }
