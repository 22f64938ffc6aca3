package memtrim

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"
)

func TestParseMapping(t *testing.T) {
	tests := []struct {
		line string
		want mapping
		ok   bool
	}{
		{"00400000-0127f000 r-xp 00000000 fe:00 9986261                            /usr/bin/signalbox",
			mapping{start: 0x400000, end: 0x127f000, perms: "r-xp", path: "/usr/bin/signalbox"}, true},
		{"0223c000-02442000 rw-p 01e3c000 fe:00 9986261 /opt/my tools/signalbox (deleted)",
			mapping{start: 0x223c000, end: 0x2442000, perms: "rw-p", path: "/opt/my tools/signalbox (deleted)"}, true},
		{"7fd1d2f80000-7fd1d2fe0000 rw-p 00000000 00:00 0 ", mapping{}, false}, // anonymous
		{"7fd1d2f80000-7fd1d2fe0000 rw-p 00000000 00:00 0", mapping{}, false},
		{"zz-7fd1d2fe0000 r--p 00000000 00:00 0 /x", mapping{}, false},
		{"7fd1d2fe0000-7fd1d2f80000 r--p 00000000 00:00 0 /x", mapping{}, false}, // end before start
		{"", mapping{}, false},
	}
	for _, tt := range tests {
		got, ok := parseMapping(tt.line)
		if ok != tt.ok || (ok && got != tt.want) {
			t.Errorf("parseMapping(%q) = %+v, %v; want %+v, %v", tt.line, got, ok, tt.want, tt.ok)
		}
	}
}

func TestReadOnly(t *testing.T) {
	for perms, want := range map[string]bool{"r-xp": true, "r--p": true, "rw-p": false, "r-xs": false, "---p": false, "rwxp": false} {
		if got := (mapping{perms: perms}).readOnly(); got != want {
			t.Errorf("%s: readOnly %v, want %v", perms, got, want)
		}
	}
}

// TestDropExecutablePages checks that the pages the test binary touched
// while starting leave its resident set, and that it runs on after.
func TestDropExecutablePages(t *testing.T) {
	before := rssFile(t)
	dropped, err := DropExecutablePages()
	if err != nil {
		t.Fatal(err)
	}
	after := rssFile(t)
	t.Logf("advised %d KiB; file-backed RSS %d → %d KiB", dropped>>10, before, after)
	if dropped == 0 {
		t.Fatal("no read-only mapping of the executable found")
	}
	if after >= before {
		t.Errorf("file-backed RSS did not shrink: %d → %d KiB", before, after)
	}
	// The code and constants dropped come back on use.
	if got := strconv.Itoa(12345); got != "12345" {
		t.Errorf("after dropping: %q", got)
	}
}

// rssFile is the file-backed part of the process's RSS (RssFile), in KiB.
func rssFile(t *testing.T) int64 {
	t.Helper()
	f, err := os.Open("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "RssFile:"); ok {
			n, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	t.Fatal("no RssFile in /proc/self/status")
	return 0
}
