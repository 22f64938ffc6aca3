package proxy

import (
	"bytes"
	"net/http"
	"strings"
	"testing"
)

// TestAnswerCache checks that whole-context answers are kept per
// configuration from their context's second request on and are byte for
// byte what evaluation gives, that volatile
// answers and made-up sessions are not kept, and that a new configuration
// is served at once.
func TestAnswerCache(t *testing.T) {
	up := newFakeUpstream(t)
	h := startProxy(t, testConfig(t, up.url()))
	h.waitReady(t)
	entries := func() int64 { return h.p.state.Load().answers.CachedAnswers() }

	_, first := h.do(t, "GET", "/proxy?userId=alice&sessionId=s1", "")
	if entries() != 0 {
		t.Fatalf("entries after a context's first answer = %d, want 0", entries())
	}
	if _, again := h.do(t, "GET", "/proxy?userId=alice&sessionId=s1", ""); !bytes.Equal(first, again) || entries() != 1 {
		t.Fatalf("the same context again: equal %v, entries %d, want kept once", bytes.Equal(first, again), entries())
	}
	_, second := h.do(t, "GET", "/proxy?sessionId=s1&userId=alice", "")
	if !bytes.Equal(first, second) || entries() != 1 {
		t.Errorf("same context in another parameter order: equal %v, entries %d", bytes.Equal(first, second), entries())
	}
	// The POST form of the same context shares the entry.
	_, post := h.do(t, "POST", "/proxy", `{"context":{"userId":"alice","sessionId":"s1"}}`)
	if !bytes.Equal(first, post) || entries() != 1 {
		t.Errorf("POST of the same context: equal %v, entries %d", bytes.Equal(first, post), entries())
	}
	// Without a sessionId the proxy makes one up: nothing worth keeping.
	h.do(t, "GET", "/proxy?userId=bob", "")
	h.do(t, "GET", "/proxy?userId=bob", "")
	if entries() != 1 {
		t.Errorf("a made-up session was cached: entries %d", entries())
	}
	// Toggle lists are evaluated (and counted) every time.
	h.do(t, "POST", "/proxy", `{"context":{"userId":"alice","sessionId":"s1"},"toggles":["on-default"]}`)
	h.do(t, "POST", "/proxy", `{"context":{"userId":"alice","sessionId":"s1"},"toggles":["on-default"]}`)
	if entries() != 1 {
		t.Errorf("a toggles list was cached: entries %d", entries())
	}
	// A new configuration starts empty and is served at once.
	up.set(func(f *fakeUpstream) {
		f.payload = []byte(`{"version":2,"features":[{"name":"fresh","enabled":true,"strategies":[],"variants":[]}]}`)
		f.etag = `"rev-2"`
	})
	waitFor(t, "new configuration", func() bool { return h.p.state.Load().snap.Has("fresh") })
	res, body := h.do(t, "GET", "/proxy?userId=alice&sessionId=s1", "")
	if res.StatusCode != http.StatusOK || len(toggles(t, body)) != 1 || toggles(t, body)[0].Name != "fresh" {
		t.Errorf("after the new configuration: %s", body)
	}
}

func TestAnswerCacheSkipsVolatile(t *testing.T) {
	up := newFakeUpstream(t)
	up.set(func(f *fakeUpstream) {
		f.payload = []byte(`{"version":2,"features":[{"name":"coin","enabled":true,
		  "strategies":[{"name":"gradualRolloutRandom","parameters":{"percentage":"50"}}],"variants":[]}]}`)
	})
	h := startProxy(t, testConfig(t, up.url()))
	h.waitReady(t)
	seen := map[int]bool{}
	for range 60 {
		_, body := h.do(t, "GET", "/proxy?userId=alice&sessionId=s1", "")
		seen[len(toggles(t, body))] = true
	}
	if !seen[0] || !seen[1] {
		t.Errorf("a 50%% random flag gave the same answer 60 times: %v", seen)
	}
	if n := h.p.state.Load().answers.CachedAnswers(); n != 0 {
		t.Errorf("volatile answers cached: %d entries", n)
	}
}

// TestAnswerCacheOption: SIGNALBOX_PROXY_ANSWER_CACHE_BYTES=0 turns the
// answer cache off; what is not a number of bytes is refused by name.
func TestAnswerCacheOption(t *testing.T) {
	if c, err := ConfigFromEnv(env(map[string]string{"SIGNALBOX_PROXY_ANSWER_CACHE_BYTES": "0"})); err != nil || c.withDefaults().AnswerCacheBytes >= 0 {
		t.Errorf("0 bytes: %d %v", c.AnswerCacheBytes, err)
	}
	for _, bad := range []string{"-5", "16MB", "1.5"} {
		if _, err := ConfigFromEnv(env(map[string]string{"SIGNALBOX_PROXY_ANSWER_CACHE_BYTES": bad})); err == nil ||
			!strings.Contains(err.Error(), "SIGNALBOX_PROXY_ANSWER_CACHE_BYTES") {
			t.Errorf("%q: error %v", bad, err)
		}
	}
}
