package store

import (
	"context"
	"encoding/json"
	"time"
)

// Addon is one configured integration, such as a webhook: the audit events
// it listens to are delivered to it by the server.
type Addon struct {
	// ID is assigned by CreateAddon.
	ID int
	// Provider names the kind of addon, such as "webhook".
	Provider    string
	Description string
	Enabled     bool
	// Parameters is the provider's configuration, a JSON object; it holds
	// secrets (URLs, authorization headers) as they were given.
	Parameters json.RawMessage
	// Events are the event types the addon listens to.
	Events []string
	// Projects and Environments narrow the events; empty means all.
	Projects     []string
	Environments []string
	// SinceEventID is the newest event id when the addon was created: it
	// gets only later events, however far behind delivery is.
	SinceEventID int64
	CreatedAt    time.Time
}

// States of an AddonDelivery.
const (
	// DeliveryPending waits for its next attempt (NextAttemptAt).
	DeliveryPending = "pending"
	// DeliveryRunning is claimed by a sender until ClaimedUntil; a claim
	// that expires (its sender stopped) makes it due again.
	DeliveryRunning = "running"
	// DeliverySuccess and DeliveryFailed are final.
	DeliverySuccess = "success"
	DeliveryFailed  = "failed"
)

// AddonDelivery is the sending of one event to one addon, with its
// attempts so far. There is at most one per addon and event.
type AddonDelivery struct {
	// ID is assigned by QueueAddonDeliveries.
	ID      int64
	AddonID int
	EventID int64
	// State is one of the Delivery constants.
	State    string
	Attempts int
	// StatusCode is the HTTP status of the last attempt, 0 when it got no
	// answer; LastError says what went wrong, empty after a success.
	StatusCode    int
	LastError     string
	NextAttemptAt time.Time
	ClaimedUntil  *time.Time
	CreatedAt     time.Time
	UpdatedAt     time.Time
}

// AddonReader reads addons and their deliveries.
type AddonReader interface {
	// GetAddon returns NotFound if there is no addon id.
	GetAddon(ctx context.Context, id int) (Addon, error)
	// ListAddons lists every addon by id.
	ListAddons(ctx context.Context) ([]Addon, error)
	// ListAddonDeliveries lists the deliveries of addon id that were
	// attempted at least once, newest event first, skipping offset and at
	// most limit (0: no cap).
	ListAddonDeliveries(ctx context.Context, addonID, limit, offset int) ([]AddonDelivery, error)
	// AddonCursor is the id of the newest event whose deliveries were
	// queued (see QueueAddonDeliveries).
	AddonCursor(ctx context.Context) (int64, error)
}

// AddonWriter changes addons. Deleting an addon deletes its deliveries.
type AddonWriter interface {
	// CreateAddon stores a and returns it with its id; a zero CreatedAt is
	// set to now. BadData if Parameters is not a JSON object.
	CreateAddon(ctx context.Context, a Addon) (Addon, error)
	// UpdateAddon replaces every field of addon a.ID but SinceEventID and
	// CreatedAt. NotFound if there is no such addon.
	UpdateAddon(ctx context.Context, a Addon) (Addon, error)
	// DeleteAddon: NotFound if there is no addon id.
	DeleteAddon(ctx context.Context, id int) error
}

// AddonDeliveryWriter is the delivery queue. Operational: needs no audit
// event. Updates run one at a time, also across instances sharing the
// database, so a claim is never handed out twice.
type AddonDeliveryWriter interface {
	// QueueAddonDeliveries stores ds (pending, due at their NextAttemptAt)
	// and moves the cursor to cursor, never back. A delivery for an addon
	// and event that has one already, or for an addon that no longer
	// exists, is skipped.
	QueueAddonDeliveries(ctx context.Context, cursor int64, ds []AddonDelivery) error
	// ClaimAddonDelivery takes the due delivery with the smallest id: one
	// pending with NextAttemptAt at or before now, or running with a claim
	// that expired before now. It marks it running until until, counts the
	// attempt and returns it; false when none is due.
	ClaimAddonDelivery(ctx context.Context, now, until time.Time) (AddonDelivery, bool, error)
	// FinishAddonDelivery records the outcome of the attempt d was claimed
	// for: State, StatusCode, LastError and NextAttemptAt, and ends the
	// claim. NotFound if the delivery is gone or was claimed again since
	// (its Attempts differ).
	FinishAddonDelivery(ctx context.Context, d AddonDelivery) error
}
