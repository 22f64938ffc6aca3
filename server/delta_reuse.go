package server

import (
	"unsafe"

	"github.com/signalbox/signalbox/store"
)

// sameClientFeature reports whether b is a copy of a sharing all of its
// lists, as store.ClientState.With leaves an untouched feature: then they
// are equal without looking inside (states are never modified). A feature
// read again from the database has lists of its own and is not the same,
// even when equal; the caller encodes it again. TestSameClientFeatureFields
// keeps this in step with the fields of the types.
func sameClientFeature(a, b *store.ClientFeature) bool {
	return a.Name == b.Name && a.Type == b.Type && a.Description == b.Description && a.Project == b.Project &&
		a.Enabled == b.Enabled && a.Stale == b.Stale && a.ImpressionData == b.ImpressionData &&
		sameSlice(a.Strategies, b.Strategies) && sameSlice(a.Variants, b.Variants) &&
		sameSlice(a.Dependencies, b.Dependencies) && sameSlice(a.Segments, b.Segments) && sameSlice(a.Tags, b.Tags)
}

// sameSlice reports whether two slices are the same memory.
func sameSlice[T any](a, b []T) bool {
	return len(a) == len(b) && unsafe.SliceData(a) == unsafe.SliceData(b)
}
