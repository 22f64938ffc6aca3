package clientip

import (
	"net/http"
	"net/netip"
)

// xffKey is the canonical header key, read from the map directly so the
// lookup does not canonicalise (and allocate) on every request.
const xffKey = "X-Forwarded-For"

// ClientIP returns the client's address for r as text (IPv4-mapped IPv6
// unmapped, no zone, no port), or "" when it is not known: when the socket
// peer is not an IP address (a Unix socket) or when the walk ends at an
// X-Forwarded-For entry that is not an address.
func (t Trust) ClientIP(r *http.Request) string {
	a := t.Addr(r.RemoteAddr, r.Header[xffKey])
	if !a.IsValid() {
		return ""
	}
	return a.String()
}

// Addr is ClientIP without the request: remoteAddr is the socket peer
// (host:port, as in http.Request.RemoteAddr) and xff holds the
// X-Forwarded-For header values in the order they were received. It does
// not allocate.
//
// The chain is [xff entries..., peer], walked right to left. Trusted hops
// are skipped; the first untrusted address is the client, and when every
// hop is trusted the leftmost entry is. Several X-Forwarded-For headers are
// one list in order, as RFC 9110 §5.3 says for a repeated list header.
// Entries may carry spaces, a port, IPv6 brackets or a zone.
//
// An entry that is not an address stops the walk and the result is the
// zero Addr, meaning "unknown". Express would hand the garbage text on as
// the client address; skipping it would mean trusting text that no trusted
// proxy could have written; and falling back to a hop we already trust
// would report the proxy as the client. Unknown is the only honest answer.
func (t Trust) Addr(remoteAddr string, xff []string) netip.Addr {
	peer, ok := parseHop(remoteAddr)
	if !ok || !t.Enabled() || !t.Trusts(peer) {
		return peer
	}
	client := peer
	for i := len(xff) - 1; i >= 0; i-- {
		v := xff[i]
		end := len(v)
		for end > 0 {
			start := end - 1
			for start >= 0 && v[start] != ',' {
				start--
			}
			entry := v[start+1 : end]
			end = start
			if isBlank(entry) {
				// proxy-addr skips empty list elements ("a,,b", "a, ").
				continue
			}
			a, ok := parseHop(entry)
			if !ok {
				return netip.Addr{}
			}
			client = a
			if !t.Trusts(a) {
				return a
			}
		}
	}
	return client
}

// parseHop reads one address in the forms found in RemoteAddr and
// X-Forwarded-For: "1.2.3.4", "1.2.3.4:80", "::1", "[::1]", "[::1]:80",
// "fe80::1%eth0", surrounded by optional spaces or tabs. It avoids the
// error-returning parsers on the common shapes so that it does not allocate.
func parseHop(s string) (netip.Addr, bool) {
	s = trimOWS(s)
	if s == "" {
		return netip.Addr{}, false
	}
	if s[0] == '[' {
		end := -1
		for i := 1; i < len(s); i++ {
			if s[i] == ']' {
				end = i
				break
			}
		}
		if end < 0 || (end+1 < len(s) && !isPort(s[end+1:])) {
			return netip.Addr{}, false
		}
		return parseAddr(s[1:end])
	}
	colons, last := 0, -1
	for i := 0; i < len(s); i++ {
		if s[i] == ':' {
			colons++
			last = i
		}
	}
	if colons == 1 {
		// Only IPv4 (or a name) has a single colon: it comes before a port.
		if !isPort(s[last:]) {
			return netip.Addr{}, false
		}
		s = s[:last]
	}
	return parseAddr(s)
}

// parseAddr parses a bare address and normalises it.
func parseAddr(s string) (netip.Addr, bool) {
	a, err := netip.ParseAddr(s)
	if err != nil {
		return netip.Addr{}, false
	}
	return normalize(a), true
}

// normalize drops what must not affect matching or output: a zone (a
// zoned address never matches a netip.Prefix) and IPv4-in-IPv6 mapping
// (dual-stack sockets report IPv4 peers as ::ffff:a.b.c.d).
func normalize(a netip.Addr) netip.Addr { return a.WithZone("").Unmap() }

// isPort reports whether s is ":" followed by 1–5 digits.
func isPort(s string) bool {
	if len(s) < 2 || len(s) > 6 || s[0] != ':' {
		return false
	}
	for i := 1; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func isBlank(s string) bool { return trimOWS(s) == "" }

// trimOWS trims HTTP optional whitespace (spaces and tabs).
func trimOWS(s string) string {
	for len(s) > 0 && (s[0] == ' ' || s[0] == '\t') {
		s = s[1:]
	}
	for len(s) > 0 && (s[len(s)-1] == ' ' || s[len(s)-1] == '\t') {
		s = s[:len(s)-1]
	}
	return s
}
