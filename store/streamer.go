package store

import (
	"context"
	"time"
)

// StreamedClient is an SDK instance that held a stream
// (GET /api/client/streaming) on some server of the cluster. Servers
// remember them for a day so that, after a restart, they can ask exactly
// these SDKs (and not SDKs that only ever polled) to return to streaming.
type StreamedClient struct {
	// Key names the instance: its connection id, or its application and
	// instance id (the server builds it; the store only keeps it).
	Key string
	// TokenID is the API token the stream was opened with.
	TokenID int64
	AppName string
	SeenAt  time.Time
}

// StreamedClientReader reads the remembered streaming clients.
type StreamedClientReader interface {
	// ListStreamedClients returns the clients seen at or after since,
	// most recently seen first (then by key), at most limit of them.
	ListStreamedClients(ctx context.Context, since time.Time, limit int) ([]StreamedClient, error)
}

// StreamedClientWriter remembers streaming clients. Operational: it needs
// no audit event.
type StreamedClientWriter interface {
	// RecordStreamedClients creates the clients or moves their SeenAt
	// forward, deletes every client seen before expireBefore, then keeps
	// at most perToken clients of each token and perApp of each
	// application among those written (the most recently seen).
	RecordStreamedClients(ctx context.Context, cs []StreamedClient, expireBefore time.Time, perToken, perApp int) error
}
