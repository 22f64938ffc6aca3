package store

import (
	"context"
	"errors"
)

// ErrUnaudited is returned by Update when the transaction changed admin data
// but appended no event. The transaction is rolled back. It is a programming
// error in the caller, hence not an *apierr.Error.
var ErrUnaudited = errors.New("store: admin change without an audit event; call Tx.AppendEvent in the same Update")

// Store is the server's persistence.
type Store interface {
	// View runs fn in a read-only transaction that sees one consistent
	// snapshot of the data. It returns fn's error. The Reader is valid only
	// until fn returns.
	View(ctx context.Context, fn func(Reader) error) error

	// Update runs fn in a read-write transaction. It commits when fn returns
	// nil and rolls back when fn returns an error or panics. Updates never
	// run concurrently with each other, so fn may read, decide and write
	// without races; keep fn short and never call View or Update inside it.
	// fn runs exactly once. Returns ErrUnaudited (and rolls back) when fn
	// changed admin data without calling AppendEvent.
	Update(ctx context.Context, fn func(Tx) error) error

	// Revision returns the id of the newest audit event, 0 when there is
	// none. It is cheap enough to call on every client API request.
	Revision(ctx context.Context) (int64, error)

	// Operator writes operational data outside the order of audited
	// writes.
	Operator

	// Close releases the database handles.
	Close() error
}

// Reader is every read method. It is what View hands to its function.
type Reader interface {
	ProjectReader
	EnvironmentReader
	FeatureReader
	FeatureEnvironmentReader
	StrategyReader
	SegmentReader
	ContextFieldReader
	TagReader
	DependencyReader
	StrategyDefinitionReader
	UserReader
	APITokenReader
	SessionReader
	EventReader
	ClientAppReader
	ClientStateReader
	GroupReader
	AccessReader
	ChangeRequestReader
	SettingReader
	AddonReader
	FeatureOverviewReader
	EventCreatorReader
	FeatureLinkReader
	ResetTokenReader
	SignupTokenReader
	StreamedClientReader
}

// Tx is every read and write method. It is what Update hands to its
// function, valid until that returns and not safe for concurrent use. A
// method that fails changes nothing and leaves the transaction usable, so
// fn may handle the error and go on. Writers marked "operational" in their comment (client
// registrations, metrics, sessions, last-seen stamps, streamed clients) need no audit event;
// every other writer does.
type Tx interface {
	Reader
	ProjectWriter
	EnvironmentWriter
	FeatureWriter
	FeatureEnvironmentWriter
	StrategyWriter
	SegmentWriter
	ContextFieldWriter
	TagWriter
	DependencyWriter
	StrategyDefinitionWriter
	UserWriter
	APITokenWriter
	SessionWriter
	EventWriter
	ClientAppWriter
	GroupWriter
	AccessWriter
	ChangeRequestWriter
	SettingWriter
	UsedIDWriter
	AddonWriter
	AddonDeliveryWriter
	FeatureLinkWriter
	ResetTokenWriter
	SignupTokenWriter
	StreamedClientWriter
}

// RevisionWatcher is implemented by stores whose database can announce
// other processes' writes, so that several servers sharing it see each
// other's changes without waiting for their next revision poll.
type RevisionWatcher interface {
	// WatchRevisions delivers the revision after each committed write of
	// any process, and the current revision each time it (re)connects, so
	// that writes announced while it was disconnected are not missed. It
	// reconnects on its own until ctx ends, then closes the channel.
	// Revisions may repeat and arrive out of order; a receiver keeps the
	// highest. A store whose database cannot announce writes returns a nil
	// channel and a nil error: the caller then relies on polling Revision.
	WatchRevisions(ctx context.Context) (<-chan int64, error)
}
