package server

import (
	"fmt"
	"github.com/signalbox/signalbox/internal/testfs"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/signalbox/signalbox/internal/pgtest"
)

// With its PostgreSQL stopped, admin requests answer 503 naming the
// database, with Retry-After, and /ready says the database is unreachable.
func TestDatabaseUnreachableAnswers503(t *testing.T) {
	db := pgtest.StartStoppable(t)
	url, stop := db.URL, func() { db.Stop(t) }
	ts := newTestServerAt(t, url)
	ts.admin("POST", "/api/admin/projects", map[string]any{"id": "before", "name": "Before"}).must(t, http.StatusCreated)
	stop()
	for _, res := range []response{
		ts.admin("POST", "/api/admin/projects", map[string]any{"id": "after", "name": "After"}),
		ts.admin("GET", "/api/admin/projects", nil),
	} {
		mustErrorRecord(t, res, http.StatusServiceUnavailable, "DatabaseUnavailableError", "")
		if res.Header.Get("Retry-After") == "" || !strings.Contains(string(res.Body), "PostgreSQL database is not reachable") {
			t.Errorf("answer %s with Retry-After %q", res.Body, res.Header.Get("Retry-After"))
		}
	}
	res := ts.request("GET", "/ready", "", nil).must(t, http.StatusServiceUnavailable)
	if got := res.Object(); got["health"] != "BAD" || got["message"] != "database unreachable" {
		t.Errorf("/ready %s", res.Body)
	}
}

// With its SQLite disk full, admin writes answer 507 naming the disk,
// reads still work, and /ready says writes are failing.
func TestDiskFullAnswers507(t *testing.T) {
	dir := testfs.Tiny(t, "2m")
	ts := newTestServerAt(t, filepath.Join(dir, "signalbox.db"))
	ts.request("GET", "/ready", "", nil).must(t, http.StatusOK)
	// Fill the disk, then write until the database has no room left.
	testfs.Fill(t, dir)
	var res response
	for i := range 200 {
		res = ts.admin("POST", "/api/admin/projects", map[string]any{"id": fmt.Sprintf("p%d", i), "name": "P", "description": strings.Repeat("x", 1000)})
		if res.Status != http.StatusCreated {
			break
		}
	}
	mustErrorRecord(t, res, http.StatusInsufficientStorage, "InsufficientStorageError", "")
	if !strings.Contains(string(res.Body), "disk of the SQLite database is full") {
		t.Errorf("answer %s", res.Body)
	}
	ts.admin("GET", "/api/admin/projects", nil).must(t, http.StatusOK)
	// Reads and SDKs are still served: the instance stays in rotation,
	// saying what fails.
	ready := ts.request("GET", "/ready", "", nil).must(t, http.StatusOK)
	if got := ready.Object(); got["health"] != "GOOD" || got["message"] != "writes failing: disk full" {
		t.Errorf("/ready %s", ready.Body)
	}
}
