package clientip

import (
	"net/netip"
	"strings"
	"testing"
)

// FuzzClientIP checks that no option, peer or header value makes Parse or
// Addr panic, and that the answer is always an address from the chain.
func FuzzClientIP(f *testing.F) {
	seeds := []struct{ trust, remote, xff string }{
		{"true", "127.0.0.1:1", "1.2.3.4"},
		{"loopback", "127.0.0.1:1", "6.6.6.6, 203.0.113.5"},
		{"loopback,10.0.0.0/8", "[::1]:80", "[2001:db8::1]:443\n10.1.1.1"},
		{"uniquelocal", "10.0.0.1:1", "fe80::1%eth0, ,unknown"},
		{"10.0.0.0/255.0.0.0", "@", "::ffff:1.2.3.4"},
		{"::ffff:10.0.0.0/104", "[::ffff:10.0.0.1]:1", "[::1"},
		{"false", "", ""},
	}
	for _, s := range seeds {
		f.Add(s.trust, s.remote, s.xff)
	}
	f.Fuzz(func(t *testing.T, option, remote, xff string) {
		tr, err := Parse(option)
		if err != nil {
			return
		}
		// A newline separates header values, as if the request had several.
		headers := strings.Split(xff, "\n")
		got := tr.Addr(remote, headers)
		if !got.IsValid() {
			return
		}
		if got.Zone() != "" || got.Is4In6() {
			t.Fatalf("Addr = %v, not normalised", got)
		}
		if peer, _ := parseHop(remote); got == peer {
			return
		}
		if !tr.Enabled() {
			t.Fatalf("trust off but Addr = %v, not the peer %q", got, remote)
		}
		if !inChain(got, headers) {
			t.Fatalf("Addr = %v is neither the peer %q nor in %q", got, remote, headers)
		}
	})
}

func inChain(a netip.Addr, headers []string) bool {
	for _, h := range headers {
		for e := range strings.SplitSeq(h, ",") {
			if b, ok := parseHop(e); ok && b == a {
				return true
			}
		}
	}
	return false
}
