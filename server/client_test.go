package server

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/signalbox/signalbox/clientapi"
	"github.com/signalbox/signalbox/internal/buildinfo"
	"github.com/signalbox/signalbox/store"
)

// seedFlag stores a flag enabled in development with one strategy, directly
// through the store (the admin API has its own tests).
func seedFlag(t *testing.T, ts *testServer, name string, st store.Strategy, variants ...clientapi.Variant) {
	t.Helper()
	ctx := withPrincipal(context.Background(), &Principal{Token: &store.APIToken{TokenName: "test"}})
	err := ts.srv.change(ctx, func(tx store.Tx) ([]store.Event, error) {
		if _, err := tx.CreateFeature(ctx, store.Feature{Name: name, Project: store.DefaultProject, Type: "release", ImpressionData: true}); err != nil {
			return nil, err
		}
		if _, err := tx.UpdateFeatureEnvironment(ctx, store.FeatureEnvironment{Feature: name, Environment: store.EnvDevelopment, Enabled: true, Variants: variants}); err != nil {
			return nil, err
		}
		st.Feature, st.Environment = name, store.EnvDevelopment
		if _, err := tx.CreateStrategy(ctx, st); err != nil {
			return nil, err
		}
		return []store.Event{{Type: "feature-created", Project: store.DefaultProject, FeatureName: name}}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestClientFeaturesServesChangesAndFilters(t *testing.T) {
	ts := newTestServer(t)
	before := ts.request("GET", "/api/client/features", testClientToken, nil).must(t, http.StatusOK)
	seedFlag(t, ts, "team.checkout", store.Strategy{Name: "flexibleRollout", Parameters: clientapi.Parameters{"rollout": "100", "stickiness": "default", "groupId": "team.checkout"}})
	seedFlag(t, ts, "other.search", store.Strategy{Name: "default"})
	after := ts.request("GET", "/api/client/features", testClientToken, nil).must(t, http.StatusOK)
	if after.Header.Get("ETag") == before.Header.Get("ETag") {
		t.Error("ETag must change after a write")
	}
	var payload clientapi.Features
	after.Decode(t, &payload)
	if len(payload.Features) != 2 || payload.Segments == nil {
		t.Fatalf("payload %s", after.Body)
	}
	f := payload.Features[1]
	if f.Name != "team.checkout" || !f.Enabled || len(f.Strategies) != 1 || f.Strategies[0].Parameters["rollout"] != "100" || !f.ImpressionData {
		t.Errorf("feature %+v", f)
	}
	// Filters.
	var filtered clientapi.Features
	ts.request("GET", "/api/client/features?namePrefix=team.", testClientToken, nil).must(t, http.StatusOK).Decode(t, &filtered)
	if len(filtered.Features) != 1 || filtered.Features[0].Name != "team.checkout" {
		t.Errorf("namePrefix filter gave %+v", filtered.Features)
	}
	ts.request("GET", "/api/client/features?project=nope", testClientToken, nil).must(t, http.StatusOK).Decode(t, &filtered)
	if len(filtered.Features) != 0 {
		t.Errorf("project filter outside the token gave %+v", filtered.Features)
	}
	// One feature by name.
	ts.request("GET", "/api/client/features/other.search", testClientToken, nil).must(t, http.StatusOK)
	ts.request("GET", "/api/client/features/missing", testClientToken, nil).must(t, http.StatusNotFound)
	// The production token sees the flags, off there.
	var prod clientapi.Features
	ts.request("GET", "/api/client/features", testProdToken, nil).must(t, http.StatusOK).Decode(t, &prod)
	if len(prod.Features) != 2 || prod.Features[0].Enabled {
		t.Errorf("production payload %+v", prod.Features)
	}
}

func TestClientRegisterAndMetrics(t *testing.T) {
	ts := newTestServer(t)
	seedFlag(t, ts, "f1", store.Strategy{Name: "default"})
	reg := clientapi.Registration{AppName: "web", InstanceID: "i-1", SDKVersion: "unleash-client-node:6.0.0", Strategies: []string{"default"}, Started: time.Now(), Interval: 15000}
	ts.request("POST", "/api/client/register", testClientToken, reg).must(t, http.StatusAccepted)
	ts.request("POST", "/api/client/register", testClientToken, map[string]any{"instanceId": "x"}).must(t, http.StatusBadRequest)
	ts.request("POST", "/api/client/register", testClientToken, "{not json").must(t, http.StatusBadRequest)

	now := time.Now().UTC()
	m := clientapi.Metrics{AppName: "web", InstanceID: "i-1", Bucket: clientapi.MetricsBucket{
		Start: now.Add(-time.Minute), Stop: now,
		Toggles: map[string]clientapi.ToggleCount{"f1": {Yes: 3, No: 1, Variants: map[string]int64{"disabled": 4}}},
	}}
	for range 3 { // several reports aggregate into one row
		ts.request("POST", "/api/client/metrics", testClientToken, m).must(t, http.StatusAccepted)
	}
	ts.request("POST", "/api/client/metrics", testClientToken, map[string]any{"appName": "web"}).must(t, http.StatusBadRequest)
	if err := ts.srv.FlushMetrics(context.Background()); err != nil {
		t.Fatal(err)
	}
	var rows []store.ClientMetric
	var apps []store.ClientApplication
	err := ts.srv.store.View(context.Background(), func(r store.Reader) (err error) {
		if rows, err = r.ListClientMetrics(context.Background(), store.ClientMetricsFilter{Feature: "f1"}); err != nil {
			return err
		}
		apps, err = r.ListClientApplications(context.Background())
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 || rows[0].Yes != 9 || rows[0].No != 3 || rows[0].Environment != "development" || rows[0].Variants["disabled"] != 12 {
		t.Errorf("metrics rows %+v", rows)
	}
	if len(apps) != 1 || apps[0].AppName != "web" {
		t.Errorf("applications %+v", apps)
	}
	prom := ts.request("GET", "/internal-backstage/prometheus", "", nil).must(t, http.StatusOK)
	if !strings.Contains(string(prom.Body), `feature_toggle_usage_total{active="true",appName="web",toggle="f1"} 9`) {
		t.Errorf("usage counter missing from prometheus output")
	}
	if !strings.Contains(string(prom.Body), `http_requests_total{method="POST",route="POST /api/client/metrics",status="202"} 3`) {
		t.Errorf("request counter by route missing from prometheus output")
	}
	bi := buildinfo.Get()
	if want := fmt.Sprintf(`signalbox_build_info{commit=%q,goversion=%q,version=%q} 1`, bi.Commit, bi.GoVersion, bi.Version); !strings.Contains(string(prom.Body), want) {
		t.Errorf("%s missing from prometheus output", want)
	}
}

func TestFrontendAPI(t *testing.T) {
	ts := newTestServer(t)
	seedFlag(t, ts, "beta", store.Strategy{Name: "userWithId", Parameters: clientapi.Parameters{"userIds": "7"}},
		clientapi.Variant{Name: "blue", Weight: 1000, Payload: &clientapi.Payload{Type: "string", Value: "b"}})
	seedFlag(t, ts, "always", store.Strategy{Name: "default"})
	var got clientapi.Toggles
	ts.request("GET", "/api/frontend?userId=7", testFrontendToken, nil).must(t, http.StatusOK).Decode(t, &got)
	if len(got.Toggles) != 2 || got.Toggles[0].Name != "always" || got.Toggles[1].Variant.Name != "blue" || got.Toggles[1].Variant.Payload.Value != "b" || !got.Toggles[1].ImpressionData {
		t.Errorf("GET toggles %+v", got.Toggles)
	}
	ts.request("GET", "/api/frontend?userId=8", testFrontendToken, nil).must(t, http.StatusOK).Decode(t, &got)
	if len(got.Toggles) != 1 {
		t.Errorf("user 8 toggles %+v", got.Toggles)
	}
	res := ts.request("POST", "/api/frontend", testFrontendToken, map[string]any{"context": map[string]any{"userId": "8"}, "toggles": []string{"beta", "ghost"}}).must(t, http.StatusOK)
	res.Decode(t, &got)
	if len(got.Toggles) != 2 || got.Toggles[0].Enabled || got.Toggles[1].Name != "ghost" || got.Toggles[1].Variant.Name != "disabled" {
		t.Errorf("POST toggles %s", res.Body)
	}
	for _, secret := range []string{"userWithId", "userIds", "strategies", "constraints"} {
		if strings.Contains(string(res.Body), secret) {
			t.Errorf("frontend answer leaks %q: %s", secret, res.Body)
		}
	}
	ts.request("GET", "/api/frontend", testClientToken, nil).must(t, http.StatusForbidden)
}

// BenchmarkClientFeatures measures GET /api/client/features in-process at
// several payload sizes: the 200 path (cached body), its gzip form (with
// the compressed answer's size) and the 304 path.
func BenchmarkClientFeatures(b *testing.B) {
	for _, n := range []int{60, 500, 5000} {
		t := &testing.T{}
		ts := newBenchServer(b, t, n)
		h := ts.srv.Handler()
		req, _ := http.NewRequest("GET", "/api/client/features", nil)
		req.Header.Set("Authorization", testClientToken)
		rec := newDiscardRecorder()
		h.ServeHTTP(rec, req)
		etag := rec.Header().Get("ETag")
		b.Run(fmt.Sprintf("200/%d", n), func(b *testing.B) {
			serveEach(b, h, rec, http.StatusOK, func() *http.Request { return req })
			b.SetBytes(int64(rec.n))
		})
		gz := req.Clone(req.Context())
		gz.Header.Set("Accept-Encoding", "gzip")
		b.Run(fmt.Sprintf("200-gzip/%d", n), func(b *testing.B) {
			serveEach(b, h, rec, http.StatusOK, func() *http.Request { return gz })
			b.ReportMetric(float64(rec.n), "gzip-bytes")
		})
		cond := req.Clone(req.Context())
		cond.Header.Set("If-None-Match", etag)
		b.Run(fmt.Sprintf("304/%d", n), func(b *testing.B) {
			serveEach(b, h, rec, http.StatusNotModified, func() *http.Request { return cond })
		})
	}
}

func TestClientFeaturesGzip(t *testing.T) {
	ts := newTestServer(t)
	seedFlag(t, ts, "zipped", store.Strategy{Name: "default"})
	plain := ts.request("GET", "/api/client/features", testClientToken, nil, "Accept-Encoding", "identity").must(t, http.StatusOK)
	if plain.Header.Get("Content-Encoding") != "" {
		t.Fatalf("identity request got Content-Encoding %q", plain.Header.Get("Content-Encoding"))
	}
	for _, accept := range []string{"gzip", "br, gzip;q=0.8", "*"} {
		res := ts.request("GET", "/api/client/features", testClientToken, nil, "Accept-Encoding", accept).must(t, http.StatusOK)
		if res.Header.Get("Content-Encoding") != "gzip" || res.Header.Get("ETag") != plain.Header.Get("ETag") {
			t.Errorf("%q: encoding %q, etag %q", accept, res.Header.Get("Content-Encoding"), res.Header.Get("ETag"))
			continue
		}
		zr, err := gzip.NewReader(bytes.NewReader(res.Body))
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(zr)
		if !bytes.Equal(got, plain.Body) {
			t.Errorf("%q: gzip body differs from the plain one", accept)
		}
	}
	if res := ts.request("GET", "/api/client/features", testClientToken, nil, "Accept-Encoding", "gzip;q=0"); res.Header.Get("Content-Encoding") != "" {
		t.Error("gzip;q=0 must not be gzipped")
	}
}
