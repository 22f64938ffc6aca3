package server

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/signalbox/signalbox/clientapi"
	"github.com/signalbox/signalbox/internal/fixture"
	"github.com/signalbox/signalbox/store"
)

// BenchmarkDeltaEncoding measures a revision's cost for the push APIs at
// 1,000 flags with one changed: building the new state, the delta for a
// scope, and a hydration.
func BenchmarkDeltaEncoding(b *testing.B) {
	ts := newBenchServer(b, nil, 1000)
	st, err := ts.srv.clientState(context.Background(), store.EnvDevelopment, 0)
	if err != nil {
		b.Fatal(err)
	}
	changed := *st
	changed.Features = append([]store.ClientFeature(nil), st.Features...)
	changed.Features[500].Enabled = !changed.Features[500].Enabled
	from, _ := newDeltaState(st)
	q := clientQuery{Environment: store.EnvDevelopment}
	b.Run("state", func(b *testing.B) {
		for b.Loop() {
			if _, err := newDeltaState(&changed); err != nil {
				b.Fatal(err)
			}
		}
	})
	to, _ := newDeltaState(&changed)
	b.Run("delta", func(b *testing.B) {
		for b.Loop() {
			if _, n := appendDelta(nil, from, to, q, 2); n != 1 {
				b.Fatalf("%d events", n)
			}
		}
	})
	b.Run("hydration", func(b *testing.B) {
		var out []byte
		for b.Loop() {
			out = appendHydration(out[:0], to, q, 2)
		}
		b.ReportMetric(float64(len(out)), "bytes")
	})
}

// BenchmarkStreamFanout opens streams over loopback and measures how long
// one change (a write, its state read, and the delta) takes to reach all
// of them. The clients are bare connections read one after another. The
// memory per stream is measured on a server process of its own, by
// `go run ./cmd/sbbench -streams N`: in one process with the clients and
// earlier benchmarks, the heap's ups and downs drown it.
func BenchmarkStreamFanout(b *testing.B) {
	for _, n := range []int{100, 1000} {
		b.Run(fmt.Sprintf("streams=%d", n), func(b *testing.B) { benchFanout(b, n) })
	}
}

// readMessage reads from c until a complete message of the event named
// (the data's end and the blank line) has arrived, using buf.
func readMessage(c net.Conn, buf []byte, event string) error {
	var seen []byte
	want := []byte("event: " + event)
	for {
		_ = c.SetReadDeadline(time.Now().Add(60 * time.Second))
		n, err := c.Read(buf)
		if err != nil {
			return err
		}
		seen = append(seen, buf[:n]...)
		if i := bytes.Index(seen, want); i >= 0 && bytes.Contains(seen[i:], []byte("]}\n\n")) {
			return nil
		}
	}
}

func benchFanout(b *testing.B, n int) {
	ts := newPushTestServer(b, Config{MaxStreams: n})
	ctx := withPrincipal(context.Background(), &Principal{Token: &store.APIToken{TokenName: "bench"}})
	if err := fixture.Seed(context.Background(), ts.srv.store, fixture.Features(100, 1), store.EnvDevelopment); err != nil {
		b.Fatal(err)
	}
	ts.srv.refreshRevision(context.Background())
	name := "team0.feature-0000" // the first flag by name
	addr := strings.TrimPrefix(ts.url, "http://")
	buf := make([]byte, 64<<10)
	request := []byte("GET /api/client/streaming HTTP/1.1\r\nHost: bench\r\nAuthorization: " + testClientToken + "\r\n\r\n")

	conns := make([]net.Conn, 0, n)
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for range n {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			b.Fatal(err)
		}
		conns = append(conns, c)
		if _, err := c.Write(request); err != nil {
			b.Fatal(err)
		}
		if err := readMessage(c, buf, "unleash-connected"); err != nil {
			b.Fatal(err)
		}
	}

	st, err := ts.srv.clientState(context.Background(), store.EnvDevelopment, 0)
	if err != nil {
		b.Fatal(err)
	}
	enabled := st.Features[0].Enabled // each round flips it
	for b.Loop() {
		enabled = !enabled
		if err := ts.srv.change(ctx, func(tx store.Tx) ([]store.Event, error) {
			_, err := tx.UpdateFeatureEnvironment(ctx, store.FeatureEnvironment{Feature: name, Environment: store.EnvDevelopment, Enabled: enabled, Variants: []clientapi.Variant{}})
			return []store.Event{{Type: "feature-updated", Project: store.DefaultProject, FeatureName: name}}, err
		}); err != nil {
			b.Fatal(err)
		}
		for _, c := range conns {
			if err := readMessage(c, buf, "unleash-updated"); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkRevisionAfterOneChange measures what one toggle among 5,000
// flags costs the push APIs once written: bringing the environment's state
// to the new revision and building its delta state, the work between a
// change and its first delivery to a stream.
func BenchmarkRevisionAfterOneChange(b *testing.B) {
	ts := newBenchServer(b, nil, 5000)
	ctx := withPrincipal(context.Background(), &Principal{Token: &store.APIToken{TokenName: "bench"}})
	ts.srv.refreshRevision(ctx)
	if _, _, err := ts.srv.deltaLatest(ctx, store.EnvDevelopment); err != nil {
		b.Fatal(err)
	}
	name := "team0.feature-0000"
	enabled := false
	for b.Loop() {
		b.StopTimer()
		enabled = !enabled
		if err := ts.srv.change(ctx, func(tx store.Tx) ([]store.Event, error) {
			_, err := tx.UpdateFeatureEnvironment(ctx, store.FeatureEnvironment{Feature: name, Environment: store.EnvDevelopment, Enabled: enabled, Variants: []clientapi.Variant{}})
			return []store.Event{{Type: "feature-environment-enabled", Project: store.DefaultProject, FeatureName: name}}, err
		}); err != nil {
			b.Fatal(err)
		}
		ts.srv.refreshRevision(ctx)
		b.StartTimer()
		_, latest, err := ts.srv.deltaLatest(ctx, store.EnvDevelopment)
		if err != nil {
			b.Fatal(err)
		}
		if latest.state.features[latest.state.byName[name]].raw == nil {
			b.Fatal("no encoding")
		}
	}
}
