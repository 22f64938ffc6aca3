package load

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// userHZ is the unit of the CPU times in /proc/<pid>/stat: the kernel
// reports them in USER_HZ ticks, 100 per second on every architecture Linux
// exposes to user space.
const userHZ = 100

// ReadCPU is the CPU time, user and system, that process pid and all its
// threads have used so far (10 ms resolution). It works on Linux only.
func ReadCPU(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, fmt.Errorf("CPU time of pid %d: %w", pid, err)
	}
	d, err := parseStat(string(b))
	if err != nil {
		return 0, fmt.Errorf("CPU time of pid %d: %w", pid, err)
	}
	return d, nil
}

// parseStat reads utime and stime, the 14th and 15th fields, from a
// /proc/<pid>/stat line. The second field is the command name in
// parentheses, which may itself hold spaces and parentheses, so fields are
// counted from the last ')'.
func parseStat(line string) (time.Duration, error) {
	i := strings.LastIndexByte(line, ')')
	if i < 0 {
		return 0, fmt.Errorf("unexpected stat line %q", line)
	}
	rest := strings.Fields(line[i+1:]) // from the 3rd field, the state
	const utime, stime = 14 - 3, 15 - 3
	if len(rest) <= stime {
		return 0, fmt.Errorf("unexpected stat line %q", line)
	}
	var ticks int64
	for _, f := range rest[utime : stime+1] {
		n, err := strconv.ParseInt(f, 10, 64)
		if err != nil || n < 0 {
			return 0, fmt.Errorf("unexpected stat line %q", line)
		}
		ticks += n
	}
	return time.Duration(ticks) * (time.Second / userHZ), nil
}
