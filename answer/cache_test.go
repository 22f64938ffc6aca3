package answer

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/signalbox/signalbox/clientapi"
	"github.com/signalbox/signalbox/engine"
)

// TestAnswerCacheFollowsTheClock moves the snapshot's clock across the
// boundaries of several DATE constraints (just before, at and just after
// each one, inverted ones too, then back in time) and checks at every
// instant that the answer served, from the cache or not, is byte for byte
// what a fresh evaluation gives; and that a kept answer is served inside
// its window and never past it.
func TestAnswerCacheFollowsTheClock(t *testing.T) {
	base := time.Date(2030, 6, 1, 12, 0, 0, 0, time.UTC)
	at := func(d time.Duration) string { return base.Add(d).Format(time.RFC3339Nano) }
	date := func(op string, d time.Duration, inverted bool) clientapi.Constraint {
		return clientapi.Constraint{ContextName: "currentTime", Operator: op, Value: at(d), Inverted: inverted}
	}
	on := func(cs ...clientapi.Constraint) []clientapi.Strategy {
		return []clientapi.Strategy{{Name: "default", Constraints: cs}}
	}
	payload := &clientapi.Features{Version: 2, Features: []clientapi.Feature{
		{Name: "launch", Enabled: true, Strategies: on(date("DATE_AFTER", 0, false))},
		{Name: "sale", Enabled: true, Strategies: on(date("DATE_AFTER", time.Hour, false), date("DATE_BEFORE", 2*time.Hour, false))},
		{Name: "sunset", Enabled: true, Strategies: on(date("DATE_AFTER", 3*time.Hour, true))},
		{Name: "after-sale", Enabled: true, Dependencies: []clientapi.Dependency{{Feature: "sale", Enabled: new(false)}}, Strategies: on()},
		{Name: "always", Enabled: true, Strategies: on()},
	}}
	boundaries := []time.Duration{0, time.Hour, 2 * time.Hour, 3 * time.Hour}
	var steps []time.Duration
	for _, b := range boundaries {
		steps = append(steps, b-time.Minute, b-time.Nanosecond, b, b+time.Nanosecond, b+time.Minute)
	}
	steps = append(steps, 90*time.Minute, -time.Hour, 4*time.Hour) // back in time, then forward again

	var now time.Time
	snap := engine.Compile(payload, engine.Options{Now: func() time.Time { return now }})
	cached := New(snap, 1<<20)
	fresh := New(snap, 0)
	serve := func(a *Writer) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			ctx := ContextFromQuery(r.URL.RawQuery)
			a.Write(w, r, &ctx, nil, r.URL.Path == "/all", true)
		})
	}
	cachedSrv, freshSrv := httptest.NewServer(serve(cached)), httptest.NewServer(serve(fresh))
	defer cachedSrv.Close()
	defer freshSrv.Close()
	get := func(base, path string) []byte {
		t.Helper()
		res, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, err := io.ReadAll(res.Body)
		if err != nil || res.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %d %v", path, res.StatusCode, err)
		}
		return b
	}
	for _, path := range []string{"/enabled?userId=u", "/all?userId=u"} {
		for _, step := range steps {
			now = base.Add(step)
			want := get(freshSrv.URL, path)
			for range 3 { // the first is evaluated, then kept, then served from the cache
				if got := get(cachedSrv.URL, path); !bytes.Equal(got, want) {
					t.Errorf("%s at %v: served %s, fresh evaluation %s", path, step, got, want)
				}
			}
			ctx := ContextFromQuery(path[strings.IndexByte(path, '?')+1:])
			key := answerKey(&ctx, strings.HasPrefix(path, "/all"))
			c, ok := cached.cache.get(key)
			if !ok {
				t.Fatalf("%s at %v: not kept", path, step)
			}
			// Served exactly within the window, and not a nanosecond past it.
			until, bounded := c.window.Until()
			if bounded != (step <= 3*time.Hour) { // past the last boundary nothing ends it
				t.Errorf("%s at %v: kept until %v (bounded %v)", path, step, until, bounded)
			}
			if bounded {
				now = until.Add(-time.Nanosecond)
				if _, ok := cached.cache.get(key); !ok {
					t.Errorf("%s at %v: not served just before its end %v", path, step, until)
				}
				now = until
				if _, ok := cached.cache.get(key); ok {
					t.Errorf("%s at %v: served at its end %v", path, step, until)
				}
			}
		}
	}
}

// TestAnswerCacheBounds: one-off contexts are not kept, the kept answers
// never pass the bound and stay once it is reached, and a bound of 0 keeps
// nothing.
func TestAnswerCacheBounds(t *testing.T) {
	payload := &clientapi.Features{Version: 2, Features: []clientapi.Feature{{Name: "f", Enabled: true}}}
	snap := engine.Compile(payload, engine.Options{})
	write := func(a *Writer, user string) {
		ctx := engine.Context{UserID: user}
		a.Write(httptest.NewRecorder(), httptest.NewRequest("GET", "/proxy", nil), &ctx, nil, false, true)
	}
	a := New(snap, 2000)
	for i := range 200 {
		write(a, fmt.Sprint("one-off-", i))
	}
	if n := a.cache.len(); n != 0 {
		t.Errorf("one-off contexts kept: %d", n)
	}
	for i := range 200 {
		write(a, fmt.Sprint("poller-", i))
		write(a, fmt.Sprint("poller-", i))
		if b := a.cache.bytes.Load(); b > 2000 {
			t.Fatalf("kept %d bytes, bound 2000", b)
		}
	}
	if n := a.cache.len(); n == 0 {
		t.Error("nothing kept")
	}
	// A full cache keeps what it holds rather than churning.
	first := engine.Context{UserID: "poller-0"}
	if _, ok := a.cache.get(answerKey(&first, false)); !ok {
		t.Error("the first poller's answer was dropped to make room")
	}
	off := New(snap, 0)
	write(off, "u")
	write(off, "u")
	if n := off.cache.len(); n != 0 {
		t.Errorf("a cache of 0 bytes kept %d answers", n)
	}
}

// TestAnswerCacheConcurrent serves many goroutines at once while the
// clock crosses a date boundary (run it with -race): every answer is one
// that evaluation gives before or after the boundary, and answers given
// after the clock has passed it are the later one.
func TestAnswerCacheConcurrent(t *testing.T) {
	boundary := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	payload := &clientapi.Features{Version: 2, Features: []clientapi.Feature{
		{Name: "launch", Enabled: true, Strategies: []clientapi.Strategy{{Name: "default", Constraints: []clientapi.Constraint{
			{ContextName: "currentTime", Operator: "DATE_AFTER", Value: boundary.Format(time.RFC3339)}}}}},
		{Name: "always", Enabled: true},
	}}
	var clock atomic.Int64
	clock.Store(boundary.Add(-time.Second).UnixNano())
	snap := engine.Compile(payload, engine.Options{Now: func() time.Time { return time.Unix(0, clock.Load()) }})
	a := New(snap, 4096)
	answer := func(user string) string {
		ctx := engine.Context{UserID: user}
		w := httptest.NewRecorder()
		a.Write(w, httptest.NewRequest("GET", "/proxy", nil), &ctx, nil, false, true)
		return w.Body.String()
	}
	before := answer("probe")
	clock.Store(boundary.Add(time.Second).UnixNano())
	after := answer("probe")
	clock.Store(boundary.Add(-time.Second).UnixNano())
	if before == after {
		t.Fatal("the boundary does not change the answer")
	}
	var wg sync.WaitGroup
	errs := make(chan string, 64)
	for g := range 8 {
		wg.Go(func() {
			for i := range 300 {
				if g == 0 && i == 150 {
					clock.Store(boundary.Add(time.Second).UnixNano())
				}
				passed := clock.Load() > boundary.UnixNano()
				got := answer(fmt.Sprint("user-", i%20))
				if (got != before && got != after) || (passed && got != after) {
					select {
					case errs <- got:
					default:
					}
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for got := range errs {
		t.Errorf("served %s; before the boundary %s, after %s", got, before, after)
	}
	if b := a.cache.bytes.Load(); b > 4096+int64(8*len(after)+8*answerEntryOverhead+8*64) {
		t.Errorf("kept %d bytes, bound 4096", b)
	}
}
