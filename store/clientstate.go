package store

import (
	"context"

	"github.com/signalbox/signalbox/clientapi"
)

// ClientState is what the client API serves for one environment, read in
// one snapshot together with the revision it corresponds to.
type ClientState struct {
	// Revision is Revision() in the same snapshot. Payloads built from this
	// state may be cached under it: a later change gets a larger revision.
	Revision    int64
	Environment string
	// Features are all non-archived features, ordered by name.
	Features []ClientFeature
	// Segments are all segments, ordered by id.
	Segments []clientapi.Segment
}

// ClientFeature is one feature as SDKs see it, plus what the server needs to
// filter features by tag.
type ClientFeature struct {
	// Feature has the enabled state in the environment (false when the
	// environment is not enabled for the feature's project), the enabled
	// strategies in sort order with their segment ids, the flag variants
	// and the dependencies.
	clientapi.Feature
	Tags []Tag
}

// ClientStateReader reads the client API's view of the data.
type ClientStateReader interface {
	// GetClientState returns the state of environment. NotFound if the
	// environment does not exist.
	GetClientState(ctx context.Context, environment string) (ClientState, error)
}
