package proxy

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/signalbox/signalbox/clientapi"
)

// TestEdgeBringsStreamersBack: a node tells the SDK instances that held a
// stream on it (and only those) fetch-mode: streaming on their polls, with
// one 200 in place of a 304; at its stream limit it answers streams 429
// and polls fetch-mode: polling; a shutdown ends streams with no
// fetch-mode event.
func TestEdgeBringsStreamersBack(t *testing.T) {
	file := filepath.Join(t.TempDir(), "bootstrap.json")
	b, _ := json.Marshal(clientapi.Features{Version: 2, Features: []clientapi.Feature{
		{Name: "shop.flag", Project: "shop", Enabled: true, Strategies: []clientapi.Strategy{{Name: "default"}}}}})
	if err := os.WriteFile(file, b, 0o644); err != nil {
		t.Fatal(err)
	}
	const client = "*:production.client-secret"
	e, srv := runTestEdge(t, EdgeConfig{Offline: true, BootstrapFile: file, ClientTokens: []string{client}, MaxStreams: 1})
	t.Cleanup(e.CloseStreams)

	do := func(path string, header ...string) *http.Response {
		t.Helper()
		req, _ := http.NewRequest("GET", srv.URL+path, nil)
		req.Header.Set("Authorization", client)
		for i := 0; i+1 < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	poll := func(etag, id string, want int) http.Header {
		t.Helper()
		res := do("/api/client/features", "If-None-Match", etag, "Unleash-Connection-Id", id)
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if res.StatusCode != want {
			t.Fatalf("poll of %s: status %d, want %d", id, res.StatusCode, want)
		}
		return res.Header
	}
	// stream opens a stream and reads its first message.
	stream := func(id string) (*http.Response, *bufio.Reader) {
		t.Helper()
		res := do("/api/client/streaming", "Unleash-Connection-Id", id)
		if res.StatusCode != http.StatusOK {
			res.Body.Close()
			t.Fatalf("stream of %s: status %d", id, res.StatusCode)
		}
		rd := bufio.NewReader(res.Body)
		if line, err := rd.ReadString('\n'); err != nil || line != "event: unleash-connected\n" {
			t.Fatalf("stream of %s began %q, %v", id, line, err)
		}
		return res, rd
	}

	res := do("/api/client/features")
	etag := res.Header.Get("ETag")
	res.Body.Close()
	if etag == "" {
		t.Fatal("no ETag")
	}
	poll(etag, "streamer", http.StatusNotModified)
	s, _ := stream("streamer")
	s.Body.Close()
	waitFor(t, "the stream to end", func() bool { return e.streams.Load() == 0 })

	if h := poll(etag, "streamer", http.StatusOK); h.Get("fetch-mode") != "streaming" || !strings.Contains(h.Get("Access-Control-Expose-Headers"), "fetch-mode") {
		t.Errorf("first poll after streaming: fetch-mode %q, exposed %q", h.Get("fetch-mode"), h.Get("Access-Control-Expose-Headers"))
	}
	if h := poll(etag, "streamer", http.StatusNotModified); h.Get("fetch-mode") != "streaming" {
		t.Errorf("second poll: fetch-mode %q", h.Get("fetch-mode"))
	}
	if h := poll(etag, "poller", http.StatusNotModified); h.Get("fetch-mode") != "" {
		t.Errorf("an SDK that only polled got fetch-mode %q", h.Get("fetch-mode"))
	}

	// At the limit: 429 for the stream, fetch-mode: polling for the poll.
	held, rd := stream("other")
	defer held.Body.Close()
	if res := do("/api/client/streaming", "Unleash-Connection-Id", "streamer"); res.StatusCode != http.StatusTooManyRequests {
		t.Errorf("past the limit: status %d", res.StatusCode)
		res.Body.Close()
	}
	if h := poll(etag, "streamer", http.StatusNotModified); h.Get("fetch-mode") != "polling" {
		t.Errorf("at the limit: fetch-mode %q", h.Get("fetch-mode"))
	}

	// Shutdown ends the stream with no fetch-mode event.
	e.CloseStreams()
	rest, _ := io.ReadAll(rd)
	if strings.Contains(string(rest), "fetch-mode") {
		t.Errorf("at shutdown the stream got %q", rest)
	}
	if h := poll(etag, "streamer", http.StatusNotModified); h.Get("fetch-mode") != "polling" {
		t.Errorf("shutting down: fetch-mode %q", h.Get("fetch-mode"))
	}
}
