package sqlstore_test

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/signalbox/signalbox/internal/apierr"
	"github.com/signalbox/signalbox/internal/pgtest"
	"github.com/signalbox/signalbox/store"
	"github.com/signalbox/signalbox/store/sqlstore"
)

// The fleet of BenchmarkAdminWritesUnderFleet: 50 applications of 20 SDK
// instances each, every application evaluating the same 500 flags, so that
// every metrics flush carries 50 x 500 rows.
const (
	fleetApps      = 50
	fleetInstances = 1000
	fleetFlags     = 500
	// fleetPeriod is the SDKs' metrics interval and the server's flush.
	fleetPeriod = 10 * time.Second
	// fleetRun bounds each run; admin writes are timed for this long.
	fleetRun = 30 * time.Second
	// fleetFlushChunk is the rows of one write of a flush, as the server's.
	fleetFlushChunk = 5000
	// fleetAdminPause is the pause between two admin writes.
	fleetAdminPause = 50 * time.Millisecond
)

// BenchmarkAdminWritesUnderFleet times admin writes (an audited Update
// creating a flag) while the store takes what 1,000 SDK instances make a
// server write: a metrics flush of 25,000 rows every 10 s, the whole fleet
// registering at the start and a tenth of it re-registering every period.
// It reports p50, p99 and the slowest admin write; it asserts no timing.
// Each database runs for 30 s, so run it alone with -benchtime=1x:
//
//	go test -run '^$' -bench AdminWritesUnderFleet -benchtime=1x ./store/sqlstore
func BenchmarkAdminWritesUnderFleet(b *testing.B) {
	for _, db := range []struct {
		name string
		open func(testing.TB) *sqlstore.Store
	}{
		{"sqlite", func(tb testing.TB) *sqlstore.Store {
			return openBench(tb, "sqlite:"+filepath.Join(tb.TempDir(), "fleet.db"))
		}},
		{"postgres", func(tb testing.TB) *sqlstore.Store { return openBench(tb, pgtest.NewDatabase(tb)) }},
	} {
		b.Run(db.name, func(b *testing.B) {
			s := db.open(b)
			for range b.N {
				runFleet(b, s)
			}
		})
	}
}

func openBench(tb testing.TB, url string) *sqlstore.Store {
	tb.Helper()
	s, err := sqlstore.Open(tb.Context(), url)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { s.Close() })
	return s
}

func fleetFlag(i int) string { return fmt.Sprintf("fleet-flag-%03d", i) }
func fleetApp(i int) string  { return fmt.Sprintf("fleet-app-%02d", i%fleetApps) }

func runFleet(b *testing.B, s *sqlstore.Store) {
	ctx, cancel := context.WithTimeout(b.Context(), fleetRun+time.Minute)
	defer cancel()
	err := s.Update(ctx, func(tx store.Tx) error {
		for i := range fleetFlags {
			if _, err := tx.CreateFeature(ctx, store.Feature{Name: fleetFlag(i), Project: store.DefaultProject, Type: "release"}); err != nil && !isExists(err) {
				return err
			}
		}
		_, err := tx.AppendEvent(ctx, store.Event{Type: "feature-created", CreatedBy: "bench"})
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()

	stop := make(chan struct{})
	var wg sync.WaitGroup
	var fleetErr error
	var errOnce sync.Once
	fail := func(err error) {
		if err != nil && ctx.Err() == nil {
			errOnce.Do(func() { fleetErr = err })
		}
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		round := 0
		for {
			start := time.Now()
			fail(fleetRegister(ctx, s, round))
			fail(fleetFlush(ctx, s, start))
			round++
			select {
			case <-stop:
				return
			case <-time.After(time.Until(start.Add(fleetPeriod))):
			}
		}
	}()

	var took []time.Duration
	end := time.Now().Add(fleetRun)
	for n := 0; time.Now().Before(end); n++ {
		start := time.Now()
		err := s.Update(ctx, func(tx store.Tx) error {
			name := fmt.Sprintf("admin-%d-%d", time.Now().UnixNano(), n)
			if _, err := tx.CreateFeature(ctx, store.Feature{Name: name, Project: store.DefaultProject, Type: "release"}); err != nil {
				return err
			}
			_, err := tx.AppendEvent(ctx, store.Event{Type: "feature-created", FeatureName: name, CreatedBy: "bench"})
			return err
		})
		if err != nil {
			b.Fatal(err)
		}
		took = append(took, time.Since(start))
		time.Sleep(fleetAdminPause)
	}
	close(stop)
	wg.Wait()
	b.StopTimer()
	if fleetErr != nil {
		b.Fatal(fleetErr)
	}
	slices.Sort(took)
	at := func(q float64) float64 { return float64(took[int(q*float64(len(took)-1))].Microseconds()) / 1000 }
	b.ReportMetric(at(0.5), "p50-ms")
	b.ReportMetric(at(0.99), "p99-ms")
	b.ReportMetric(at(1), "max-ms")
	b.ReportMetric(float64(len(took)), "admin-writes")
}

func isExists(err error) bool { return apierr.Is(err, apierr.NameExists) }

// fleetRegistrations are the registrations of round: all instances in the
// first, a tenth of them (restarted SDKs) in every later one.
func fleetRegistrations(round int) []store.ClientInstance {
	var out []store.ClientInstance
	for i := range fleetInstances {
		if round > 0 && i%10 != round%10 {
			continue
		}
		out = append(out, store.ClientInstance{AppName: fleetApp(i), InstanceID: fmt.Sprintf("pod-%04d-%d", i, round),
			Environment: "development", SDKVersion: "unleash-client-node:6.1.0", ClientIP: "127.0.0.1", IntervalMillis: 10000})
	}
	return out
}

// fleetMetrics is one flush: every flag of every application.
func fleetMetrics(at time.Time) []store.ClientMetric {
	ms := make([]store.ClientMetric, 0, fleetApps*fleetFlags)
	for a := range fleetApps {
		for f := range fleetFlags {
			m := store.ClientMetric{Feature: fleetFlag(f), AppName: fleetApp(a), Environment: "development", Hour: at, Yes: 20, No: 3}
			if f%5 == 0 {
				m.Variants = map[string]int64{"blue": 12, "red": 8}
			}
			ms = append(ms, m)
		}
	}
	return ms
}

// fleetRegister writes the registrations of round as the server's
// registration flush does: in one operational write.
func fleetRegister(ctx context.Context, s *sqlstore.Store, round int) error {
	regs := fleetRegistrations(round)
	now := time.Now()
	apps := make([]store.ClientApplication, 0, fleetApps)
	for a := range fleetApps {
		apps = append(apps, store.ClientApplication{AppName: fleetApp(a), Strategies: []string{"default"}, SeenAt: &now})
	}
	return s.Operate(ctx, func(op store.Op) error { return op.RecordClientRegistrations(ctx, apps, regs) })
}

// fleetFlush writes one metrics flush as the server's FlushMetrics does.
func fleetFlush(ctx context.Context, s *sqlstore.Store, at time.Time) error {
	ms := fleetMetrics(at)
	flags := make([]string, fleetFlags)
	for f := range fleetFlags {
		flags[f] = fleetFlag(f)
	}
	for len(ms) > 0 {
		chunk := ms[:min(len(ms), fleetFlushChunk)]
		ms = ms[len(chunk):]
		if err := s.Operate(ctx, func(op store.Op) error { return op.AddClientMetrics(ctx, chunk) }); err != nil {
			return err
		}
	}
	return s.Operate(ctx, func(op store.Op) error { return op.MarkFeaturesSeen(ctx, "development", flags, at) })
}
