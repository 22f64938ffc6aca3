package server

import (
	"net"
	"syscall"
	"unsafe"
)

// socketOf is the descriptor of c's socket, for writes that never wait,
// or -1 when c has none.
func socketOf(c net.Conn) int {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return -1
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return -1
	}
	fd := -1
	if raw.Control(func(s uintptr) { fd = int(s) }) != nil {
		return -1
	}
	return fd
}

// sendNoWait writes what of b the socket fd takes now. It is the fan-out's
// inner loop, run for every stream on every change, so it calls send(2)
// with MSG_DONTWAIT directly: no descriptor lock, no poller reset and no
// scheduler hand-off, which together cost about as much as the kernel's
// own work for a small message. A raw system call is right here because a
// send that may not wait cannot block the thread.
func sendNoWait(fd int, b []byte) (n int, err error) {
	for n < len(b) {
		m, _, errno := syscall.RawSyscall6(syscall.SYS_SENDTO, uintptr(fd),
			uintptr(unsafe.Pointer(&b[n])), uintptr(len(b)-n),
			syscall.MSG_DONTWAIT|syscall.MSG_NOSIGNAL, 0, 0)
		switch {
		case errno == syscall.EINTR:
			continue
		case errno == syscall.EAGAIN:
			return n, nil // full: the rest is for the stream's own goroutine
		case errno != 0:
			return n, errno
		case m == 0:
			return n, nil
		}
		n += int(m)
	}
	return n, nil
}
