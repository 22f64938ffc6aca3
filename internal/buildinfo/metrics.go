package buildinfo

import "github.com/prometheus/client_golang/prometheus"

// Gauge is the signalbox_build_info metric: always 1, labelled with the
// build's version, commit and Go version, as Prometheus exporters report
// their build.
func Gauge() prometheus.Collector {
	i := Get()
	g := prometheus.NewGauge(prometheus.GaugeOpts{
		Name:        "signalbox_build_info",
		Help:        "Always 1; the labels name the running build.",
		ConstLabels: prometheus.Labels{"version": i.Version, "commit": i.Commit, "goversion": i.GoVersion},
	})
	g.Set(1)
	return g
}
