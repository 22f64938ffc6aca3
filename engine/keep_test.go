package engine

import (
	"testing"
	"unsafe"

	"github.com/signalbox/signalbox/clientapi"
)

// TestSnapshotKeepsNoPayloadMemory: what a snapshot keeps of its payload
// (names, listed values, field names, variant payloads) are copies, so
// that none of the decoded payload's memory stays in use once the payload
// is dropped; the copies are equal to what they copy.
func TestSnapshotKeepsNoPayloadMemory(t *testing.T) {
	payload := &clientapi.Features{
		Segments: []clientapi.Segment{{ID: 1, Constraints: []clientapi.Constraint{{ContextName: "tier", Operator: "IN", Values: []string{"gold"}}}}},
		Features: []clientapi.Feature{{
			Name: "checkout", Enabled: true,
			Strategies: []clientapi.Strategy{{
				Name:        "flexibleRollout",
				Parameters:  clientapi.Parameters{"rollout": "100", "stickiness": "orgId"},
				Constraints: []clientapi.Constraint{{ContextName: "region", Operator: "STR_STARTS_WITH", Values: []string{"eu-"}}},
				Segments:    []int{1},
				Variants:    []clientapi.Variant{{Name: "blue", Weight: 1000, Payload: &clientapi.Payload{Type: "string", Value: "b"}}},
			}, {
				Name: "userWithId", Parameters: clientapi.Parameters{"userIds": "u1, u2"},
			}},
			Variants: []clientapi.Variant{{Name: "red", Weight: 1000, Payload: &clientapi.Payload{Type: "json", Value: `{"a":1}`},
				Overrides: []clientapi.Override{{ContextName: "team", Values: []string{"core"}}}}},
		}},
	}
	snap := Compile(payload, Options{DropSource: true})
	in := payload.Features[0]
	f := &snap.flags[0]
	st := &f.strategies[0]
	pairs := []struct {
		what      string
		got, from string
	}{
		{"flag name", f.name, in.Name},
		{"constraint field", st.constraints[0].field.name, in.Strategies[0].Constraints[0].ContextName},
		{"constraint value", st.constraints[0].values.list[0], in.Strategies[0].Constraints[0].Values[0]},
		{"segment value", st.constraints[1].values.list[0], payload.Segments[0].Constraints[0].Values[0]},
		{"stickiness field", st.sticky.field.name, in.Strategies[0].Parameters["stickiness"]},
		{"strategy variant", st.variants.variants[0].name, in.Strategies[0].Variants[0].Name},
		{"strategy variant payload", st.variants.variants[0].payload.Value, in.Strategies[0].Variants[0].Payload.Value},
		{"user id", f.strategies[1].ids.list[1], "u2"},
		{"flag variant", f.variants.variants[0].name, in.Variants[0].Name},
		{"flag variant payload", f.variants.variants[0].payload.Value, in.Variants[0].Payload.Value},
		{"override field", f.variants.variants[0].overrides[0].field.name, in.Variants[0].Overrides[0].ContextName},
		{"override value", f.variants.variants[0].overrides[0].values.list[0], in.Variants[0].Overrides[0].Values[0]},
	}
	for _, p := range pairs {
		if p.got != p.from {
			t.Errorf("%s: kept %q, payload has %q", p.what, p.got, p.from)
		}
		if unsafe.StringData(p.got) == unsafe.StringData(p.from) {
			t.Errorf("%s: the snapshot keeps the payload's own string", p.what)
		}
	}
	if f.variants.variants[0].payload == in.Variants[0].Payload {
		t.Error("the snapshot keeps the payload's own variant payload")
	}
	if r := snap.Evaluate("checkout", &Context{UserID: "u1", Properties: map[string]string{"team": "core"}}); r.Variant.Payload != f.variants.variants[0].payload {
		t.Errorf("a result carries payload %p, the snapshot keeps %p", r.Variant.Payload, f.variants.variants[0].payload)
	}
}
