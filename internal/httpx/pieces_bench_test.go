//go:build linux

package httpx

import (
	"fmt"
	"io"
	"net"
	"runtime"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// BenchmarkPiecesToSocket sends an answer made of many pieces over loopback
// TCP in the two ways open to a server: copied into one buffer and written,
// or handed to the kernel as they lie in one vectored write (net.Buffers,
// writev). The pieces are every other one of a text twice the answer's
// size, as a template's runs lie among the outcomes an answer does not
// take. For many small pieces the kernel's cost per piece exceeds the copy
// it saves, and for fewer, larger ones nothing measurable is saved: so
// answers are copied together, and a held write and the next are copied up
// to coalesceCopyMax rather than sent as two pieces. The reader, on another
// goroutine, discards what it reads; cpu-ns/op is the writer's own thread's
// CPU time (the kernel's send path included), as a server's.
func BenchmarkPiecesToSocket(b *testing.B) {
	shapes := []struct{ pieces, size int }{{2500, 127}, {250, 1270}, {2, 2048}}
	for _, s := range shapes {
		for _, vectored := range []bool{false, true} {
			name := fmt.Sprintf("pieces=%d/size=%d/copy", s.pieces, s.size)
			if vectored {
				name = fmt.Sprintf("pieces=%d/size=%d/writev", s.pieces, s.size)
			}
			b.Run(name, func(b *testing.B) { benchPieces(b, s.pieces, s.size, vectored) })
		}
	}
}

func benchPieces(b *testing.B, pieces, size int, vectored bool) {
	conn, peer := loopbackPair(b)
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = io.Copy(io.Discard, peer)
	}()
	text := make([]byte, 2*pieces*size)
	for i := range text {
		text[i] = byte('a' + i%26)
	}
	parts := make([][]byte, pieces)
	for i := range parts {
		parts[i] = text[2*i*size : (2*i+1)*size]
	}
	buf := make([]byte, 0, pieces*size)
	bufs := make(net.Buffers, 0, pieces)
	v := new(net.Buffers) // WriteTo takes it up as it writes
	b.SetBytes(int64(pieces * size))
	b.ReportAllocs()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	cpu0 := threadCPU()
	for b.Loop() {
		var err error
		if vectored {
			*v = append(bufs[:0], parts...)
			_, err = v.WriteTo(conn.Conn)
		} else {
			buf = buf[:0]
			for _, p := range parts {
				buf = append(buf, p...)
			}
			_, err = conn.Conn.Write(buf)
		}
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(threadCPU()-cpu0)/float64(b.N), "cpu-ns/op")
	_ = conn.Conn.(*net.TCPConn).CloseWrite()
	<-done
}

// threadCPU is the user and system CPU time of the calling thread so far.
func threadCPU() time.Duration {
	var ru unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_THREAD, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
