package jsstrategy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/signalbox/signalbox/engine"
)

// logBuf collects log output; safe to read while strategies log.
type logBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuf) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuf) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// slack is the timeout of tests that are not about timeouts. The timeout
// is wall-clock time; under -race on a busy two-core machine the first
// calls into a fresh runtime were seen to take over 100ms.
const slack = 5 * time.Second

func newLog() (*slog.Logger, *logBuf) {
	lb := &logBuf{}
	return slog.New(slog.NewTextHandler(lb, &slog.HandlerOptions{Level: slog.LevelDebug})), lb
}

func mustLoad(t testing.TB, file string, opts Options) map[string]engine.CustomStrategy {
	t.Helper()
	m, err := LoadStrategies("testdata/"+file, opts)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestStrategies(t *testing.T) {
	log, _ := newLog()
	loaded := map[string]map[string]engine.CustomStrategy{}
	tests := []struct {
		file, strategy string
		params         map[string]string
		ctx            engine.Context
		want           bool
	}{
		{"strategies_class.js", "userList", map[string]string{"users": "a, b"}, engine.Context{UserID: "b"}, true},
		{"strategies_class.js", "userList", map[string]string{"users": "a, b"}, engine.Context{UserID: "c"}, false},
		{"strategies_class.js", "userList", map[string]string{"users": "a, b"}, engine.Context{}, false},
		{"strategies_class.js", "userList", nil, engine.Context{UserID: "a"}, false},
		{"strategies_class.js", "country", map[string]string{"countries": "NO,SE"}, engine.Context{Properties: map[string]string{"country": "SE"}}, true},
		{"strategies_class.js", "country", map[string]string{"countries": "NO,SE"}, engine.Context{}, false},
		{"strategies_class.js", "alwaysOn", nil, engine.Context{}, true},
		{"strategies_class.js", "truthy", map[string]string{"value": "one"}, engine.Context{}, true},
		{"strategies_class.js", "truthy", map[string]string{"value": "str"}, engine.Context{}, true},
		{"strategies_class.js", "truthy", map[string]string{"value": "obj"}, engine.Context{}, true},
		{"strategies_class.js", "truthy", map[string]string{"value": "zero"}, engine.Context{}, false},
		{"strategies_class.js", "truthy", map[string]string{"value": "empty"}, engine.Context{}, false},
		{"strategies_class.js", "truthy", map[string]string{"value": "nan"}, engine.Context{}, false},
		{"strategies_class.js", "truthy", map[string]string{"value": "nul"}, engine.Context{}, false},
		{"strategies_class.js", "truthy", nil, engine.Context{}, false},
		{"strategies_object.js", "even", nil, engine.Context{Properties: map[string]string{"n": "4"}}, true},
		{"strategies_object.js", "even", nil, engine.Context{Properties: map[string]string{"n": "3"}}, false},
		{"strategies_object.js", "env", map[string]string{"env": "prod"}, engine.Context{Environment: "prod"}, true},
		{"strategies_object.js", "env", map[string]string{"env": "prod"}, engine.Context{Environment: "dev"}, false},
		{"strategies_object.js", "asyncFalse", nil, engine.Context{}, true},
		{"strategies_object.js", "logs", map[string]string{"p": "v"}, engine.Context{}, true},
		{"strategies_object.js", "tiny", nil, engine.Context{UserID: "abc"}, true},
		{"strategies_object.js", "tiny", nil, engine.Context{UserID: "abcd"}, false},
		{"strategies_object.js", "lazy", map[string]string{"list": "b,a"}, engine.Context{}, true},
		{"strategies_object.js", "lazy", map[string]string{"list": "b"}, engine.Context{}, false},
		{"strategies_wrapped.js", "wrapped", nil, engine.Context{}, true},
		{"strategies_failing.js", "thrower", nil, engine.Context{}, false},
		{"strategies_failing.js", "recurse", nil, engine.Context{}, false},
		{"strategies_failing.js", "needsFs", nil, engine.Context{}, false},
		{"strategies_failing.js", "ok", nil, engine.Context{}, true},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s/%s/%v", tt.file, tt.strategy, tt.params), func(t *testing.T) {
			m, ok := loaded[tt.file]
			if !ok {
				m = mustLoad(t, tt.file, Options{Logger: log, PoolSize: 2, Timeout: slack})
				loaded[tt.file] = m
			}
			s := m[tt.strategy]
			if s == nil {
				t.Fatalf("strategy %q not loaded; have %v", tt.strategy, m)
			}
			ctx := tt.ctx
			if got := s.IsEnabled(tt.params, &ctx); got != tt.want {
				t.Errorf("IsEnabled = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestLoadWarnings(t *testing.T) {
	log, out := newLog()
	m := mustLoad(t, "strategies_object.js", Options{Logger: log, PoolSize: 1, Timeout: slack})
	// The second "even" (always true) must not replace the first.
	if m["even"].IsEnabled(nil, &engine.Context{Properties: map[string]string{"n": "1"}}) {
		t.Error("duplicate name: the later strategy replaced the first")
	}
	if m["flexibleRollout"] != nil {
		t.Error("a strategy named like a built-in was returned")
	}
	m["logs"].IsEnabled(map[string]string{"p": "v"}, &engine.Context{})
	for _, want := range []string{
		`msg="custom strategy defined twice; the first one is used" file=testdata/strategies_object.js strategy=even`,
		`msg="custom strategy has the name of a built-in strategy and is never used" file=testdata/strategies_object.js strategy=flexibleRollout`,
		`level=INFO msg="checking {\"p\":\"v\"}" file=testdata/strategies_object.js source=console.log`,
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("log lacks %s\nlog:\n%s", want, out)
		}
	}
}

func TestContextSeenByJS(t *testing.T) {
	at := time.Date(2024, 5, 6, 7, 8, 9, 123456789, time.UTC)
	tests := []struct {
		name   string
		params map[string]string
		ctx    *engine.Context
		want   string
	}{{
		name:   "all fields",
		params: map[string]string{"a": "1", "__proto__": "plain"},
		ctx: &engine.Context{UserID: "u1", SessionID: "s1", RemoteAddress: "10.0.0.1", Environment: "production",
			AppName: "web", CurrentTime: at, Properties: map[string]string{"country": "NO"}},
		want: `{"userId":"u1","sessionId":"s1","remoteAddress":"10.0.0.1","environment":"production","appName":"web",` +
			`"currentTime":"2024-05-06T07:08:09.123Z","properties":{"country":"NO"},"parameters":{"a":"1","__proto__":"plain"},` +
			`"keys":"appName,currentTime,environment,properties,remoteAddress,sessionId,userId","sameClass":true}`,
	}, {
		name: "empty context: fields undefined, properties an empty object",
		ctx:  &engine.Context{},
		want: `{"currentTime":"undefined","properties":{},"parameters":{},"keys":"properties","sameClass":true}`,
	}, {
		name: "nil context",
		want: `{"currentTime":"undefined","properties":{},"parameters":{},"keys":"properties","sameClass":true}`,
	}}
	m := mustLoad(t, "strategies_class.js", Options{PoolSize: 1, Timeout: slack})
	s := m["echo"].(*strategy)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !s.IsEnabled(tt.params, tt.ctx) {
				t.Fatal("echo returned false")
			}
			var got string
			s.pool.do(func(w *worker[[]jsStrategy]) error {
				got = w.vm.Get("lastSeen").String()
				return nil
			})
			if diff := cmp.Diff(canon(t, tt.want), canon(t, got)); diff != "" {
				t.Errorf("context in JS (-want +got):\n%s", diff)
			}
		})
	}
}

// eventually reports whether f succeeds within three tries. Used after a
// short timeout: a busy machine can make one good call time out too, but
// a broken pool fails every time.
func eventually(f func() bool) bool {
	for range 3 {
		if f() {
			return true
		}
	}
	return false
}

// canon decodes JSON so that key order does not matter.
func canon(t *testing.T, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("%v: %s", err, s)
	}
	return v
}

func TestFailureWarnsOncePerMinute(t *testing.T) {
	log, out := newLog()
	m := mustLoad(t, "strategies_failing.js", Options{Logger: log, PoolSize: 1, Timeout: slack})
	for range 3 {
		if m["thrower"].IsEnabled(nil, &engine.Context{}) {
			t.Fatal("a throwing strategy evaluated true")
		}
	}
	m["needsFs"].IsEnabled(nil, &engine.Context{})
	if n := strings.Count(out.String(), "strategy=thrower"); n != 1 {
		t.Errorf("%d warnings for thrower, want 1:\n%s", n, out)
	}
	for _, want := range []string{"Error: boom", `Cannot require \"fs\": Node built-in modules are not available`} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("log lacks %q:\n%s", want, out)
		}
	}
}

func TestTimeout(t *testing.T) {
	log, out := newLog()
	m := mustLoad(t, "strategies_failing.js", Options{Logger: log, PoolSize: 1, Timeout: 50 * time.Millisecond})
	done := make(chan bool)
	start := time.Now()
	go func() { done <- m["loop"].IsEnabled(nil, &engine.Context{}) }()
	select {
	case got := <-done:
		if got {
			t.Error("an endless strategy evaluated true")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the endless strategy was not interrupted")
	}
	if d := time.Since(start); d < 50*time.Millisecond {
		t.Errorf("returned after %v, before the timeout", d)
	}
	if !strings.Contains(out.String(), "timed out") {
		t.Errorf("no timeout warning:\n%s", out)
	}
	// The only runtime was dropped; the next call must get a working one.
	if !eventually(func() bool { return m["ok"].IsEnabled(nil, &engine.Context{}) }) {
		t.Error("the pool did not recover after a timeout")
	}
}

func TestConcurrent(t *testing.T) {
	log, out := newLog()
	defer func() {
		if t.Failed() {
			t.Log(out)
		}
	}()
	m := mustLoad(t, "strategies_class.js", Options{Logger: log, PoolSize: 4, Timeout: slack})
	failing := mustLoad(t, "strategies_failing.js", Options{Logger: log, PoolSize: 2, Timeout: slack})
	enrich, err := LoadEnrichers("testdata/enrichers.js", Options{Logger: log, PoolSize: 3, Timeout: slack})
	if err != nil {
		t.Fatal(err)
	}
	params := map[string]string{"users": "u0,u2,u4,u6,u8"}
	var wg sync.WaitGroup
	for g := range 16 {
		wg.Go(func() {
			for i := range 200 {
				user := fmt.Sprintf("u%d", (g+i)%10)
				if got, want := m["userList"].IsEnabled(params, &engine.Context{UserID: user}), (g+i)%2 == 0; got != want {
					t.Errorf("userList(%s) = %v, want %v", user, got, want)
					return
				}
				if failing["thrower"].IsEnabled(nil, &engine.Context{}) {
					t.Error("thrower evaluated true")
					return
				}
				ctx := engine.Context{UserID: user}
				enrich(&ctx)
				if ctx.UserID != "user-"+user || ctx.Properties["tier"] != "gold" {
					t.Errorf("enriched %+v", ctx)
					return
				}
			}
		})
	}
	wg.Wait()
}

// BenchmarkIsEnabled measures one call: alwaysOn is the fixed cost of
// borrowing a runtime and building the arguments, userList a typical
// strategy (a regexp split and a lookup).
func BenchmarkIsEnabled(b *testing.B) {
	// This measures the call, not the timeout.
	m := mustLoad(b, "strategies_class.js", Options{Timeout: slack})
	params := map[string]string{"users": "a,b,c,d,e"}
	ctx := &engine.Context{UserID: "d", AppName: "web", Environment: "production",
		Properties: map[string]string{"country": "NO", "plan": "pro"}}
	for _, name := range []string{"alwaysOn", "userList"} {
		s := m[name]
		b.Run(name+"/serial", func(b *testing.B) {
			for b.Loop() {
				if !s.IsEnabled(params, ctx) {
					b.Fatal("false")
				}
			}
		})
		b.Run(name+"/parallel", func(b *testing.B) {
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if !s.IsEnabled(params, ctx) {
						b.Fatal("false")
					}
				}
			})
		})
	}
}
