package buildinfo

import (
	"runtime/debug"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
)

func TestFrom(t *testing.T) {
	vcs := &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
		{Key: "vcs.revision", Value: "0123456789abcdef0123"},
		{Key: "vcs.time", Value: "2026-01-02T03:04:05Z"},
		{Key: "vcs.modified", Value: "true"},
	}}
	for _, tt := range []struct {
		name                  string
		version, commit, date string
		info                  *debug.BuildInfo
		want                  string
	}{
		{"stamped", "v1.2.3", "abc1234", "2026-02-03T00:00:00Z", vcs,
			"signalbox v1.2.3 (commit abc1234, built 2026-02-03T00:00:00Z, go go1.26.0)"},
		{"vcs settings", "", "", "", vcs,
			"signalbox devel (commit 0123456789ab-dirty, built 2026-01-02T03:04:05Z, go go1.26.0)"},
		{"go install of a release", "", "", "", &debug.BuildInfo{GoVersion: "go1.26.1", Main: debug.Module{Version: "v1.4.0"}},
			"signalbox v1.4.0 (commit unknown, built unknown, go go1.26.1)"},
		{"no vcs", "", "", "", &debug.BuildInfo{GoVersion: "go1.26.1", Main: debug.Module{Version: "(devel)"}},
			"signalbox devel (commit unknown, built unknown, go go1.26.1)"},
	} {
		if got := from(tt.version, tt.commit, tt.date, tt.info).String(); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
	if got := from("", "", "", nil); got.Version != "devel" || !strings.HasPrefix(got.GoVersion, "go") {
		t.Errorf("without build information: %+v", got)
	}
}

func TestUserAgent(t *testing.T) {
	if got := UserAgent("proxy"); got != "signalbox-proxy/"+Version() || strings.ContainsAny(got, " \r\n") {
		t.Errorf("UserAgent: %q", got)
	}
}

func TestGauge(t *testing.T) {
	reg := prometheus.NewRegistry()
	reg.MustRegister(Gauge())
	mfs, err := reg.Gather()
	if err != nil || len(mfs) != 1 || mfs[0].GetName() != "signalbox_build_info" || len(mfs[0].GetMetric()) != 1 {
		t.Fatalf("gathered %v, %v", mfs, err)
	}
	m := mfs[0].GetMetric()[0]
	labels := map[string]string{}
	for _, l := range m.GetLabel() {
		labels[l.GetName()] = l.GetValue()
	}
	i := Get()
	if m.GetGauge().GetValue() != 1 || labels["version"] != i.Version || labels["commit"] != i.Commit || labels["goversion"] != i.GoVersion {
		t.Errorf("signalbox_build_info: %v = %v", labels, m.GetGauge().GetValue())
	}
}
