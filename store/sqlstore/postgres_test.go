package sqlstore_test

import (
	"testing"

	"github.com/signalbox/signalbox/internal/pgtest"
	"github.com/signalbox/signalbox/store"
	"github.com/signalbox/signalbox/store/sqlstore"
	"github.com/signalbox/signalbox/store/storetest"
)

// TestMain shares one PostgreSQL server among the package's tests.
func TestMain(m *testing.M) { pgtest.Main(m) }

func openPostgres(t *testing.T) store.Store {
	t.Helper()
	s, err := sqlstore.Open(t.Context(), pgtest.NewDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// TestPostgres skips without PostgreSQL binaries, but fails when CI is set.
func TestPostgres(t *testing.T) {
	storetest.Run(t, openPostgres)
}
