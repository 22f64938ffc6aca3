//go:build !linux

package server

import (
	"errors"
	"net"
)

// socketOf offers no descriptor here: taken streams write through the
// connection with a short deadline instead.
func socketOf(net.Conn) int { return -1 }

func sendNoWait(int, []byte) (int, error) { return 0, errors.ErrUnsupported }
