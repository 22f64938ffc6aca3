//go:build unix

package privfile

import (
	"io/fs"
	"os"
	"syscall"
)

// modeChecks: Unix modes say who may write a file.
const modeChecks = true

func ownedByMe(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Geteuid()
}
