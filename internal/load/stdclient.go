package load

import (
	"bytes"
	"context"
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"net/url"
	"time"
)

// newClient builds a net/http client, for https targets, that keeps one
// idle connection per worker (so connections are reused rather than
// redialled), connects to loopback only, ignores proxy settings and does not
// follow redirects (a redirect is an answer to measure, not a cue to load
// another URL).
func newClient(cfg Config) *http.Client {
	dialer := &net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second, Control: dialLoopbackOnly}
	tr := &http.Transport{
		Proxy:               nil,
		DialContext:         dialer.DialContext,
		MaxIdleConns:        cfg.Concurrency,
		MaxIdleConnsPerHost: cfg.Concurrency,
		MaxConnsPerHost:     cfg.Concurrency, // one connection per worker, never more
		IdleConnTimeout:     90 * time.Second,
		TLSHandshakeTimeout: 10 * time.Second,
		DisableCompression:  true,
	}
	if cfg.Insecure {
		tr.TLSClientConfig = &tls.Config{InsecureSkipVerify: true}
	}
	return &http.Client{
		Transport:     tr,
		Timeout:       cfg.Timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// stdClient sends a worker's requests through a shared net/http client.
type stdClient struct {
	client *http.Client
	base   *http.Request
	body   []byte
	unique *uniqueValues // nil without UniqueParam
	param  string
}

func newStdClient(ctx context.Context, cfg Config, u *url.URL, client *http.Client, unique *uniqueValues) (*stdClient, error) {
	base, err := http.NewRequestWithContext(ctx, cfg.Method, u.String(), nil)
	if err != nil {
		return nil, err
	}
	for k, vs := range cfg.Header {
		if http.CanonicalHeaderKey(k) == "Host" {
			if len(vs) > 0 {
				base.Host = vs[0]
			}
			continue
		}
		base.Header[http.CanonicalHeaderKey(k)] = append([]string(nil), vs...)
	}
	c := &stdClient{client: client, base: base, body: cfg.Body, param: cfg.UniqueParam}
	if cfg.UniqueParam != "" {
		c.unique = unique
	}
	return c, nil
}

func (c *stdClient) send() (int, int64, error) {
	// A shallow copy is enough: the transport only reads the request, and
	// the shared header map is never written after newStdClient.
	req := new(http.Request)
	*req = *c.base
	if c.unique != nil {
		u := *c.base.URL
		sep := "&"
		if u.RawQuery == "" {
			sep = ""
		}
		u.RawQuery += sep + c.param + "=" + string(c.unique.append(nil))
		req.URL = &u
	}
	if len(c.body) > 0 {
		req.ContentLength = int64(len(c.body))
		req.Body = io.NopCloser(bytes.NewReader(c.body))
		// GetBody lets the transport replay the body when a kept-alive
		// connection turns out to have been closed by the server.
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(c.body)), nil }
	}
	resp, err := c.client.Do(req)
	if err != nil {
		return 0, 0, err
	}
	n, err := io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	if err != nil {
		return 0, 0, err
	}
	return resp.StatusCode, n, nil
}

// close leaves the connections to Run, which closes the shared client's.
func (c *stdClient) close() {}
