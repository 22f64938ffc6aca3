package store

import (
	"context"
	"time"

	"github.com/signalbox/signalbox/clientapi"
)

// Feature is a feature flag. Names are unique across all projects.
type Feature struct {
	Name    string
	Project string
	// Type is the id of a FeatureType, such as release or kill-switch.
	Type           string
	Description    string
	Stale          bool
	ImpressionData bool
	CreatedAt      time.Time
	CreatedBy      string
	// ArchivedAt is set while the feature is archived.
	ArchivedAt *time.Time
	// LastSeenAt is the last time any SDK reported metrics for it.
	LastSeenAt *time.Time
}

// Archived reports whether the feature is in the archive.
func (f Feature) Archived() bool { return f.ArchivedAt != nil }

// FeatureFilter selects features. Zero fields do not filter.
type FeatureFilter struct {
	Project string
	// Archived selects archived (true) or active (false) features; nil both.
	Archived   *bool
	NamePrefix string
	Type       string
	// Names selects these names only; nil does not filter, empty matches
	// nothing.
	Names []string
	// Tag selects features that carry this tag.
	Tag *Tag
}

// FeatureType is a kind of flag with its expected lifetime.
type FeatureType struct {
	ID          string
	Name        string
	Description string
	// LifetimeDays after which a flag of this type is potentially stale;
	// nil means it never is.
	LifetimeDays *int
}

// FeatureReader reads features and flag types.
type FeatureReader interface {
	// GetFeature returns the feature, archived or not. NotFound if absent.
	GetFeature(ctx context.Context, name string) (Feature, error)
	// ListFeatures returns the features matching f, ordered by name.
	ListFeatures(ctx context.Context, f FeatureFilter) ([]Feature, error)
	// GetFeatureType returns NotFound if there is no such type.
	GetFeatureType(ctx context.Context, id string) (FeatureType, error)
	// ListFeatureTypes returns all flag types ordered by id.
	ListFeatureTypes(ctx context.Context) ([]FeatureType, error)
}

// FeatureWriter changes features and flag types.
type FeatureWriter interface {
	// CreateFeature stores f; a zero CreatedAt is set to now. NameExists if
	// the name is taken (also by an archived feature); NotFound if the
	// project or type does not exist.
	CreateFeature(ctx context.Context, f Feature) (Feature, error)
	// UpdateFeature replaces project, type, description, stale,
	// impressionData and archivedAt. NotFound if the feature, or the new
	// project or type, does not exist.
	UpdateFeature(ctx context.Context, f Feature) (Feature, error)
	// DeleteFeature deletes a feature with its environments, strategies,
	// tags and dependencies (both directions). NotFound if absent.
	DeleteFeature(ctx context.Context, name string) error
	// UpdateFeatureType replaces name, description and lifetime. NotFound if
	// absent.
	UpdateFeatureType(ctx context.Context, t FeatureType) (FeatureType, error)
}

// FeatureEnvironment is a feature's state in one environment. A feature that
// was never configured in an environment is disabled there with no variants.
type FeatureEnvironment struct {
	Feature     string
	Environment string
	Enabled     bool
	// Variants are the flag-level variants in this environment.
	Variants []clientapi.Variant
	// LastSeenAt is the last time an SDK reported metrics for it here.
	LastSeenAt *time.Time
}

// FeatureEnvironmentReader reads per-environment feature state.
type FeatureEnvironmentReader interface {
	// GetFeatureEnvironment returns the state of feature in environment.
	// NotFound if either does not exist.
	GetFeatureEnvironment(ctx context.Context, feature, environment string) (FeatureEnvironment, error)
	// ListFeatureEnvironments returns one entry per environment enabled for
	// the feature's project, ordered like ListEnvironments. NotFound if the
	// feature does not exist.
	ListFeatureEnvironments(ctx context.Context, feature string) ([]FeatureEnvironment, error)
}

// FeatureEnvironmentWriter changes per-environment feature state.
type FeatureEnvironmentWriter interface {
	// UpdateFeatureEnvironment stores Enabled and Variants of fe (LastSeenAt
	// is ignored). NotFound if the feature or environment does not exist.
	UpdateFeatureEnvironment(ctx context.Context, fe FeatureEnvironment) (FeatureEnvironment, error)
	// MarkFeaturesSeen sets the last-seen time of the named features, and of
	// each in environment when it is not empty. Unknown names are ignored.
	// Operational: needs no audit event.
	MarkFeaturesSeen(ctx context.Context, environment string, features []string, at time.Time) error
}
