package memtrim

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// DropExecutablePages unmaps the pages of the executable's read-only
// mappings (code, constants, tables) from the process, and reports the
// size of the address ranges it advised. Those pages are clean copies of
// the file: the ones still in use fault back in from the page cache on
// their next access (a minor fault, no disk read while the cache holds
// them), and the rest stop counting in the process's RSS. The kernel
// drops such pages itself whenever it needs the memory; this drops them
// now. Writable mappings are never touched, since dropping them would lose
// their data.
func DropExecutablePages() (int64, error) {
	exe, err := os.Readlink("/proc/self/exe")
	if err != nil {
		return 0, err
	}
	f, err := os.Open("/proc/self/maps")
	if err != nil {
		return 0, err
	}
	defer f.Close()
	var dropped int64
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		m, ok := parseMapping(sc.Text())
		if !ok || m.path != exe || !m.readOnly() {
			continue
		}
		if _, _, errno := syscall.Syscall(syscall.SYS_MADVISE, m.start, m.end-m.start, syscall.MADV_DONTNEED); errno != 0 {
			return dropped, fmt.Errorf("madvise %x-%x: %w", m.start, m.end, errno)
		}
		dropped += int64(m.end - m.start)
	}
	return dropped, sc.Err()
}

// mapping is one line of /proc/self/maps.
type mapping struct {
	start, end uintptr
	perms      string // "r-xp": read, write, execute, private or shared
	path       string
}

// readOnly reports whether m is private and cannot be written: its pages
// are the file's, unchanged.
func (m mapping) readOnly() bool {
	return len(m.perms) == 4 && m.perms[0] == 'r' && m.perms[1] == '-' && m.perms[3] == 'p'
}

// parseMapping reads a line such as
//
//	00400000-0127f000 r-xp 00000000 fe:00 9986261    /usr/bin/signalbox
//
// whose path, the rest of the line after five fields, may hold spaces.
func parseMapping(line string) (mapping, bool) {
	var m mapping
	rest := line
	var fields [5]string
	for i := range fields {
		rest = strings.TrimLeft(rest, " ")
		f, after, ok := strings.Cut(rest, " ")
		if !ok {
			return m, false
		}
		fields[i], rest = f, after
	}
	from, to, ok := strings.Cut(fields[0], "-")
	if !ok {
		return m, false
	}
	start, err1 := strconv.ParseUint(from, 16, 64)
	end, err2 := strconv.ParseUint(to, 16, 64)
	if err1 != nil || err2 != nil || end <= start {
		return m, false
	}
	m.start, m.end, m.perms = uintptr(start), uintptr(end), fields[1]
	m.path = strings.TrimLeft(rest, " ")
	return m, m.path != ""
}
