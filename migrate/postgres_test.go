package migrate

import (
	"testing"

	"github.com/signalbox/signalbox/internal/pgtest"
	"github.com/signalbox/signalbox/store/sqlstore"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// TestPostgresTarget: the copy into PostgreSQL keeps segment ids and a
// second run changes nothing there too (JSONB reorders keys, timestamps
// lose precision: the comparisons must not see that as changes).
func TestPostgresTarget(t *testing.T) {
	st, err := sqlstore.Open(t.Context(), pgtest.NewDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	u := newFakeUnleash(t)
	u.set("/api/client/features", clientPayload())
	if r := mustRun(t, st, u); r.Changes == 0 {
		t.Fatal("nothing written")
	}
	if r := mustRun(t, st, u); r.Changes != 0 {
		t.Errorf("second run changed %d objects: %v", r.Changes, r.Counts)
	}
	diffs, err := Verify(t.Context(), VerifyOptions{UnleashURL: u.srv.URL, SignalboxURL: signalbox(t, st), ClientTokens: []string{clientToken}, Contexts: 300, client: fast})
	if err != nil || len(diffs) != 0 {
		t.Errorf("verify: %v %+v", err, diffs)
	}
}
