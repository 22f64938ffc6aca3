package proxy

import (
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// promMetrics are the proxy's own Prometheus series. Each Proxy has its own
// registry so that several proxies (tests, embedding) never collide.
type promMetrics struct {
	reg          *prometheus.Registry
	fetches      *prometheus.CounterVec
	metricsPosts *prometheus.CounterVec
	configTime   prometheus.Gauge
	handler      http.Handler
}

func newPromMetrics(p *Proxy) *promMetrics {
	reg := prometheus.NewRegistry()
	m := &promMetrics{
		reg: reg,
		fetches: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "signalbox_proxy_upstream_fetches_total",
			Help: "Polls of the upstream client API, by result (changed, unchanged, failed).",
		}, []string{"result"}),
		metricsPosts: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "signalbox_proxy_upstream_metrics_posts_total",
			Help: "Metrics buckets posted upstream, by result (sent, kept, dropped).",
		}, []string{"result"}),
		configTime: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "signalbox_proxy_config_updated_timestamp_seconds",
			Help: "When the configuration in use was installed.",
		}),
	}
	reg.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		m.fetches, m.metricsPosts, m.configTime,
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "signalbox_proxy_ready",
			Help: "1 once the proxy holds a configuration and serves requests.",
		}, func() float64 {
			if p.state.Load() != nil {
				return 1
			}
			return 0
		}),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "signalbox_proxy_flags",
			Help: "Flags in the configuration in use.",
		}, func() float64 {
			if st := p.state.Load(); st != nil {
				return float64(st.snap.Len())
			}
			return 0
		}),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "signalbox_proxy_metrics_pending_buckets",
			Help: "Usage metrics buckets waiting to be sent upstream.",
		}, func() float64 { return float64(p.usage.pendingLen()) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "signalbox_proxy_metrics_dropped_total",
			Help: "Usage counts dropped because the in-memory bounds were reached.",
		}, func() float64 { return float64(p.usage.droppedCount()) }),
	)
	m.handler = promhttp.HandlerFor(reg, promhttp.HandlerOpts{})
	return m
}
