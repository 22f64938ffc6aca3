package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/signalbox/signalbox/internal/apierr"
	"github.com/signalbox/signalbox/store"
)

func getSetting(t *testing.T, s store.Store, name string) store.Setting {
	t.Helper()
	return get(t, s, func(ctx context.Context, r store.Reader) (store.Setting, error) { return r.GetSetting(ctx, name) })
}

func testSettings(t *testing.T, s store.Store) {
	ctx := t.Context()
	const name = "unleash.enterprise.auth.saml"

	if k := readKind(t, s, func(ctx context.Context, r store.Reader) error {
		_, err := r.GetSetting(ctx, name)
		return err
	}); k != apierr.NotFound {
		t.Errorf("GetSetting of an unset setting: kind %q, want NotFound", k)
	}

	// Put stores the document whole; it reads back equal as JSON.
	v1 := json.RawMessage(`{"enabled": true, "entityId": "urn:idp", "nested": {"b": [1, 2, {"c": null}], "a": "ünïcode ✓"}, "n": 1.5}`)
	update(t, s, func(tx store.Tx) error {
		got, err := tx.PutSetting(ctx, store.Setting{Name: name, Value: v1, UpdatedAt: t0})
		if err != nil {
			return err
		}
		if got.Name != name || !sameJSON(got.Value, v1) || !got.UpdatedAt.Equal(t0) {
			t.Errorf("PutSetting returned %s %s %v", got.Name, got.Value, got.UpdatedAt)
		}
		return nil
	})
	got := getSetting(t, s, name)
	if got.Name != name || !sameJSON(got.Value, v1) || !got.UpdatedAt.Equal(t0) {
		t.Errorf("GetSetting = %s %s %v, want %s %v", got.Name, got.Value, got.UpdatedAt, v1, t0)
	}

	// Put again replaces the value; a zero UpdatedAt becomes now.
	v2 := json.RawMessage(`{"enabled": false}`)
	before := time.Now().Add(-time.Second)
	update(t, s, func(tx store.Tx) error {
		_, err := tx.PutSetting(ctx, store.Setting{Name: name, Value: v2})
		return err
	})
	got = getSetting(t, s, name)
	if !sameJSON(got.Value, v2) || got.UpdatedAt.Before(before) || got.UpdatedAt.After(time.Now().Add(time.Second)) {
		t.Errorf("after the second Put: %s %v", got.Value, got.UpdatedAt)
	}

	// Values of any JSON kind are kept; names are separate.
	for i, v := range []string{`"a string"`, `[1,"two",false]`, `42`, `true`, `null`, `{}`} {
		n := fmt.Sprintf("kind.%d", i)
		update(t, s, func(tx store.Tx) error {
			_, err := tx.PutSetting(ctx, store.Setting{Name: n, Value: json.RawMessage(v)})
			return err
		})
		if got := getSetting(t, s, n); !sameJSON(got.Value, json.RawMessage(v)) {
			t.Errorf("setting %s = %s, want %s", n, got.Value, v)
		}
	}
	if got := getSetting(t, s, name); !sameJSON(got.Value, v2) {
		t.Errorf("other settings changed %s: %s", name, got.Value)
	}

	// PutSetting is audited: without an event the Update fails and keeps
	// nothing.
	err := s.Update(ctx, func(tx store.Tx) error {
		_, err := tx.PutSetting(ctx, store.Setting{Name: "unaudited", Value: json.RawMessage(`1`)})
		return err
	})
	if !errors.Is(err, store.ErrUnaudited) {
		t.Errorf("PutSetting without an event: %v, want ErrUnaudited", err)
	}
	if k := readKind(t, s, func(ctx context.Context, r store.Reader) error {
		_, err := r.GetSetting(ctx, "unaudited")
		return err
	}); k != apierr.NotFound {
		t.Errorf("setting of an unaudited Update: kind %q, want NotFound", k)
	}

	// A failed Update keeps no setting.
	boom := errors.New("boom")
	err = s.Update(ctx, func(tx store.Tx) error {
		if _, err := tx.PutSetting(ctx, store.Setting{Name: name, Value: json.RawMessage(`{"doomed":true}`)}); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("Update = %v, want boom", err)
	}
	if got := getSetting(t, s, name); !sameJSON(got.Value, v2) {
		t.Errorf("rolled-back Put was kept: %s", got.Value)
	}

	runErrCases(t, s, []errCase{
		{"PutEmptyName", func(ctx context.Context, tx store.Tx) error {
			_, err := tx.PutSetting(ctx, store.Setting{Value: json.RawMessage(`{}`)})
			return err
		}, apierr.BadData},
		{"PutNotJSON", func(ctx context.Context, tx store.Tx) error {
			_, err := tx.PutSetting(ctx, store.Setting{Name: "x", Value: json.RawMessage(`{not json`)})
			return err
		}, apierr.BadData},
		{"PutNoValue", func(ctx context.Context, tx store.Tx) error {
			_, err := tx.PutSetting(ctx, store.Setting{Name: "x"})
			return err
		}, apierr.BadData},
		{"InitEmptyName", func(ctx context.Context, tx store.Tx) error {
			_, err := tx.InitSetting(ctx, store.Setting{Value: json.RawMessage(`{}`)})
			return err
		}, apierr.BadData},
		{"InitNotJSON", func(ctx context.Context, tx store.Tx) error {
			_, err := tx.InitSetting(ctx, store.Setting{Name: "x", Value: json.RawMessage(`[`)})
			return err
		}, apierr.BadData},
	})

	testInitSetting(t, s)
}

// testInitSetting: InitSetting is operational, keeps the first value and
// lets concurrent callers agree on one.
func testInitSetting(t *testing.T, s store.Store) {
	ctx := t.Context()
	const name = "signalbox.test.key"
	first := json.RawMessage(`{"key": "first"}`)
	var got store.Setting
	if err := s.Update(ctx, func(tx store.Tx) (err error) {
		got, err = tx.InitSetting(ctx, store.Setting{Name: name, Value: first, UpdatedAt: t0})
		return err
	}); err != nil {
		t.Fatalf("InitSetting without an event: %v", err)
	}
	if !sameJSON(got.Value, first) || !got.UpdatedAt.Equal(t0) {
		t.Errorf("InitSetting returned %s %v", got.Value, got.UpdatedAt)
	}
	if err := s.Update(ctx, func(tx store.Tx) (err error) {
		got, err = tx.InitSetting(ctx, store.Setting{Name: name, Value: json.RawMessage(`{"key": "second"}`)})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if !sameJSON(got.Value, first) || !got.UpdatedAt.Equal(t0) {
		t.Errorf("second InitSetting returned %s %v, want the first value", got.Value, got.UpdatedAt)
	}
	if stored := getSetting(t, s, name); !sameJSON(stored.Value, first) {
		t.Errorf("second InitSetting replaced the value: %s", stored.Value)
	}

	// A value stored by PutSetting is kept by InitSetting too.
	update(t, s, func(tx store.Tx) error {
		_, err := tx.PutSetting(ctx, store.Setting{Name: name, Value: json.RawMessage(`{"key": "put"}`)})
		return err
	})
	if err := s.Update(ctx, func(tx store.Tx) (err error) {
		got, err = tx.InitSetting(ctx, store.Setting{Name: name, Value: first})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if !sameJSON(got.Value, json.RawMessage(`{"key": "put"}`)) {
		t.Errorf("InitSetting after Put returned %s", got.Value)
	}

	// Concurrent first uses, as by several server instances: every caller
	// gets the one value that was stored.
	const n = 8
	var wg sync.WaitGroup
	values := make([]json.RawMessage, n)
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = s.Update(ctx, func(tx store.Tx) error {
				got, err := tx.InitSetting(ctx, store.Setting{Name: "race", Value: json.RawMessage(fmt.Sprintf(`{"i": %d}`, i))})
				values[i] = got.Value
				return err
			})
		}()
	}
	wg.Wait()
	stored := getSetting(t, s, "race")
	for i := range n {
		if errs[i] != nil {
			t.Errorf("caller %d: %v", i, errs[i])
		} else if !sameJSON(values[i], stored.Value) {
			t.Errorf("caller %d got %s, stored is %s", i, values[i], stored.Value)
		}
	}
}
