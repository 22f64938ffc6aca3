package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/signalbox/signalbox/internal/fixture"
	"github.com/signalbox/signalbox/internal/load"
	"github.com/signalbox/signalbox/server"
	"github.com/signalbox/signalbox/store"
	"github.com/signalbox/signalbox/store/sqlstore"
)

// streamsResult is what -streams measures on one server process.
type streamsResult struct {
	streams                int
	rssBefore, rssAfter    int64
	idleCPU                time.Duration // server CPU time over idleWindow with every stream open
	idleWindow             time.Duration
	changeCPU              time.Duration   // server CPU time over the timed changes
	writeTimes             []time.Duration // each change's admin request, sent to answered
	firsts                 []time.Duration // each change's first delivery
	changes                int
	p50, p99, max          time.Duration // change made → every stream has it
	deliveries, missing    int
	connectTime            time.Duration
	flagsInScope, openFail int
}

// runStreams opens n streams (GET /api/client/streaming) on one server
// holding the given number of generated flags,
// measures its memory per stream and its CPU with the streams idle, then
// makes changes and measures how long each takes to reach every stream.
func (b *bench) runStreams(n, changes, flags int) (streamsResult, error) {
	res := streamsResult{streams: n, changes: changes, idleWindow: 10 * time.Second}
	raiseFileLimit(n + 1000)
	dataDir := filepath.Join(b.dir, "streams")
	st, err := sqlstore.Open(b.ctx, filepath.Join(dataDir, "signalbox.db"))
	if err != nil {
		return res, err
	}
	const adminToken = "*:*.bench-admin"
	_, err = server.Bootstrap(b.ctx, st, server.BootstrapConfig{AdminTokens: []string{adminToken}, ClientTokens: []string{clientToken}, AdminPassword: "Bench-Password-7"})
	if err == nil {
		err = fixture.Seed(b.ctx, st, b.payload(flags), store.EnvDevelopment)
	}
	st.Close()
	if err != nil {
		return res, err
	}
	addr, err := freeAddr()
	if err != nil {
		return res, err
	}
	host, port, _ := net.SplitHostPort(addr)
	srv, err := startChild("signalbox server", pinned(serverCPU, b.bin, "server"), []string{
		"PORT=" + port, "HTTP_HOST=" + host, "DATA_DIR=" + dataDir, "LOG_LEVEL=error",
		"SIGNALBOX_MAX_STREAMS=" + strconv.Itoa(n+100),
	})
	if err != nil {
		return res, err
	}
	defer srv.stop()
	base := "http://" + addr
	if err := srv.waitHTTP(base+"/ready", nil); err != nil {
		return res, err
	}
	body, err := fetch(base+"/api/client/features", http.Header{"Authorization": {clientToken}})
	if err != nil {
		return res, err
	}
	res.flagsInScope = bytes.Count(body, []byte(`"strategies"`))
	flag, err := firstFlag(body)
	if err != nil {
		return res, err
	}
	// Every timed change must be one: start from the flag switched off,
	// then switch it on and off in turn.
	if err := switchFlag(base, adminToken, flag, "off"); err != nil {
		return res, err
	}
	time.Sleep(time.Second) // let start-up garbage be collected
	mem, err := load.ReadMemory(srv.pid())
	if err != nil {
		return res, err
	}
	res.rssBefore = mem.RSS

	ctx, cancel := context.WithCancel(b.ctx)
	defer cancel()
	// arrivals[k] counts the streams that received change k; done[k] is
	// when the last one did.
	arrivals := make([]atomic.Int64, changes+1)
	latencies := make([][]time.Duration, changes+1)
	var latMu sync.Mutex
	sentAt := make([]atomic.Int64, changes+1)
	var connected, failed atomic.Int64
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: n, DisableCompression: true}}
	start := time.Now()
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			req, _ := http.NewRequestWithContext(ctx, "GET", base+"/api/client/streaming", nil)
			req.Header.Set("Authorization", clientToken)
			resp, err := client.Do(req)
			if err != nil || resp.StatusCode != http.StatusOK {
				failed.Add(1)
				if resp != nil {
					resp.Body.Close()
				}
				return
			}
			defer resp.Body.Close()
			rd := bufio.NewReaderSize(resp.Body, 4096)
			updates := 0
			for {
				line, err := rd.ReadSlice('\n')
				if err != nil && err != bufio.ErrBufferFull {
					return
				}
				switch {
				case bytes.HasPrefix(line, []byte("event: unleash-connected")):
					connected.Add(1)
				case bytes.HasPrefix(line, []byte("event: unleash-updated")):
					updates++
					if updates <= changes {
						at := time.Since(time.Unix(0, sentAt[updates].Load()))
						arrivals[updates].Add(1)
						latMu.Lock()
						latencies[updates] = append(latencies[updates], at)
						latMu.Unlock()
					}
				}
			}
		})
	}
	deadline := time.Now().Add(2 * time.Minute)
	for connected.Load()+failed.Load() < int64(n) && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	res.connectTime = time.Since(start)
	res.openFail = int(failed.Load())
	if connected.Load() == 0 {
		return res, fmt.Errorf("no stream opened (%d failed)", failed.Load())
	}
	time.Sleep(time.Second)
	if mem, err = load.ReadMemory(srv.pid()); err != nil {
		return res, err
	}
	res.rssAfter = mem.RSS
	cpu0, err := processCPU(srv.pid())
	if err != nil {
		return res, err
	}
	time.Sleep(res.idleWindow)
	cpu1, err := processCPU(srv.pid())
	if err != nil {
		return res, err
	}
	res.idleCPU = cpu1 - cpu0

	open := connected.Load()
	cpuChanges, err := processCPU(srv.pid())
	if err != nil {
		return res, err
	}
	for k := 1; k <= changes; k++ {
		state := "on"
		if k%2 == 0 {
			state = "off"
		}
		sentAt[k].Store(time.Now().UnixNano())
		if err := switchFlag(base, adminToken, flag, state); err != nil {
			return res, fmt.Errorf("change %d: %w", k, err)
		}
		res.writeTimes = append(res.writeTimes, time.Since(time.Unix(0, sentAt[k].Load())))
		wait := time.Now().Add(10 * time.Second)
		for arrivals[k].Load() < open && time.Now().Before(wait) {
			time.Sleep(2 * time.Millisecond)
		}
	}
	cpuDone, err := processCPU(srv.pid())
	if err != nil {
		return res, err
	}
	res.changeCPU = cpuDone - cpuChanges
	cancel()
	var all []time.Duration
	for k := 1; k <= changes; k++ {
		if len(latencies[k]) > 0 {
			res.firsts = append(res.firsts, slices.Min(latencies[k]))
		}
		all = append(all, latencies[k]...)
		res.missing += int(open - arrivals[k].Load())
	}
	res.deliveries = len(all)
	slices.Sort(all)
	if len(all) > 0 {
		res.p50, res.p99, res.max = all[len(all)/2], all[len(all)*99/100], all[len(all)-1]
	}
	return res, nil
}

// switchFlag turns flag on or off in development.
func switchFlag(base, token, flag, state string) error {
	req, _ := http.NewRequest("POST", base+"/api/admin/projects/default/features/"+flag+"/environments/development/"+state, nil)
	req.Header.Set("Authorization", token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("switching %s %s: %s", flag, state, resp.Status)
	}
	return nil
}

// firstFlag is the name of the first flag of a client API answer.
func firstFlag(body []byte) (string, error) {
	i := bytes.Index(body, []byte(`"name":"`))
	if i < 0 {
		return "", fmt.Errorf("no flag in the client API answer")
	}
	rest := body[i+len(`"name":"`):]
	j := bytes.IndexByte(rest, '"')
	return string(rest[:j]), nil
}

// processCPU is the user and system CPU time of process pid so far.
func processCPU(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// Fields after the command name (in parentheses, which may hold
	// spaces): state is field 3, utime 14, stime 15.
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	if len(f) < 13 {
		return 0, fmt.Errorf("short /proc/%d/stat", pid)
	}
	ut, err1 := strconv.ParseInt(f[11], 10, 64)
	st, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("unreadable /proc/%d/stat", pid)
	}
	const ticks = 100 // USER_HZ on Linux
	return time.Duration(ut+st) * time.Second / ticks, nil
}

// raiseFileLimit lifts this process's open-file limit towards n (the
// server child inherits it).
func raiseFileLimit(n int) {
	var lim syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim) != nil || lim.Cur >= uint64(n) {
		return
	}
	lim.Cur = min(uint64(n), lim.Max)
	_ = syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim)
}

func (r streamsResult) report(w io.Writer) {
	perStream := float64(r.rssAfter-r.rssBefore) / float64(max(1, r.streams-r.openFail))
	cpuPer1000 := float64(r.idleCPU) / float64(r.idleWindow) * 1000 / float64(max(1, r.streams-r.openFail))
	fmt.Fprintf(w, "\n### Streams (%d open on one server, %d flags in scope)\n\n", r.streams-r.openFail, r.flagsInScope)
	fmt.Fprintln(w, "| measure | ours | goal |")
	fmt.Fprintln(w, "|---|---:|---:|")
	fmt.Fprintf(w, "| streams refused or failed to open | %d | 0 |\n", r.openFail)
	fmt.Fprintf(w, "| time to open them all | %v | |\n", r.connectTime.Round(time.Millisecond))
	fmt.Fprintf(w, "| server RSS before → with the streams | %.1f MB → %.1f MB | |\n", float64(r.rssBefore)/1e6, float64(r.rssAfter)/1e6)
	fmt.Fprintf(w, "| memory per stream | %.1f KB | ≤ 20 KB |\n", perStream/1e3)
	fmt.Fprintf(w, "| server CPU with every stream idle, per 1,000 streams | %.2f %% of a core | |\n", cpuPer1000*100)
	fmt.Fprintf(w, "| server CPU to deliver one change, per 1,000 streams | %v | |\n",
		(r.changeCPU * 1000 / time.Duration(max(1, r.changes*(r.streams-r.openFail)))).Round(10*time.Microsecond))
	slices.Sort(r.writeTimes)
	slices.Sort(r.firsts)
	if len(r.writeTimes) > 0 && len(r.firsts) > 0 {
		fmt.Fprintf(w, "| the change's admin request, p50 / max; its first delivery, p50 / max | %v / %v; %v / %v | |\n",
			r.writeTimes[len(r.writeTimes)/2].Round(100*time.Microsecond), r.writeTimes[len(r.writeTimes)-1].Round(100*time.Microsecond),
			r.firsts[len(r.firsts)/2].Round(100*time.Microsecond), r.firsts[len(r.firsts)-1].Round(100*time.Microsecond))
	}
	fmt.Fprintf(w, "| change → every stream has it, p50 / p99 / max (%d changes, %d deliveries, %d missing) | %v / %v / %v | p99 ≤ 100 ms |\n",
		r.changes, r.deliveries, r.missing, r.p50.Round(100*time.Microsecond), r.p99.Round(100*time.Microsecond), r.max.Round(100*time.Microsecond))
}
