package proxy

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/signalbox/signalbox/clientapi"
	"github.com/signalbox/signalbox/engine"
)

// TestMetricsReachUpstream: POST /proxy with a toggles list and what a
// browser SDK posts are counted and sent with the compat-facts shape; GET
// /proxy and POST without a list are not counted.
func TestMetricsReachUpstream(t *testing.T) {
	up := newFakeUpstream(t)
	h := startProxy(t, testConfig(t, up.url()))
	h.waitReady(t)

	h.do(t, "GET", "/proxy", "")
	h.do(t, "POST", "/proxy", `{"context":{}}`)
	for range 3 {
		h.do(t, "POST", "/proxy", `{"context":{"userId":"alice","properties":{"email":"zed@example.com"}},"toggles":["leak-alice-only","on-default","ghost"]}`)
	}
	resp, body := h.do(t, "POST", "/proxy/client/metrics", `{"appName":"web","instanceId":"browser","environment":"x",
		"bucket":{"start":"2026-01-01T00:00:00.000Z","stop":"2026-01-01T00:00:10.000Z",
		"toggles":{"on-default":{"yes":5,"no":1,"variants":{"disabled":6}},"sdk-only":{"yes":0,"no":2}}},"impactMetrics":[]}`)
	expectStatus(t, resp, body, http.StatusOK)
	if string(body) != "OK" {
		t.Errorf("metrics answer %q", body)
	}

	want := map[string]clientapi.ToggleCount{
		"leak-alice-only": {Yes: 3, Variants: map[string]int64{"disabled": 3}},
		"on-default":      {Yes: 8, No: 1, Variants: map[string]int64{"disabled": 9}},
		"ghost":           {No: 3, Variants: map[string]int64{"disabled": 3}},
		"sdk-only":        {No: 2},
	}
	waitFor(t, "metrics upstream", func() bool { return cmp.Equal(want, up.sumMetrics(t)) })
	if diff := cmp.Diff(want, up.sumMetrics(t)); diff != "" {
		t.Errorf("counts (-want +got):\n%s", diff)
	}

	post := up.metricsPosts()[0]
	var m map[string]json.RawMessage
	if err := json.Unmarshal(post.body, &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"appName", "instanceId", "connectionId", "bucket", "platformName", "platformVersion", "specVersion"} {
		if _, ok := m[k]; !ok {
			t.Errorf("metrics body lacks %s: %s", k, post.body)
		}
	}
	var bucket struct {
		Start, Stop time.Time
		Toggles     map[string]json.RawMessage
	}
	if err := json.Unmarshal(m["bucket"], &bucket); err != nil || bucket.Start.IsZero() || bucket.Stop.Before(bucket.Start) {
		t.Errorf("bucket %s: %v", m["bucket"], err)
	}
	if post.header.Get("Authorization") != testToken || post.header.Get("Unleash-Interval") != "50" ||
		post.header.Get("Content-Type") != "application/json" || post.header.Get("Unleash-Appname") != testAppName {
		t.Errorf("metrics headers %v", post.header)
	}
	if strings.Contains(string(post.body), "zed@example.com") || strings.Contains(string(post.body), "userId") {
		t.Errorf("end-user context sent upstream: %s", post.body)
	}
}

// TestMetricsSurviveOutage: counts made while the upstream refuses them
// are delivered once it is back.
func TestMetricsSurviveOutage(t *testing.T) {
	up := newFakeUpstream(t)
	up.set(func(f *fakeUpstream) { f.metricsOK = false })
	h := startProxy(t, testConfig(t, up.url()))
	h.waitReady(t)
	for range 4 {
		h.do(t, "POST", "/proxy", `{"toggles":["on-default"]}`)
		time.Sleep(60 * time.Millisecond) // spread over several buckets
	}
	waitFor(t, "buckets kept", func() bool { return h.p.usage.pendingLen() >= 2 })
	up.set(func(f *fakeUpstream) { f.metricsOK = true })
	waitFor(t, "delivery after the outage", func() bool { return up.sumMetrics(t)["on-default"].Yes == 4 })
	if strings.Count(h.logs.String(), "cannot send metrics") != 1 {
		t.Errorf("outage logged more than once:\n%s", h.logs.String())
	}
}

// TestMetricsFlushedOnShutdown: stopping Run sends what is held.
func TestMetricsFlushedOnShutdown(t *testing.T) {
	up := newFakeUpstream(t)
	cfg := testConfig(t, up.url())
	cfg.MetricsInterval = time.Hour
	h := startProxy(t, cfg)
	h.waitReady(t)
	h.do(t, "POST", "/proxy", `{"toggles":["on-default","with-variants"]}`)
	if len(up.metricsPosts()) != 0 {
		t.Fatal("metrics sent before the interval")
	}
	h.stop()
	got := up.sumMetrics(t)
	if got["on-default"].Yes != 1 || got["with-variants"].Yes != 1 {
		t.Errorf("after shutdown %+v", got)
	}
}

func TestMetricsJitter(t *testing.T) {
	up := newFakeUpstream(t)
	cfg := testConfig(t, up.url())
	cfg.MetricsInterval = 20 * time.Millisecond
	cfg.MetricsJitter = 30 * time.Millisecond
	h := startProxy(t, cfg)
	h.waitReady(t)
	start := time.Now()
	h.do(t, "POST", "/proxy", `{"toggles":["on-default"]}`)
	waitFor(t, "metrics with jitter", func() bool { return up.sumMetrics(t)["on-default"].Yes == 1 })
	// Bounded: interval + jitter plus scheduling slack.
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("took %v", d)
	}
}

func TestClientMetricsValidation(t *testing.T) {
	up := newFakeUpstream(t)
	h := startProxy(t, testConfig(t, up.url()))
	h.waitReady(t)
	good := `{"appName":"a","instanceId":"i","bucket":{"start":"2026-01-01T00:00:00Z","stop":1767225600000,"toggles":{}}}`
	for _, tc := range []struct {
		name, body, key string
		want            int
	}{
		{"good", good, testClientKey, 200},
		{"good without key", good, "", 401},
		{"good with wrong key", good, "nope", 401},
		{"bad body without key is 400 first", `{"appName":"a"}`, "", 400},
		{"missing bucket", `{"appName":"a","instanceId":"i"}`, testClientKey, 400},
		{"bad date", `{"appName":"a","instanceId":"i","bucket":{"start":"yesterday","stop":"2026-01-01T00:00:00Z"}}`, testClientKey, 400},
		{"negative count", `{"appName":"a","instanceId":"i","bucket":{"start":1,"stop":2,"toggles":{"x":{"yes":-1}}}}`, testClientKey, 400},
		{"count not a number", `{"appName":"a","instanceId":"i","bucket":{"start":1,"stop":2,"toggles":{"x":{"yes":"5"}}}}`, testClientKey, 400},
		{"empty body", ``, testClientKey, 400},
		{"malformed", `{`, testClientKey, 400},
		{"text/plain", "", testClientKey, 415},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hdr := []string{"Authorization", tc.key}
			body := tc.body
			if tc.name == "text/plain" {
				body = good
				hdr = append(hdr, "Content-Type", "text/plain")
			}
			resp, b := h.do(t, "POST", "/proxy/client/metrics", body, hdr...)
			expectStatus(t, resp, b, tc.want)
			if tc.want == 400 && !strings.Contains(string(b), `"error"`) {
				t.Errorf("400 body %s", b)
			}
		})
	}
	// The reference's OpenAPI also lists /proxy/all/client/metrics.
	resp, b := h.do(t, "POST", "/proxy/all/client/metrics", good)
	expectStatus(t, resp, b, 200)
}

func TestClientRegister(t *testing.T) {
	up := newFakeUpstream(t)
	cfg := testConfig(t, up.url())
	cfg.ExpServerSideSDKConfig.Tokens = []string{"server-token"}
	h := startProxy(t, cfg)
	h.waitReady(t)
	good := `{"appName":"mobile","instanceId":"phone-1","sdkVersion":"x:1","interval":10000,"started":"2026-01-01T00:00:00Z","strategies":["default"]}`
	resp, body := h.do(t, "POST", "/proxy/client/register", good)
	expectStatus(t, resp, body, 200)
	resp, body = h.do(t, "POST", "/proxy/client/register", good, "Authorization", "server-token")
	expectStatus(t, resp, body, 200)
	resp, body = h.do(t, "POST", "/proxy/client/register", good, "Authorization", "")
	expectStatus(t, resp, body, 401)
	resp, body = h.do(t, "POST", "/proxy/client/register", `{"appName":"mobile"}`)
	expectStatus(t, resp, body, 400)
	waitFor(t, "forwarded registration", func() bool {
		for _, r := range up.registerPosts() {
			if strings.Contains(string(r.body), `"appName":"mobile"`) && r.header.Get("Authorization") == testToken {
				return true
			}
		}
		return false
	})
}

func TestUsageBounds(t *testing.T) {
	now := time.Unix(0, 0)
	u := newUsage(func() time.Time { now = now.Add(time.Second); return now })
	// Distinct known names beyond the bound are dropped and counted.
	for i := range maxToggleNames + 10 {
		u.countResults([]engine.Result{{Name: fmt.Sprint("f", i), Found: true, Enabled: true, Variant: engine.Variant{Name: "disabled"}}})
	}
	if u.droppedCount() != 10 {
		t.Errorf("dropped %d, want 10", u.droppedCount())
	}
	u.take()
	// Unknown names have a smaller share, and overlong names none.
	for i := range maxUnknownNames + 5 {
		u.countResults([]engine.Result{{Name: fmt.Sprint("ghost", i)}})
	}
	u.countResults([]engine.Result{{Name: strings.Repeat("x", maxNameLen+1), Found: true}})
	if got := len(u.toggles); got != maxUnknownNames {
		t.Errorf("%d unknown names kept, want %d", got, maxUnknownNames)
	}
	u.take()
	// Variant names per flag are bounded too.
	bucket := clientapi.MetricsBucket{Toggles: map[string]clientapi.ToggleCount{"f": {Variants: map[string]int64{}}}}
	for i := range maxVariantNames + 5 {
		bucket.Toggles["f"].Variants[fmt.Sprint("v", i)] = 1
	}
	u.addBucket(bucket, func(string) bool { return true })
	if got := len(u.toggles["f"].Variants); got != maxVariantNames {
		t.Errorf("%d variants kept", got)
	}
}

// TestUsagePendingMerge: unsent buckets never grow past the bound; the
// oldest are merged and no count is lost.
func TestUsagePendingMerge(t *testing.T) {
	now := time.Unix(0, 0)
	u := newUsage(func() time.Time { now = now.Add(time.Second); return now })
	for range 3 * maxPendingBucket {
		u.countResults([]engine.Result{{Name: "a", Enabled: true, Variant: engine.Variant{Name: "v"}}, {Name: "b"}})
		u.giveBack(u.take()) // every send fails
	}
	if n := u.pendingLen(); n != maxPendingBucket {
		t.Fatalf("%d pending buckets, want %d", n, maxPendingBucket)
	}
	all := u.take()
	var yes, no, v int64
	for i, b := range all {
		yes += b.Toggles["a"].Yes
		v += b.Toggles["a"].Variants["v"]
		no += b.Toggles["b"].No
		if i > 0 && b.Start.Before(all[i-1].Stop) {
			t.Errorf("buckets overlap: %v before %v", b.Start, all[i-1].Stop)
		}
	}
	if yes != 30 || no != 30 || v != 30 {
		t.Errorf("counts after merging: yes %d no %d variants %d, want 30 each", yes, no, v)
	}
	if !all[0].Start.Equal(time.Unix(1, 0)) {
		t.Errorf("merged bucket starts %v", all[0].Start)
	}
}
