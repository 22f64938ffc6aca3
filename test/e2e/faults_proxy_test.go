package e2e

import (
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// hammer sends GET /proxy requests from 4 clients until stop is closed and
// counts answers that were not 200.
func hammer(t *testing.T, proxy string, stop <-chan struct{}) (ok, failed *atomic.Int64, wait func()) {
	ok, failed = &atomic.Int64{}, &atomic.Int64{}
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
				req, _ := http.NewRequest("GET", proxy+"/proxy?userId=u1", nil)
				req.Header.Set("Authorization", clientKey)
				res, err := client.Do(req)
				if err != nil || res.StatusCode != http.StatusOK {
					failed.Add(1)
				} else {
					ok.Add(1)
				}
				if res != nil {
					res.Body.Close()
				}
				time.Sleep(2 * time.Millisecond)
			}
		}()
	}
	return ok, failed, wg.Wait
}

// TestProxyKeepsServingThroughUpstreamFaults switches the upstream through
// every failure it can show while clients keep asking the proxy: not one
// client request may fail, and the proxy recovers afterwards.
func TestProxyKeepsServingThroughUpstreamFaults(t *testing.T) {
	up := newFakeUpstream(t, 60)
	proxy, _ := startProxyIn(t, up.url(), t.TempDir(), freePort(t), map[string]string{"SERVICE_FETCH_INTERVAL": "200"}, http.StatusOK)
	stop := make(chan struct{})
	ok, failed, wait := hammer(t, proxy, stop)

	phases := []struct {
		name string
		act  func()
	}{
		{"answering 500", func() { up.mode.Store(up500) }},
		{"answering invalid JSON", func() { up.mode.Store(upGarbage) }},
		{"answering truncated JSON", func() { up.mode.Store(upTruncated) }},
		{"slow (3 s per answer)", func() { up.mode.Store(upSlow) }},
		{"killed", func() { up.mode.Store(upOK); up.stop() }},
		{"restarted", func() { up.restart() }},
	}
	for _, ph := range phases {
		ph.act()
		time.Sleep(1500 * time.Millisecond)
		if n := failed.Load(); n > 0 {
			t.Errorf("upstream %s: %d client requests failed", ph.name, n)
		}
	}
	close(stop)
	wait()
	t.Logf("%d client requests answered, %d failed", ok.Load(), failed.Load())
	if ok.Load() < 100 {
		t.Errorf("only %d requests answered", ok.Load())
	}
}

// TestProxyRestartsFromBackup restarts the proxy while the upstream is down:
// it must be ready at once from the configuration it saved.
func TestProxyRestartsFromBackup(t *testing.T) {
	up := newFakeUpstream(t, 60)
	backup := t.TempDir()
	port := freePort(t)
	_, first := startProxyIn(t, up.url(), backup, port, nil, http.StatusOK)
	time.Sleep(700 * time.Millisecond) // let it save a good configuration
	first.stopNow(t)
	up.stop()

	proxy, _ := startProxyIn(t, up.url(), backup, freePort(t), nil, http.StatusOK)
	status, body := call(t, "GET", proxy+"/proxy/all", clientKey, nil)
	if status != http.StatusOK || len(body) < 100 {
		t.Fatalf("restarted proxy: %d %s", status, body)
	}
	// Without a backup the same situation is 503 until the upstream answers.
	cold, p := startProxyIn(t, up.url(), t.TempDir(), freePort(t), nil, http.StatusServiceUnavailable)
	up.restart()
	waitFor(t, cold+"/proxy/health", http.StatusOK, p)
}
