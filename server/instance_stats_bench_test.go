package server

import (
	"net/http"
	"testing"
)

// BenchmarkInstanceStats measures the statistics behind
// GET /api/admin/instance-admin/statistics at 5,000 flags, each with its
// generated strategies and constraints.
//
//	go test -run '^$' -bench BenchmarkInstanceStats ./server
func BenchmarkInstanceStats(b *testing.B) {
	ts := newBenchServer(b, nil, 5000)
	req, _ := http.NewRequest("GET", "/api/admin/instance-admin/statistics", nil)
	if _, err := ts.srv.instanceStats(req); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		out, err := ts.srv.instanceStats(req)
		if err != nil {
			b.Fatal(err)
		}
		if out.FeatureToggles != 5000 || out.MaxEnvironmentStrategies == 0 {
			b.Fatalf("stats %+v", out)
		}
	}
}
