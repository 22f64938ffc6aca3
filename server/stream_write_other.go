//go:build !unix

package server

import "syscall"

// writeNoWait is not offered here: streams write with a short deadline.
func writeNoWait(syscall.RawConn, []byte) (int, bool, error) { return 0, false, nil }
