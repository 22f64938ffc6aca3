package store

import (
	"context"
	"time"
)

// FeatureLink is a link from a flag to something about it.
type FeatureLink struct {
	// ID is chosen by the caller (unique).
	ID      string
	Feature string
	URL     string
	// Title is "" when the link has none.
	Title     string
	CreatedAt time.Time
}

// FeatureLinkReader reads flags' links.
type FeatureLinkReader interface {
	// ListFeatureLinks returns the links of feature (of every flag when
	// feature is ""), oldest first. Unknown flags have none.
	ListFeatureLinks(ctx context.Context, feature string) ([]FeatureLink, error)
}

// FeatureLinkWriter changes flags' links. Deleting a flag deletes its
// links.
type FeatureLinkWriter interface {
	// CreateFeatureLink stores l; a zero CreatedAt is set to now. NotFound
	// if the flag does not exist; NameExists if the id is taken.
	CreateFeatureLink(ctx context.Context, l FeatureLink) (FeatureLink, error)
	// UpdateFeatureLink replaces the URL and title of the link id of
	// feature. NotFound if there is no such link of that flag.
	UpdateFeatureLink(ctx context.Context, l FeatureLink) (FeatureLink, error)
	// DeleteFeatureLink deletes the link id of feature. NotFound if there
	// is no such link of that flag.
	DeleteFeatureLink(ctx context.Context, feature, id string) error
}
