package load

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// MemorySample is a process's memory use as Linux reports it in
// /proc/<pid>/status.
type MemorySample struct {
	// RSS is the resident set size now (VmRSS), in bytes.
	RSS int64 `json:"rss_bytes"`
	// Peak is the largest RSS over the process's whole life so far (VmHWM),
	// in bytes; it includes anything before the run.
	Peak int64 `json:"peak_rss_bytes"`
	// Anon is the anonymous part of RSS (RssAnon): the process's own
	// memory, heap and stacks, without the pages of its executable and
	// libraries, which the page cache shares. Zero on kernels without it.
	Anon int64 `json:"anon_rss_bytes,omitempty"`
}

// ReadMemory reads VmRSS, VmHWM and RssAnon of process pid. It works on Linux only.
func ReadMemory(pid int) (MemorySample, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return MemorySample{}, fmt.Errorf("memory of pid %d: %w", pid, err)
	}
	defer f.Close()
	m, err := parseStatus(f)
	if err != nil {
		return MemorySample{}, fmt.Errorf("memory of pid %d: %w", pid, err)
	}
	return m, nil
}

// parseStatus reads the VmRSS, VmHWM and (when present) RssAnon lines
// ("VmRSS:\t  1234 kB") of a /proc/<pid>/status file.
func parseStatus(r io.Reader) (MemorySample, error) {
	var m MemorySample
	var haveRSS, havePeak bool
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		key, val, ok := strings.Cut(sc.Text(), ":")
		if !ok || (key != "VmRSS" && key != "VmHWM" && key != "RssAnon") {
			continue
		}
		fields := strings.Fields(val)
		if len(fields) != 2 || fields[1] != "kB" {
			return m, fmt.Errorf("unexpected %s line %q", key, sc.Text())
		}
		kb, err := strconv.ParseInt(fields[0], 10, 64)
		if err != nil {
			return m, fmt.Errorf("unexpected %s line %q", key, sc.Text())
		}
		switch key {
		case "VmRSS":
			m.RSS, haveRSS = kb*1024, true
		case "VmHWM":
			m.Peak, havePeak = kb*1024, true
		default:
			m.Anon = kb * 1024
		}
	}
	if err := sc.Err(); err != nil {
		return m, err
	}
	if !haveRSS || !havePeak {
		// Kernel threads and zombies have no memory lines.
		return m, fmt.Errorf("no VmRSS/VmHWM in status")
	}
	return m, nil
}
