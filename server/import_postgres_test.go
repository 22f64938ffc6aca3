package server

import (
	"testing"
)

// TestPostgresTagsReportsImportExport runs the flows of tags, the health
// report, DORA, export, import validation and the import round trip on
// PostgreSQL.
func TestPostgresTagsReportsImportExport(t *testing.T) {
	for _, tt := range []struct {
		name string
		run  func(t *testing.T)
	}{
		{"tags", func(t *testing.T) { featureTagsFlow(t, newPostgresTestServer(t)) }},
		{"health report and DORA", func(t *testing.T) {
			ts := newPostgresTestServer(t)
			healthReportFlow(t, ts)
			// doraFlow plants the same project; give it its own server.
			doraFlow(t, newPostgresTestServer(t))
		}},
		{"export", func(t *testing.T) { exportFlow(t, newPostgresTestServer(t)) }},
		{"import validation", func(t *testing.T) { importValidationFlow(t, newPostgresTestServer(t)) }},
		{"import validation as the write transaction", func(t *testing.T) { importPreviewFlow(t, newPostgresTestServer(t)) }},
		{"round trip", func(t *testing.T) { importRoundTrip(t, newPostgresTestServer(t), newPostgresTestServer(t)) }},
	} {
		t.Run(tt.name, tt.run)
	}
}
