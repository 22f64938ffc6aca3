package server

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/signalbox/signalbox/internal/apierr"
)

// Where webhooks may go. An addon's URL is chosen by an admin, and each
// delivery sends admin-chosen headers and body to it; left open, that
// reaches what only the server can reach: its loopback, the cloud metadata
// address, the private network. So by default no webhook connects to an
// internal address: loopback, link-local, private (RFC 1918), unique-local
// (fc00::/7), shared (100.64.0.0/10), unspecified, multicast, broadcast and
// reserved addresses, in IPv4 or IPv6 form, including IPv4-mapped and
// other IPv6 forms that embed such an IPv4 address. The check is made on
// the address actually dialled, after DNS and on every redirect, so a name
// resolving to an internal address is refused as surely as the literal
// address; URLs naming an internal address literally are refused when an
// addon is saved.
//
// The operator allows internal receivers with Config.AddonAllowedHosts
// (ADDON_ALLOWED_HOSTS): host names, matched exactly, whose addresses are
// then not checked, and addresses or CIDR prefixes that may be dialled.

// egressPolicy says which webhook destinations are allowed beyond the
// public internet. The zero value allows none.
type egressPolicy struct {
	// hosts are allowed host names, lower case, without a trailing dot.
	hosts map[string]bool
	// prefixes are allowed internal addresses.
	prefixes []netip.Prefix
}

// maxAllowedHosts bounds the allow-list.
const maxAllowedHosts = 1000

// CheckAddonAllowedHosts reports whether entries are a valid allow-list
// for Config.AddonAllowedHosts, with an error naming each bad entry.
func CheckAddonAllowedHosts(entries []string) error {
	_, err := parseEgressPolicy(entries)
	return err
}

// parseEgressPolicy reads an allow-list: host names, IP addresses and CIDR
// prefixes; empty entries are skipped.
func parseEgressPolicy(entries []string) (egressPolicy, error) {
	p := egressPolicy{hosts: map[string]bool{}}
	if len(entries) > maxAllowedHosts {
		return p, fmt.Errorf("%d entries; at most %d", len(entries), maxAllowedHosts)
	}
	var errs []error
	for _, e := range entries {
		e = strings.TrimSpace(e)
		if e == "" {
			continue
		}
		if strings.Contains(e, "/") {
			pfx, err := netip.ParsePrefix(e)
			if err != nil {
				errs = append(errs, fmt.Errorf("%q is not a CIDR prefix such as 10.1.0.0/16", e))
				continue
			}
			if pfx.Addr().Is4In6() {
				bits := pfx.Bits() - 96
				if bits < 0 {
					errs = append(errs, fmt.Errorf("%q is wider than the IPv4-mapped range; name the IPv4 prefix", e))
					continue
				}
				pfx = netip.PrefixFrom(pfx.Addr().Unmap(), bits)
			}
			p.prefixes = append(p.prefixes, pfx.Masked())
			continue
		}
		if a, err := netip.ParseAddr(strings.TrimSuffix(strings.TrimPrefix(e, "["), "]")); err == nil {
			a = a.Unmap().WithZone("")
			p.prefixes = append(p.prefixes, netip.PrefixFrom(a, a.BitLen()))
			continue
		}
		name := normalHost(e)
		if !validHostName(name) {
			errs = append(errs, fmt.Errorf("%q is not a host name, IP address or CIDR prefix (host names are matched exactly, without a port or wildcard)", e))
			continue
		}
		p.hosts[name] = true
	}
	return p, errors.Join(errs...)
}

// normalHost is a host name as the allow-list compares it.
func normalHost(h string) string { return strings.TrimSuffix(strings.ToLower(h), ".") }

// validHostName accepts DNS names: dot-separated labels of letters,
// digits, hyphens and underscores.
func validHostName(h string) bool {
	if h == "" || len(h) > 253 {
		return false
	}
	for _, label := range strings.Split(h, ".") {
		if label == "" || len(label) > 63 {
			return false
		}
		for _, c := range label {
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
				return false
			}
		}
	}
	return true
}

// hostAllowed tells whether host (from a URL or a dial address) is one of
// the allowed names.
func (p egressPolicy) hostAllowed(host string) bool {
	return len(p.hosts) > 0 && p.hosts[normalHost(host)]
}

// addrAllowed tells whether a webhook may connect to a: any public address,
// and internal ones the allow-list names.
func (p egressPolicy) addrAllowed(a netip.Addr) bool {
	a = a.Unmap().WithZone("")
	if !internalAddr(a) {
		return true
	}
	for _, pfx := range p.prefixes {
		if pfx.Contains(a) {
			return true
		}
	}
	return false
}

// internalV4 are the IPv4 ranges webhooks may not reach by default.
var internalV4 = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),      // "this network", unspecified
	netip.MustParsePrefix("10.0.0.0/8"),     // private
	netip.MustParsePrefix("100.64.0.0/10"),  // shared address space (CGNAT)
	netip.MustParsePrefix("127.0.0.0/8"),    // loopback
	netip.MustParsePrefix("169.254.0.0/16"), // link-local, cloud metadata
	netip.MustParsePrefix("172.16.0.0/12"),  // private
	netip.MustParsePrefix("192.168.0.0/16"), // private
	netip.MustParsePrefix("224.0.0.0/4"),    // multicast
	netip.MustParsePrefix("240.0.0.0/4"),    // reserved, broadcast
}

// internalV6 are the IPv6 ranges webhooks may not reach by default, beyond
// those embedding an IPv4 address (see internalAddr).
var internalV6 = []netip.Prefix{
	netip.MustParsePrefix("::/128"),    // unspecified
	netip.MustParsePrefix("::1/128"),   // loopback
	netip.MustParsePrefix("fc00::/7"),  // unique-local
	netip.MustParsePrefix("fe80::/10"), // link-local
	netip.MustParsePrefix("fec0::/10"), // site-local (deprecated)
	netip.MustParsePrefix("ff00::/8"),  // multicast
}

// IPv6 ranges that carry an IPv4 address, which decides for them.
var (
	v4Compatible = netip.MustParsePrefix("::/96")        // deprecated ::a.b.c.d
	nat64        = netip.MustParsePrefix("64:ff9b::/96") // NAT64, RFC 6052
	sixToFour    = netip.MustParsePrefix("2002::/16")    // 6to4, RFC 3056
)

// internalAddr tells whether a is in a range webhooks may not reach by
// default. a has no zone and is not IPv4-mapped.
func internalAddr(a netip.Addr) bool {
	if !a.IsValid() {
		return true
	}
	if a.Is4() {
		for _, pfx := range internalV4 {
			if pfx.Contains(a) {
				return true
			}
		}
		return false
	}
	for _, pfx := range internalV6 {
		if pfx.Contains(a) {
			return true
		}
	}
	b := a.As16()
	switch {
	case v4Compatible.Contains(a), nat64.Contains(a):
		return internalAddr(netip.AddrFrom4([4]byte(b[12:16])))
	case sixToFour.Contains(a):
		return internalAddr(netip.AddrFrom4([4]byte(b[2:6])))
	}
	return false
}

// checkURL checks a webhook URL when it is saved: an absolute http or https
// URL whose host, when it is an address (in any notation a resolver might
// read as one), is not internal unless allowed. Host names pass: where
// they lead is checked when they are dialled.
func (p egressPolicy) checkURL(field, raw string) error {
	if err := checkHTTPURL(field, raw); err != nil {
		return err
	}
	u, _ := url.Parse(raw)
	host := u.Hostname()
	if p.hostAllowed(host) {
		return nil
	}
	a, ok := hostAddr(host)
	if ok && !p.addrAllowed(a) {
		return apierr.Invalid(field, "%s names the internal address %s (loopback, private, link-local or another non-public range); webhooks may not reach internal addresses unless the operator allows them (ADDON_ALLOWED_HOSTS)",
			field, a.Unmap().WithZone(""))
	}
	return nil
}

// hostAddr reads a URL's host as an IP address: IPv6 or dotted IPv4, or
// the older IPv4 notations (127.1, 0x7f.0.0.1, 2130706433, octal parts)
// that some resolvers still accept.
func hostAddr(host string) (netip.Addr, bool) {
	if a, err := netip.ParseAddr(host); err == nil {
		return a, true
	}
	return legacyIPv4(strings.TrimSuffix(host, "."))
}

// legacyIPv4 parses inet_aton's notations: one to four dot-separated
// parts, each decimal, octal (leading 0) or hex (0x), the last filling the
// remaining bytes.
func legacyIPv4(s string) (netip.Addr, bool) {
	parts := strings.Split(s, ".")
	if s == "" || len(parts) > 4 {
		return netip.Addr{}, false
	}
	nums := make([]uint64, len(parts))
	for i, part := range parts {
		base, digits := 10, part
		switch {
		case len(part) > 1 && (part[:2] == "0x" || part[:2] == "0X"):
			base, digits = 16, part[2:]
		case len(part) > 1 && part[0] == '0':
			base, digits = 8, part[1:]
		}
		if digits == "" {
			if base != 16 {
				return netip.Addr{}, false
			}
			digits = "0" // "0x" alone is 0 to inet_aton
		}
		n, err := strconv.ParseUint(digits, base, 32)
		if err != nil {
			return netip.Addr{}, false
		}
		nums[i] = n
	}
	var v uint64
	for i, n := range nums[:len(nums)-1] {
		if n > 255 {
			return netip.Addr{}, false
		}
		v |= n << (24 - 8*i)
	}
	last := nums[len(nums)-1]
	if last >= 1<<(8*(5-len(nums))) {
		return netip.Addr{}, false
	}
	v |= last
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}), true
}

// errEgressRefused is the dial error for an address the policy refuses.
type errEgressRefused struct{ addr netip.Addr }

func (e *errEgressRefused) Error() string {
	return "webhook address " + e.addr.String() + " is internal; the operator may allow it with ADDON_ALLOWED_HOSTS"
}

// newWebhookTransport dials allowed host names as any client would, and
// every other host only at addresses the policy allows: the dialer's
// Control hook sees each address actually dialled, after DNS resolution
// and for every connection, redirects included. No proxy is used: it would
// make the connection to an address other than the one checked.
func newWebhookTransport(p egressPolicy) *http.Transport {
	guarded := &net.Dialer{Timeout: webhookTimeout, KeepAlive: 30 * time.Second,
		Control: func(_, address string, _ syscall.RawConn) error {
			ap, err := netip.ParseAddrPort(address)
			if err != nil {
				return &errEgressRefused{}
			}
			if !p.addrAllowed(ap.Addr()) {
				return &errEgressRefused{addr: ap.Addr().Unmap().WithZone("")}
			}
			return nil
		}}
	open := &net.Dialer{Timeout: webhookTimeout, KeepAlive: 30 * time.Second}
	return &http.Transport{
		Proxy: nil,
		DialContext: func(ctx context.Context, network, address string) (net.Conn, error) {
			if host, _, err := net.SplitHostPort(address); err == nil && p.hostAllowed(host) {
				return open.DialContext(ctx, network, address)
			}
			return guarded.DialContext(ctx, network, address)
		},
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          20,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   webhookTimeout,
		ResponseHeaderTimeout: webhookTimeout,
	}
}
