package e2e

import (
	"encoding/json"
	"io"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/signalbox/signalbox/clientapi"
	"github.com/signalbox/signalbox/internal/fixture"
)

// Modes of the fake upstream.
const (
	upOK = iota
	up500
	upGarbage
	upTruncated
	upSlow
)

// fakeUpstream is a small stand-in for an Unleash-compatible server that a
// test can make misbehave, stop and restart on the same address.
type fakeUpstream struct {
	t       *testing.T
	addr    string
	body    []byte
	mode    atomic.Int32
	mu      sync.Mutex
	srv     *http.Server
	metrics []clientapi.Metrics
}

func newFakeUpstream(t *testing.T, flags int) *fakeUpstream {
	f := &fakeUpstream{t: t}
	f.body, _ = json.Marshal(fixture.Features(flags, 9))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f.addr = ln.Addr().String()
	f.serve(ln)
	t.Cleanup(f.stop)
	return f
}

func (f *fakeUpstream) url() string { return "http://" + f.addr }

func (f *fakeUpstream) serve(ln net.Listener) {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/client/features", func(w http.ResponseWriter, r *http.Request) {
		switch f.mode.Load() {
		case up500:
			http.Error(w, "boom", http.StatusInternalServerError)
			return
		case upGarbage:
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"version": 2, "features": "not a list"`)
			return
		case upTruncated:
			w.Header().Set("Content-Type", "application/json")
			w.Write(f.body[:len(f.body)/2])
			return
		case upSlow:
			select {
			case <-time.After(3 * time.Second):
			case <-r.Context().Done():
				return
			}
		}
		w.Header().Set("ETag", `"fixed"`)
		if r.Header.Get("If-None-Match") == `"fixed"` {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write(f.body)
	})
	mux.HandleFunc("POST /api/client/register", func(w http.ResponseWriter, r *http.Request) {
		if f.mode.Load() != upOK {
			http.Error(w, "boom", http.StatusInternalServerError)
			return
		}
		w.WriteHeader(http.StatusAccepted)
	})
	mux.HandleFunc("POST /api/client/metrics", func(w http.ResponseWriter, r *http.Request) {
		if f.mode.Load() != upOK {
			http.Error(w, "boom", http.StatusInternalServerError)
			return
		}
		var m clientapi.Metrics
		if err := json.NewDecoder(r.Body).Decode(&m); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		f.mu.Lock()
		f.metrics = append(f.metrics, m)
		f.mu.Unlock()
		w.WriteHeader(http.StatusAccepted)
	})
	srv := &http.Server{Handler: mux}
	f.mu.Lock()
	f.srv = srv
	f.mu.Unlock()
	go srv.Serve(ln)
}

// stop closes the upstream: connections are refused until restart.
func (f *fakeUpstream) stop() {
	f.mu.Lock()
	srv := f.srv
	f.srv = nil
	f.mu.Unlock()
	if srv != nil {
		srv.Close()
	}
}

// restart listens again on the same address.
func (f *fakeUpstream) restart() {
	var ln net.Listener
	var err error
	for range 50 { // the port may linger for a moment
		if ln, err = net.Listen("tcp", f.addr); err == nil {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err != nil {
		f.t.Fatal(err)
	}
	f.serve(ln)
}

// counted sums the yes+no counts the upstream received per flag.
func (f *fakeUpstream) counted() map[string]int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := map[string]int64{}
	for _, m := range f.metrics {
		for name, c := range m.Bucket.Toggles {
			out[name] += c.Yes + c.No
		}
	}
	return out
}
