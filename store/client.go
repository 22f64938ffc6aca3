package store

import (
	"context"
	"time"
)

// ClientApplication is an application that registered an SDK with
// /api/client/register.
type ClientApplication struct {
	AppName     string
	Description string
	URL         string
	Color       string
	Icon        string
	// Strategies are the strategy names its SDKs can evaluate.
	Strategies []string
	CreatedAt  time.Time
	SeenAt     *time.Time
}

// ClientInstance is one running SDK of an application.
type ClientInstance struct {
	AppName     string
	InstanceID  string
	Environment string
	SDKVersion  string
	ClientIP    string
	Started     *time.Time
	// IntervalMillis is the SDK's refresh interval.
	IntervalMillis int64
	CreatedAt      time.Time
	LastSeen       time.Time
}

// ClientMetric counts one feature's evaluations by one application in one
// environment during one hour.
type ClientMetric struct {
	Feature     string
	AppName     string
	Environment string
	// Hour is the start of the hour, UTC; AddClientMetrics truncates it.
	Hour     time.Time
	Yes      int64
	No       int64
	Variants map[string]int64
}

// ClientMetricsFilter selects metrics. Zero fields do not filter.
type ClientMetricsFilter struct {
	Feature     string
	AppName     string
	Environment string
	// Since selects hours starting at or after it.
	Since time.Time
}

// ClientAppReader reads client applications, instances and metrics.
type ClientAppReader interface {
	// GetClientApplication returns NotFound if appName never registered.
	GetClientApplication(ctx context.Context, appName string) (ClientApplication, error)
	// ListClientApplications returns all applications by name.
	ListClientApplications(ctx context.Context) ([]ClientApplication, error)
	// ListClientInstances returns the instances of appName (all
	// applications when empty), most recently seen first.
	ListClientInstances(ctx context.Context, appName string) ([]ClientInstance, error)
	// ListClientMetrics returns matching hourly counts ordered by hour,
	// feature, application and environment.
	ListClientMetrics(ctx context.Context, f ClientMetricsFilter) ([]ClientMetric, error)
	// ListClientMetricsDaily returns the daily roll-up of the hourly
	// metrics that retention deleted: Hour is the start of the UTC day and
	// the counts are those of its deleted hours, so that these rows and
	// ListClientMetrics's never count one hour twice. Since selects the
	// days that end after it (the day holding Since counts whole). Ordered
	// as ListClientMetrics.
	ListClientMetricsDaily(ctx context.Context, f ClientMetricsFilter) ([]ClientMetric, error)
}

// ClientAppWriter changes client applications, instances and metrics.
// Except for UpdateClientApplication and DeleteClientApplication, its
// methods are operational: they need no audit event.
type ClientAppWriter interface {
	// RegisterClientApplication creates the application or, if it exists,
	// sets its strategies and SeenAt (a nil SeenAt means now) and fills its
	// empty description, URL, color and icon from app. created reports a new
	// application.
	RegisterClientApplication(ctx context.Context, app ClientApplication) (created bool, err error)
	// UpdateClientApplication replaces description, URL, color and icon.
	// NotFound if absent.
	UpdateClientApplication(ctx context.Context, app ClientApplication) (ClientApplication, error)
	// DeleteClientApplication deletes an application with its instances
	// (not its metrics). NotFound if absent.
	DeleteClientApplication(ctx context.Context, appName string) error
	// UpsertClientInstance creates or replaces an instance; a zero LastSeen
	// is set to now. NotFound if the application is not registered.
	UpsertClientInstance(ctx context.Context, in ClientInstance) error
	// AddClientMetrics adds the counts to the stored hourly totals.
	AddClientMetrics(ctx context.Context, ms []ClientMetric) error
	// DeleteClientMetrics deletes hours that started before t and returns
	// how many feature/app/environment hours were removed.
	DeleteClientMetrics(ctx context.Context, before time.Time) (int, error)
}
