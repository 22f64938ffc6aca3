package sqlstore_test

import (
	"errors"
	"github.com/signalbox/signalbox/internal/testfs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/signalbox/signalbox/internal/pgtest"
	"github.com/signalbox/signalbox/store"
	"github.com/signalbox/signalbox/store/sqlstore"
)

// A SQLite database whose disk fills up refuses writes with ErrDiskFull
// naming the file, keeps what it had and still reads; a start on a full
// disk says the disk is full.
func TestSQLiteDiskFull(t *testing.T) {
	dir := testfs.Tiny(t, "1m")
	path := filepath.Join(dir, "signalbox.db")
	s, err := sqlstore.Open(t.Context(), "sqlite:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	big := strings.Repeat("x", 64*1024)
	var writeErr error
	for i := range 100 {
		writeErr = s.Update(t.Context(), func(tx store.Tx) error {
			_, err := tx.CreateProject(t.Context(), store.Project{ID: "p" + string(rune('a'+i%26)) + strings.Repeat("z", i/26), Name: "P", Description: big})
			if err != nil {
				return err
			}
			_, err = tx.AppendEvent(t.Context(), store.Event{Type: "project-created", CreatedBy: "test"})
			return err
		})
		if writeErr != nil {
			break
		}
	}
	if !errors.Is(writeErr, store.ErrDiskFull) {
		t.Fatalf("write on a full disk: %v, want ErrDiskFull", writeErr)
	}
	var de *store.DatabaseError
	if !errors.As(writeErr, &de) || de.Engine != "SQLite" || !strings.Contains(de.Database, path) {
		t.Errorf("the error does not name the database: %+v", de)
	}
	if err := s.View(t.Context(), func(r store.Reader) error {
		_, err := r.ListProjects(t.Context())
		return err
	}); err != nil {
		t.Errorf("reads on a full disk: %v", err)
	}
	// Operational writes are classified the same way.
	opErr := s.Operate(t.Context(), func(op store.Op) error {
		var ms []store.ClientMetric
		for i := range 20000 {
			ms = append(ms, store.ClientMetric{Feature: big[:200] + string(rune(i)), AppName: "a", Environment: "e", Yes: 1})
		}
		return op.AddClientMetrics(t.Context(), ms)
	})
	if !errors.Is(opErr, store.ErrDiskFull) {
		t.Errorf("operational write on a full disk: %v, want ErrDiskFull", opErr)
	}

	// A new database on the full disk.
	testfs.Fill(t, dir)
	_, err = sqlstore.Open(t.Context(), "sqlite:"+filepath.Join(dir, "other.db"))
	if !errors.Is(err, store.ErrDiskFull) || !strings.Contains(err.Error(), "disk is full") {
		t.Errorf("opening on a full disk: %v, want an error saying the disk is full", err)
	}
}

// A PostgreSQL server that stops makes every method fail with
// ErrUnavailable naming the database.
func TestPostgresStoppedIsUnavailable(t *testing.T) {
	db := pgtest.StartStoppable(t)
	url, stop := db.URL, func() { db.Stop(t) }
	s, err := sqlstore.Open(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	stop()
	checks := map[string]error{
		"View": s.View(t.Context(), func(r store.Reader) error {
			_, err := r.ListProjects(t.Context())
			return err
		}),
		"Update": s.Update(t.Context(), func(tx store.Tx) error {
			_, err := tx.AppendEvent(t.Context(), store.Event{Type: "test", CreatedBy: "test"})
			return err
		}),
		"Operate": s.Operate(t.Context(), func(op store.Op) error {
			return op.AddClientMetrics(t.Context(), []store.ClientMetric{{Feature: "f", AppName: "a", Environment: "e", Yes: 1}})
		}),
	}
	_, checks["Revision"] = s.Revision(t.Context())
	for name, err := range checks {
		var de *store.DatabaseError
		if !errors.Is(err, store.ErrUnavailable) || !errors.As(err, &de) || de.Engine != "PostgreSQL" {
			t.Errorf("%s with the server stopped: %v, want ErrUnavailable naming PostgreSQL", name, err)
		}
	}
}
