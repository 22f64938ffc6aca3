package server

import (
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// internalURLs name an internal address of every range literally, in the
// notations URLs and resolvers accept.
var internalURLs = []string{
	"http://127.0.0.1/hook", "http://127.8.9.10:8080/", "http://127.0.0.1./",
	"http://10.0.0.1/", "http://10.255.255.255/", "http://172.16.5.4/", "http://172.31.255.255/",
	"http://192.168.1.1/", "http://169.254.169.254/latest/meta-data/", "http://169.254.0.1/",
	"http://100.64.0.1/", "http://100.127.255.254/", "http://0.0.0.0:4242/", "http://0.1.2.3/",
	"http://224.0.0.1/", "http://239.255.255.250:1900/", "http://255.255.255.255/", "http://240.0.0.1/",
	"http://[::1]/", "http://[::]:80/", "http://[fc00::1]/", "http://[fd12:3456:789a::1]/",
	"http://[fe80::1]/", "http://[fe80::1%25eth0]:8080/", "http://[fec0::1]/", "http://[ff02::1]/",
	"http://[::ffff:127.0.0.1]/", "http://[::ffff:169.254.169.254]/", "http://[::ffff:a00:1]/",
	"http://[::ffff:192.168.0.1]/", "http://[::127.0.0.1]/", "http://[64:ff9b::a9fe:a9fe]/",
	"http://[2002:7f00:1::]/", "http://[2002:c0a8:101::1]/",
	"http://127.1/", "http://0x7f000001/", "http://2130706433/", "http://0177.0.0.1/",
	"http://017700000001/", "http://0x7f.0.0.1/", "http://0xa9.0xfe.0xa9.0xfe/", "http://10.1/",
}

// publicURLs are accepted whatever the allow-list: public addresses, and
// host names, which are checked when dialled.
var publicURLs = []string{
	"http://93.184.215.14/hook", "https://8.8.8.8:8443/", "http://[2606:4700:4700::1111]/",
	"http://100.63.255.255/", "http://100.128.0.1/", "http://172.32.0.1/", "http://169.253.1.1/",
	"http://11.0.0.1/", "http://223.255.255.255/", "http://[64:ff9b::808:808]/", "http://[2002:808:808::1]/",
	"http://hooks.example.com/x", "http://localhost:1/", "http://metadata.google.internal/",
}

// TestWebhookURLRefusesInternalAddresses: by default a URL naming an
// internal address of any range, in any notation, is refused when saved
// (created or updated), with a 400 that says why, and nothing is
// recorded; public addresses and host names are accepted.
func TestWebhookURLRefusesInternalAddresses(t *testing.T) {
	ts := newTestServer(t)
	hook := func(u string) map[string]any {
		return map[string]any{"provider": "webhook", "enabled": true, "events": []string{"feature-created"}, "parameters": map[string]any{"url": u}}
	}
	var id int
	for _, u := range publicURLs {
		id = createAddon(t, ts, hook(u))
	}
	for _, u := range internalURLs {
		t.Run(u, func(t *testing.T) {
			mark := auditMark(t, ts)
			res := ts.admin("POST", "/api/admin/addons", hook(u))
			mustErrorRecord(t, res, http.StatusBadRequest, "ValidationError", "parameters.url")
			if !strings.Contains(string(res.Body), "internal address") || !strings.Contains(string(res.Body), "ADDON_ALLOWED_HOSTS") {
				t.Errorf("the refusal does not say why: %s", res.Body)
			}
			mustErrorRecord(t, ts.admin("PUT", "/api/admin/addons/"+itoa(id), hook(u)), http.StatusBadRequest, "ValidationError", "parameters.url")
			mustNoAudit(t, ts, mark)
		})
	}
	if p := storedAddonParams(t, ts, id); p["url"] != publicURLs[len(publicURLs)-1] {
		t.Errorf("a refused update changed the addon: %v", p)
	}
}

// TestWebhookURLAllowList: the operator's allow-list lets the addresses,
// prefixes and names it lists be saved, and only those.
func TestWebhookURLAllowList(t *testing.T) {
	ts := openHookTestServer(t, filepath.Join(t.TempDir(), "signalbox.db"), "127.0.0.1", "10.1.0.0/16", "fd00:1::/32", "Hooks.Internal.")
	hook := func(u string) map[string]any {
		return map[string]any{"provider": "webhook", "enabled": true, "events": []string{"feature-created"}, "parameters": map[string]any{"url": u}}
	}
	for _, u := range []string{"http://127.0.0.1:9/", "http://[::ffff:127.0.0.1]/", "http://10.1.200.3/", "http://[fd00:1:2::3]/", "http://hooks.internal/", "http://HOOKS.internal./"} {
		ts.admin("POST", "/api/admin/addons", hook(u)).must(t, http.StatusOK)
	}
	for _, u := range []string{"http://127.0.0.2/", "http://127.2/", "http://10.2.0.1/", "http://[fd00:2::1]/", "http://[::1]/", "http://169.254.169.254/"} {
		mustErrorRecord(t, ts.admin("POST", "/api/admin/addons", hook(u)), http.StatusBadRequest, "ValidationError", "parameters.url")
	}
}

// TestServerRefusesBadAllowList: a malformed allow-list stops New.
func TestServerRefusesBadAllowList(t *testing.T) {
	for _, bad := range [][]string{{"10.0.0.0/33"}, {"*.corp"}, {"host:8080"}, {"http://host"}, {"a..b"}} {
		if err := CheckAddonAllowedHosts(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	if err := CheckAddonAllowedHosts([]string{" hooks.internal ", "", "10.0.0.0/8", "[::1]", "fd00::/8", "::ffff:10.0.0.0/104"}); err != nil {
		t.Errorf("a good list refused: %v", err)
	}
}

// hookedFeature creates a flag and runs the delivery worker once.
func hookedFeature(t *testing.T, ts *testServer, name string) {
	t.Helper()
	ts.admin("POST", "/api/admin/projects/default/features", map[string]any{"name": name}).must(t, http.StatusCreated)
	deliver(t, ts)
}

// mustFailGenerically checks that the addon's one delivery failed and that
// the delivery log says no more than that.
func mustFailGenerically(t *testing.T, ts *testServer, id int) {
	t.Helper()
	res := ts.admin("GET", "/api/admin/addons/"+itoa(id)+"/events", nil).must(t, http.StatusOK)
	ds := deliveries(t, ts, id)
	if len(ds) != 1 || ds[0].State != "failed" || ds[0].Details["lastError"] != webhookFailed || ds[0].Details["statusCode"] != nil {
		t.Fatalf("deliveries %s", res.Body)
	}
	for _, leak := range []string{"127.0.0.1", "refused", "internal", "dial", "redirect", "lookup"} {
		if strings.Contains(string(res.Body), leak) {
			t.Errorf("the delivery log says %q: %s", leak, res.Body)
		}
	}
}

// TestWebhookNameResolvingToLoopbackRefused: a host name that resolves to
// loopback is accepted when saved and refused when dialled, by default;
// the receiver listening there gets nothing.
func TestWebhookNameResolvingToLoopbackRefused(t *testing.T) {
	ts := newTestServer(t)
	recv := newReceiver(t)
	u, _ := url.Parse(recv.url)
	id := createAddon(t, ts, map[string]any{"provider": "webhook", "enabled": true, "events": []string{"feature-created"},
		"parameters": map[string]any{"url": "http://localhost:" + u.Port() + "/hook"}})
	hookedFeature(t, ts, "by-name")
	if n := len(recv.list()); n != 0 {
		t.Fatalf("the loopback receiver got %d requests", n)
	}
	mustFailGenerically(t, ts, id)
}

// TestWebhookAllowListLetsNamedHostThrough: a host name on the allow-list
// is dialled wherever it resolves, loopback included; the same receiver by
// its address stays refused when only the name is allowed.
func TestWebhookAllowListLetsNamedHostThrough(t *testing.T) {
	ts := openHookTestServer(t, filepath.Join(t.TempDir(), "signalbox.db"), "localhost")
	recv := newReceiver(t)
	u, _ := url.Parse(recv.url)
	createAddon(t, ts, map[string]any{"provider": "webhook", "enabled": true, "events": []string{"feature-created"},
		"parameters": map[string]any{"url": "http://LocalHost:" + u.Port() + "/named", "bodyTemplate": "{{event.featureName}}"}})
	mustErrorRecord(t, ts.admin("POST", "/api/admin/addons", map[string]any{"provider": "webhook", "enabled": true,
		"events": []string{"feature-created"}, "parameters": map[string]any{"url": recv.url}}), http.StatusBadRequest, "ValidationError", "parameters.url")
	hookedFeature(t, ts, "allowed")
	calls := recv.list()
	if len(calls) != 1 || calls[0].Path != "/named" || calls[0].Body != "allowed" {
		t.Fatalf("calls %+v", calls)
	}
}

// TestWebhookRedirectToLoopbackRefused: a receiver the allow-list lets
// through that redirects to 127.0.0.1 does not get the event sent there;
// a redirect within its own host is still followed.
func TestWebhookRedirectToLoopbackRefused(t *testing.T) {
	ts := openHookTestServer(t, filepath.Join(t.TempDir(), "signalbox.db"), "localhost")
	target := newReceiver(t)
	var hits atomic.Int32
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		switch r.URL.Path {
		case "/to-loopback":
			http.Redirect(w, r, target.url+"/stolen", http.StatusTemporaryRedirect)
		case "/moved":
			http.Redirect(w, r, "/final", http.StatusTemporaryRedirect)
		default:
			w.WriteHeader(http.StatusNoContent)
		}
	}))
	t.Cleanup(hs.Close)
	u, _ := url.Parse(hs.URL)
	base := "http://localhost:" + u.Port()
	away := createAddon(t, ts, map[string]any{"provider": "webhook", "enabled": true, "events": []string{"feature-created"},
		"parameters": map[string]any{"url": base + "/to-loopback", "authorization": hookSecret}})
	moved := createAddon(t, ts, map[string]any{"provider": "webhook", "enabled": true, "events": []string{"feature-created"},
		"parameters": map[string]any{"url": base + "/moved"}})
	hookedFeature(t, ts, "hop")
	if n := len(target.list()); n != 0 {
		t.Fatalf("the redirect target on 127.0.0.1 got %d requests", n)
	}
	if hits.Load() != 3 {
		t.Errorf("the receiver got %d requests, want 3 (the refused redirect, the followed one and its end)", hits.Load())
	}
	mustFailGenerically(t, ts, away)
	if ds := deliveries(t, ts, moved); len(ds) != 1 || ds[0].State != "success" {
		t.Errorf("same-host redirect: %+v", ds)
	}
}

// TestWebhookDialRefusesInternal: the transport's dial check refuses every
// internal address, whatever the URL held, and lets the allowed prefixes
// through; it is what catches names and redirects.
func TestWebhookDialRefusesInternal(t *testing.T) {
	recv := newReceiver(t)
	u, _ := url.Parse(recv.url)
	for _, tc := range []struct {
		allow []string
		url   string
		want  bool
	}{
		{nil, recv.url, false},
		{nil, "http://localhost:" + u.Port(), false},
		{[]string{"127.0.0.0/8"}, recv.url, true},
		{[]string{"127.0.0.1"}, "http://localhost:" + u.Port(), true},
		{[]string{"10.0.0.0/8"}, recv.url, false},
		{[]string{"localhost"}, recv.url, false},
	} {
		p, err := parseEgressPolicy(tc.allow)
		if err != nil {
			t.Fatal(err)
		}
		out := sendWebhook(t.Context(), newWebhookClient(p), map[string]string{"url": tc.url + "/dial"}, []byte("{}"))
		if got := out.err == ""; got != tc.want {
			t.Errorf("allow %v, %s: delivered %v (%+v), want %v", tc.allow, tc.url, got, out, tc.want)
		}
		if !tc.want && (out.err != webhookFailed || out.cause == nil || !strings.Contains(out.cause.Error(), "internal")) {
			t.Errorf("allow %v, %s: outcome %+v", tc.allow, tc.url, out)
		}
	}
}

func TestInternalAddr(t *testing.T) {
	for _, u := range internalURLs {
		parsed, err := url.Parse(u)
		if err != nil {
			t.Fatalf("%s: %v", u, err)
		}
		a, ok := hostAddr(parsed.Hostname())
		if !ok || !internalAddr(a.Unmap().WithZone("")) {
			t.Errorf("%s: %v %v is not internal", u, a, ok)
		}
	}
	for _, u := range publicURLs {
		parsed, _ := url.Parse(u)
		if a, ok := hostAddr(parsed.Hostname()); ok && internalAddr(a.Unmap()) {
			t.Errorf("%s: %v is internal", u, a)
		}
	}
	for host, want := range map[string]string{
		"127.1": "127.0.0.1", "0x7f000001": "127.0.0.1", "2130706433": "127.0.0.1", "0177.0.0.1": "127.0.0.1",
		"10.1": "10.0.0.1", "192.168.257": "192.168.1.1", "0x": "0.0.0.0", "1.2.3.4.": "1.2.3.4",
	} {
		if a, ok := hostAddr(host); !ok || a != netip.MustParseAddr(want) {
			t.Errorf("hostAddr(%q) = %v %v, want %s", host, a, ok, want)
		}
	}
	for _, host := range []string{"", "example.com", "1.2.3.4.5", "256.1.1.1", "08.1.1.1", "1.2.65536", "4294967296", "0x1g", "-1"} {
		if a, ok := hostAddr(host); ok {
			t.Errorf("hostAddr(%q) = %v, want not an address", host, a)
		}
	}
}

// FuzzAddonURL: checking a webhook URL never panics, gives the same
// answer twice, accepts only absolute http(s) URLs, refuses an address
// only when it is internal and not allowed, and accepts a literal address
// only when the dial check would let it through too.
func FuzzAddonURL(f *testing.F) {
	for _, u := range append(append([]string{"", "file:///etc/passwd", "http://", "http://[::1", "http://[fe80::1%25]/", "http://a b/", "http:///x", "HTTP://127.0.0.1/"}, internalURLs...), publicURLs...) {
		f.Add(u)
	}
	none := egressPolicy{}
	all, err := parseEgressPolicy([]string{"0.0.0.0/0", "::/0"})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		errNone := none.checkURL("parameters.url", raw)
		if again := none.checkURL("parameters.url", raw); (again == nil) != (errNone == nil) {
			t.Fatalf("%q: %v, then %v", raw, errNone, again)
		}
		errAll := all.checkURL("parameters.url", raw)
		if errNone == nil && errAll != nil {
			t.Fatalf("%q: accepted by default, refused when everything is allowed: %v", raw, errAll)
		}
		if errAll != nil {
			return
		}
		u, err := url.Parse(raw)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			t.Fatalf("%q accepted: %v", raw, err)
		}
		a, isAddr := hostAddr(u.Hostname())
		if errNone == nil && isAddr && !none.addrAllowed(a) {
			t.Fatalf("%q accepted, but its address %v would be refused when dialled", raw, a)
		}
		if errNone != nil && !(isAddr && internalAddr(a.Unmap().WithZone(""))) {
			t.Fatalf("%q refused without an internal address: %v", raw, errNone)
		}
	})
}
