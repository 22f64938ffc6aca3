//go:build unix

package server

import "syscall"

// writeNoWait writes what of b the socket of raw takes now: a write on the
// non-blocking descriptor that, unlike net.Conn's Write, never parks to
// wait for room. ok is false when raw cannot be written so.
func writeNoWait(raw syscall.RawConn, b []byte) (n int, ok bool, err error) {
	cerr := raw.Write(func(fd uintptr) bool {
		for n < len(b) {
			m, werr := syscall.Write(int(fd), b[n:])
			if m > 0 {
				n += m
			}
			switch {
			case werr == syscall.EINTR:
				continue
			case werr == syscall.EAGAIN:
				return true // full: the rest is for the stream's own goroutine
			case werr != nil:
				err = werr
				return true
			case m <= 0:
				return true
			}
		}
		return true // true always: the runtime must not wait for room
	})
	if err == nil {
		err = cerr
	}
	return n, true, err
}
