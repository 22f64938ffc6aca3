package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/signalbox/signalbox/internal/fixture"
	"github.com/signalbox/signalbox/internal/httpx"
	"github.com/signalbox/signalbox/store"
	"github.com/signalbox/signalbox/store/sqlstore"
)

// wholeAdvancedAnswer is the advanced playground's answer encoded at once,
// as one value with writeJSON: what the streamed answer must equal byte
// for byte.
func wholeAdvancedAnswer(t *testing.T, s *Server, envNames []string, projects playgroundProjects, rawContext map[string]json.RawMessage) []byte {
	t.Helper()
	fields, invalid, err := parsePlaygroundContext(rawContext, true)
	if err != nil {
		t.Fatal(err)
	}
	combos, err := combinations(fields, len(envNames))
	if err != nil {
		t.Fatal(err)
	}
	features := []advancedFeature{}
	index := map[string]int{}
	for _, env := range envNames {
		pe, err := s.playgroundEnvironment(context.Background(), env)
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range pe.snap.Names() {
			if !projects.has(pe.projects[name]) {
				continue
			}
			for _, flat := range combos {
				ctx := engineContext(flat, pe.name)
				f, ok := pe.explain(name, &ctx, true)
				if !ok {
					break
				}
				f.Environment, f.Context = pe.name, flat
				if _, seen := index[name]; !seen {
					index[name] = len(features)
					features = append(features, advancedFeature{Name: name, ProjectID: f.ProjectID, Environments: map[string][]playgroundFeature{}})
				}
				af := &features[index[name]]
				af.Environments[pe.name] = append(af.Environments[pe.name], f)
			}
		}
	}
	answer := struct {
		Input    any               `json:"input"`
		Features []advancedFeature `json:"features"`
		Warnings *advancedWarnings `json:"warnings,omitempty"`
	}{
		Input: struct {
			Environments []string           `json:"environments"`
			Projects     playgroundProjects `json:"projects"`
			Context      map[string]any     `json:"context"`
		}{envNames, projects, echoContext(rawContext)},
		Features: features,
	}
	if len(invalid) > 0 {
		answer.Warnings = &advancedWarnings{InvalidContextProperties: invalid}
	}
	rec := httptest.NewRecorder()
	if err := httpx.WriteJSON(rec, http.StatusOK, answer); err != nil {
		t.Fatal(err)
	}
	return rec.Body.Bytes()
}

// TestAdvancedPlaygroundStreamsTheWholeAnswersBytes: the answer written
// flag by flag is, byte for byte, the answer encoded as one value, for
// flags in one environment or several, with and without warnings and
// project filters.
func TestAdvancedPlaygroundStreamsTheWholeAnswersBytes(t *testing.T) {
	ts := newTestServer(t)
	seedPlayground(t, ts)
	// A flag only production has: it comes after development's flags.
	ts.admin("POST", "/api/admin/projects", map[string]any{"id": "prod", "name": "Prod", "environments": []string{"production"}}).must(t, http.StatusCreated)
	ts.admin("POST", "/api/admin/projects/prod/features", map[string]any{"name": "late"}).must(t, http.StatusCreated)
	for _, tt := range []struct {
		name     string
		envs     []string
		projects string
		context  string
	}{
		{"one environment, every project", []string{"development"}, `"*"`, `{"appName":"shop","userId":"1,2,3"}`},
		{"two environments, warnings", []string{"development", "production"}, `["default","web","prod"]`,
			`{"appName":"shop","userId":["1","2"],"age":42,"properties":{"country":["no","se"],"email":"a@example.com"}}`},
		{"no flag selected", []string{"production", "development"}, `[]`, `{"appName":"shop"}`},
		{"characters HTML would escape", []string{"development"}, `null`, `{"appName":"<shop>&co","userId":"1"}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var rawContext map[string]json.RawMessage
			if err := json.Unmarshal([]byte(tt.context), &rawContext); err != nil {
				t.Fatal(err)
			}
			projects, err := parsePlaygroundProjects(json.RawMessage(tt.projects))
			if err != nil {
				t.Fatal(err)
			}
			body := fmt.Sprintf(`{"environments":%s,"projects":%s,"context":%s}`, mustJSON(tt.envs), tt.projects, tt.context)
			res := ts.request("POST", "/api/admin/playground/advanced", testAdminToken, body).must(t, http.StatusOK)
			want := wholeAdvancedAnswer(t, ts.srv, tt.envs, projects, rawContext)
			if !bytes.Equal(res.Body, want) {
				t.Errorf("streamed answer differs from the whole one:\nstreamed: %s\nwhole:    %s", res.Body, want)
			}
			if ct := res.Header.Get("Content-Type"); ct != "application/json; charset=utf-8" {
				t.Errorf("Content-Type %q", ct)
			}
		})
	}
}

// newSeededServer is a server over SQLite holding n generated flags in
// development, served on loopback without the test harness's recorder
// (which keeps answers), so that a test sees the server's own memory.
func newSeededServer(tb testing.TB, n int) (srv *Server, url string) {
	tb.Helper()
	ctx := context.Background()
	st, err := sqlstore.Open(ctx, filepath.Join(tb.TempDir(), "seeded.db"))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { st.Close() })
	if _, err := Bootstrap(ctx, st, BootstrapConfig{AdminTokens: []string{testAdminToken}, AdminPassword: testAdminPassword}); err != nil {
		tb.Fatal(err)
	}
	if err := fixture.Seed(ctx, st, fixture.Features(n, 1), store.EnvDevelopment); err != nil {
		tb.Fatal(err)
	}
	srv, err = New(ctx, st, Config{Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		tb.Fatal(err)
	}
	hs := httptest.NewServer(srv.Handler())
	tb.Cleanup(hs.Close)
	return srv, hs.URL
}

// manyUsersBody asks the advanced playground about ids users in
// development.
func manyUsersBody(ids int) string {
	list := make([]string, ids)
	for i := range list {
		list[i] = strconv.Itoa(i)
	}
	return fmt.Sprintf(`{"environments":["development"],"projects":"*","context":{"appName":"shop","userId":%s}}`, mustJSON(list))
}

// postDiscarding posts body to the advanced playground and reads the
// answer into nothing; it returns the answer's size.
func postDiscarding(tb testing.TB, url, body string) int64 {
	tb.Helper()
	req, err := http.NewRequest("POST", url+"/api/admin/playground/advanced", strings.NewReader(body))
	if err != nil {
		tb.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", testAdminToken)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	defer res.Body.Close()
	n, err := io.Copy(io.Discard, res.Body)
	if err != nil || res.StatusCode != http.StatusOK {
		tb.Fatalf("status %d after %d bytes: %v", res.StatusCode, n, err)
	}
	return n
}

// peakLiveHeap runs fn and returns the live heap (what the last garbage
// collection kept) before it and the most it reached while fn ran.
// Allocation-heavy work collects often, so the samples see every peak
// that lasts.
func peakLiveHeap(fn func()) (before, peak uint64) {
	runtime.GC()
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	read := func() uint64 {
		metrics.Read(sample)
		return sample[0].Value.Uint64()
	}
	before = read()
	stop, done := make(chan struct{}), make(chan uint64)
	go func() {
		peak := before
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-tick.C:
				peak = max(peak, read())
			case <-stop:
				done <- max(peak, read())
				return
			}
		}
	}()
	fn()
	runtime.GC() // what fn left live counts too
	close(stop)
	return before, <-done
}

// TestAdvancedPlaygroundMemoryIsBounded: an answer of 100 flags × 1,000
// user ids (tens of MB) is written while the server keeps at most a few
// flags' evaluations live, never the whole answer.
func TestAdvancedPlaygroundMemoryIsBounded(t *testing.T) {
	_, url := newSeededServer(t, 100)
	body := manyUsersBody(maxPlaygroundEvaluations)
	var size int64
	before, peak := peakLiveHeap(func() { size = postDiscarding(t, url, body) })
	growth := int64(peak) - int64(before)
	const bound = 32 << 20
	t.Logf("answer %.1f MB, live heap growth %.1f MB", float64(size)/(1<<20), float64(growth)/(1<<20))
	if size < 2*bound {
		t.Fatalf("the answer is %d bytes; the test needs one well over %d to mean anything", size, 2*bound)
	}
	if growth > bound {
		t.Errorf("the live heap grew by %d bytes while writing a %d-byte answer; the bound is %d", growth, size, bound)
	}
}

// holdPlayground starts an advanced playground request on a connection of
// its own with Expect: 100-continue and returns once the server has asked
// for the body, that is once the handler runs and holds its slot. finish
// sends the body and returns the answer's status.
func holdPlayground(t *testing.T, url, auth, body string) (finish func() int) {
	t.Helper()
	conn, err := net.Dial("tcp", strings.TrimPrefix(url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	fmt.Fprintf(conn, "POST /api/admin/playground/advanced HTTP/1.1\r\nHost: loopback\r\nAuthorization: %s\r\n"+
		"Content-Type: application/json\r\nContent-Length: %d\r\nExpect: 100-continue\r\n\r\n", auth, len(body))
	br := bufio.NewReader(conn)
	line, err := br.ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "HTTP/1.1 100 ") {
		t.Fatalf("expected 100 Continue, got %q (%v)", line, err)
	}
	if blank, err := br.ReadString('\n'); err != nil || blank != "\r\n" {
		t.Fatalf("after 100 Continue: %q (%v)", blank, err)
	}
	return func() int {
		if _, err := io.WriteString(conn, body); err != nil {
			t.Fatal(err)
		}
		res, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		// Reading to the end of the chunked answer means the handler has
		// returned, its slot given back.
		if _, err := io.Copy(io.Discard, res.Body); err != nil {
			t.Fatal(err)
		}
		return res.StatusCode
	}
}

// TestAdvancedPlaygroundConcurrencyPerPrincipal: a user or token has at
// most maxPlaygroundPerPrincipal advanced requests in progress; one more
// is a 429 with Retry-After, other principals are not affected, and the
// slots come back when the requests end.
func TestAdvancedPlaygroundConcurrencyPerPrincipal(t *testing.T) {
	ts := newTestServer(t)
	seedPlayground(t, ts)
	viewer := viewerSession(t, ts)
	body := `{"environments":["development"],"context":{"appName":"shop","userId":"1,2"}}`

	var held []func() int
	for range maxPlaygroundPerPrincipal {
		held = append(held, holdPlayground(t, ts.url, testAdminToken, body))
	}
	res := ts.request("POST", "/api/admin/playground/advanced", testAdminToken, body)
	mustErrorRecord(t, res, http.StatusTooManyRequests, "TooManyRequestsError", "")
	if got := res.Header.Get("Retry-After"); got != "1" {
		t.Errorf("Retry-After %q", got)
	}
	if msg, _ := res.Object()["message"].(string); !strings.Contains(msg, strconv.Itoa(maxPlaygroundPerPrincipal)) {
		t.Errorf("the message does not say the limit: %s", res.Body)
	}
	// Another user is not held up by the admin token's requests.
	ts.asSession(viewer, "POST", "/api/admin/playground/advanced", body).must(t, http.StatusOK)
	// The plain playground is not limited.
	ts.admin("POST", "/api/admin/playground", map[string]any{"environment": "development", "context": map[string]any{"appName": "shop"}}).must(t, http.StatusOK)

	for i, finish := range held {
		if got := finish(); got != http.StatusOK {
			t.Errorf("held request %d: status %d", i, got)
		}
	}
	ts.request("POST", "/api/admin/playground/advanced", testAdminToken, body).must(t, http.StatusOK)
	// Refused requests hold nothing: after the 429 the counts are back to
	// zero.
	ts.srv.playgroundSlots.mu.Lock()
	left := len(ts.srv.playgroundSlots.busy)
	ts.srv.playgroundSlots.mu.Unlock()
	if left != 0 {
		t.Errorf("slots still taken: %v", ts.srv.playgroundSlots.busy)
	}
}

// BenchmarkAdvancedPlaygroundMemory asks about 1,000 flags × 1,000 user
// ids (an answer of hundreds of MB) and reports the answer's size, the
// growth of the live heap and, on Linux, of the peak resident set: both
// stay a few flags' worth, far below the answer.
func BenchmarkAdvancedPlaygroundMemory(b *testing.B) {
	_, url := newSeededServer(b, 1000)
	body := manyUsersBody(maxPlaygroundEvaluations)
	var size int64
	var growth, rss int64
	for b.Loop() {
		rssBefore, resetOK := resetPeakRSS()
		before, peak := peakLiveHeap(func() { size = postDiscarding(b, url, body) })
		growth = max(growth, int64(peak)-int64(before))
		if after, ok := procStatusKB("VmHWM"); ok && resetOK {
			rss = max(rss, (after-rssBefore)*1024)
		}
	}
	b.ReportMetric(float64(size)/(1<<20), "answer-MB")
	b.ReportMetric(float64(growth)/(1<<20), "peak-live-heap-growth-MB")
	b.ReportMetric(float64(rss)/(1<<20), "peak-RSS-growth-MB")
}

// resetPeakRSS resets the process's peak resident set (VmHWM) to its
// current size and returns that size in kB; ok is false where the system
// cannot.
func resetPeakRSS() (kB int64, ok bool) {
	if os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) != nil {
		return 0, false
	}
	return procStatusKB("VmRSS")
}

// procStatusKB reads one kB field of /proc/self/status.
func procStatusKB(field string) (int64, bool) {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, false
	}
	for line := range strings.Lines(string(data)) {
		if rest, ok := strings.CutPrefix(line, field+":"); ok {
			n, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return n, err == nil
		}
	}
	return 0, false
}
