package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCPUProfile(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name     string
		path     string
		wantCode int
		wantErr  string
	}{
		{name: "written for the whole run", path: filepath.Join(dir, "cpu.pprof")},
		{name: "unwritable", path: filepath.Join(dir, "missing", "cpu.pprof"), wantCode: 2, wantErr: cpuProfileEnv},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(cpuProfileEnv, tt.path)
			var stdout, stderr bytes.Buffer
			if code := run(context.Background(), []string{"version"}, &stdout, &stderr); code != tt.wantCode {
				t.Fatalf("exit code %d, want %d; stderr %q", code, tt.wantCode, stderr.String())
			}
			if tt.wantErr != "" {
				if !strings.Contains(stderr.String(), tt.wantErr) || stdout.Len() != 0 {
					t.Fatalf("stderr %q, stdout %q: want an error naming %s and no run", stderr.String(), stdout.String(), tt.wantErr)
				}
				return
			}
			b, err := os.ReadFile(tt.path)
			if err != nil {
				t.Fatal(err)
			}
			// runtime/pprof writes gzip-compressed protocol buffers.
			if !bytes.HasPrefix(b, []byte{0x1f, 0x8b}) {
				t.Fatalf("profile starts % x, want a gzip stream", b[:min(len(b), 4)])
			}
		})
	}
}
