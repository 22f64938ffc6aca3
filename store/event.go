package store

import (
	"context"
	"encoding/json"
	"time"
)

// Event is one entry of the audit log. Events are never changed; their ids
// strictly increase in commit order.
type Event struct {
	// ID is assigned by AppendEvent.
	ID int64
	// Type is one of the event types of the admin API, such as
	// feature-created.
	Type      string
	CreatedAt time.Time
	// CreatedBy is the username or e-mail of the actor, or a system name.
	CreatedBy string
	// CreatedByUserID is 0 when the actor is not a user.
	CreatedByUserID int
	Project         string
	Environment     string
	FeatureName     string
	// Data and PreData are JSON documents (nil for none): the subject after
	// and before the change. They are compared as JSON, not as bytes: a
	// database may reorder object keys.
	Data    json.RawMessage
	PreData json.RawMessage
	Tags    []Tag
}

// EventFilter selects events. Zero fields do not filter.
type EventFilter struct {
	// Type, Project and Feature match exactly.
	Type    string
	Project string
	Feature string
	// ExceptProjects leaves out the events of these projects; events of no
	// project stay.
	ExceptProjects []string
	// Query matches, ignoring ASCII case, a substring of the type, the
	// creator or the JSON text of Data.
	Query string
	// AfterID and BeforeID select ids strictly between them (BeforeID 0: no
	// upper bound).
	AfterID  int64
	BeforeID int64
	// Ascending lists oldest first; the default is newest first.
	Ascending bool
	// Limit caps the result (0: no cap); Offset skips that many first.
	Limit  int
	Offset int
}

// EventReader reads the audit log.
type EventReader interface {
	// GetEvent returns NotFound if there is no event id.
	GetEvent(ctx context.Context, id int64) (Event, error)
	// ListEvents returns matching events.
	ListEvents(ctx context.Context, f EventFilter) ([]Event, error)
	// CountEvents counts matching events, ignoring Limit and Offset.
	CountEvents(ctx context.Context, f EventFilter) (int64, error)
	// Revision returns the id of the newest event, 0 when there is none,
	// as seen by this transaction.
	Revision(ctx context.Context) (int64, error)
}

// EventWriter appends to the audit log.
type EventWriter interface {
	// AppendEvent stores e and returns its id; a zero CreatedAt is set to
	// now. BadData if Data or PreData is not valid JSON.
	AppendEvent(ctx context.Context, e Event) (int64, error)
}
