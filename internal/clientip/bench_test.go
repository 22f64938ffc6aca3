package clientip

import (
	"net/http/httptest"
	"testing"
)

func BenchmarkClientIP(b *testing.B) {
	tr := MustParse("loopback, uniquelocal")
	r := httptest.NewRequest("GET", "/proxy", nil)
	r.RemoteAddr = "127.0.0.1:50000"
	r.Header.Add("X-Forwarded-For", "6.6.6.6, 203.0.113.5")
	r.Header.Add("X-Forwarded-For", "10.1.2.3, 192.168.1.1:8080")
	b.Run("Addr", func(b *testing.B) {
		b.ReportAllocs()
		xff := r.Header["X-Forwarded-For"]
		for b.Loop() {
			_ = tr.Addr(r.RemoteAddr, xff)
		}
	})
	b.Run("ClientIP", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = tr.ClientIP(r)
		}
	})
}
