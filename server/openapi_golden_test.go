package server

import (
	"bytes"
	"encoding/json"
	"flag"
	"net/http"
	"os"
	"path/filepath"
	"testing"
)

var updateGolden = flag.Bool("update", false, "rewrite the golden files under testdata")

// goldenOpenAPI is the OpenAPI document this server publishes, kept in the
// repository so that every change to the API shows in review as a change
// to this file. Regenerate it with: go test ./server -run TestOpenAPIGolden -update
const goldenOpenAPI = "testdata/openapi.golden.json"

func TestOpenAPIGolden(t *testing.T) {
	ts := newTestServer(t)
	res := ts.request("GET", docsJSONPath, "", nil).must(t, http.StatusOK)
	var doc any
	if err := json.Unmarshal(res.Body, &doc); err != nil {
		t.Fatal(err)
	}
	got, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	if *updateGolden {
		if err := os.WriteFile(goldenOpenAPI, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(filepath.FromSlash(goldenOpenAPI))
	if err != nil {
		t.Fatalf("%v; create it with: go test ./server -run TestOpenAPIGolden -update", err)
	}
	if !bytes.Equal(want, got) {
		t.Errorf("the OpenAPI document differs from %s; if the change is meant, run: go test ./server -run TestOpenAPIGolden -update, and review the diff", goldenOpenAPI)
		wl, gl := bytes.Split(want, []byte("\n")), bytes.Split(got, []byte("\n"))
		for i := 0; i < len(wl) && i < len(gl); i++ {
			if !bytes.Equal(wl[i], gl[i]) {
				t.Errorf("first difference at line %d:\n  golden: %s\n  now:    %s", i+1, wl[i], gl[i])
				break
			}
		}
	}
}
