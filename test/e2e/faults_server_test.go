package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/signalbox/signalbox/internal/pgtest"
)

// TestServerSurvivesSIGKILL kills the server with SIGKILL in the middle of a
// stream of admin writes and restarts it: every write it acknowledged must
// be there, with exactly one audit event.
func TestServerSurvivesSIGKILL(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) { serverSurvivesSIGKILL(t, "") })
	t.Run("postgres", func(t *testing.T) { serverSurvivesSIGKILL(t, pgtest.NewDatabase(t)) })
}

func serverSurvivesSIGKILL(t *testing.T, databaseURL string) {
	dataDir := t.TempDir()
	port := freePort(t)
	server, p := startServerIn(t, dataDir, databaseURL, port)

	var mu sync.Mutex
	var acked []string
	var next atomic.Int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	client := &http.Client{Timeout: 5 * time.Second}
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				name := fmt.Sprintf("crash.flag-%d", next.Add(1))
				body := fmt.Sprintf(`{"name":%q,"type":"release"}`, name)
				req, _ := http.NewRequest("POST", server+"/api/admin/projects/default/features", stringsReader(body))
				req.Header.Set("Authorization", adminToken)
				req.Header.Set("Content-Type", "application/json")
				res, err := client.Do(req)
				if err != nil {
					continue // the server is gone: not acknowledged
				}
				res.Body.Close()
				if res.StatusCode/100 == 2 {
					mu.Lock()
					acked = append(acked, name)
					mu.Unlock()
				}
			}
		}()
	}
	time.Sleep(1500 * time.Millisecond)
	p.kill()
	close(stop)
	wg.Wait()
	if len(acked) < 10 {
		t.Fatalf("only %d writes acknowledged before the kill", len(acked))
	}

	server, _ = startServerIn(t, dataDir, databaseURL, freePort(t))
	for _, name := range acked {
		status, body := call(t, "GET", server+"/api/admin/projects/default/features/"+name, adminToken, nil)
		if status != http.StatusOK {
			t.Errorf("acknowledged %s is gone after the crash: %d %s", name, status, body)
			continue
		}
		_, body = call(t, "POST", server+"/api/admin/events/search", adminToken, map[string]any{"type": "feature-created", "feature": name})
		var events struct {
			Events []json.RawMessage `json:"events"`
		}
		if err := json.Unmarshal(body, &events); err != nil || len(events.Events) != 1 {
			t.Errorf("%s has %d feature-created events, want 1 (%s)", name, len(events.Events), body)
		}
	}
	t.Logf("%d acknowledged writes all survived SIGKILL", len(acked))
}

// TestConcurrentAdminWriters has 8 clients add 125 strategies each to one
// flag at the same time: no answer may be a 5xx and no write may be lost.
func TestConcurrentAdminWriters(t *testing.T) {
	server := startServer(t, "")
	const path = "/api/admin/projects/default/features/busy.flag"
	admin(t, server, "POST", "/api/admin/projects/default/features", obj{"name": "busy.flag"})
	var wg sync.WaitGroup
	var fiveXX, ok atomic.Int64
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 125 {
				status, _ := call(t, "POST", server+path+"/environments/development/strategies", adminToken,
					obj{"name": "userWithId", "parameters": obj{"userIds": fmt.Sprintf("w%d-%d", w, i)}})
				switch {
				case status >= 500:
					fiveXX.Add(1)
				case status/100 == 2:
					ok.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	if fiveXX.Load() > 0 {
		t.Errorf("%d writes answered 5xx", fiveXX.Load())
	}
	_, body := call(t, "GET", server+path+"/environments/development/strategies", adminToken, nil)
	var strategies []json.RawMessage
	if err := json.Unmarshal(body, &strategies); err != nil {
		var wrapped struct {
			Strategies []json.RawMessage `json:"strategies"`
		}
		if json.Unmarshal(body, &wrapped) != nil {
			t.Fatalf("strategies answer %s", body)
		}
		strategies = wrapped.Strategies
	}
	if int64(len(strategies)) != ok.Load() || ok.Load() != 1000 {
		t.Errorf("%d writes acknowledged, %d strategies stored, want 1000 of each", ok.Load(), len(strategies))
	}
}
