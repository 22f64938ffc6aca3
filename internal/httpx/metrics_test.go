package httpx

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus"
)

func newRegistry() *prometheus.Registry { return prometheus.NewRegistry() }

// series returns "name{label=value,...} count" for every series of the two
// metrics, sorted, with histogram series reporting their sample count.
func series(t *testing.T, reg *prometheus.Registry) []string {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, mf := range mfs {
		for _, m := range mf.GetMetric() {
			var labels []string
			for _, lp := range m.GetLabel() {
				labels = append(labels, lp.GetName()+"="+lp.GetValue())
			}
			var n uint64
			if c := m.GetCounter(); c != nil {
				n = uint64(c.GetValue())
			} else {
				n = m.GetHistogram().GetSampleCount()
			}
			out = append(out, mf.GetName()+"{"+strings.Join(labels, ",")+"} "+itoa(n))
		}
	}
	sort.Strings(out)
	return out
}

func itoa(n uint64) string {
	if n == 0 {
		return "0"
	}
	var b []byte
	for ; n > 0; n /= 10 {
		b = append([]byte{byte('0' + n%10)}, b...)
	}
	return string(b)
}

func TestHTTPMetrics(t *testing.T) {
	reg := newRegistry()
	metrics, err := HTTPMetrics(reg)
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/admin/projects/{id}", func(w http.ResponseWriter, r *http.Request) {
		if r.PathValue("id") == "gone" {
			w.WriteHeader(http.StatusNotFound)
		}
	})
	mux.HandleFunc("POST /boom", func(http.ResponseWriter, *http.Request) { panic("boom") })
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	h := Chain(mux, Recover(quiet), AccessLog(quiet), metrics, JSONMisses())

	for _, req := range []struct{ method, path string }{
		{"GET", "/api/admin/projects/a"},
		{"GET", "/api/admin/projects/b"},
		{"GET", "/api/admin/projects/gone"},
		{"GET", "/random/path/1"},
		{"GET", "/random/path/2"},
		{"DELETE", "/api/admin/projects/a"},
		{"BREW", "/api/admin/projects/a"},
		{"POST", "/boom"},
	} {
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(req.method, req.path, nil))
	}
	want := []string{
		"http_request_duration_seconds{method=DELETE,route=unmatched} 1",
		"http_request_duration_seconds{method=GET,route=GET /api/admin/projects/{id}} 3",
		"http_request_duration_seconds{method=GET,route=unmatched} 2",
		"http_request_duration_seconds{method=OTHER,route=unmatched} 1",
		"http_request_duration_seconds{method=POST,route=POST /boom} 1",
		"http_requests_total{method=DELETE,route=unmatched,status=405} 1",
		"http_requests_total{method=GET,route=GET /api/admin/projects/{id},status=200} 2",
		"http_requests_total{method=GET,route=GET /api/admin/projects/{id},status=404} 1",
		"http_requests_total{method=GET,route=unmatched,status=404} 2",
		"http_requests_total{method=OTHER,route=unmatched,status=405} 1",
		"http_requests_total{method=POST,route=POST /boom,status=500} 1",
	}
	if diff := cmp.Diff(want, series(t, reg)); diff != "" {
		t.Errorf("series (-want +got):\n%s", diff)
	}
}

func TestHTTPMetricsCatchAllIsUnmatched(t *testing.T) {
	reg := newRegistry()
	metrics, err := HTTPMetrics(reg)
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /proxy", func(http.ResponseWriter, *http.Request) {})
	mux.Handle("/", NotFoundHandler())
	h := Chain(mux, metrics)
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/proxy", nil))
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/whatever", nil))
	want := []string{
		"http_request_duration_seconds{method=GET,route=GET /proxy} 1",
		"http_request_duration_seconds{method=GET,route=unmatched} 1",
		"http_requests_total{method=GET,route=GET /proxy,status=200} 1",
		"http_requests_total{method=GET,route=unmatched,status=404} 1",
	}
	if diff := cmp.Diff(want, series(t, reg)); diff != "" {
		t.Errorf("series (-want +got):\n%s", diff)
	}
}

func TestHTTPMetricsRegistration(t *testing.T) {
	reg := newRegistry()
	if _, err := HTTPMetrics(reg); err != nil {
		t.Fatal(err)
	}
	// A second instance on the same registry shares the collectors.
	if _, err := HTTPMetrics(reg); err != nil {
		t.Errorf("second HTTPMetrics on one registry: %v", err)
	}
	// A clashing collector of another shape is an error, not a panic.
	other := newRegistry()
	other.MustRegister(prometheus.NewCounter(prometheus.CounterOpts{Name: "http_requests_total", Help: "x"}))
	if _, err := HTTPMetrics(other); err == nil {
		t.Error("HTTPMetrics over a clashing collector succeeded")
	}
}
