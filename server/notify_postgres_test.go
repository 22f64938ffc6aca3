package server

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/signalbox/signalbox/clientapi"
	"github.com/signalbox/signalbox/internal/pgtest"
	"github.com/signalbox/signalbox/store/sqlstore"
)

// propagationLimit bounds the waits for another instance to see a change,
// so that a broken path fails the test instead of hanging it. It is not a
// latency requirement.
const propagationLimit = 30 * time.Second

// instance is one running server of several sharing a database.
type instance struct {
	*testServer
	store *sqlstore.Store
}

// runInstance opens the database at dbURL and runs a server on it with
// the given revision poll until the test ends.
func runInstance(tb testing.TB, dbURL string, poll time.Duration) *instance {
	tb.Helper()
	ctx := context.Background()
	st, err := sqlstore.Open(ctx, dbURL)
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := Bootstrap(ctx, st, BootstrapConfig{
		AdminTokens: []string{testAdminToken}, ClientTokens: []string{testClientToken, testProdToken},
		FrontendTokens: []string{testFrontendToken}, AdminPassword: testAdminPassword,
	}); err != nil {
		tb.Fatal(err)
	}
	srv, err := New(ctx, st, Config{Log: slog.New(slog.NewTextHandler(io.Discard, nil)), RevisionPoll: poll})
	if err != nil {
		tb.Fatal(err)
	}
	hs := httptest.NewServer(srv.Handler())
	runCtx, cancel := context.WithCancel(ctx)
	ran := make(chan struct{})
	go func() {
		defer close(ran)
		srv.Run(runCtx)
	}()
	tb.Cleanup(func() {
		cancel()
		<-ran
		hs.Close()
		st.Close()
	})
	t, _ := tb.(*testing.T)
	return &instance{testServer: &testServer{t: t, srv: srv, url: hs.URL}, store: st}
}

// clientFlags lists the flag names instance ts's client API answers.
func clientFlags(t *testing.T, ts *testServer) []string {
	t.Helper()
	var payload clientapi.Features
	ts.request("GET", "/api/client/features", testClientToken, nil).must(t, http.StatusOK).Decode(t, &payload)
	var names []string
	for _, f := range payload.Features {
		names = append(names, f.Name)
	}
	return names
}

// awaitFlag waits until b's client API lists name.
func awaitFlag(t *testing.T, b *instance, name string) {
	t.Helper()
	deadline := time.Now().Add(propagationLimit)
	for !slices.Contains(clientFlags(t, b.testServer), name) {
		if time.Now().After(deadline) {
			t.Fatalf("instance b never served %q", name)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestChangesReachOtherInstancesPostgres runs two servers on one
// database. Instance b polls the revision only once an hour, so in the
// first case only the database's announcement can bring it a's change; in
// the second a's announcements are off and b's short poll delivers.
func TestChangesReachOtherInstancesPostgres(t *testing.T) {
	for _, tc := range []struct {
		name   string
		pollB  time.Duration
		notify bool
	}{
		{"announced", time.Hour, true},
		{"polled when not announced", 50 * time.Millisecond, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			url := pgtest.NewDatabase(t)
			a := runInstance(t, url, time.Hour)
			b := runInstance(t, url, tc.pollB)
			a.t, b.t = t, t
			a.store.SetNotify(tc.notify)
			// b's client cache holds the state before the change.
			if flags := clientFlags(t, b.testServer); len(flags) != 0 {
				t.Fatalf("fresh database serves %v", flags)
			}
			for _, name := range []string{"first.flag", "second.flag"} {
				a.admin("POST", "/api/admin/projects/default/features", map[string]any{"name": name}).must(t, http.StatusCreated)
				awaitFlag(t, b, name)
			}
		})
	}
}

// BenchmarkPropagationPostgres measures how long a change made through
// one instance's admin API takes to reach another instance sharing the
// database, from the start of the admin request until the other instance
// knows the new revision (and so serves it from its client API), and the
// part of that after the admin request answered (its commit done). Its
// revision poll is an hour, so only the database's announcement counts.
// Run it with -benchtime=200x for 200 changes; it reports the median and
// the 99th percentile.
func BenchmarkPropagationPostgres(b *testing.B) {
	url := pgtest.NewDatabase(b)
	a := runInstance(b, url, time.Hour)
	other := runInstance(b, url, time.Hour)
	client := &http.Client{}
	do := func(method, path string, body string) {
		req, err := http.NewRequest(method, a.url+path, strings.NewReader(body))
		if err != nil {
			b.Fatal(err)
		}
		req.Header.Set("Authorization", testAdminToken)
		if body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		res, err := client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if res.StatusCode >= 300 {
			b.Fatalf("%s %s: status %d", method, path, res.StatusCode)
		}
	}
	do("POST", "/api/admin/projects/default/features", `{"name":"bench.flag"}`)
	toggle := "/api/admin/projects/default/features/bench.flag/environments/development/"
	// total runs from the start of the admin request; after from its
	// answer, when a's transaction has committed.
	total := make([]time.Duration, 0, b.N)
	after := make([]time.Duration, 0, b.N)
	on := false
	b.ResetTimer()
	for range b.N {
		on = !on
		path := toggle + "off"
		if on {
			path = toggle + "on"
		}
		start := time.Now()
		do("POST", path, "")
		written := time.Now()
		want := a.srv.revision.Load()
		deadline := start.Add(propagationLimit)
		for other.srv.revision.Load() < want {
			if time.Now().After(deadline) {
				b.Fatalf("revision %d never reached the other instance", want)
			}
			time.Sleep(20 * time.Microsecond)
		}
		seen := time.Now()
		total = append(total, seen.Sub(start))
		after = append(after, seen.Sub(written))
	}
	b.StopTimer()
	pct := func(list []time.Duration, p float64) float64 {
		slices.Sort(list)
		i := min(len(list)-1, int(p*float64(len(list))))
		return float64(list[i].Microseconds()) / 1000
	}
	b.ReportMetric(pct(total, 0.50), "p50-ms")
	b.ReportMetric(pct(total, 0.99), "p99-ms")
	b.ReportMetric(pct(after, 0.50), "p50-after-commit-ms")
	b.ReportMetric(pct(after, 0.99), "p99-after-commit-ms")
	b.ReportMetric(0, "ns/op")
}
