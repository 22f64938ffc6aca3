package server

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"

	"github.com/signalbox/signalbox/store"
)

// setMetricsLimits replaces the buffer's bounds (with its lock held, as
// handlers read them).
func setMetricsLimits(ts *testServer, change func(*metricsLimits)) {
	b := ts.srv.metrics
	b.mu.Lock()
	defer b.mu.Unlock()
	change(&b.limits)
}

// promFamily gathers one metric family from the server's registry (nil when
// it has no series).
func promFamily(t *testing.T, ts *testServer, name string) *dto.MetricFamily {
	t.Helper()
	families, err := ts.srv.Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() == name {
			return f
		}
	}
	return nil
}

// usageSeriesCount is the number of feature_toggle_usage_total series; it
// fails the test when a series names a flag other than those allowed.
func usageSeriesCount(t *testing.T, ts *testServer, allowed ...string) int {
	t.Helper()
	f := promFamily(t, ts, "feature_toggle_usage_total")
	if f == nil {
		return 0
	}
	for _, m := range f.GetMetric() {
		for _, l := range m.GetLabel() {
			if l.GetName() == "toggle" && !contains(allowed, l.GetValue()) {
				t.Errorf("series for toggle %q", l.GetValue())
			}
		}
	}
	return len(f.GetMetric())
}

// droppedCount is feature_toggle_usage_dropped_total{reason}.
func droppedCount(t *testing.T, ts *testServer, reason string) int {
	t.Helper()
	f := promFamily(t, ts, "feature_toggle_usage_dropped_total")
	if f == nil {
		return 0
	}
	for _, m := range f.GetMetric() {
		if m.GetLabel()[0].GetValue() == reason {
			return int(m.GetCounter().GetValue())
		}
	}
	return 0
}

// flushedRows flushes the buffer and reads every stored metrics row.
func flushedRows(t *testing.T, ts *testServer, f store.ClientMetricsFilter) []store.ClientMetric {
	t.Helper()
	ctx := context.Background()
	if err := ts.srv.FlushMetrics(ctx); err != nil {
		t.Fatal(err)
	}
	var rows []store.ClientMetric
	err := ts.srv.store.View(ctx, func(r store.Reader) (err error) {
		rows, err = r.ListClientMetrics(ctx, f)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// madeUpReport is a metrics body of app with n made-up flag names plus
// the real flags given, each counted once as yes.
func madeUpReport(app string, n int, real ...string) map[string]any {
	toggles := make(map[string]any, n+len(real))
	for j := range n {
		toggles[fmt.Sprintf("made-up-%s-%d", app, j)] = map[string]any{"yes": 1, "no": 1, "variants": map[string]int{"v": 2}}
	}
	for _, name := range real {
		toggles[name] = map[string]any{"yes": 1}
	}
	now := time.Now().UTC()
	return map[string]any{"appName": app, "instanceId": "i", "bucket": map[string]any{
		"start": now.Add(-time.Minute), "stop": now, "toggles": toggles,
	}}
}

// Twenty reports of 20,000 made-up flag names, each from a made-up
// application, must leave bounded state behind: exactly one series and one
// row per accepted application for the real flag, and nothing for the
// made-up names, whatever the bounds in force.
func TestClientMetricsStayBoundedUnderMadeUpNames(t *testing.T) {
	tests := []struct {
		name       string
		limits     func(*metricsLimits)
		series     int // feature_toggle_usage_total series afterwards
		rows       int // buffered, then stored, rows
		dropReason string
		dropped    int
		madeUp     int // made-up flag names per report
	}{
		// Reports as large as an attacker's; the bounds below need fewer
		// names to show, which keeps the suite fast under the race detector.
		{"default bounds", func(*metricsLimits) {}, 20, 20, "", 0, 20000},
		{"application bound", func(l *metricsLimits) { l.apps = 5 }, 5, 5, dropAppLimit, 15, 1000},
		{"series bound", func(l *metricsLimits) { l.series = 3 }, 3, 20, dropSeriesLimit, 17, 1000},
		{"buffer bound", func(l *metricsLimits) { l.pending = 4 }, 4, 4, dropBufferFull, 16, 1000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts := newTestServer(t)
			plantFlag(t, ts, store.DefaultProject, "real")
			setMetricsLimits(ts, tt.limits)
			for i := range 20 {
				path, token := "/api/client/metrics", testClientToken
				if i%2 == 1 {
					path, token = "/api/frontend/client/metrics", testFrontendToken
				}
				ts.request("POST", path, token, madeUpReport(fmt.Sprintf("app-%d", i), tt.madeUp, "real")).must(t, reportAnswer(path))
			}
			if got := usageSeriesCount(t, ts, "real"); got != tt.series {
				t.Errorf("%d usage series, want %d", got, tt.series)
			}
			if got := ts.srv.metrics.pendingLen(); got != tt.rows {
				t.Errorf("%d buffered rows, want %d", got, tt.rows)
			}
			if got := droppedCount(t, ts, dropUnknownFlag); got != 20*tt.madeUp {
				t.Errorf("%d unknown flags dropped, want %d", got, 20*tt.madeUp)
			}
			if tt.dropReason != "" {
				if got := droppedCount(t, ts, tt.dropReason); got != tt.dropped {
					t.Errorf("%d dropped for %s, want %d", got, tt.dropReason, tt.dropped)
				}
			}
			rows := flushedRows(t, ts, store.ClientMetricsFilter{})
			if len(rows) != tt.rows {
				t.Errorf("%d stored rows, want %d", len(rows), tt.rows)
			}
			for _, r := range rows {
				if r.Feature != "real" || r.Yes != 1 || r.No != 0 {
					t.Errorf("row %+v", r)
				}
			}
			// Made-up names take no application slot: only reports with a
			// real flag are tracked.
			ts.request("POST", "/api/client/metrics", testClientToken, madeUpReport("only-made-up", 10)).must(t, http.StatusAccepted)
			ts.srv.metrics.mu.Lock()
			_, tracked := ts.srv.metrics.apps["only-made-up"]
			ts.srv.metrics.mu.Unlock()
			if tracked {
				t.Error("an application that reported only made-up flags is tracked")
			}
		})
	}
}

// Only flags of the token's projects count; flags of other projects and
// names of no flag are dropped, for client and frontend tokens alike.
func TestClientMetricsCountOnlyFlagsInTheTokensScope(t *testing.T) {
	ts := newTestServer(t)
	ts.admin("POST", "/api/admin/projects", map[string]any{"id": "other", "name": "Other"}).must(t, http.StatusCreated)
	plantFlag(t, ts, store.DefaultProject, "mine")
	plantFlag(t, ts, "other", "theirs")
	var multi TokenJSON
	ts.admin("POST", "/api/admin/api-tokens", map[string]any{"type": "client", "tokenName": "both", "projects": []string{"default", "other"}}).
		must(t, http.StatusCreated).Decode(t, &multi)

	tests := []struct {
		name, path, token string
		want              []string
	}{
		{"client token of default", "/api/client/metrics", testClientToken, []string{"mine"}},
		{"frontend token of default", "/api/frontend/client/metrics", testFrontendToken, []string{"mine"}},
		{"client token of all projects", "/api/client/metrics", testProdToken, []string{"mine", "theirs"}},
		{"client token of two projects", "/api/client/metrics", multi.Secret, []string{"mine", "theirs"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			app := strings.ReplaceAll(tt.name, " ", "-")
			ts.request("POST", tt.path, tt.token, madeUpReport(app, 0, "mine", "theirs", "ghost")).must(t, reportAnswer(tt.path))
			rows := flushedRows(t, ts, store.ClientMetricsFilter{AppName: app})
			var got []string
			for _, r := range rows {
				got = append(got, r.Feature)
			}
			if strings.Join(got, ",") != strings.Join(tt.want, ",") {
				t.Errorf("counted %v, want %v", got, tt.want)
			}
			prom := string(ts.request("GET", "/internal-backstage/prometheus", "", nil).must(t, http.StatusOK).Body)
			for _, name := range []string{"mine", "theirs", "ghost"} {
				series := fmt.Sprintf(`feature_toggle_usage_total{active="true",appName=%q,toggle=%q} 1`, app, name)
				if strings.Contains(prom, series) != contains(tt.want, name) {
					t.Errorf("series of %s present: %v", name, !contains(tt.want, name))
				}
			}
		})
	}
}

// Metrics and registrations count for the token's environment; only a
// token of every environment may name one, and only one that exists.
func TestClientReportsTakeTheEnvironmentFromTheToken(t *testing.T) {
	ts := newTestServer(t)
	plantFlag(t, ts, store.DefaultProject, "f")
	var anyEnv TokenJSON
	ts.admin("POST", "/api/admin/api-tokens", map[string]any{"type": "client", "tokenName": "every-env", "environment": "*"}).
		must(t, http.StatusCreated).Decode(t, &anyEnv)
	tests := []struct {
		name, token, asked, want string
	}{
		{"development token naming production", testClientToken, "production", "development"},
		{"production token naming development", testProdToken, "development", "production"},
		{"development token naming nothing", testClientToken, "", "development"},
		{"every-environment token naming production", anyEnv.Secret, "production", "production"},
		{"every-environment token naming an unknown one", anyEnv.Secret, "default", "development"},
		{"every-environment token naming nothing", anyEnv.Secret, "", "development"},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			app := fmt.Sprintf("env-app-%d", i)
			body := madeUpReport(app, 0, "f")
			body["environment"] = tt.asked
			ts.request("POST", "/api/client/metrics", tt.token, body).must(t, http.StatusAccepted)
			rows := flushedRows(t, ts, store.ClientMetricsFilter{AppName: app})
			if len(rows) != 1 || rows[0].Environment != tt.want {
				t.Errorf("rows %+v, want one in %s", rows, tt.want)
			}
			ts.request("POST", "/api/client/register", tt.token, map[string]any{"appName": app, "instanceId": "i-1", "environment": tt.asked}).
				must(t, http.StatusAccepted)
			if err := ts.srv.FlushRegistrations(t.Context()); err != nil {
				t.Fatal(err)
			}
			var instances []store.ClientInstance
			err := ts.srv.store.View(context.Background(), func(r store.Reader) (err error) {
				instances, err = r.ListClientInstances(context.Background(), app)
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			if len(instances) != 1 || instances[0].Environment != tt.want {
				t.Errorf("instances %+v, want one in %s", instances, tt.want)
			}
		})
	}
}

// Registrations: over-long names are refused with a validation error, and
// application names and instance ids beyond their bounds are answered 202
// but not stored.
func TestClientRegistrationIsBounded(t *testing.T) {
	ts := newTestServer(t)
	long := strings.Repeat("x", maxLabelLen+1)
	many := make([]string, maxRegisteredStrategies+1)
	for i := range many {
		many[i] = fmt.Sprintf("s%d", i)
	}
	for _, tt := range []struct {
		path string
		body map[string]any
	}{
		{"appName", map[string]any{"appName": long}},
		{"instanceId", map[string]any{"appName": "a", "instanceId": long}},
		{"sdkVersion", map[string]any{"appName": "a", "sdkVersion": long}},
		{"environment", map[string]any{"appName": "a", "environment": long}},
		{"strategies", map[string]any{"appName": "a", "strategies": many}},
		{"strategies", map[string]any{"appName": "a", "strategies": []string{long}}},
		{"appName", map[string]any{"appName": "a\x00b"}},
		{"instanceId", map[string]any{"appName": "a", "instanceId": "\x00"}},
		{"strategies", map[string]any{"appName": "a", "strategies": []string{"x\x00"}}},
	} {
		mustErrorRecord(t, ts.request("POST", "/api/client/register", testClientToken, tt.body), http.StatusBadRequest, "ValidationError", tt.path)
		mustErrorRecord(t, ts.request("POST", "/api/frontend/client/register", testFrontendToken, tt.body), http.StatusBadRequest, "ValidationError", tt.path)
	}
	for _, app := range []string{long, "a\x00"} {
		report := madeUpReport(app, 0)
		mustErrorRecord(t, ts.request("POST", "/api/client/metrics", testClientToken, report), http.StatusBadRequest, "ValidationError", "appName")
	}
	// Counts that could add up past 64 bits (and make every flush fail).
	for _, c := range []map[string]any{
		{"yes": int64(maxReportedCount) + 1},
		{"no": int64(math.MaxInt64)},
		{"yes": 1, "variants": map[string]int64{"v": math.MaxInt64}},
		{"yes": 1, "variants": map[string]int64{"v\x00": 1}},
	} {
		report := madeUpReport("counts", 0)
		report["bucket"].(map[string]any)["toggles"] = map[string]any{"f": c}
		mustErrorRecord(t, ts.request("POST", "/api/client/metrics", testClientToken, report), http.StatusBadRequest, "ValidationError", "bucket.toggles")
	}

	setMetricsLimits(ts, func(l *metricsLimits) { l.apps, l.instancesPerApp = 2, 3 })
	for i := range 10 {
		ts.request("POST", "/api/frontend/client/register", testFrontendToken, map[string]any{"appName": "web", "instanceId": fmt.Sprint("i-", i)}).must(t, http.StatusOK)
		ts.request("POST", "/api/client/register", testClientToken, map[string]any{"appName": fmt.Sprint("app-", i)}).must(t, http.StatusAccepted)
	}
	if err := ts.srv.FlushRegistrations(t.Context()); err != nil {
		t.Fatal(err)
	}
	var apps []store.ClientApplication
	var instances []store.ClientInstance
	err := ts.srv.store.View(context.Background(), func(r store.Reader) (err error) {
		if apps, err = r.ListClientApplications(context.Background()); err != nil {
			return err
		}
		instances, err = r.ListClientInstances(context.Background(), "web")
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(apps) != 2 || len(instances) != 3 {
		t.Errorf("%d applications and %d instances of web stored, want 2 and 3", len(apps), len(instances))
	}
	if droppedCount(t, ts, dropAppLimit) != 9 || droppedCount(t, ts, dropInstanceCap) != 7 {
		t.Errorf("dropped: %d for applications, %d for instances", droppedCount(t, ts, dropAppLimit), droppedCount(t, ts, dropInstanceCap))
	}
}

// Applications not seen for appNameTTL are forgotten with their series, so
// that their places serve new applications.
func TestIdleApplicationsAreForgotten(t *testing.T) {
	ts := newTestServer(t)
	plantFlag(t, ts, store.DefaultProject, "f")
	setMetricsLimits(ts, func(l *metricsLimits) { l.apps = 1 })
	ts.request("POST", "/api/client/metrics", testClientToken, madeUpReport("old", 0, "f")).must(t, http.StatusAccepted)
	ts.request("POST", "/api/client/metrics", testClientToken, madeUpReport("new", 0, "f")).must(t, http.StatusAccepted)
	if got := usageSeriesCount(t, ts, "f"); got != 1 {
		t.Fatalf("%d series before expiry, want 1", got)
	}
	ts.srv.expireApps(time.Now().Add(appNameTTL + time.Minute))
	if got := usageSeriesCount(t, ts, "f"); got != 0 {
		t.Errorf("%d series after expiry, want 0", got)
	}
	ts.request("POST", "/api/client/metrics", testClientToken, madeUpReport("new", 0, "f")).must(t, http.StatusAccepted)
	prom := string(ts.request("GET", "/internal-backstage/prometheus", "", nil).must(t, http.StatusOK).Body)
	if !strings.Contains(prom, `feature_toggle_usage_total{active="true",appName="new",toggle="f"} 1`) {
		t.Error("the new application is not counted once the old one expired")
	}
}

// Buckets far in the past or in the future count in the current hour, so
// that made-up times cannot multiply rows.
func TestClientMetricsBucketHours(t *testing.T) {
	now := time.Date(2026, 3, 4, 10, 30, 0, 0, time.UTC)
	for _, tt := range []struct {
		start, want time.Time
	}{
		{now.Add(-time.Minute), now.Truncate(time.Hour)},
		{now.Add(-3 * time.Hour), now.Add(-3 * time.Hour).Truncate(time.Hour)},
		{now.Add(-maxBucketAge - time.Hour), now.Truncate(time.Hour)},
		{now.Add(48 * time.Hour), now.Truncate(time.Hour)},
		{time.Time{}, now.Truncate(time.Hour)},
	} {
		if got := bucketHour(tt.start, now); !got.Equal(tt.want) {
			t.Errorf("bucketHour(%v) = %v, want %v", tt.start, got, tt.want)
		}
	}
}

// Variant names of one row are bounded in number and length.
func TestClientMetricsVariantNamesAreBounded(t *testing.T) {
	ts := newTestServer(t)
	plantFlag(t, ts, store.DefaultProject, "f")
	variants := map[string]int64{strings.Repeat("v", maxLabelLen+1): 1}
	for i := range maxVariantNames + 8 {
		variants[fmt.Sprintf("v%02d", i)] = 1
	}
	report := madeUpReport("web", 0)
	report["bucket"].(map[string]any)["toggles"] = map[string]any{"f": map[string]any{"yes": 1, "variants": variants}}
	ts.request("POST", "/api/client/metrics", testClientToken, report).must(t, http.StatusAccepted)
	rows := flushedRows(t, ts, store.ClientMetricsFilter{})
	if len(rows) != 1 || len(rows[0].Variants) != maxVariantNames {
		t.Fatalf("rows %+v, want one with %d variants", rows, maxVariantNames)
	}
	for name := range rows[0].Variants {
		if len(name) > maxLabelLen {
			t.Errorf("variant name of %d bytes kept", len(name))
		}
	}
	if got := droppedCount(t, ts, dropVariantLimit); got != 9 {
		t.Errorf("%d variant names dropped, want 9", got)
	}
}

// reportAnswer is the status of an accepted report posted to path: 200 on
// the frontend API, 202 on the client API, as in Unleash.
func reportAnswer(path string) int {
	if strings.HasPrefix(path, "/api/frontend/") {
		return http.StatusOK
	}
	return http.StatusAccepted
}
