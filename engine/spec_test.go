package engine_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/signalbox/signalbox/clientapi"
	"github.com/signalbox/signalbox/engine"
)

// specDir is the Unleash client specification data: $SIGNALBOX_SPEC_DIR
// when set (to try another version), else the copy shipped in testdata.
// Not finding it is a test failure, never a skip: the suite is the
// engine's contract.
func specDir(t testing.TB) string {
	t.Helper()
	d := os.Getenv("SIGNALBOX_SPEC_DIR")
	if d == "" {
		d = filepath.Join("testdata", "client-specification")
	}
	if _, err := os.Stat(filepath.Join(d, "index.json")); err != nil {
		t.Fatalf("client specification data not found in %s: %v", d, err)
	}
	return d
}

type specFile struct {
	Name         string          `json:"name"`
	State        json.RawMessage `json:"state"`
	Tests        []specTest      `json:"tests"`
	VariantTests []specVariant   `json:"variantTests"`
}

type specTest struct {
	Description string            `json:"description"`
	Context     clientapi.Context `json:"context"`
	ToggleName  string            `json:"toggleName"`
	Expected    bool              `json:"expectedResult"`
}

type specVariant struct {
	Description string            `json:"description"`
	Context     clientapi.Context `json:"context"`
	ToggleName  string            `json:"toggleName"`
	Expected    struct {
		Name           string             `json:"name"`
		Enabled        bool               `json:"enabled"`
		FeatureEnabled *bool              `json:"feature_enabled"`
		Payload        *clientapi.Payload `json:"payload"`
	} `json:"expectedResult"`
}

// loadState reads a spec state in either form: a client-features document,
// or a delta document whose events are applied one by one.
func loadState(raw json.RawMessage) (*clientapi.Features, error) {
	var probe struct {
		Events json.RawMessage `json:"events"`
	}
	if err := json.Unmarshal(raw, &probe); err != nil {
		return nil, err
	}
	if probe.Events == nil {
		var f clientapi.Features
		err := json.Unmarshal(raw, &f)
		return &f, err
	}
	var d clientapi.Delta
	if err := json.Unmarshal(raw, &d); err != nil {
		return nil, err
	}
	var state *clientapi.Features
	for _, ev := range d.Events {
		state = clientapi.Apply(state, []clientapi.DeltaEvent{ev})
	}
	if state == nil {
		return nil, errors.New("delta document without events")
	}
	return state, nil
}

// TestClientSpecification runs every test and variantTest of every file the
// spec index lists and reports "N passed, N failed" per file.
func TestClientSpecification(t *testing.T) {
	dir := specDir(t)
	var index []string
	readJSON(t, filepath.Join(dir, "index.json"), &index)
	if len(index) == 0 {
		t.Fatal("spec index is empty")
	}
	totalPass, totalFail := 0, 0
	for _, name := range index {
		var file specFile
		readJSON(t, filepath.Join(dir, name), &file)
		state, err := loadState(file.State)
		if err != nil {
			t.Fatalf("%s: state: %v", name, err)
		}
		snap := engine.Compile(state, engine.Options{})
		pass, fail := 0, 0
		t.Run(name, func(t *testing.T) {
			for _, tc := range file.Tests {
				ctx := engine.ContextFromWire(&tc.Context)
				got := snap.IsEnabled(tc.ToggleName, &ctx)
				if got != tc.Expected {
					fail++
					t.Errorf("%s: isEnabled(%q) = %v, want %v", tc.Description, tc.ToggleName, got, tc.Expected)
					continue
				}
				// Evaluate must agree with IsEnabled.
				if r := snap.Evaluate(tc.ToggleName, &ctx); r.Enabled != got {
					fail++
					t.Errorf("%s: Evaluate(%q).Enabled = %v, IsEnabled = %v", tc.Description, tc.ToggleName, r.Enabled, got)
					continue
				}
				pass++
			}
			for _, tc := range file.VariantTests {
				ctx := engine.ContextFromWire(&tc.Context)
				got := snap.Evaluate(tc.ToggleName, &ctx).Variant
				want := tc.Expected
				ok := got.Name == want.Name && got.Enabled == want.Enabled &&
					(want.FeatureEnabled == nil || *want.FeatureEnabled == got.FeatureEnabled) &&
					samePayload(got.Payload, want.Payload)
				if !ok {
					fail++
					t.Errorf("%s: getVariant(%q) = %+v (payload %+v), want %+v (payload %+v)",
						tc.Description, tc.ToggleName, got, got.Payload, want, want.Payload)
					continue
				}
				pass++
			}
		})
		fmt.Printf("spec %-45s %d passed, %d failed\n", name, pass, fail)
		totalPass += pass
		totalFail += fail
	}
	fmt.Printf("spec total: %d passed, %d failed\n", totalPass, totalFail)
	if totalPass+totalFail != 279 && os.Getenv("SIGNALBOX_SPEC_DIR") == "" {
		t.Errorf("ran %d spec cases, the 6.1.0 suite has 279", totalPass+totalFail)
	}
}

func samePayload(a, b *clientapi.Payload) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return *a == *b
}

func readJSON(t testing.TB, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}
