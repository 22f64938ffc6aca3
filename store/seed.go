package store

// Records that the first migration creates. Their ids are stable so that the
// server and imported Unleash data can refer to them.
const (
	DefaultProject = "default"

	EnvDevelopment = "development"
	EnvProduction  = "production"

	TagTypeSimple = "simple"

	RoleAdmin  = 1
	RoleEditor = 2
	RoleViewer = 3
	RoleOwner  = 4
	RoleMember = 5
)

// Role types.
const (
	RoleTypeRoot    = "root"
	RoleTypeProject = "project"
)

// FeatureTypes are the seeded flag type ids, in order. The first migration
// seeds all but sunset, which is seeded when the store opens (see
// sqlstore's seedFlagTypes).
var FeatureTypes = []string{"experiment", "kill-switch", "operational", "permission", "release", "sunset"}

// BuiltinStrategies are the seeded, non-editable strategy types.
var BuiltinStrategies = []string{
	"default", "userWithId", "gradualRolloutUserId", "gradualRolloutSessionId",
	"gradualRolloutRandom", "flexibleRollout", "remoteAddress", "applicationHostname",
}
