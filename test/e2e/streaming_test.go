package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/signalbox/signalbox/server"
	"github.com/signalbox/signalbox/store"
	"github.com/signalbox/signalbox/store/sqlstore"
)

// streamingSDK is test/compat/streaming-sdk.cjs running: the Node SDK in
// streaming or delta-polling mode, answering checks sent on its stdin.
type streamingSDK struct {
	t     *testing.T
	stdin io.WriteCloser
	mu    sync.Mutex
	lines []map[string]any
	more  chan struct{} // receives after each new line
	next  int
}

func startStreamingSDK(t *testing.T, server, token, mode string) *streamingSDK {
	t.Helper()
	dir := requireNode(t)
	cmd := exec.Command("node", "streaming-sdk.cjs")
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"), "URL=" + server + "/api", "TOKEN=" + token, "MODE=" + mode}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &streamingSDK{t: t, stdin: stdin, more: make(chan struct{}, 1)}
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var m map[string]any
			if json.Unmarshal(sc.Bytes(), &m) != nil {
				continue
			}
			s.mu.Lock()
			s.lines = append(s.lines, m)
			s.mu.Unlock()
			select {
			case s.more <- struct{}{}:
			default:
			}
		}
	}()
	t.Cleanup(func() {
		stdin.Close()
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			cmd.Process.Kill()
			<-done
		}
		if t.Failed() {
			s.mu.Lock()
			t.Logf("SDK output: %v\nstderr: %s", s.lines, stderr.String())
			s.mu.Unlock()
		}
	})
	return s
}

// await returns the first line from the read position on that satisfies
// match, moving past it; the wait is bounded.
func (s *streamingSDK) await(what string, match func(map[string]any) bool) map[string]any {
	s.t.Helper()
	return s.awaitWithin(30*time.Second, what, match)
}

// awaitWithin is await with a bound of d.
func (s *streamingSDK) awaitWithin(d time.Duration, what string, match func(map[string]any) bool) map[string]any {
	s.t.Helper()
	deadline := time.After(d)
	for {
		s.mu.Lock()
		for s.next < len(s.lines) {
			m := s.lines[s.next]
			s.next++
			if match(m) {
				s.mu.Unlock()
				return m
			}
		}
		s.mu.Unlock()
		select {
		case <-s.more:
		case <-deadline:
			s.t.Fatalf("the SDK did not report %s within %s", what, d)
		}
	}
}

// checkID numbers checks across every SDK process of the package, whose
// flows may run in parallel.
var checkID atomic.Int64

// check waits until the SDK answers flag for ctx as wanted (variant "" is
// not checked).
func (s *streamingSDK) check(flag string, ctx obj, enabled bool, variant string) {
	s.t.Helper()
	id := float64(checkID.Add(1))
	c := obj{"op": "check", "id": id, "flag": flag, "context": ctx, "enabled": enabled}
	if variant != "" {
		c["variant"] = variant
	}
	b, _ := json.Marshal(c)
	if _, err := s.stdin.Write(append(b, '\n')); err != nil {
		s.t.Fatal(err)
	}
	m := s.await(fmt.Sprintf("check %v", c), func(m map[string]any) bool { return m["id"] == id })
	if m["ok"] != true {
		s.t.Fatalf("%s for %v: got %v, want enabled %v variant %q", flag, ctx, m["got"], enabled, variant)
	}
}

func (s *streamingSDK) awaitSSE(name string) map[string]any {
	s.t.Helper()
	return s.await("stream message "+name, func(m map[string]any) bool { return m["sse"] == name })
}

func sseTypes(m map[string]any) string {
	b, _ := json.Marshal(m["types"])
	return string(b)
}

// pushFixture creates the flags the streaming tests change and returns the
// ids of the rollout strategy and of the segment.
func pushFixture(t *testing.T, server string) (strategyID string, segmentID int) {
	t.Helper()
	for _, name := range []string{"toggle", "rollout", "segmented", "variants", "lifecycle"} {
		admin(t, server, "POST", "/api/admin/projects/default/features", obj{"name": name})
	}
	var seg struct{ ID int }
	json.Unmarshal(admin(t, server, "POST", "/api/admin/segments", obj{"name": "beta", "constraints": []obj{constraint("userId", "IN", false, false, "s0")}}), &seg)
	var st struct{ ID string }
	json.Unmarshal(admin(t, server, "POST", "/api/admin/projects/default/features/rollout/environments/development/strategies",
		obj{"name": "default", "constraints": []obj{constraint("userId", "IN", false, false, "u0")}}), &st)
	admin(t, server, "POST", "/api/admin/projects/default/features/segmented/environments/development/strategies", obj{"name": "default", "segments": []int{seg.ID}})
	for _, name := range []string{"toggle", "variants", "lifecycle"} {
		admin(t, server, "POST", "/api/admin/projects/default/features/"+name+"/environments/development/strategies", obj{"name": "default"})
	}
	for _, name := range []string{"toggle", "rollout", "segmented", "variants", "lifecycle"} {
		admin(t, server, "POST", "/api/admin/projects/default/features/"+name+"/environments/development/on", nil)
	}
	return st.ID, seg.ID
}

// applyChanges makes n admin changes of every kind and waits, after each,
// until the SDK answers accordingly.
func applyChanges(t *testing.T, server string, sdk *streamingSDK, strategyID string, segmentID, n int) {
	t.Helper()
	toggleOn, archived := true, false
	for i := 1; i <= n; i++ {
		switch i % 5 {
		case 0:
			toggleOn = !toggleOn
			verb := map[bool]string{true: "on", false: "off"}[toggleOn]
			admin(t, server, "POST", "/api/admin/projects/default/features/toggle/environments/development/"+verb, nil)
			sdk.check("toggle", obj{}, toggleOn, "")
		case 1:
			user := fmt.Sprintf("u%d", i)
			admin(t, server, "PUT", "/api/admin/projects/default/features/rollout/environments/development/strategies/"+strategyID,
				obj{"name": "default", "constraints": []obj{constraint("userId", "IN", false, false, user)}})
			sdk.check("rollout", obj{"userId": user}, true, "")
			sdk.check("rollout", obj{"userId": "u0"}, false, "")
		case 2:
			user := fmt.Sprintf("s%d", i)
			admin(t, server, "PUT", fmt.Sprintf("/api/admin/segments/%d", segmentID),
				obj{"name": "beta", "constraints": []obj{constraint("userId", "IN", false, false, user)}})
			sdk.check("segmented", obj{"userId": user}, true, "")
			sdk.check("segmented", obj{"userId": "s0"}, false, "")
		case 3:
			name := fmt.Sprintf("v%d", i)
			admin(t, server, "PUT", "/api/admin/projects/default/features/variants/environments/development/variants",
				[]obj{{"name": name, "weight": 1000, "weightType": "variable", "stickiness": "default"}})
			sdk.check("variants", obj{"userId": "1"}, true, name)
		case 4:
			if archived {
				admin(t, server, "POST", "/api/admin/archive/revive/lifecycle", nil)
				admin(t, server, "POST", "/api/admin/projects/default/features/lifecycle/environments/development/on", nil)
				sdk.check("lifecycle", obj{}, true, "")
			} else {
				admin(t, server, "DELETE", "/api/admin/projects/default/features/lifecycle", nil)
				sdk.check("lifecycle", obj{}, false, "")
			}
			archived = !archived
		}
	}
}

// TestStreamingSDK: the Node SDK streams from the server, sees 50 changes
// of every kind, resumes after a crash with its last event id, and goes
// back to polling when the server shuts down.
func TestStreamingSDK(t *testing.T) {
	requireNode(t)
	dir, port := t.TempDir(), freePort(t)
	server, proc := startServerIn(t, dir, "", port)
	strategyID, segmentID := pushFixture(t, server)
	sdk := startStreamingSDK(t, server, clientToken, "streaming")
	if m := sdk.awaitSSE("unleash-connected"); sseTypes(m) != `["hydration"]` {
		t.Fatalf("first message %v", m)
	}
	sdk.check("toggle", obj{}, true, "")
	applyChanges(t, server, sdk, strategyID, segmentID, 50)

	// A crash and restart with no change in between: the SDK reconnects
	// with its last event id and gets nothing to apply, not a hydration.
	proc.kill()
	server, proc = startServerIn(t, dir, "", port)
	if m := sdk.awaitSSE("unleash-connected"); sseTypes(m) != `[]` {
		t.Fatalf("after a restart, the resumed stream got %v", m)
	}
	admin(t, server, "POST", "/api/admin/projects/default/features/toggle/environments/development/off", nil)
	if m := sdk.awaitSSE("unleash-updated"); sseTypes(m) != `["feature-updated"]` {
		t.Fatalf("after the restart: %v", m)
	}
	sdk.check("toggle", obj{}, false, "")

	// A graceful shutdown just ends the stream (no fetch-mode event, which
	// would send the SDK to polling for good): the SDK reconnects to the
	// server once it is back, still streaming.
	proc.stopNow(t)
	server, _ = startServerIn(t, dir, "", port)
	m := sdk.await("the stream resumed", func(m map[string]any) bool { return m["sse"] != nil || m["mode"] != nil })
	if m["sse"] != "unleash-connected" {
		t.Fatalf("after a graceful restart the SDK reported %v", m)
	}
	admin(t, server, "POST", "/api/admin/projects/default/features/toggle/environments/development/on", nil)
	if m := sdk.awaitSSE("unleash-updated"); sseTypes(m) != `["feature-updated"]` {
		t.Fatalf("after the graceful restart: %v", m)
	}
	sdk.check("toggle", obj{}, true, "")
}

// awaitStreamedClient waits until the server with its data in dir has
// remembered an SDK that streamed, as it does in batches.
func awaitStreamedClient(t *testing.T, dir string) {
	t.Helper()
	st, err := sqlstore.Open(context.Background(), filepath.Join(dir, "signalbox.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	deadline := time.Now().Add(20 * time.Second)
	for {
		var n int
		err := st.View(context.Background(), func(r store.Reader) error {
			cs, err := r.ListStreamedClients(context.Background(), time.Now().Add(-time.Hour), 10)
			n = len(cs)
			return err
		})
		if err == nil && n > 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("no streamed client remembered within 20 s: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestStreamingSDKBackAfterRestart: a server away long enough for the
// Node SDK to fall back to polling (SIGTERM, or a crash) brings it back
// onto the stream when it returns on the same port and data, within one
// polling interval (300 ms in the script) and a second, since it
// remembers the SDKs that streamed; the next change then arrives through
// the stream.
func TestStreamingSDKBackAfterRestart(t *testing.T) {
	requireNode(t)
	for _, how := range []string{"SIGTERM", "SIGKILL"} {
		t.Run(how, func(t *testing.T) {
			dir, port := t.TempDir(), freePort(t)
			server, proc := startServerIn(t, dir, "", port)
			pushFixture(t, server)
			sdk := startStreamingSDK(t, server, clientToken, "streaming")
			sdk.awaitSSE("unleash-connected")
			sdk.check("toggle", obj{}, true, "")
			awaitStreamedClient(t, dir)
			if how == "SIGTERM" {
				proc.stopNow(t)
			} else {
				proc.kill()
			}
			// The SDK gives up on the stream after five failures within a
			// minute of backing-off reconnects, then polls.
			m := sdk.awaitWithin(90*time.Second, "the switch to polling", func(m map[string]any) bool {
				return m["mode"] == "polling" || m["sse"] == "fetch-mode"
			})
			if m["mode"] != "polling" {
				t.Fatalf("the SDK got %v", m)
			}
			server, _ = startServerIn(t, dir, "", port)
			back := time.Now()
			sdk.await("the switch back to streaming", func(m map[string]any) bool { return m["mode"] == "streaming" })
			if took := time.Since(back); took > 300*time.Millisecond+time.Second {
				t.Errorf("the SDK went back to streaming %s after the server's return", took)
			}
			if m := sdk.awaitSSE("unleash-connected"); sseTypes(m) != `["hydration"]` {
				t.Fatalf("the new stream began with %v", m)
			}
			admin(t, server, "POST", "/api/admin/projects/default/features/toggle/environments/development/off", nil)
			if m := sdk.awaitSSE("unleash-updated"); sseTypes(m) != `["feature-updated"]` {
				t.Fatalf("after the return: %v", m)
			}
			sdk.check("toggle", obj{}, false, "")
		})
	}
}

// TestStreamingSDKHistoryLoss: an SDK whose last event id the server no
// longer knows (a change happened while it was away) gets a hydration.
func TestStreamingSDKHistoryLoss(t *testing.T) {
	requireNode(t)
	dir, port := t.TempDir(), freePort(t)
	server, proc := startServerIn(t, dir, "", port)
	pushFixture(t, server)
	sdk := startStreamingSDK(t, server, clientToken, "streaming")
	sdk.awaitSSE("unleash-connected")
	sdk.check("toggle", obj{}, true, "")
	proc.kill()
	// Change the flag through a server the SDK does not know of.
	other, otherProc := startServerIn(t, dir, "", freePort(t))
	admin(t, other, "POST", "/api/admin/projects/default/features/toggle/environments/development/off", nil)
	otherProc.stopNow(t)
	startServerIn(t, dir, "", port)
	if m := sdk.awaitSSE("unleash-connected"); sseTypes(m) != `["hydration"]` {
		t.Fatalf("after history loss: %v", m)
	}
	sdk.check("toggle", obj{}, false, "")
}

// TestDeltaPollingSDK: the Node SDK in delta-polling mode follows changes.
func TestDeltaPollingSDK(t *testing.T) {
	requireNode(t)
	server := startServer(t, "")
	strategyID, segmentID := pushFixture(t, server)
	sdk := startStreamingSDK(t, server, clientToken, "delta")
	sdk.check("toggle", obj{}, true, "")
	applyChanges(t, server, sdk, strategyID, segmentID, 10)
}

// TestStreamingSDKRefused: a token the server refuses makes the SDK fall
// back to polling at once.
func TestStreamingSDKRefused(t *testing.T) {
	requireNode(t)
	server := startServer(t, "")
	sdk := startStreamingSDK(t, server, "default:development.not-a-token", "streaming")
	sdk.await("the switch to polling", func(m map[string]any) bool { return m["mode"] == "polling" })
}

// startInProcessServer runs a server in this process with settings the
// binary takes from its configuration.
func startInProcessServer(t *testing.T, cfg server.Config) (string, *server.Server) {
	t.Helper()
	ctx := context.Background()
	st, err := sqlstore.Open(ctx, filepath.Join(t.TempDir(), "signalbox.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if _, err := server.Bootstrap(ctx, st, server.BootstrapConfig{AdminTokens: []string{adminToken}, ClientTokens: []string{clientToken}, AdminPassword: "E2e-Password-7"}); err != nil {
		t.Fatal(err)
	}
	cfg.Log = slog.New(slog.NewTextHandler(io.Discard, nil))
	srv, err := server.New(ctx, st, cfg)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(hs.Close)
	t.Cleanup(srv.CloseStreams)
	return hs.URL, srv
}

// TestStreamingSDKAtLimit: a server at its stream limit answers 429 and
// the SDK polls instead, still seeing changes.
func TestStreamingSDKAtLimit(t *testing.T) {
	requireNode(t)
	url, _ := startInProcessServer(t, server.Config{MaxStreams: 1})
	pushFixture(t, url)
	// Take the one stream.
	req, _ := http.NewRequest("GET", url+"/api/client/streaming", nil)
	req.Header.Set("Authorization", clientToken)
	res, err := http.DefaultClient.Do(req)
	if err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("the first stream: %v %v", res, err)
	}
	defer res.Body.Close()
	sdk := startStreamingSDK(t, url, clientToken, "streaming")
	sdk.await("the switch to polling", func(m map[string]any) bool { return m["mode"] == "polling" })
	admin(t, url, "POST", "/api/admin/projects/default/features/toggle/environments/development/off", nil)
	sdk.check("toggle", obj{}, false, "")
}

// TestPollingSDKMovesToStreaming: a server that advertises streaming moves
// a polling SDK onto the stream, where it gets changes.
func TestPollingSDKMovesToStreaming(t *testing.T) {
	requireNode(t)
	url, _ := startInProcessServer(t, server.Config{AdvertiseStreaming: server.AdvertiseAll})
	pushFixture(t, url)
	sdk := startStreamingSDK(t, url, clientToken, "polling")
	sdk.await("the switch to streaming", func(m map[string]any) bool { return m["mode"] == "streaming" })
	sdk.awaitSSE("unleash-connected")
	admin(t, url, "POST", "/api/admin/projects/default/features/toggle/environments/development/off", nil)
	if m := sdk.awaitSSE("unleash-updated"); sseTypes(m) != `["feature-updated"]` {
		t.Fatalf("the stream got %v", m)
	}
	sdk.check("toggle", obj{}, false, "")
}
