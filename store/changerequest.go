package store

import (
	"context"
	"encoding/json"
	"time"
)

// Change request states, as the admin API spells them.
const (
	ChangeRequestDraft     = "Draft"
	ChangeRequestInReview  = "In review"
	ChangeRequestApproved  = "Approved"
	ChangeRequestApplied   = "Applied"
	ChangeRequestCancelled = "Cancelled"
	ChangeRequestRejected  = "Rejected"
	ChangeRequestScheduled = "Scheduled"
)

// Schedule statuses of a Scheduled change request.
const (
	SchedulePending = "pending"
	ScheduleFailed  = "failed"
)

// ChangeRequestConfig says whether changes to the flags of a project in
// one environment must go through change requests, and how many approvals
// a request needs there.
type ChangeRequestConfig struct {
	Project     string
	Environment string
	Enabled     bool
	// RequiredApprovals is at least 1.
	RequiredApprovals int
}

// Actor is who did something to a change request.
type Actor struct {
	// Key identifies the actor for the rules that compare people: "the
	// author cannot approve", "one approval per person", "the caller's
	// draft". The server uses "user:<id>" for users (signed in or through
	// a personal access token) and "token:<id>" for API tokens.
	Key string
	// Name is the username, e-mail or token name shown to people.
	Name string
	// UserID is the person behind the actor: the user, or for an API
	// token the user who created it; 0 when there is none or it is
	// unknown.
	UserID int
}

// ChangeRequest is a batch of changes to the flags (and segments) of one
// project environment, reviewed before it is applied.
type ChangeRequest struct {
	// ID is assigned by CreateChangeRequest.
	ID          int
	Project     string
	Environment string
	Title       string
	// State is one of the ChangeRequest* constants.
	State string
	// MinApprovals is how many approvals the request needs to be Approved.
	MinApprovals int
	CreatedBy    Actor
	CreatedAt    time.Time
	// Schedule is set while State is Scheduled (and kept for the record
	// when a scheduled request is applied).
	Schedule *ChangeRequestSchedule
	// Changes, Approvals, Rejections and Comments are read with the
	// request, oldest first; the change request writers ignore them.
	Changes    []Change
	Approvals  []Review
	Rejections []Review
	Comments   []Comment
}

// ChangeRequestSchedule is when a Scheduled change request is to be
// applied, and how the last attempt went.
type ChangeRequestSchedule struct {
	At time.Time
	// Status is SchedulePending or ScheduleFailed.
	Status        string
	FailureReason string
}

// Change is one change of a change request.
type Change struct {
	// ID is assigned by AddChange; ids increase across all requests.
	ID              int
	ChangeRequestID int
	// Feature is the flag the change applies to; empty for segment changes.
	Feature string
	// Action is an action of the admin API, such as addStrategy.
	Action string
	// Payload is the JSON payload of the action (nil for none).
	Payload json.RawMessage
	// Snapshot is the JSON of the change's target (a strategy, the
	// variants, a segment) when the change was added, or nil; comparing it
	// with the target's current state detects conflicts.
	Snapshot  json.RawMessage
	CreatedBy Actor
	CreatedAt time.Time
}

// Review is an approval or a rejection.
type Review struct {
	By        Actor
	CreatedAt time.Time
}

// Comment is a comment on a change request.
type Comment struct {
	// ID is assigned by AddComment.
	ID        int
	Text      string
	By        Actor
	CreatedAt time.Time
}

// ChangeRequestFilter selects change requests. Zero fields do not filter.
type ChangeRequestFilter struct {
	Project     string
	Environment string
	// States selects requests in any of these states.
	States []string
	// Feature selects requests with at least one change to this flag.
	Feature string
	// CreatedBy selects requests whose author has this Actor.Key.
	CreatedBy string
	// DueBy selects Scheduled requests with a pending schedule at or
	// before this time.
	DueBy *time.Time
	// Limit caps the result (0: no cap).
	Limit int
}

// ChangeRequestReader reads change requests and their configuration.
type ChangeRequestReader interface {
	// GetChangeRequestConfig returns the configuration of a project
	// environment: disabled with one required approval when it was never
	// set. It does not check that the project or environment exists.
	GetChangeRequestConfig(ctx context.Context, project, environment string) (ChangeRequestConfig, error)
	// ListChangeRequestConfigs returns the configuration of every
	// environment enabled for project, ordered like ListProjectEnvironments.
	// NotFound if the project does not exist.
	ListChangeRequestConfigs(ctx context.Context, project string) ([]ChangeRequestConfig, error)
	// GetChangeRequest returns a request with its changes, reviews and
	// comments. NotFound if there is no request id.
	GetChangeRequest(ctx context.Context, id int) (ChangeRequest, error)
	// ListChangeRequests returns the matching requests, each complete as
	// GetChangeRequest returns it, newest (highest id) first.
	ListChangeRequests(ctx context.Context, f ChangeRequestFilter) ([]ChangeRequest, error)
}

// ChangeRequestWriter changes change requests and their configuration.
type ChangeRequestWriter interface {
	// SetChangeRequestConfig stores the configuration of a project
	// environment. NotFound if the environment is not enabled for the
	// project; BadData if RequiredApprovals is below 1. Disabling the
	// environment for the project deletes its configuration.
	SetChangeRequestConfig(ctx context.Context, c ChangeRequestConfig) (ChangeRequestConfig, error)
	// CreateChangeRequest stores the request's own fields (not its changes,
	// reviews or comments) and returns it with its new ID; a zero CreatedAt
	// is set to now. NotFound if the project or environment does not exist.
	CreateChangeRequest(ctx context.Context, cr ChangeRequest) (ChangeRequest, error)
	// UpdateChangeRequest replaces title, state, minimum approvals and
	// schedule. NotFound if the request does not exist.
	UpdateChangeRequest(ctx context.Context, cr ChangeRequest) (ChangeRequest, error)
	// DeleteChangeRequest deletes a request with its changes, reviews and
	// comments. NotFound if it does not exist.
	DeleteChangeRequest(ctx context.Context, id int) error
	// AddChange stores c and returns it with its new ID; a zero CreatedAt
	// is set to now. NotFound if c.ChangeRequestID does not exist; BadData
	// if Payload or Snapshot is not valid JSON.
	AddChange(ctx context.Context, c Change) (Change, error)
	// DeleteChange deletes a change of a request. NotFound if the request
	// has no change with that id.
	DeleteChange(ctx context.Context, changeRequestID, changeID int) error
	// AddApproval records an approval; a zero CreatedAt is set to now.
	// NotFound if the request does not exist; NameExists if the actor (by
	// Key) approved it already.
	AddApproval(ctx context.Context, changeRequestID int, r Review) error
	// AddRejection records a rejection, like AddApproval.
	AddRejection(ctx context.Context, changeRequestID int, r Review) error
	// ClearApprovals removes every approval of a request. NotFound if the
	// request does not exist.
	ClearApprovals(ctx context.Context, changeRequestID int) error
	// AddComment stores a comment and returns it with its new ID; a zero
	// CreatedAt is set to now. NotFound if the request does not exist.
	// Operational: needs no audit event (the admin API has no event type
	// for comments, and they change nothing that is served).
	AddComment(ctx context.Context, changeRequestID int, c Comment) (Comment, error)
}
