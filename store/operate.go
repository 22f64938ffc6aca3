package store

import (
	"context"
	"time"
)

// Operator is implemented by every Store: it writes the data SDKs and the
// server's own workers produce (registrations, metrics, last-seen stamps,
// retention), which needs no audit event.
type Operator interface {
	// Operate runs fn in a short read-write transaction of its own. Unlike
	// Update it does not wait for the order of audited writes (on
	// PostgreSQL it takes no advisory lock), so admin writes never queue
	// behind it; Operates may run concurrently with each other and with
	// Updates. It commits when fn returns nil. fn may run more than once
	// when the database asks to retry (a deadlock between concurrent
	// writers), so it must only write through op. Returns ErrUnaudited if
	// fn made an admin change through a type assertion.
	Operate(ctx context.Context, fn func(op Op) error) error
}

// Op is what Operate hands to its function: the operational writers, each
// writing its rows in a few multi-row statements.
type Op interface {
	// RecordClientRegistrations creates or refreshes applications as
	// RegisterClientApplication does (an application created here is
	// marked as created by an SDK, which retention may delete once it has
	// no instance), then creates or replaces the instances as
	// UpsertClientInstance does. Several entries with one key: the last
	// wins. An instance of an application absent from the database and
	// from apps is NotFound.
	RecordClientRegistrations(ctx context.Context, apps []ClientApplication, instances []ClientInstance) error
	// AddClientMetrics adds the counts to the stored hourly totals.
	AddClientMetrics(ctx context.Context, ms []ClientMetric) error
	// MarkFeaturesSeen is FeatureWriter.MarkFeaturesSeen.
	MarkFeaturesSeen(ctx context.Context, environment string, features []string, at time.Time) error
	// MarkAPITokensSeen is APITokenWriter.MarkAPITokensSeen.
	MarkAPITokensSeen(ctx context.Context, hashes []string, at time.Time) error
	// PruneClientData applies r once at r.Now; see ClientRetention. It
	// rolls up one expired hour per call (see PruneReport.More). It is
	// idempotent and safe to run from several servers at once: hours are
	// rolled up by the transaction that deletes them.
	PruneClientData(ctx context.Context, r ClientRetention) (PruneReport, error)
}

// ClientRetention is how long client data is kept. Zero ages keep that
// kind of data forever.
type ClientRetention struct {
	// Now is the time the ages count back from.
	Now time.Time
	// Hourly is the age after which hourly metrics are rolled up into
	// daily totals and deleted. Hours are deleted whole: an hour goes when
	// its end is older than Hourly.
	Hourly time.Duration
	// Daily is the age after which daily totals are deleted: a day goes
	// when its end is older than Daily.
	Daily time.Duration
	// Instances is the age of LastSeen after which an instance is
	// deleted. An application created by an SDK registration is deleted
	// with its last instance once its SeenAt is older too.
	Instances time.Duration
}

// PruneReport counts what PruneClientData deleted.
type PruneReport struct {
	// Hours are hourly metrics rows rolled up and deleted.
	Hours int
	// Days are daily rows deleted.
	Days         int
	Instances    int
	Applications int
	// More is set when older hourly metrics remain than the one hour a
	// call rolls up: call again, in a new Operate, to go on.
	More bool
}
