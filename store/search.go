package store

import (
	"context"
	"time"
)

// FeatureOverview is a flag with what lists and searches of flags show
// about it, read in a few set-wise queries however many flags there are.
type FeatureOverview struct {
	Feature
	// Environments are the environments of the flag's project, in the
	// order of ListEnvironments.
	Environments []FeatureOverviewEnvironment
	// Tags are ordered by type and value.
	Tags []Tag
	// Segments are the names of the segments its strategies use, in any
	// environment, ordered by name.
	Segments []string
	// IsChild: the flag depends on another; IsParent: another depends on
	// it.
	IsChild, IsParent bool
}

// FeatureOverviewEnvironment is a flag's state in one environment of its
// project.
type FeatureOverviewEnvironment struct {
	Name      string
	Type      string
	SortOrder int
	Enabled   bool
	// Variants is the number of flag variants there.
	Variants int
	// Strategies and EnabledStrategies count its strategies there, all
	// and those not disabled.
	Strategies        int
	EnabledStrategies int
	LastSeenAt        *time.Time
}

// FeatureOverviewReader reads flag overviews.
type FeatureOverviewReader interface {
	// ListFeatureOverviews returns every archived (archived true) or
	// active flag, ordered by name, with a fixed number of queries.
	ListFeatureOverviews(ctx context.Context, archived bool) ([]FeatureOverview, error)
}
