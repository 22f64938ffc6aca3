package packaging

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// unit is a parsed systemd unit file: section, key and every value given.
type unit map[string]map[string][]string

func parseUnit(t *testing.T, path string) unit {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	u := unit{}
	section := ""
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, ";"):
		case strings.HasPrefix(line, "[") && strings.HasSuffix(line, "]"):
			section = line[1 : len(line)-1]
			u[section] = map[string][]string{}
		default:
			k, v, ok := strings.Cut(line, "=")
			if !ok || section == "" || strings.HasSuffix(line, "\\") {
				t.Fatalf("%s:%d: not a key=value line of a section: %q", path, n, line)
			}
			u[section][k] = append(u[section][k], v)
		}
	}
	return u
}

// TestSystemdUnits: both units run the binary as a dynamic user with a
// state directory and the sandboxing options; systemd-analyze verify
// accepts them where it is installed.
func TestSystemdUnits(t *testing.T) {
	dir := filepath.Join(root, "deploy", "systemd")
	for _, tt := range []struct {
		file, command, state string
		env                  []string
	}{
		{"signalbox.service", "/usr/local/bin/signalbox server", "signalbox", []string{"-/etc/signalbox/env"}},
		{"signalbox-edge.service", "/usr/local/bin/signalbox edge", "signalbox-edge", []string{"-/etc/signalbox/edge.env"}},
	} {
		u := parseUnit(t, filepath.Join(dir, tt.file))
		s := u["Service"]
		want := map[string]string{
			"ExecStart": tt.command, "DynamicUser": "yes", "StateDirectory": tt.state,
			"NoNewPrivileges": "yes", "ProtectSystem": "strict", "ProtectHome": "yes", "PrivateTmp": "yes",
			"Restart": "on-failure",
		}
		for k, v := range want {
			if len(s[k]) != 1 || s[k][0] != v {
				t.Errorf("%s: %s=%q, want %q", tt.file, k, s[k], v)
			}
		}
		if strings.Join(s["EnvironmentFile"], " ") != strings.Join(tt.env, " ") {
			t.Errorf("%s: EnvironmentFile=%q, want %q", tt.file, s["EnvironmentFile"], tt.env)
		}
		if tt.state == "signalbox" && !contains(s["Environment"], "DATA_DIR=/var/lib/signalbox") {
			t.Errorf("%s: DATA_DIR is not the state directory: %q", tt.file, s["Environment"])
		}
		if tt.state == "signalbox-edge" && !contains(s["Environment"], "BACKUP_FOLDER=/var/lib/signalbox-edge") {
			t.Errorf("%s: BACKUP_FOLDER is not the state directory: %q", tt.file, s["Environment"])
		}
		if !contains(u["Install"]["WantedBy"], "multi-user.target") {
			t.Errorf("%s: not wanted by multi-user.target", tt.file)
		}
	}

	analyze, err := exec.LookPath("systemd-analyze")
	if err != nil {
		t.Log("systemd-analyze is not installed: the units were parsed and checked, not verified by systemd")
		return
	}
	// verify needs ExecStart's binary to exist: the copies point at one
	// that does; every other line is verified as written.
	tmp := t.TempDir()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, name := range []string{"signalbox.service", "signalbox-edge.service"} {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(tmp, name)
		if err := os.WriteFile(p, bytes.ReplaceAll(data, []byte("/usr/local/bin/signalbox"), []byte(self)), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, p)
	}
	out, errOut, err := try(tmp, []string{"SYSTEMD_LOG_LEVEL=notice"}, time.Minute, analyze, append([]string{"verify"}, files...)...)
	// verify exits 0 on unknown keys and bad values, which it only reports.
	if err != nil || strings.TrimSpace(out+errOut) != "" {
		t.Errorf("systemd-analyze verify: %v\n%s%s", err, out, errOut)
	}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
