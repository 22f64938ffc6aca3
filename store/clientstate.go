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
	// Features are all non-archived features, ordered by name (in byte
	// order, whatever the database's collation).
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
	// ClientChangesSince returns what changed in the client state of
	// environment after revision since, as the events since then describe
	// it. NotFound if the environment does not exist.
	ClientChangesSince(ctx context.Context, environment string, since int64) (ClientChanges, error)
}

// ClientChanges is the difference between an environment's client state at
// an earlier revision and now, read in one snapshot. Applying it to the
// earlier state gives what GetClientState would read now: replace, insert
// or remove each of Features by its entry in Current, and take Segments
// when SegmentsChanged. When Full is set the events do not say what
// changed (or are too many), and only a whole GetClientState will do.
type ClientChanges struct {
	// Revision is Revision() in the same snapshot, read first as
	// GetClientState does.
	Revision int64
	// Full asks for a whole read; the other fields are then empty.
	Full bool
	// Features are the names of the features the events touched, sorted
	// and without repeats.
	Features []string
	// Current are those of Features that exist and are not archived, as
	// GetClientState reads them, ordered by name. A name of Features
	// missing here is no longer served.
	Current []ClientFeature
	// SegmentsChanged says the segments were edited; Segments are then
	// all of them, ordered by id.
	SegmentsChanged bool
	Segments        []clientapi.Segment
}

// With returns the state ch brings st to, at ch's revision; st is left as
// it is (states are shared by readers). ch must not be Full.
func (st ClientState) With(ch ClientChanges) ClientState {
	out := ClientState{Revision: ch.Revision, Environment: st.Environment, Segments: st.Segments}
	if ch.SegmentsChanged {
		out.Segments = ch.Segments
	}
	// Both lists are ordered by name: merge them, taking a touched name's
	// current entry (or none) in place of the old one.
	touched := ch.Features
	current := ch.Current
	out.Features = make([]ClientFeature, 0, len(st.Features)+len(current))
	old := st.Features
	for len(old) > 0 || len(touched) > 0 {
		switch {
		case len(touched) == 0 || (len(old) > 0 && old[0].Name < touched[0]):
			out.Features = append(out.Features, old[0])
			old = old[1:]
		default:
			name := touched[0]
			touched = touched[1:]
			if len(old) > 0 && old[0].Name == name {
				old = old[1:]
			}
			if len(current) > 0 && current[0].Name == name {
				out.Features = append(out.Features, current[0])
				current = current[1:]
			}
		}
	}
	return out
}
