package e2e

import (
	"net/http"
	"os"
	"testing"
	"time"
)

// TestProxyMetricsSurviveOutage counts evaluations while the upstream
// refuses metrics for two minutes: once it is back, every count arrives.
// (SIGNALBOX_OUTAGE shortens the outage for quick local runs; CI always
// uses the full two minutes.)
func TestProxyMetricsSurviveOutage(t *testing.T) {
	t.Parallel()
	outage := 2 * time.Minute
	if d, err := time.ParseDuration(os.Getenv("SIGNALBOX_OUTAGE")); err == nil && os.Getenv("CI") == "" {
		outage = d
	}
	up := newFakeUpstream(t, 60)
	proxy, _ := startProxyIn(t, up.url(), t.TempDir(), freePort(t), map[string]string{"SERVICE_METRICS_INTERVAL": "1000"}, http.StatusOK)

	evaluate := func(n int) {
		for range n {
			status, body := call(t, "POST", proxy+"/proxy", clientKey, map[string]any{
				"context": map[string]any{"userId": "u1"}, "toggles": []string{"team0.feature-0000", "unknown.flag"},
			})
			if status != http.StatusOK {
				t.Fatalf("POST /proxy: %d %s", status, body)
			}
		}
	}
	up.mode.Store(up500) // refuses metrics (and features) from now on
	deadline := time.Now().Add(outage)
	sent := 0
	for time.Now().Before(deadline) {
		evaluate(25)
		sent += 25
		time.Sleep(time.Second)
	}
	up.mode.Store(upOK)
	wait := time.Now().Add(30 * time.Second)
	for {
		got := up.counted()
		if got["team0.feature-0000"] == int64(sent) && got["unknown.flag"] == int64(sent) {
			t.Logf("all %d evaluations of each flag made during a %v outage arrived", sent, outage)
			return
		}
		if got["team0.feature-0000"] > int64(sent) {
			t.Fatalf("upstream counted %d evaluations, only %d were made", got["team0.feature-0000"], sent)
		}
		if time.Now().After(wait) {
			t.Fatalf("after the outage the upstream counted %v, want %d of each", got, sent)
		}
		time.Sleep(250 * time.Millisecond)
	}
}
