package proxy

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/signalbox/signalbox/clientapi"
)

// Every revision's events, applied to what an SDK held, give the new
// configuration; so do the events since any revision still in the history,
// and a hydration for one that is not.
func TestDeltaFeed(t *testing.T) {
	on := func(name, project string, enabled bool, segs ...int) clientapi.Feature {
		return clientapi.Feature{Name: name, Project: project, Enabled: enabled,
			Strategies: []clientapi.Strategy{{Name: "default", Segments: segs}}}
	}
	revisions := []*clientapi.Features{
		{Version: 2, Features: []clientapi.Feature{on("a", "p", true), on("b", "p", false)}},
		{Version: 2, Features: []clientapi.Feature{on("a", "p", false), on("b", "p", false), on("c", "q", true, 7)},
			Segments: []clientapi.Segment{{ID: 7, Name: "s"}}},
		{Version: 2, Features: []clientapi.Feature{on("c", "q", true)}},
		{Version: 2, Features: []clientapi.Feature{on("c", "q", true)}}, // no change: no revision
	}
	f := newDeltaFeed()
	held := map[int64]*clientapi.Features{}
	for _, p := range revisions {
		f.publish(p)
		st := f.state.Load()
		held[st.rev] = p
	}
	st := f.state.Load()
	if st.rev != 3 {
		t.Fatalf("revision %d after three changes", st.rev)
	}
	decode := func(b []byte) []clientapi.DeltaEvent {
		var d clientapi.Delta
		if err := json.Unmarshal(append(append([]byte(`{"events":[`), b...), "]}"...), &d); err != nil {
			t.Fatal(err)
		}
		return d.Events
	}
	want := revisions[2]
	for from := int64(0); from <= st.rev+1; from++ {
		got := clientapi.Apply(held[from], decode(st.since(from)))
		w, _ := json.Marshal(want.Features)
		g, _ := json.Marshal(got.Features)
		var wv, gv any
		_ = json.Unmarshal(w, &wv)
		_ = json.Unmarshal(g, &gv)
		if diff := cmp.Diff(wv, gv); diff != "" {
			t.Errorf("from %d (-want +got):\n%s", from, diff)
		}
		if len(got.Segments) != 0 {
			t.Errorf("from %d: segments %v remain", from, got.Segments)
		}
	}
	events := decode(st.history[0].events)
	if len(events) != 3 || events[0].Type != clientapi.EventSegmentUpdated {
		t.Errorf("revision 2: %+v, want the segment before the flags", events)
	}
}

func FuzzReadRevision(f *testing.F) {
	for _, s := range []string{`"12"`, `W/"7"`, "3, 4", "", "-1", "x", `"`, "99999999999999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if readRevision(s) < 0 {
			t.Errorf("readRevision(%q) < 0", s)
		}
	})
}
