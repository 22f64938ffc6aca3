package store

import "context"

// EventCreatorReader finds who changed things.
type EventCreatorReader interface {
	// ListEventCreatorIDs returns the ids of the people who made audit
	// events, ascending, each once.
	ListEventCreatorIDs(ctx context.Context) ([]int, error)
}
