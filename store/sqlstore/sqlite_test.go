package sqlstore_test

import (
	"path/filepath"
	"testing"

	"github.com/signalbox/signalbox/store"
	"github.com/signalbox/signalbox/store/sqlstore"
	"github.com/signalbox/signalbox/store/storetest"
)

func openSQLite(t *testing.T) store.Store {
	t.Helper()
	s, err := sqlstore.Open(t.Context(), "sqlite:"+filepath.Join(t.TempDir(), "nested", "signalbox.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestSQLite(t *testing.T) {
	storetest.Run(t, openSQLite)
}
