package packaging

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"debug/elf"
	"debug/macho"
	"debug/pe"
	"encoding/hex"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// TestMakeRelease: make release writes the five archives, each with the
// binary for its platform, LICENSE and README.md, and checksums.txt that
// sha256sum -c accepts; the Linux binary names the same version as make
// build's.
func TestMakeRelease(t *testing.T) {
	built := makeBuild(t)
	_, err := exec.LookPath("zip")
	need(t, "zip", err)
	_, err = exec.LookPath("sha256sum")
	need(t, "sha256sum", err)
	run(t, root, []string{"GOFLAGS=-buildvcs=false"}, "make", "release")
	dist := filepath.Join(root, "dist")
	version, _ := gitVersion(t)

	want := []string{"checksums.txt"}
	for _, p := range []string{"linux_amd64", "linux_arm64", "darwin_amd64", "darwin_arm64"} {
		want = append(want, "signalbox_"+version+"_"+p+".tar.gz")
	}
	want = append(want, "signalbox_"+version+"_windows_amd64.zip")
	entries, err := os.ReadDir(dist)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	slices.Sort(names)
	slices.Sort(want)
	if !slices.Equal(names, want) {
		t.Fatalf("dist holds %v, want %v", names, want)
	}

	run(t, dist, nil, "sha256sum", "-c", "--strict", "checksums.txt")
	sums, err := os.ReadFile(filepath.Join(dist, "checksums.txt"))
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(sums)), "\n") {
		sum, name, ok := strings.Cut(line, "  ")
		if !ok {
			t.Fatalf("checksums.txt line %q", line)
		}
		listed[name] = sum
	}
	for _, name := range want[1:] {
		data, err := os.ReadFile(filepath.Join(dist, name))
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(data)
		if listed[name] != hex.EncodeToString(sum[:]) {
			t.Errorf("checksums.txt has %q for %s, want its SHA-256", listed[name], name)
		}
		osArch := strings.TrimSuffix(strings.TrimSuffix(strings.TrimPrefix(name, "signalbox_"+version+"_"), ".tar.gz"), ".zip")
		goos, goarch, _ := strings.Cut(osArch, "_")
		files := readArchive(t, name, data)
		exe := "signalbox"
		if goos == "windows" {
			exe = "signalbox.exe"
		}
		var got []string
		for f := range files {
			got = append(got, f)
		}
		slices.Sort(got)
		wantFiles := []string{"LICENSE", "README.md", exe}
		slices.Sort(wantFiles)
		if !slices.Equal(got, wantFiles) {
			t.Errorf("%s holds %v, want %v", name, got, wantFiles)
			continue
		}
		for _, doc := range []string{"LICENSE", "README.md"} {
			orig, _ := os.ReadFile(filepath.Join(root, doc))
			if !bytes.Equal(files[doc], orig) {
				t.Errorf("%s: %s differs from the repository's", name, doc)
			}
		}
		checkExecutable(t, name, goos, goarch, files[exe])
		if goos == runtime.GOOS && goarch == runtime.GOARCH {
			path := filepath.Join(t.TempDir(), exe)
			if err := os.WriteFile(path, files[exe], 0o755); err != nil {
				t.Fatal(err)
			}
			m := versionLine.FindStringSubmatch(run(t, root, nil, path, "version"))
			if m == nil || m[1] != built[0] || m[2] != built[1] {
				t.Errorf("%s's binary reports %q, make build's %v", name, m, built)
			}
		}
	}
}

// readArchive returns the regular files of a .tar.gz or .zip by name.
func readArchive(t *testing.T, name string, data []byte) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	if strings.HasSuffix(name, ".zip") {
		zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, f := range zr.File {
			rc, err := f.Open()
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			b, err := io.ReadAll(rc)
			rc.Close()
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			files[f.Name] = b
		}
		return files
	}
	gz, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if h.Typeflag != tar.TypeReg {
			t.Errorf("%s: %s is not a regular file", name, h.Name)
			continue
		}
		if h.Name == "signalbox" && h.Mode&0o111 == 0 {
			t.Errorf("%s: signalbox is not executable (mode %o)", name, h.Mode)
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		files[h.Name] = b
	}
	return files
}

// checkExecutable checks that b is an executable for goos/goarch.
func checkExecutable(t *testing.T, name, goos, goarch string, b []byte) {
	t.Helper()
	r := bytes.NewReader(b)
	switch goos {
	case "linux":
		f, err := elf.NewFile(r)
		if err != nil {
			t.Errorf("%s: not ELF: %v", name, err)
			return
		}
		want := map[string]elf.Machine{"amd64": elf.EM_X86_64, "arm64": elf.EM_AARCH64}[goarch]
		if f.Machine != want || f.Type != elf.ET_EXEC {
			t.Errorf("%s: ELF %v %v, want an executable for %v", name, f.Type, f.Machine, want)
		}
		for _, p := range f.Progs {
			if p.Type == elf.PT_INTERP {
				t.Errorf("%s: not static", name)
			}
		}
	case "darwin":
		f, err := macho.NewFile(r)
		if err != nil {
			t.Errorf("%s: not Mach-O: %v", name, err)
			return
		}
		want := map[string]macho.Cpu{"amd64": macho.CpuAmd64, "arm64": macho.CpuArm64}[goarch]
		if f.Cpu != want || f.Type != macho.TypeExec {
			t.Errorf("%s: Mach-O %v %v, want an executable for %v", name, f.Type, f.Cpu, want)
		}
	case "windows":
		f, err := pe.NewFile(r)
		if err != nil {
			t.Errorf("%s: not PE: %v", name, err)
			return
		}
		if f.Machine != pe.IMAGE_FILE_MACHINE_AMD64 {
			t.Errorf("%s: PE machine %#x, want amd64", name, f.Machine)
		}
	default:
		t.Errorf("%s: unexpected platform %s/%s", name, goos, goarch)
	}
}
