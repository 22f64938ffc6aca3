package proxy

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"
)

// edgeToken is what the upstream says about a valid token (its
// /edge/validate answer).
type edgeToken struct {
	Token       string   `json:"token"`
	Type        string   `json:"type"`
	Projects    []string `json:"projects"`
	Environment string   `json:"environment"`
}

// Token types, as the upstream names them.
const (
	tokenClient   = "client"
	tokenFrontend = "frontend"
)

// scopeKey names what a token may read: its environment and projects. Two
// tokens of one scope share one upstream subscription and one snapshot.
func (t edgeToken) scopeKey() string {
	projects := slices.Clone(t.Projects)
	slices.Sort(projects)
	return t.Environment + "\x00" + strings.Join(projects, ",")
}

var errUpstreamValidation = errors.New("the upstream did not validate the tokens")

// validate asks the upstream which of tokens are valid.
func (e *Edge) validate(ctx context.Context, tokens []string) ([]edgeToken, error) {
	body, _ := json.Marshal(map[string]any{"tokens": tokens})
	ctx, cancel := context.WithTimeout(ctx, e.cfg.UpstreamTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.cfg.UpstreamURL+"/edge/validate", bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", userAgent(e.cfg.AppName, "edge"))
	req.Header.Set("unleash-appname", e.cfg.AppName)
	req.Header.Set("unleash-instanceid", e.cfg.InstanceID)
	req.Header.Set("unleash-sdk", e.cfg.SDKVersion)
	res, err := e.hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errUpstreamValidation, err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%w: status %d", errUpstreamValidation, res.StatusCode)
	}
	var out struct {
		Tokens []edgeToken `json:"tokens"`
	}
	if err := json.NewDecoder(io.LimitReader(res.Body, 16<<20)).Decode(&out); err != nil {
		return nil, fmt.Errorf("%w: %v", errUpstreamValidation, err)
	}
	asked := toSet(tokens)
	valid := out.Tokens[:0]
	for _, t := range out.Tokens {
		// Only what was asked, of a kind SDKs use, and with a scope.
		if _, ok := asked[t.Token]; !ok || (t.Type != tokenClient && t.Type != tokenFrontend) || t.Environment == "" {
			continue
		}
		if len(t.Projects) == 0 {
			t.Projects = []string{"*"}
		}
		valid = append(valid, t)
	}
	return valid, nil
}

// negativeCache remembers tokens the upstream refused, for a while, so a
// flood of made-up tokens costs the upstream nothing after the first ask.
// It is bounded: when full it starts over, and the validation rate limit
// still bounds what reaches the upstream.
type negativeCache struct {
	mu   sync.Mutex
	max  int
	ttl  time.Duration
	seen map[string]time.Time
}

func newNegativeCache(max int, ttl time.Duration) *negativeCache {
	return &negativeCache{max: max, ttl: ttl, seen: map[string]time.Time{}}
}

func (c *negativeCache) add(token string, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.seen) >= c.max {
		clear(c.seen)
	}
	c.seen[token] = now.Add(c.ttl)
}

func (c *negativeCache) has(token string, now time.Time) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	until, ok := c.seen[token]
	if ok && now.After(until) {
		delete(c.seen, token)
		return false
	}
	return ok
}

func (c *negativeCache) remove(token string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.seen, token)
}

func (c *negativeCache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.seen)
}
