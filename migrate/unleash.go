package migrate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/signalbox/signalbox/internal/buildinfo"
)

// client reads an Unleash server's HTTP API. Network errors, 5xx answers and
// 429 are retried with exponential backoff; other answers are final.
type client struct {
	base  string // without trailing slash
	token string
	http  *http.Client
	// attempts is how often one request is tried in all.
	attempts int
	// backoff is the wait before the second try; it doubles after that.
	backoff time.Duration
	logf    func(format string, args ...any)
}

func newClient(base, token string, logf func(string, ...any)) *client {
	return &client{
		base:     strings.TrimRight(base, "/"),
		token:    token,
		http:     &http.Client{Timeout: 30 * time.Second},
		attempts: 5,
		backoff:  500 * time.Millisecond,
		logf:     logf,
	}
}

// statusError is a final, non-2xx answer.
type statusError struct {
	URL    string
	Status int
	Body   string
}

func (e *statusError) Error() string {
	switch e.Status {
	case http.StatusUnauthorized, http.StatusForbidden:
		return fmt.Sprintf("GET %s: %d: the token was refused; give an admin API token or a personal access token of an admin", e.URL, e.Status)
	}
	return fmt.Sprintf("GET %s: %d %s", e.URL, e.Status, e.Body)
}

// isNotFound reports whether err is a 404 answer: an endpoint this Unleash
// does not have (enterprise features, older versions).
func isNotFound(err error) bool {
	var se *statusError
	return errors.As(err, &se) && se.Status == http.StatusNotFound
}

// get fetches path (with query) and decodes the JSON answer into dst.
func (c *client) get(ctx context.Context, path string, dst any) error {
	u := c.base + path
	wait := c.backoff
	var lastErr error
	for attempt := 1; attempt <= c.attempts; attempt++ {
		if attempt > 1 {
			c.logf("retrying GET %s in %s (attempt %d of %d): %v", path, wait, attempt, c.attempts, lastErr)
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(wait):
			}
			wait *= 2
		}
		body, err := c.once(ctx, u)
		if err == nil {
			if err := json.Unmarshal(body, dst); err != nil {
				return fmt.Errorf("GET %s: the answer is not the JSON expected: %w", u, err)
			}
			return nil
		}
		lastErr = err
		var se *statusError
		if errors.As(err, &se) && se.Status < 500 && se.Status != http.StatusTooManyRequests {
			return err
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
	return fmt.Errorf("giving up after %d attempts: %w", c.attempts, lastErr)
}

func (c *client) once(ctx context.Context, u string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", c.token)
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", buildinfo.UserAgent("migrate"))
	res, err := c.http.Do(req)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	body, err := io.ReadAll(io.LimitReader(res.Body, 256<<20))
	if err != nil {
		return nil, err
	}
	if res.StatusCode/100 != 2 {
		text := strings.TrimSpace(string(body))
		if len(text) > 300 {
			text = text[:300] + "…"
		}
		return nil, &statusError{URL: u, Status: res.StatusCode, Body: text}
	}
	return body, nil
}

// pathEscape escapes one path segment.
func pathEscape(s string) string { return url.PathEscape(s) }
