package packaging

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// imageConfig is the part of "podman image inspect" (or docker's) the
// test reads.
type imageConfig struct {
	Size   int64
	Config struct {
		User         string
		ExposedPorts map[string]struct{}
		Env          []string
		Entrypoint   []string
		Cmd          []string
		Volumes      map[string]struct{}
		WorkingDir   string
		Labels       map[string]string
		Healthcheck  *healthConfig
	}
	// HealthCheck is where podman reports it.
	HealthCheck *healthConfig
}

type healthConfig struct{ Test []string }

var builtWith = regexp.MustCompile(`(?m)^built \S+ and \S+ with (.+)$`)

// TestImage: make image builds localhost/signalbox:latest and :<version>
// offline with the configuration the brief of a server image asks for;
// its file system, run chrooted as the image's user with the image's
// environment and working directory, serves /health and /ready and keeps
// its SQLite database in /data.
func TestImage(t *testing.T) {
	if _, err := exec.LookPath("podman"); err != nil {
		if _, derr := exec.LookPath("docker"); derr != nil {
			need(t, "podman (or docker)", err)
		}
	}
	built := makeBuild(t)
	out := run(t, root, []string{"GOFLAGS=-buildvcs=false"}, "make", "image")
	m := builtWith.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("make image did not say how it built the image:\n%s", out)
	}
	engine := strings.Fields(m[1])
	version, commit := gitVersion(t)
	if version != built[0] {
		t.Fatalf("git describe %q differs from make build's %q", version, built[0])
	}

	var imgs []imageConfig
	inspect := run(t, root, nil, engine[0], append(engine[1:], "image", "inspect", "localhost/signalbox:latest", "localhost/signalbox:"+version)...)
	if err := json.Unmarshal([]byte(inspect), &imgs); err != nil || len(imgs) != 2 {
		t.Fatalf("image inspect: %v (%d images)\n%s", err, len(imgs), inspect)
	}
	img := imgs[1]
	c := img.Config
	if c.User != "65532:65532" {
		t.Errorf("User %q", c.User)
	}
	if !slices.Equal(c.Entrypoint, []string{"/signalbox"}) || !slices.Equal(c.Cmd, []string{"server"}) {
		t.Errorf("Entrypoint %q Cmd %q", c.Entrypoint, c.Cmd)
	}
	if _, ok := c.ExposedPorts["4242/tcp"]; !ok || len(c.ExposedPorts) != 1 {
		t.Errorf("ExposedPorts %v", c.ExposedPorts)
	}
	if _, ok := c.Volumes["/data"]; !ok || len(c.Volumes) != 1 {
		t.Errorf("Volumes %v", c.Volumes)
	}
	if c.WorkingDir != "/data" || !slices.Contains(c.Env, "DATA_DIR=/data") {
		t.Errorf("WorkingDir %q Env %q", c.WorkingDir, c.Env)
	}
	for k, want := range map[string]string{
		"org.opencontainers.image.version":  version,
		"org.opencontainers.image.revision": commit,
		"org.opencontainers.image.licenses": "Apache-2.0",
	} {
		if c.Labels[k] != want {
			t.Errorf("label %s = %q, want %q", k, c.Labels[k], want)
		}
	}
	if !strings.HasPrefix(c.Labels["org.opencontainers.image.source"], "https://") {
		t.Errorf("label org.opencontainers.image.source = %q", c.Labels["org.opencontainers.image.source"])
	}
	hc := c.Healthcheck
	if hc == nil {
		hc = img.HealthCheck
	}
	if hc == nil || !slices.Equal(hc.Test, []string{"CMD", "/signalbox", "healthcheck"}) {
		t.Errorf("health check %+v, want CMD /signalbox healthcheck", hc)
	}
	if img.Size <= 0 || img.Size >= 40<<20 {
		t.Errorf("image size %d bytes, want under 40 MB", img.Size)
	}

	rootfs := exportImage(t, engine, "localhost/signalbox:"+version)
	checkImageFiles(t, rootfs)
	if os.Geteuid() != 0 {
		need(t, "root (to chroot into the image)", errors.New("not root"))
	}
	runChrooted(t, rootfs, c.Env, c.WorkingDir, c.User)
}

// exportImage writes the image's file system into a temporary directory
// through a created (never started) container.
func exportImage(t *testing.T, engine []string, image string) string {
	t.Helper()
	name := fmt.Sprintf("signalbox-packaging-%d", os.Getpid())
	cmd := func(args ...string) []string { return append(append([]string{}, engine[1:]...), args...) }
	try(root, nil, time.Minute, engine[0], cmd("rm", "-f", name)...)
	run(t, root, nil, engine[0], cmd("create", "--name", name, image)...)
	t.Cleanup(func() { try(root, nil, time.Minute, engine[0], cmd("rm", "-f", name)...) })
	dir := t.TempDir()
	archive := filepath.Join(dir, "rootfs.tar")
	run(t, root, nil, engine[0], cmd("export", "-o", archive, name)...)
	rootfs := filepath.Join(dir, "rootfs")
	if err := os.Mkdir(rootfs, 0o755); err != nil {
		t.Fatal(err)
	}
	run(t, root, nil, "tar", "-xpf", archive, "-C", rootfs, "--numeric-owner")
	os.Remove(archive)
	return rootfs
}

// checkImageFiles checks the few files the image holds besides the binary.
func checkImageFiles(t *testing.T, rootfs string) {
	t.Helper()
	owner := func(p string) (int, os.FileMode) {
		st, err := os.Stat(filepath.Join(rootfs, p))
		if err != nil {
			t.Errorf("image: %v", err)
			return -1, 0
		}
		return int(st.Sys().(*syscall.Stat_t).Uid), st.Mode()
	}
	if uid, mode := owner("data"); uid != 65532 || !mode.IsDir() {
		t.Errorf("/data: owner %d, mode %v; want a directory of 65532", uid, mode)
	}
	if _, mode := owner("tmp"); !mode.IsDir() || mode&os.ModeSticky == 0 || mode.Perm() != 0o777 {
		t.Errorf("/tmp: mode %v, want drwxrwxrwt", mode)
	}
	if _, mode := owner("signalbox"); mode.Perm()&0o111 == 0 {
		t.Errorf("/signalbox: mode %v", mode)
	}
	assertStatic(t, filepath.Join(rootfs, "signalbox"))
	ca, err := os.ReadFile(filepath.Join(rootfs, "etc/ssl/certs/ca-certificates.crt"))
	if err != nil || !strings.Contains(string(ca), "BEGIN CERTIFICATE") {
		t.Errorf("CA certificates: %v", err)
	}
	passwd, _ := os.ReadFile(filepath.Join(rootfs, "etc/passwd"))
	group, _ := os.ReadFile(filepath.Join(rootfs, "etc/group"))
	if !regexp.MustCompile(`(?m)^signalbox:x:65532:65532:`).Match(passwd) || !regexp.MustCompile(`(?m)^signalbox:x:65532:`).Match(group) {
		t.Errorf("/etc/passwd %q, /etc/group %q: no user and group 65532", passwd, group)
	}
	entries, _ := os.ReadDir(rootfs)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	for _, n := range names {
		if !slices.Contains([]string{"data", "etc", "signalbox", "tmp", "dev", "proc", "sys", "run"}, n) {
			t.Errorf("the image holds /%s; want only the binary, /etc, /data and /tmp", n)
		}
	}
}

// runChrooted starts the image's entrypoint chrooted into rootfs as the
// image's user, with its environment and working directory.
func runChrooted(t *testing.T, rootfs string, env []string, workDir, user string) {
	t.Helper()
	uid, gid, ok := strings.Cut(user, ":")
	u, err1 := strconv.Atoi(uid)
	g, err2 := strconv.Atoi(gid)
	if !ok || err1 != nil || err2 != nil {
		t.Fatalf("image user %q is not uid:gid", user)
	}
	command := func(extra []string, args ...string) *exec.Cmd {
		cmd := exec.Command("/signalbox", args...)
		cmd.Path = "/signalbox"
		cmd.Dir = workDir
		cmd.Env = append(append([]string{}, env...), extra...)
		cmd.SysProcAttr = &syscall.SysProcAttr{
			Chroot:     rootfs,
			Credential: &syscall.Credential{Uid: uint32(u), Gid: uint32(g), Groups: []uint32{}},
			Setpgid:    true,
		}
		return cmd
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	ln.Close()
	serverEnv := []string{"PORT=" + port, "HTTP_HOST=127.0.0.1", "ADMIN_PASSWORD=Packaging-Test-Pass-1"}
	server := command(serverEnv, "server")
	var logs syncBuffer
	server.Stdout, server.Stderr = &logs, &logs
	if err := server.Start(); err != nil {
		t.Fatalf("starting the image's server chrooted: %v", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- server.Wait() }()
	stopped := false
	stop := func() error {
		if stopped {
			return nil
		}
		stopped = true
		server.Process.Signal(syscall.SIGTERM)
		select {
		case err := <-exited:
			return err
		case <-time.After(20 * time.Second):
			server.Process.Kill()
			<-exited
			return errors.New("did not stop on SIGTERM")
		}
	}
	t.Cleanup(func() { stop() })

	base := "http://127.0.0.1:" + port
	deadline := time.Now().Add(90 * time.Second)
	for {
		res, err := http.Get(base + "/health")
		if err == nil {
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				break
			}
		}
		select {
		case err := <-exited:
			stopped = true
			t.Fatalf("the image's server exited (%v):\n%s", err, logs.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("the image's server did not answer /health:\n%s", logs.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
	res, err := http.Get(base + "/ready")
	if err != nil || res.StatusCode != http.StatusOK {
		t.Errorf("/ready: %v %v", res, err)
	}
	if res != nil {
		res.Body.Close()
	}

	// The HEALTHCHECK command, as the engine would run it in the container.
	if out, err := command([]string{"PORT=" + port}, "healthcheck").CombinedOutput(); err != nil {
		t.Errorf("healthcheck in the image: %v\n%s", err, out)
	}
	st, err := os.Stat(filepath.Join(rootfs, "data", "signalbox.db"))
	if err != nil {
		t.Errorf("no SQLite database in /data: %v\n%s", err, logs.String())
	} else if owner := st.Sys().(*syscall.Stat_t).Uid; owner != uint32(u) {
		t.Errorf("/data/signalbox.db belongs to %d, want %d", owner, u)
	}
	if err := stop(); err != nil {
		t.Errorf("the image's server on SIGTERM: %v\n%s", err, logs.String())
	}
	if out, err := command([]string{"PORT=" + port}, "healthcheck", "--timeout", "2s").CombinedOutput(); err == nil {
		t.Errorf("healthcheck succeeded with the server stopped:\n%s", out)
	}

	for cmd, want := range map[string]string{"proxy": "SERVICE_URL", "edge": "UPSTREAM_URL"} {
		out, err := command(nil, cmd, "-h").CombinedOutput()
		if err != nil || !strings.Contains(string(out), want) {
			t.Errorf("%s -h in the image: %v\n%s", cmd, err, out)
		}
	}
}
