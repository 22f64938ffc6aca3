package load

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"syscall"
)

// CheckURL returns an error unless rawURL is an http or https URL whose
// host is a loopback address or a name that resolves only to loopback
// addresses.
func CheckURL(ctx context.Context, rawURL string) (*url.URL, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, fmt.Errorf("bad URL %q: %w", rawURL, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("URL %q: scheme must be http or https", rawURL)
	}
	host := u.Hostname()
	if host == "" {
		return nil, fmt.Errorf("URL %q has no host", rawURL)
	}
	if a, err := netip.ParseAddr(host); err == nil {
		if !isLoopback(a) {
			return nil, fmt.Errorf("refusing %s: it is not a loopback address; this tool only loads this machine (use 127.0.0.1, ::1 or localhost)", host)
		}
		return u, nil
	}
	addrs, err := net.DefaultResolver.LookupNetIP(ctx, "ip", host)
	if err != nil {
		return nil, fmt.Errorf("cannot resolve %s: %w", host, err)
	}
	for _, a := range addrs {
		if !isLoopback(a) {
			return nil, fmt.Errorf("refusing %s: it resolves to %s, which is not a loopback address; this tool only loads this machine", host, a)
		}
	}
	return u, nil
}

func isLoopback(a netip.Addr) bool { return a.Unmap().IsLoopback() }

// dialLoopbackOnly is a net.Dialer Control function that checks the address
// actually being connected to. CheckURL alone would not do: a name can
// resolve differently at dial time, and a redirect could name another host.
func dialLoopbackOnly(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("refusing to connect to %s: %w", address, err)
	}
	if !isLoopback(ap.Addr()) {
		return fmt.Errorf("refusing to connect to %s: not a loopback address", address)
	}
	return nil
}
