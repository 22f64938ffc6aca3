package load

import (
	"os"
	"strings"
	"testing"
)

func currentPID() int { return os.Getpid() }

func TestParseStatus(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    MemorySample
		wantErr bool
	}{
		{name: "ok", in: "Name:\tsignalbox\nVmPeak:\t  9000 kB\nVmHWM:\t    2048 kB\nVmRSS:\t    1024 kB\nThreads:\t4\n",
			want: MemorySample{RSS: 1024 * 1024, Peak: 2048 * 1024}},
		{name: "with RssAnon", in: "VmHWM:\t    2048 kB\nVmRSS:\t    1024 kB\nRssAnon:\t     300 kB\nRssFile:\t     724 kB\n",
			want: MemorySample{RSS: 1024 * 1024, Peak: 2048 * 1024, Anon: 300 * 1024}},
		{name: "bad RssAnon", in: "VmHWM:\t1 kB\nVmRSS:\t1 kB\nRssAnon:\t1 MB\n", wantErr: true},
		{name: "kernel thread", in: "Name:\tkthreadd\nThreads:\t1\n", wantErr: true},
		{name: "bad unit", in: "VmHWM:\t1 MB\nVmRSS:\t1 kB\n", wantErr: true},
		{name: "bad number", in: "VmHWM:\tx kB\nVmRSS:\t1 kB\n", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseStatus(strings.NewReader(tt.in))
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tt.wantErr)
			}
			if !tt.wantErr && got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}
