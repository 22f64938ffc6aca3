package proxy

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/signalbox/signalbox/clientapi"
)

func oneFlag(name string, yes, no int64) clientapi.MetricsBucket {
	now := time.Now()
	return clientapi.MetricsBucket{Start: now, Stop: now, Toggles: map[string]clientapi.ToggleCount{name: {Yes: yes, No: no}}}
}

// Applications, rows, variants and registrations are bounded; labels the
// upstream would refuse are never kept, and counts stop at the most the
// upstream takes.
func TestAppUsageBounds(t *testing.T) {
	dropped := prometheus.NewCounter(prometheus.CounterOpts{Name: "dropped"})
	a := newAppUsage("production", time.Now, dropped)
	all := func(string) bool { return true }
	for i := range maxApps {
		if !a.addBucket(fmt.Sprint("app-", i), "production", oneFlag("f", 1, 0), all) {
			t.Fatalf("application %d refused below the bound", i)
		}
	}
	if a.addBucket("one-too-many", "production", oneFlag("f", 1, 0), all) {
		t.Error("an application beyond the bound was kept")
	}
	if !a.addBucket("app-7", "production", oneFlag("f", 2, 1), all) {
		t.Error("a known application was refused at the bound")
	}
	for _, bad := range []struct{ app, env string }{
		{"", "production"}, {"nul\x00app", "production"}, {strings.Repeat("a", maxNameLen+1), "production"},
		{"ok", "bad\x00env"}, {"ok", strings.Repeat("e", maxNameLen+1)},
	} {
		if a.addBucket(bad.app, bad.env, oneFlag("f", 1, 0), all) {
			t.Errorf("labels %q/%q were kept", bad.app, bad.env)
		}
	}
	_, rows := a.take()
	if len(rows) != maxApps {
		t.Fatalf("%d rows, want %d", len(rows), maxApps)
	}
	for _, m := range rows {
		want := int64(1)
		if m.AppName == "app-7" {
			want = 3
		}
		if m.FeatureName != "f" || m.Environment != "production" || m.Yes != want {
			t.Errorf("row %+v", m)
		}
	}

	// Rows over all applications, unknown flags, bad names and variants.
	big := clientapi.MetricsBucket{Toggles: map[string]clientapi.ToggleCount{}}
	for i := range maxAppRows/maxApps + 10 {
		big.Toggles[fmt.Sprint("flag-", i)] = clientapi.ToggleCount{Yes: 1}
	}
	for i := range maxApps {
		a.addBucket(fmt.Sprint("app-", i), "production", big, all)
	}
	if _, rows := a.take(); len(rows) != maxAppRows {
		t.Errorf("%d rows kept, want the bound %d", len(rows), maxAppRows)
	}
	unknown := clientapi.MetricsBucket{Toggles: map[string]clientapi.ToggleCount{}}
	for i := range maxUnknownNames + 50 {
		unknown.Toggles[fmt.Sprint("made-up-", i)] = clientapi.ToggleCount{Yes: 1}
	}
	a.addBucket("web", "production", unknown, func(string) bool { return false })
	if _, rows := a.take(); len(rows) != maxUnknownNames {
		t.Errorf("%d unknown flags kept, want %d", len(rows), maxUnknownNames)
	}
	before := a.droppedCount()
	variants := map[string]int64{"bad\x00v": 1, strings.Repeat("v", maxNameLen+1): 1}
	for i := range maxVariantNames + 5 {
		variants[fmt.Sprint("v", i)] = 1
	}
	a.addBucket("web", "production", clientapi.MetricsBucket{Toggles: map[string]clientapi.ToggleCount{
		"f": {Yes: maxReportedCount, No: 1, Variants: variants}, "nul\x00flag": {Yes: 1}}}, all)
	a.addBucket("web", "production", oneFlag("f", maxReportedCount, 0), all)
	_, rows = a.take()
	if len(rows) != 1 || rows[0].Yes != maxReportedCount || len(rows[0].Variants) != maxVariantNames {
		t.Errorf("rows %d, yes %d, variants %d", len(rows), rows[0].Yes, len(rows[0].Variants))
	}
	for v := range rows[0].Variants {
		if !validLabel(v) {
			t.Errorf("variant %q kept", v)
		}
	}
	if got := a.droppedCount() - before; got != 2+5+1 {
		t.Errorf("%d drops counted, want 8", got)
	}
	var m dto.Metric
	if err := dropped.Write(&m); err != nil {
		t.Fatal(err)
	}
	if got := m.GetCounter().GetValue(); got != float64(a.droppedCount()) {
		t.Errorf("the Prometheus counter says %v, the usage %d", got, a.droppedCount())
	}

	// Registrations: one per application and instance, bounded, checked.
	reg := func(app, inst string) clientapi.Registration {
		return clientapi.Registration{AppName: app, InstanceID: inst, Strategies: []string{"default", "bad\x00"}}
	}
	for i := range maxAppRegs + 20 {
		a.register(reg(fmt.Sprint("app-", i%(maxAppRegs+20)), "i1"))
	}
	a.register(reg("app-0", "i1")) // a repeat replaces
	if a.register(reg("nul\x00", "i1")) || a.register(reg("", "i1")) || a.register(reg("ok", strings.Repeat("i", maxNameLen+1))) {
		t.Error("a registration with bad labels was kept")
	}
	regs, _ := a.take()
	if len(regs) != maxAppRegs {
		t.Errorf("%d registrations kept, want %d", len(regs), maxAppRegs)
	}
	for _, r := range regs {
		if r.Environment != "production" || len(r.Strategies) != 1 {
			t.Errorf("registration %+v", r)
			break
		}
	}
	if regs, rows := a.take(); len(regs)+len(rows) != 0 {
		t.Error("a second take handed out the same again")
	}

	// Rows given back are counted again once, their period kept.
	old := time.Now().Add(-time.Hour)
	a.giveBack([]bulkMetric{{FeatureName: "f", AppName: "web", Environment: "production", Timestamp: old, Yes: 2}})
	a.addBucket("web", "production", oneFlag("f", 1, 0), all)
	_, rows = a.take()
	if len(rows) != 1 || rows[0].Yes != 3 || !rows[0].Timestamp.Equal(old) {
		t.Errorf("after a give-back: %+v", rows)
	}
}

// bulkUpstream is an upstream on loopback that validates client tokens,
// serves a configuration and records the bulk reports it accepts; it
// refuses them (503) while failing is set.
type bulkUpstream struct {
	srv     *httptest.Server
	mu      sync.Mutex
	reports []bulkReport
	failing bool
}

func newBulkUpstream(t *testing.T) *bulkUpstream {
	u := &bulkUpstream{}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /edge/validate", func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Tokens []string `json:"tokens"`
		}
		_ = json.NewDecoder(r.Body).Decode(&body)
		out := []edgeToken{}
		for _, tok := range body.Tokens {
			out = append(out, edgeToken{Token: tok, Type: tokenClient, Projects: []string{"*"}, Environment: "development"})
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"tokens": out})
	})
	mux.HandleFunc("GET /api/client/features", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, testPayload)
	})
	mux.HandleFunc("POST /api/client/metrics/bulk", func(w http.ResponseWriter, r *http.Request) {
		var rep bulkReport
		if err := json.NewDecoder(r.Body).Decode(&rep); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		u.mu.Lock()
		defer u.mu.Unlock()
		if u.failing {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		u.reports = append(u.reports, rep)
		w.WriteHeader(http.StatusAccepted)
	})
	mux.HandleFunc("POST /api/client/", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusAccepted) })
	u.srv = httptest.NewServer(mux)
	t.Cleanup(u.srv.Close)
	return u
}

// yes sums the yes counts the upstream accepted for flag, by application
// and environment, and lists the registered applications.
func (u *bulkUpstream) yes(flag string) (map[appKey]int64, map[string]bool) {
	u.mu.Lock()
	defer u.mu.Unlock()
	counts, apps := map[appKey]int64{}, map[string]bool{}
	for _, rep := range u.reports {
		for _, m := range rep.Metrics {
			if m.FeatureName == flag {
				counts[appKey{m.AppName, m.Environment}] += m.Yes
			}
		}
		for _, a := range rep.Applications {
			apps[a.AppName] = true
		}
	}
	return counts, apps
}

// A node uploads each SDK's counts and registrations under the SDK's
// application, and a downstream node's bulk report with its labels, each
// once, also after the upstream was away for a while.
func TestEdgeUploadsPerApplication(t *testing.T) {
	up := newBulkUpstream(t)
	const token = "*:development.client-secret"
	_, srv := runTestEdge(t, EdgeConfig{UpstreamURL: up.srv.URL, Tokens: []string{token}, MetricsInterval: 50 * time.Millisecond,
		AppName: "node-a"})
	post := func(path, body string) {
		t.Helper()
		req, _ := http.NewRequest("POST", srv.URL+path, strings.NewReader(body))
		req.Header.Set("Authorization", token)
		req.Header.Set("Content-Type", "application/json")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode/100 != 2 {
			t.Fatalf("POST %s: %d %s", path, res.StatusCode, b)
		}
	}
	metrics := func(app string, yes int) string {
		return fmt.Sprintf(`{"appName":%q,"instanceId":"i1","bucket":{"start":"2026-01-01T00:00:00Z","stop":"2026-01-01T00:01:00Z","toggles":{"on-default":{"yes":%d,"no":0}}}}`, app, yes)
	}

	up.mu.Lock()
	up.failing = true
	up.mu.Unlock()
	post("/api/client/register", `{"appName":"sdk-a","instanceId":"i1","interval":1000,"started":"2026-01-01T00:00:00Z","strategies":["default"]}`)
	post("/api/client/metrics", metrics("sdk-a", 3))
	post("/api/client/metrics", metrics("sdk-b", 5))
	post("/api/client/metrics/bulk", `{"applications":[{"appName":"behind","instanceId":"b1","interval":1000,"started":"2026-01-01T00:00:00Z","strategies":[]}],`+
		`"metrics":[{"featureName":"on-default","appName":"behind","environment":"development","timestamp":"2026-01-01T00:00:00Z","yes":7,"no":0}]}`)
	time.Sleep(200 * time.Millisecond) // a few failed uploads
	post("/api/client/metrics", metrics("sdk-a", 1))
	up.mu.Lock()
	up.failing = false
	up.mu.Unlock()

	want := map[appKey]int64{{"sdk-a", "development"}: 4, {"sdk-b", "development"}: 5, {"behind", "development"}: 7}
	waitFor(t, "the counts upstream", func() bool {
		got, _ := up.yes("on-default")
		return len(got) == len(want) && got[appKey{"behind", "development"}] == 7 && got[appKey{"sdk-a", "development"}] == 4
	})
	time.Sleep(200 * time.Millisecond) // more uploads: nothing may arrive twice
	got, apps := up.yes("on-default")
	for k, n := range want {
		if got[k] != n {
			t.Errorf("%v: %d upstream, want %d (all: %v)", k, got[k], n, got)
		}
	}
	if len(got) != len(want) {
		t.Errorf("counts upstream: %v", got)
	}
	for _, app := range []string{"node-a", "sdk-a", "behind"} {
		if !apps[app] {
			t.Errorf("%s is not registered upstream (%v)", app, apps)
		}
	}
}

// Upload requests stay below the upstream's body limit (2 MiB on the
// server) whatever the rows hold, and carry every row once.
func TestBulkChunks(t *testing.T) {
	variants := map[string]int64{}
	for i := range maxVariantNames {
		variants[fmt.Sprintf("%0200d", i)] = maxReportedCount
	}
	var rows []bulkMetric
	for i := range 3000 {
		rows = append(rows, bulkMetric{FeatureName: strings.Repeat("f", 190) + fmt.Sprint(i), AppName: strings.Repeat("a", maxNameLen),
			Environment: strings.Repeat("e", maxNameLen), Timestamp: time.Now(), Yes: maxReportedCount, No: maxReportedCount, Variants: variants})
	}
	rows = append(rows, bulkMetric{FeatureName: "small", AppName: "a", Environment: "e"})
	var regs []clientapi.Registration
	for i := range 3000 {
		regs = append(regs, clientapi.Registration{AppName: strings.Repeat("a", maxNameLen), InstanceID: fmt.Sprintf("%0200d", i),
			SDKVersion: strings.Repeat("s", maxNameLen), Environment: strings.Repeat("e", maxNameLen),
			Strategies: slices.Repeat([]string{strings.Repeat("x", maxNameLen)}, maxRegStrategies)})
	}
	seenRows, seenRegs, requests := 0, 0, 0
	for len(regs) > 0 || len(rows) > 0 {
		nr, n := nextChunk(regs, rows)
		if nr+n == 0 {
			t.Fatal("an empty chunk")
		}
		body, _ := json.Marshal(bulkReport{Applications: regs[:nr], Metrics: rows[:n]})
		if len(body) > 2<<20 || nr > maxBulkRows || n > maxBulkRows {
			t.Fatalf("a request of %d bytes, %d registrations, %d rows", len(body), nr, n)
		}
		seenRegs, seenRows, requests = seenRegs+nr, seenRows+n, requests+1
		regs, rows = regs[nr:], rows[n:]
	}
	if seenRegs != 3000 || seenRows != 3001 || requests < 2 {
		t.Errorf("%d registrations and %d rows in %d requests", seenRegs, seenRows, requests)
	}
	a := newAppUsage("production", time.Now, nil)
	if a.addBucket("  ", "production", oneFlag("f", 1, 0), func(string) bool { return true }) ||
		a.register(clientapi.Registration{AppName: " "}) {
		t.Error("a blank application name was kept")
	}
}
