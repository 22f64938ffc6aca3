package main

import (
	"bytes"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"time"
)

// child is a process the benchmark started; it is stopped by its PID.
type child struct {
	name string
	cmd  *exec.Cmd
	out  bytes.Buffer
	done chan struct{}
}

// pinned wraps a command in "taskset -c cpus" when taskset exists.
func pinned(cpus string, name string, args ...string) *exec.Cmd {
	if path, err := exec.LookPath("taskset"); err == nil && cpus != "" {
		return exec.Command(path, append([]string{"-c", cpus, name}, args...)...)
	}
	return exec.Command(name, args...)
}

func startChild(name string, cmd *exec.Cmd, env []string) (*child, error) {
	c := &child{name: name, cmd: cmd, done: make(chan struct{})}
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout, cmd.Stderr = &c.out, &c.out
	if _, err := cmd.StdinPipe(); err != nil { // children that watch stdin stop with us
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", name, err)
	}
	go func() { cmd.Wait(); close(c.done) }()
	return c, nil
}

func (c *child) pid() int { return c.cmd.Process.Pid }

func (c *child) stop() {
	c.cmd.Process.Signal(syscall.SIGTERM)
	c.resume() // a paused process acts on the signal once continued
	select {
	case <-c.done:
	case <-time.After(5 * time.Second):
		c.cmd.Process.Kill()
		<-c.done
	}
}

// pausable puts a child that will be paused in a process group of its
// own. A stopped process in sbbench's group would take sbbench down: once
// the shell that started sbbench in the background has exited, the group
// is orphaned, and the kernel hangs up (SIGHUP) every process of an
// orphaned group with a stopped member as soon as another member exits.
func pausable(cmd *exec.Cmd) *exec.Cmd {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	return cmd
}

// pause stops the process (SIGSTOP) with all its threads: a reference
// waiting beside our server on its CPU then takes none of it, not even its
// runtime's background work (garbage collection, timers) left over from
// its last window. Start it pausable.
func (c *child) pause() { c.cmd.Process.Signal(syscall.SIGSTOP) }

// resume continues a paused process.
func (c *child) resume() { c.cmd.Process.Signal(syscall.SIGCONT) }

// waitHTTP polls url until it answers 200, for up to 30 seconds.
func (c *child) waitHTTP(url string, header http.Header) error {
	return c.waitHTTPFor(url, header, 30*time.Second)
}

// waitHTTPFor polls url until it answers 200, for up to limit.
func (c *child) waitHTTPFor(url string, header http.Header, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		req, _ := http.NewRequest("GET", url, nil)
		req.Header = header
		if res, err := http.DefaultClient.Do(req); err == nil {
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case <-c.done:
			return fmt.Errorf("%s exited: %s", c.name, c.out.String())
		case <-time.After(50 * time.Millisecond):
		}
	}
	return fmt.Errorf("%s did not answer %s: %s", c.name, url, c.out.String())
}

func freeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

// servePlain answers every request with the file's bytes (as gzip when
// they are): the ceiling a handler answering them could reach here.
// plainETag is the plain handler's ETag.
const plainETag = `"plain"`

func servePlain(file, addr string) error {
	body, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	gzipped := bytes.HasPrefix(body, []byte{0x1f, 0x8b})
	length := strconv.Itoa(len(body))
	return http.ListenAndServe(addr, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// An ETag as the servers send, and 304 for it: the ceiling of
		// conditional polls.
		w.Header().Set("ETag", plainETag)
		if r.Header.Get("If-None-Match") == plainETag {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		if gzipped {
			w.Header().Set("Content-Encoding", "gzip")
		}
		// With its length known the answer goes out as the servers send
		// theirs; chunked, the 28 KB answer cost a quarter more CPU, and
		// the ceiling was no ceiling.
		w.Header().Set("Content-Length", length)
		w.Write(body)
	}))
}
