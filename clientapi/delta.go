package clientapi

// Delta event types of the streaming/delta client API.
const (
	EventHydration      = "hydration"
	EventFeatureUpdated = "feature-updated"
	EventFeatureRemoved = "feature-removed"
	EventSegmentUpdated = "segment-updated"
	EventSegmentRemoved = "segment-removed"
)

// Delta is a document of delta events, applied in order.
type Delta struct {
	Events []DeltaEvent `json:"events"`
}

// DeltaEvent is one change to an SDK's flag state. Which fields are set
// depends on Type.
type DeltaEvent struct {
	EventID     int64     `json:"eventId,omitempty"`
	Type        string    `json:"type"`
	Features    []Feature `json:"features,omitempty"`
	Segments    []Segment `json:"segments,omitempty"`
	Feature     *Feature  `json:"feature,omitempty"`
	FeatureName string    `json:"featureName,omitempty"`
	Project     string    `json:"project,omitempty"`
	Segment     *Segment  `json:"segment,omitempty"`
	SegmentID   *int      `json:"segmentId,omitempty"`
}

// Apply applies events in order to a copy of base and returns the result.
// Unknown event types are skipped so that newer servers do not break older
// readers. base may be nil.
func Apply(base *Features, events []DeltaEvent) *Features {
	out := &Features{Version: 2}
	if base != nil {
		out.Version = base.Version
		out.Features = append([]Feature(nil), base.Features...)
		out.Segments = append([]Segment(nil), base.Segments...)
	}
	for _, ev := range events {
		switch ev.Type {
		case EventHydration:
			out.Features = append([]Feature(nil), ev.Features...)
			out.Segments = append([]Segment(nil), ev.Segments...)
		case EventFeatureUpdated:
			if ev.Feature != nil {
				out.Features = upsertFeature(out.Features, *ev.Feature)
			}
		case EventFeatureRemoved:
			out.Features = removeFeature(out.Features, ev.FeatureName)
		case EventSegmentUpdated:
			if ev.Segment != nil {
				out.Segments = upsertSegment(out.Segments, *ev.Segment)
			}
		case EventSegmentRemoved:
			if ev.SegmentID != nil {
				out.Segments = removeSegment(out.Segments, *ev.SegmentID)
			}
		}
	}
	return out
}

func upsertFeature(list []Feature, f Feature) []Feature {
	for i := range list {
		if list[i].Name == f.Name {
			list[i] = f
			return list
		}
	}
	return append(list, f)
}

func removeFeature(list []Feature, name string) []Feature {
	for i := range list {
		if list[i].Name == name {
			return append(list[:i], list[i+1:]...)
		}
	}
	return list
}

func upsertSegment(list []Segment, s Segment) []Segment {
	for i := range list {
		if list[i].ID == s.ID {
			list[i] = s
			return list
		}
	}
	return append(list, s)
}

func removeSegment(list []Segment, id int) []Segment {
	for i := range list {
		if list[i].ID == id {
			return append(list[:i], list[i+1:]...)
		}
	}
	return list
}
