package load

import (
	"syscall"
	"testing"
	"time"
)

func TestParseStat(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    time.Duration
		wantErr bool
	}{
		{name: "ok", in: "4242 (signalbox) S 1 4242 4242 0 -1 4194560 900 0 0 0 250 75 0 0 20 0 9 0 1000 1 2\n", want: 3250 * time.Millisecond},
		{name: "name with spaces and parentheses", in: "7 (a ) b) R 1 7 7 0 -1 0 0 0 0 0 1 2 0 0 20 0 1 0 5 1 2", want: 30 * time.Millisecond},
		{name: "no name", in: "7 signalbox R 1", wantErr: true},
		{name: "short", in: "7 (x) R 1 7 7 0 -1 0 0 0 0 0 1", wantErr: true},
		{name: "bad number", in: "7 (x) R 1 7 7 0 -1 0 0 0 0 0 x 2 0", wantErr: true},
		{name: "negative", in: "7 (x) R 1 7 7 0 -1 0 0 0 0 0 -1 2 0", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseStat(tt.in)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tt.wantErr)
			}
			if !tt.wantErr && got != tt.want {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

// ReadCPU of this process agrees with getrusage within the stat file's
// resolution once the process has used some CPU.
func TestReadCPUOfSelf(t *testing.T) {
	if _, err := ReadCPU(1); err != nil {
		skipOutsideCI(t, "no /proc here: %v", err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for rusageCPU(t) < 100*time.Millisecond && time.Now().Before(deadline) {
		spin()
	}
	before := rusageCPU(t)
	got, err := ReadCPU(currentPID())
	if err != nil {
		t.Fatal(err)
	}
	after := rusageCPU(t)
	// The kernel reports both from the same counters; stat truncates to
	// 10 ms ticks.
	if got < before-20*time.Millisecond || got > after+20*time.Millisecond {
		t.Errorf("ReadCPU = %v, getrusage %v to %v", got, before, after)
	}
}

func rusageCPU(t *testing.T) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

var sink int

func spin() {
	for i := range 1_000_000 {
		sink += i * i
	}
}
