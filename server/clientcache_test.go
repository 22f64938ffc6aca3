package server

import (
	"context"
	"fmt"
	"net/http"
	"testing"

	"github.com/signalbox/signalbox/clientapi"
	"github.com/signalbox/signalbox/store"
)

// Repeated, reordered and unknown query parameters name the same filter:
// one cache entry, one ETag, the same answer.
func TestClientCacheKeysEquivalentFiltersOnce(t *testing.T) {
	ts := newTestServer(t)
	ts.admin("POST", "/api/admin/projects", map[string]any{"id": "p2", "name": "P2"}).must(t, http.StatusCreated)
	plantFlag(t, ts, store.DefaultProject, "a-flag")
	plantFlag(t, ts, "p2", "b-flag")
	plantInStore(t, ts, func(ctx context.Context, tx store.Tx) error {
		for _, v := range []string{"x", "y"} {
			if _, err := tx.CreateFeatureTag(ctx, store.FeatureTag{Feature: "a-flag", Tag: store.Tag{Type: store.TagTypeSimple, Value: v}}); err != nil {
				return err
			}
		}
		return nil
	})

	groups := []struct {
		name    string
		queries []string
		want    []string // flags answered
	}{
		{"projects", []string{
			"?project=default&project=p2",
			"?project=p2&project=default",
			"?project=default&project=p2&project=default&project=p2",
			"?project=p2&project=p2&project=default&unknown=1",
			"?project=default&project=p2&" + fmt.Sprint("x=", 1, "&y=2"),
		}, []string{"a-flag", "b-flag"}},
		{"tags", []string{
			"?tag=simple:x&tag=simple:y",
			"?tag=simple:y&tag=simple:x",
			"?tag=simple:x&tag=simple:y&tag=simple:x&other=z",
		}, []string{"a-flag"}},
		{"all projects", []string{"", "?project=*", "?project=*&project=default&foo=bar"}, []string{"a-flag", "b-flag"}},
	}
	for _, g := range groups {
		t.Run(g.name, func(t *testing.T) {
			before, _ := ts.srv.clientCache.usage()
			etag := ""
			for _, q := range g.queries {
				res := ts.request("GET", "/api/client/features"+q, testProdToken, nil).must(t, http.StatusOK)
				if etag == "" {
					etag = res.Header.Get("ETag")
				} else if res.Header.Get("ETag") != etag {
					t.Errorf("%s: ETag %s, want %s", q, res.Header.Get("ETag"), etag)
				}
				var payload clientapi.Features
				res.Decode(t, &payload)
				var got []string
				for _, f := range payload.Features {
					got = append(got, f.Name)
				}
				if fmt.Sprint(got) != fmt.Sprint(g.want) {
					t.Errorf("%s: flags %v, want %v", q, got, g.want)
				}
				ts.request("GET", "/api/client/features"+q, testProdToken, nil, "If-None-Match", etag).must(t, http.StatusNotModified)
			}
			if after, _ := ts.srv.clientCache.usage(); after != before+1 {
				t.Errorf("%d cache entries after the group, want %d", after, before+1)
			}
		})
	}
	ts.srv.clientCache.mu.Lock()
	building := len(ts.srv.clientCache.building)
	ts.srv.clientCache.mu.Unlock()
	if building != 0 {
		t.Errorf("%d build locks left behind", building)
	}
}

// Many distinct filters keep the cache within its byte bound, the answers
// stay right, and a new revision drops the entries of the older one.
func TestClientCacheIsBoundedByBytes(t *testing.T) {
	ts := newTestServer(t)
	for i := range 30 {
		plantFlag(t, ts, store.DefaultProject, fmt.Sprintf("flag-%02d", i))
	}
	one := ts.request("GET", "/api/client/features", testClientToken, nil).must(t, http.StatusOK)
	_, size := ts.srv.clientCache.usage()
	if size < int64(len(one.Body)) {
		t.Fatalf("an entry of a %d-byte body is charged %d bytes", len(one.Body), size)
	}
	bound := 4 * size
	ts.srv.clientCache.mu.Lock()
	ts.srv.clientCache.maxBytes = bound
	ts.srv.clientCache.mu.Unlock()
	for i := range 200 {
		prefix := fmt.Sprintf("flag-%d", i%3)
		if i >= 3 {
			prefix = fmt.Sprintf("%s&namePrefix-ignored=%d&tag=simple:t%d", prefix, i, i) // distinct tag filters
		}
		var payload clientapi.Features
		ts.request("GET", "/api/client/features?namePrefix="+prefix, testClientToken, nil).must(t, http.StatusOK).Decode(t, &payload)
		if i < 3 && len(payload.Features) != 10 {
			t.Fatalf("namePrefix flag-%d answered %d flags", i, len(payload.Features))
		}
		if i >= 3 && len(payload.Features) != 0 {
			t.Fatalf("an unknown tag answered %d flags", len(payload.Features))
		}
		if _, bytes := ts.srv.clientCache.usage(); bytes > bound {
			t.Fatalf("after %d filters the cache holds %d bytes, bound %d", i+1, bytes, bound)
		}
	}
	if entries, _ := ts.srv.clientCache.usage(); entries < 2 {
		t.Errorf("only %d entries kept within a bound of four full ones", entries)
	}
	plantFlag(t, ts, store.DefaultProject, "later")
	ts.request("GET", "/api/client/features", testClientToken, nil).must(t, http.StatusOK)
	if entries, _ := ts.srv.clientCache.usage(); entries != 1 {
		t.Errorf("%d entries after a new revision, want 1 (older revisions dropped)", entries)
	}
}
