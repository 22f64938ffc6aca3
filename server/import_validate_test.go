package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/signalbox/signalbox/clientapi"
	"github.com/signalbox/signalbox/internal/pgtest"
	"github.com/signalbox/signalbox/store"
	"github.com/signalbox/signalbox/store/sqlstore"
)

// errRolledBack ends the reference validation's transaction.
var errRolledBack = errors.New("rolled back")

// validateInWriteTransaction validates body as validation once did: the
// import run in a write transaction that is rolled back, by an admin
// token. It is the reference the read-only validation must agree with.
func validateInWriteTransaction(t *testing.T, ts *testServer, body any) importReport {
	t.Helper()
	raw, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	var in struct {
		Project     string     `json:"project"`
		Environment string     `json:"environment"`
		Data        importData `json:"data"`
	}
	if err := json.Unmarshal(raw, &in); err != nil {
		t.Fatal(err)
	}
	doc := in.Data.exportDoc
	doc.Features, doc.FeatureStrategies = *in.Data.Features, *in.Data.FeatureStrategies
	ctx := withPrincipal(context.Background(), &Principal{Token: &store.APIToken{Type: store.TokenAdmin, TokenName: "admin"}})
	var report importReport
	err = ts.srv.store.Update(ctx, func(tx store.Tx) error {
		rep, _, err := runImport(ctx, tx, importRequest{Project: in.Project, Environment: in.Environment}, doc)
		if err != nil {
			return err
		}
		report = rep
		return errRolledBack
	})
	if !errors.Is(err, errRolledBack) {
		t.Fatalf("reference validation: %v", err)
	}
	return report
}

func TestImportValidationMatchesTheWriteTransaction(t *testing.T) {
	importPreviewFlow(t, newTestServer(t))
}

// importPreviewFlow validates documents whose findings come from the
// import itself, where the read-only validation must see its own writes
// (flags created before their dependencies are checked, strategies
// replaced, context fields and tag types created), and requires the same
// report as the import run in a write transaction, and no change.
func importPreviewFlow(t *testing.T, ts *testServer) {
	seedExportSource(t, ts)
	doc := exportOf(t, ts, map[string]any{"project": "source", "environment": "development"})
	ts.admin("POST", "/api/admin/projects", map[string]any{"id": "target", "name": "Target"}).must(t, http.StatusCreated)
	// A flag of target that already depends on another.
	ts.admin("POST", "/api/admin/projects/target/features", map[string]any{"name": "base"}).must(t, http.StatusCreated)
	ts.admin("POST", "/api/admin/projects/target/features", map[string]any{"name": "leaf"}).must(t, http.StatusCreated)
	ts.admin("POST", "/api/admin/projects/target/features/leaf/dependencies", map[string]any{"feature": "base"}).must(t, http.StatusOK)

	renamed := func(change func(d *exportDoc)) exportDoc {
		var d exportDoc
		data, _ := json.Marshal(doc)
		_ = json.Unmarshal(data, &d)
		data = []byte(strings.NewReplacer(`"checkout`, `"new-checkout`, `"dormant"`, `"new-dormant"`).Replace(string(data)))
		_ = json.Unmarshal(data, &d)
		if change != nil {
			change(&d)
		}
		return d
	}
	dep := func(parent string) []dependencyInput { return []dependencyInput{{Feature: parent}} }
	for _, tt := range []struct {
		name    string
		project string
		doc     exportDoc
		clean   bool // the import would succeed
	}{
		{"the project's own export over its flags", "source", doc, true},
		{"renamed flags, children listed before parents", "target", renamed(func(d *exportDoc) { slices.Reverse(d.Features) }), true},
		{"a parent that depends on another flag of the data", "target", renamed(func(d *exportDoc) {
			d.Dependencies = append(d.Dependencies, exportDependencies{Feature: "new-checkout", Dependencies: dep("new-dormant")})
		}), false},
		{"a child given children of its own", "source", func() exportDoc {
			d := renamed(nil)
			d.Features = append(d.Features, doc.Features[0])
			d.Dependencies = append(d.Dependencies, exportDependencies{Feature: "checkout", Dependencies: dep("new-dormant")})
			return d
		}(), false},
		{"dependencies on the project's flags that depend on others", "target", renamed(func(d *exportDoc) {
			d.Dependencies = append(d.Dependencies, exportDependencies{Feature: "new-dormant", Dependencies: dep("leaf")})
		}), false},
		{"a flag of the project with children made to depend on a new one", "target", renamed(func(d *exportDoc) {
			d.Features = append(d.Features, exportFeature{Name: "base", Type: "release"})
			d.Dependencies = append(d.Dependencies, exportDependencies{Feature: "base", Dependencies: dep("new-dormant")})
		}), false},
		{"a new context field and a constraint outside its legal values", "target", renamed(func(d *exportDoc) {
			d.ContextFields = append(d.ContextFields, exportContextField{Name: "planet", LegalValues: []store.LegalValue{{Value: "mars"}}})
			d.FeatureStrategies[0].Constraints = append(d.FeatureStrategies[0].Constraints,
				clientapi.Constraint{ContextName: "planet", Operator: "IN", Values: []string{"venus"}})
		}), false},
		{"a new context field and a constraint within its legal values", "target", renamed(func(d *exportDoc) {
			d.ContextFields = append(d.ContextFields, exportContextField{Name: "planet", LegalValues: []store.LegalValue{{Value: "mars"}}})
			d.FeatureStrategies[0].Constraints = append(d.FeatureStrategies[0].Constraints,
				clientapi.Constraint{ContextName: "planet", Operator: "IN", Values: []string{"mars"}})
		}), true},
		{"switched on without strategies, new tag types", "target", renamed(func(d *exportDoc) {
			d.FeatureStrategies = []adminStrategy{}
			d.Dependencies = nil
			for i := range d.FeatureEnvironments {
				d.FeatureEnvironments[i].Enabled = true
			}
			d.FeatureTags = append(d.FeatureTags, exportFeatureTag{FeatureName: "new-dormant", TagType: "squad", TagValue: "red"})
		}), true},
		{"a strategy with a title too long", "target", renamed(func(d *exportDoc) {
			title := strings.Repeat("t", maxStrategyTitle+1)
			d.FeatureStrategies[1].Title = &title
		}), false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			body := map[string]any{"project": tt.project, "environment": "development", "data": tt.doc}
			before := exportOf(t, ts, map[string]any{"project": tt.project, "environment": "development"})
			mark := auditMark(t, ts)
			var report importReport
			ts.admin("POST", featuresBatchPath+"/validate", body).must(t, http.StatusOK).Decode(t, &report)
			if diff := cmp.Diff(validateInWriteTransaction(t, ts, body), report); diff != "" {
				t.Errorf("validation differs from the write transaction's (-transaction +validation):\n%s", diff)
			}
			if clean := len(report.Errors) == 0; clean != tt.clean {
				t.Errorf("errors %+v", report.Errors)
			}
			after := exportOf(t, ts, map[string]any{"project": tt.project, "environment": "development"})
			if diff := cmp.Diff(normalizedExport(before), normalizedExport(after)); diff != "" {
				t.Errorf("validation changed the project:\n%s", diff)
			}
			// exportOf records its export; validation nothing.
			for _, e := range auditAfter(t, ts, mark) {
				if e.Type != "features-exported" {
					t.Errorf("validation recorded %s", e.Type)
				}
			}
		})
	}
}

// TestImportValidationTakesNoWriteLock on SQLite; see importValidationReadsOnly.
func TestImportValidationTakesNoWriteLock(t *testing.T) {
	importValidationReadsOnly(t, filepath.Join(t.TempDir(), "signalbox.db"))
}

func TestPostgresImportValidationTakesNoWriteLock(t *testing.T) {
	importValidationReadsOnly(t, pgtest.NewDatabase(t))
}

// importValidationReadsOnly holds a write transaction of the store open
// (writes never run concurrently) and validates a document of hundreds of
// flags meanwhile: the validation answers while the transaction is open,
// which it could not if it needed to write. An admin write then goes
// through as soon as the transaction ends.
func importValidationReadsOnly(t *testing.T, dbURL string) {
	st, err := sqlstore.Open(context.Background(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	ts := newTestServerOn(t, st)
	ts.admin("POST", "/api/admin/projects", map[string]any{"id": "target", "name": "Target"}).must(t, http.StatusCreated)
	doc := exportDoc{FeatureStrategies: []adminStrategy{}}
	for i := range 300 {
		name := fmt.Sprintf("bulk-%03d", i)
		doc.Features = append(doc.Features, exportFeature{Name: name, Type: "release"})
		doc.FeatureStrategies = append(doc.FeatureStrategies, adminStrategy{FeatureName: name, Name: "flexibleRollout",
			Parameters: map[string]string{"rollout": "50", "stickiness": "default", "groupId": name}})
		doc.FeatureEnvironments = append(doc.FeatureEnvironments, exportFeatureEnv{Name: name, FeatureName: name, Environment: "development", Enabled: true})
	}
	body := map[string]any{"project": "target", "environment": "development", "data": doc}

	holding, release, ended := make(chan struct{}), make(chan struct{}), make(chan error, 1)
	go func() {
		ended <- st.Update(context.Background(), func(tx store.Tx) error {
			close(holding)
			<-release
			return errRolledBack
		})
	}()
	<-holding
	data, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	type answer struct {
		status int
		body   []byte
		err    error
	}
	answered := make(chan answer, 1)
	go func() {
		req, _ := http.NewRequest("POST", ts.url+featuresBatchPath+"/validate", bytes.NewReader(data))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", testAdminToken)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			answered <- answer{err: err}
			return
		}
		defer res.Body.Close()
		b, err := io.ReadAll(res.Body)
		answered <- answer{res.StatusCode, b, err}
	}()
	// The validation must answer while the transaction is held; a
	// validation that needed the write lock would wait for it for ever,
	// so the wait is bounded, generously, to end the test.
	var got answer
	select {
	case got = <-answered:
	case <-time.After(2 * time.Minute):
		close(release)
		t.Fatal("validation waited for a write transaction of the store to end")
	}
	close(release)
	if err := <-ended; !errors.Is(err, errRolledBack) {
		t.Fatalf("held transaction: %v", err)
	}
	if got.err != nil || got.status != http.StatusOK {
		t.Fatalf("validate: %d %s %v", got.status, got.body, got.err)
	}
	var report importReport
	if err := json.Unmarshal(got.body, &report); err != nil {
		t.Fatal(err)
	}
	if len(report.Errors) != 0 || len(report.Permissions) != 0 || len(report.Warnings) != 0 {
		t.Errorf("report %+v", report)
	}
	ts.admin("POST", "/api/admin/projects/target/features", map[string]any{"name": "after"}).must(t, http.StatusCreated)
	ts.admin("POST", featuresBatchPath+"/import", body).must(t, http.StatusOK)
	ts.admin("GET", "/api/admin/projects/target/features/bulk-299", nil).must(t, http.StatusOK)
}

// TestImportValidationRefusesFirst: a caller who may not import into the
// project is refused with 403 before the document is looked at (a
// malformed document is not reported to them), and a body over the limit
// is a 413 that names it.
func TestImportValidationRefusesFirst(t *testing.T) {
	ts := newTestServer(t)
	viewer := viewerSession(t, ts)
	for _, path := range []string{featuresBatchPath + "/validate", featuresBatchPath + "/import"} {
		for _, data := range []any{
			map[string]any{"features": []any{}, "featureStrategies": []any{}},
			map[string]any{"features": "not a list"},
		} {
			body := map[string]any{"project": "default", "environment": "development", "data": data}
			mustForbid(t, ts.asSession(viewer, "POST", path, body), "UPDATE_FEATURE", "default")
		}
		// An admin is told what is wrong with the document.
		res := ts.admin("POST", path, map[string]any{"project": "default", "environment": "development", "data": map[string]any{"features": "not a list"}})
		mustErrorRecord(t, res, http.StatusBadRequest, "ValidationError", "")
		if !strings.Contains(string(res.Body), "data.features must be an array") {
			t.Errorf("message %s", res.Body)
		}

		over := fmt.Sprintf(`{"project":"default","environment":"development","data":{"features":[],"featureStrategies":[],"padding":"%s"}}`,
			strings.Repeat("x", maxImportBody))
		for _, send := range []func() response{
			func() response { return ts.request("POST", path, testAdminToken, over) },
			func() response { return ts.asSession(viewer, "POST", path, over) },
		} {
			res := send()
			mustErrorRecord(t, res, http.StatusRequestEntityTooLarge, "PayloadTooLargeError", "")
			if !strings.Contains(string(res.Body), fmt.Sprint(maxImportBody)) {
				t.Errorf("413 should name the limit: %s", res.Body)
			}
		}
	}
	// A document just within the limit is accepted.
	within := `{"project":"default","environment":"development","data":{"features":[],"featureStrategies":[],"padding":""}}`
	pad := maxImportBody - len(within)
	within = strings.Replace(within, `"padding":""`, `"padding":"`+strings.Repeat("x", pad)+`"`, 1)
	ts.request("POST", featuresBatchPath+"/validate", testAdminToken, within).must(t, http.StatusOK)
}
