package proxy

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/signalbox/signalbox/clientapi"
	"github.com/signalbox/signalbox/internal/buildinfo"
)

// SpecVersion is the Unleash client specification the proxy implements; it
// is announced upstream in Unleash-Client-Spec and specVersion.
const SpecVersion = "6.1.0"

// maxUpstreamBody bounds a configuration read from upstream or bootstrap.
const maxUpstreamBody = 128 << 20

// upstream talks to the Unleash-compatible client API.
type upstream struct {
	client      *http.Client
	featuresURL string
	registerURL string
	metricsURL  string
	bulkURL     string
	token       string
	appName     string
	instanceID  string
	connID      string
	sdk         string
	refreshMs   string
	metricsMs   string
	timeout     time.Duration
	// userAgent is the appName, as the reference sends it, followed by
	// the product and version of this build.
	userAgent string
}

// userAgent names the app first (servers that read the app from the
// User-Agent still find it) and then this build: "my-app signalbox-proxy/v1.2.3".
func userAgent(appName, component string) string {
	return appName + " " + buildinfo.UserAgent(component)
}

func newUpstream(c Config, connID string) *upstream {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	// We ask for gzip ourselves and decode it, so the transport must not.
	tr.DisableCompression = true
	if !c.HTTPOptions.rejectUnauthorized() {
		tr.TLSClientConfig = &tls.Config{InsecureSkipVerify: true} //nolint:gosec // the operator asked for it
	}
	return &upstream{
		client:      &http.Client{Transport: tr},
		featuresURL: featuresURL(c),
		registerURL: c.ServiceURL + "/client/register",
		metricsURL:  c.ServiceURL + "/client/metrics",
		bulkURL:     c.ServiceURL + "/client/metrics/bulk",
		token:       c.ServiceAPIToken,
		appName:     c.ServiceAppName,
		userAgent:   userAgent(c.ServiceAppName, "proxy"),
		instanceID:  c.ServiceInstanceID,
		connID:      connID,
		sdk:         c.SDKVersion,
		refreshMs:   strconv.FormatInt(c.RefreshInterval.Milliseconds(), 10),
		metricsMs:   strconv.FormatInt(c.MetricsInterval.Milliseconds(), 10),
		timeout:     c.UpstreamTimeout,
	}
}

// featuresURL adds the namePrefix, project and tag filters as the client API
// reads them.
func featuresURL(c Config) string {
	q := url.Values{}
	if c.NamePrefix != "" {
		q.Set("namePrefix", c.NamePrefix)
	}
	if c.ProjectName != "" {
		q.Add("project", c.ProjectName)
	}
	for _, t := range c.Tags {
		q.Add("tag", t.Name+":"+t.Value)
	}
	u := c.ServiceURL + "/client/features"
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	return u
}

// setHeaders sets the identifying headers every upstream request carries.
// The map is written directly where the wire spelling differs from Go's
// canonical form, so the headers go out exactly as the reference sends them.
func (u *upstream) setHeaders(h http.Header, interval string) {
	h["Authorization"] = []string{u.token}
	h["User-Agent"] = []string{u.userAgent}
	h["unleash-appname"] = []string{u.appName}
	h["UNLEASH-INSTANCEID"] = []string{u.instanceID}
	h["unleash-sdk"] = []string{u.sdk}
	h["unleash-connection-id"] = []string{u.connID}
	h["unleash-interval"] = []string{interval}
	h["Unleash-Client-Spec"] = []string{SpecVersion}
	h["Accept-Encoding"] = []string{"gzip"}
}

// statusError is a non-2xx answer from upstream.
type statusError struct {
	url    string
	status int
}

func (e *statusError) Error() string {
	return fmt.Sprintf("%s answered %d %s", redactURL(e.url), e.status, http.StatusText(e.status))
}

// retryable reports whether sending the same request later may succeed: a
// 4xx other than 408 and 429 means the request itself is refused.
func retryable(err error) bool {
	var se *statusError
	if errors.As(err, &se) {
		return se.status >= 500 || se.status == http.StatusTooManyRequests || se.status == http.StatusRequestTimeout
	}
	return true
}

// redactURL drops the query so logs show the endpoint, not the filters.
func redactURL(s string) string {
	if before, _, ok := strings.Cut(s, "?"); ok {
		return before
	}
	return s
}

// fetchResult is one answer to a features poll.
type fetchResult struct {
	notModified bool
	raw         []byte // decoded JSON body
	features    *clientapi.Features
	etag        string
	// fetchMode is the upstream's fetch-mode header: "streaming" invites
	// the proxy to follow it by streaming.
	fetchMode string
}

// fetchFeatures polls the client API, sending etag as If-None-Match.
func (u *upstream) fetchFeatures(ctx context.Context, etag string) (fetchResult, error) {
	ctx, cancel := context.WithTimeout(ctx, u.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.featuresURL, nil)
	if err != nil {
		return fetchResult{}, err
	}
	u.setHeaders(req.Header, u.refreshMs)
	if etag != "" {
		req.Header.Set("If-None-Match", etag)
	}
	resp, err := u.client.Do(req)
	if err != nil {
		return fetchResult{}, err
	}
	defer drainClose(resp.Body)
	if resp.StatusCode == http.StatusNotModified {
		return fetchResult{notModified: true, etag: etag, fetchMode: resp.Header.Get("fetch-mode")}, nil
	}
	if resp.StatusCode != http.StatusOK {
		return fetchResult{}, &statusError{url: u.featuresURL, status: resp.StatusCode}
	}
	raw, feats, err := readFeatures(resp)
	if err != nil {
		return fetchResult{}, fmt.Errorf("%s: %w", redactURL(u.featuresURL), err)
	}
	return fetchResult{raw: raw, features: feats, etag: resp.Header.Get("ETag"), fetchMode: resp.Header.Get("fetch-mode")}, nil
}

// fetchBootstrap reads a configuration from the bootstrap URL.
func (u *upstream) fetchBootstrap(ctx context.Context, b ExpBootstrap) ([]byte, *clientapi.Features, error) {
	ctx, cancel := context.WithTimeout(ctx, u.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, b.URL, nil)
	if err != nil {
		return nil, nil, err
	}
	req.Header.Set("Accept-Encoding", "gzip")
	req.Header.Set("User-Agent", u.userAgent)
	if b.Authorization != "" {
		req.Header.Set("Authorization", b.Authorization)
	}
	resp, err := u.client.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer drainClose(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return nil, nil, &statusError{url: b.URL, status: resp.StatusCode}
	}
	return readFeatures(resp)
}

// readFeatures reads, un-gzips and parses a client API payload.
func readFeatures(resp *http.Response) ([]byte, *clientapi.Features, error) {
	body := io.Reader(resp.Body)
	if strings.EqualFold(resp.Header.Get("Content-Encoding"), "gzip") {
		zr, err := gzip.NewReader(resp.Body)
		if err != nil {
			return nil, nil, fmt.Errorf("bad gzip body: %w", err)
		}
		defer zr.Close()
		body = zr
	}
	raw, err := io.ReadAll(io.LimitReader(body, maxUpstreamBody+1))
	if err != nil {
		return nil, nil, fmt.Errorf("reading body: %w", err)
	}
	if len(raw) > maxUpstreamBody {
		return nil, nil, fmt.Errorf("body larger than %d bytes", maxUpstreamBody)
	}
	feats, err := parseFeatures(raw)
	return raw, feats, err
}

// parseFeatures accepts a client API payload only when it has a features
// list, so that an error page or an unrelated JSON object answered with 200
// can never wipe the flags out.
func parseFeatures(raw []byte) (*clientapi.Features, error) {
	var f clientapi.Features
	if err := json.Unmarshal(raw, &f); err != nil {
		return nil, fmt.Errorf("not a client API payload: %w", err)
	}
	if f.Features == nil {
		return nil, errors.New("not a client API payload: no features list")
	}
	return &f, nil
}

// register announces the proxy upstream.
func (u *upstream) register(ctx context.Context, reg clientapi.Registration) error {
	return u.post(ctx, u.registerURL, reg)
}

// postMetrics sends one metrics bucket.
func (u *upstream) postMetrics(ctx context.Context, b clientapi.MetricsBucket) error {
	return u.post(ctx, u.metricsURL, clientapi.Metrics{
		AppName:         u.appName,
		InstanceID:      u.instanceID,
		ConnectionID:    u.connID,
		Bucket:          b,
		PlatformName:    "go",
		PlatformVersion: runtime.Version(),
		SpecVersion:     SpecVersion,
	})
}

// postBulk sends a bulk report: the rows and registrations of many
// applications, each under its own name.
func (u *upstream) postBulk(ctx context.Context, rep bulkReport) error {
	if rep.Applications == nil {
		rep.Applications = []clientapi.Registration{}
	}
	if rep.Metrics == nil {
		rep.Metrics = []bulkMetric{}
	}
	return u.post(ctx, u.bulkURL, rep)
}

func (u *upstream) post(ctx context.Context, target string, body any) error {
	data, err := json.Marshal(body)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, u.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, bytes.NewReader(data))
	if err != nil {
		return err
	}
	u.setHeaders(req.Header, u.metricsMs)
	req.Header.Set("Content-Type", "application/json")
	resp, err := u.client.Do(req)
	if err != nil {
		return err
	}
	drainClose(resp.Body)
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return &statusError{url: target, status: resp.StatusCode}
	}
	return nil
}

// registration is what the proxy announces at start.
func (u *upstream) registration(strategies []string, started time.Time, interval time.Duration) clientapi.Registration {
	return clientapi.Registration{
		AppName:         u.appName,
		InstanceID:      u.instanceID,
		ConnectionID:    u.connID,
		SDKVersion:      u.sdk,
		Strategies:      strategies,
		Started:         started,
		Interval:        interval.Milliseconds(),
		PlatformName:    "go",
		PlatformVersion: runtime.Version(),
		SpecVersion:     SpecVersion,
	}
}

// drainClose reads a little of what is left so the connection can be
// reused, then closes the body.
func drainClose(rc io.ReadCloser) {
	_, _ = io.CopyN(io.Discard, rc, 64<<10)
	_ = rc.Close()
}
