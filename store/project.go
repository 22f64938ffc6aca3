package store

import (
	"context"
	"time"

	"github.com/signalbox/signalbox/clientapi"
)

// Project groups features. Its ID is the name used in URLs and tokens.
type Project struct {
	ID          string
	Name        string
	Description string
	// Mode is open, protected or private.
	Mode              string
	DefaultStickiness string
	// FeatureLimit is the maximum number of active features; nil is no limit.
	FeatureLimit *int
	CreatedAt    time.Time
	UpdatedAt    *time.Time
}

// ProjectEnvironment records that an environment is enabled for a project.
type ProjectEnvironment struct {
	Project     string
	Environment string
	// DefaultStrategy is added when a flag is switched on in this
	// environment without any enabled strategy; nil means the server's
	// built-in default (flexibleRollout at 100%).
	DefaultStrategy *StrategyTemplate
}

// StrategyTemplate is a strategy without an owner, as stored for a project
// environment's default strategy. The JSON names are Unleash's.
type StrategyTemplate struct {
	Name        string                 `json:"name"`
	Title       string                 `json:"title,omitempty"`
	Disabled    bool                   `json:"disabled,omitempty"`
	SortOrder   int                    `json:"sortOrder,omitempty"`
	Parameters  clientapi.Parameters   `json:"parameters"`
	Constraints []clientapi.Constraint `json:"constraints"`
	Variants    []clientapi.Variant    `json:"variants"`
	Segments    []int                  `json:"segments"`
}

// ProjectReader reads projects and their environments.
type ProjectReader interface {
	// GetProject returns NotFound if there is no project id.
	GetProject(ctx context.Context, id string) (Project, error)
	// ListProjects returns all projects ordered by id.
	ListProjects(ctx context.Context) ([]Project, error)
	// ListProjectEnvironments returns the environments enabled for project,
	// ordered like ListEnvironments. NotFound if the project does not exist.
	ListProjectEnvironments(ctx context.Context, project string) ([]ProjectEnvironment, error)
}

// ProjectWriter changes projects and their environments.
type ProjectWriter interface {
	// CreateProject stores p; a zero CreatedAt is set to now. NameExists if
	// the id is taken.
	CreateProject(ctx context.Context, p Project) (Project, error)
	// UpdateProject replaces every field of p except CreatedAt; a nil
	// UpdatedAt is set to now. NotFound if the project does not exist.
	UpdateProject(ctx context.Context, p Project) (Project, error)
	// DeleteProject deletes a project, its environment links and its
	// segments. NotFound if it does not exist; BadData while features
	// (archived ones too) still belong to it.
	DeleteProject(ctx context.Context, id string) error
	// CreateProjectEnvironment enables an environment for a project.
	// NotFound if either does not exist; NameExists if already enabled.
	CreateProjectEnvironment(ctx context.Context, pe ProjectEnvironment) error
	// UpdateProjectEnvironment replaces the default strategy. NotFound if the
	// environment is not enabled for the project.
	UpdateProjectEnvironment(ctx context.Context, pe ProjectEnvironment) error
	// DeleteProjectEnvironment disables an environment for a project;
	// strategies and feature settings stay stored. NotFound if it was not
	// enabled.
	DeleteProjectEnvironment(ctx context.Context, project, environment string) error
}

// Environment is a deployment stage such as development or production.
type Environment struct {
	Name string
	// Type is free text; Unleash uses development, test, preproduction and
	// production.
	Type      string
	Enabled   bool
	SortOrder int
	// Protected environments must not be deleted; the server refuses, the
	// store does not check.
	Protected bool
	CreatedAt time.Time
}

// EnvironmentReader reads environments.
type EnvironmentReader interface {
	// GetEnvironment returns NotFound if there is no such environment.
	GetEnvironment(ctx context.Context, name string) (Environment, error)
	// ListEnvironments returns all environments by sort order, then name.
	ListEnvironments(ctx context.Context) ([]Environment, error)
}

// EnvironmentWriter changes environments.
type EnvironmentWriter interface {
	// CreateEnvironment stores e; a zero CreatedAt is set to now. NameExists
	// if the name is taken.
	CreateEnvironment(ctx context.Context, e Environment) (Environment, error)
	// UpdateEnvironment replaces type, enabled, sort order and protected.
	// NotFound if it does not exist.
	UpdateEnvironment(ctx context.Context, e Environment) (Environment, error)
	// DeleteEnvironment deletes an environment with every strategy and
	// feature setting in it. NotFound if it does not exist.
	DeleteEnvironment(ctx context.Context, name string) error
}
