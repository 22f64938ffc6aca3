package load

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"net/url"
	"syscall"
	"testing"
	"time"
)

// trivialServer answers every request on a connection with the same bytes,
// doing as little as it can, so a benchmark against it measures the client.
// It finds requests by their blank line, so it serves bodiless requests only.
func trivialServer(b *testing.B, answer string) string {
	b.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = ln.Close() })
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer conn.Close()
				buf, out := make([]byte, 64<<10), make([]byte, 0, 64<<10)
				have := 0
				for {
					n, err := conn.Read(buf[have:])
					if err != nil {
						return
					}
					have += n
					out, done := out[:0], 0
					for {
						i := bytes.Index(buf[done:have], []byte("\r\n\r\n"))
						if i < 0 {
							break
						}
						done += i + 4
						out = append(out, answer...)
					}
					have = copy(buf, buf[done:have])
					if _, err := conn.Write(out); err != nil {
						return
					}
				}
			}()
		}
	}()
	return "http://" + ln.Addr().String() + "/api/client/features"
}

// processCPU is the CPU time, user and system, this process has used.
func processCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkClient is the generator's cost per request, one worker in a
// closed loop; the server's share of each op is small but not nothing.
// Compare raw with net-http, the client plain http used before.
func BenchmarkClient(b *testing.B) {
	answers := map[string]string{
		"304":   "HTTP/1.1 304 Not Modified\r\nEtag: \"x\"\r\nDate: Thu, 26 Nov 2026 23:00:00 GMT\r\n\r\n",
		"1.5KB": "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Encoding: gzip\r\nConnection: keep-alive\r\nKeep-Alive: timeout=5\r\nContent-Length: 1500\r\n\r\n" + string(make([]byte, 1500)),
	}
	for _, name := range []string{"304", "1.5KB"} {
		rawURL := trivialServer(b, answers[name])
		for _, client := range []string{"raw", "net-http"} {
			for _, unique := range []string{"", "u"} {
				label := name + "/" + client
				if unique != "" {
					label += "/unique"
				}
				b.Run(label, func(b *testing.B) {
					cfg, err := Config{URL: rawURL, Requests: 1, UniqueParam: unique, Header: http.Header{"Authorization": {"token"}}}.withDefaults()
					if err != nil {
						b.Fatal(err)
					}
					u, _ := url.Parse(rawURL)
					var s sender
					if client == "raw" {
						s, err = newRawClient(context.Background(), cfg, u, &uniqueValues{})
					} else {
						c := newClient(cfg)
						defer c.CloseIdleConnections()
						s, err = newStdClient(context.Background(), cfg, u, c, &uniqueValues{})
					}
					if err != nil {
						b.Fatal(err)
					}
					defer s.close()
					// The first request dials; the loop measures the steady state.
					if _, _, err := s.send(); err != nil {
						b.Fatal(err)
					}
					b.ReportAllocs()
					cpu := processCPU()
					for b.Loop() {
						if _, _, err := s.send(); err != nil {
							b.Fatal(err)
						}
					}
					// Wall time per op is mostly waiting on the loopback; CPU
					// time (client and server together) is what limits a core.
					b.ReportMetric(float64(processCPU()-cpu)/float64(b.N), "cpu-ns/op")
				})
			}
		}
	}
}
