package sqlstore

import (
	"encoding/json"
	"fmt"
	"time"
)

// Conversions between Go values and column values that behave the same on
// both drivers. Times go in as UTC truncated to microseconds (PostgreSQL's
// precision) so that a stored time reads back equal on either database and
// SQLite's text timestamps sort chronologically.

func utc(t time.Time) time.Time { return t.UTC().Truncate(time.Microsecond) }

// timeArg is a NOT NULL time column value.
func timeArg(t time.Time) any { return utc(t) }

// timePtrArg is a nullable time column value.
func timePtrArg(t *time.Time) any {
	if t == nil {
		return nil
	}
	return utc(*t)
}

// nullIfEmpty stores "" as NULL, for optional text columns.
func nullIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// nullIfZero stores 0 as NULL, for optional references to integer ids.
func nullIfZero(n int) any {
	if n == 0 {
		return nil
	}
	return n
}

// jsonArg encodes v for a JSON column. A nil slice is stored as [] so that
// reads never have to tell null from empty.
func jsonArg(v any) (string, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	if string(b) == "null" {
		return "[]", nil
	}
	return string(b), nil
}

// mustJSON is jsonArg for values that always encode (slices and maps of
// plain structs and strings).
func mustJSON(v any) string {
	s, err := jsonArg(v)
	if err != nil {
		panic(fmt.Sprintf("sqlstore: encoding %T: %v", v, err))
	}
	return s
}

// timeCol scans a NOT NULL time column. SQLite hands back time.Time for
// columns declared TIMESTAMP, but text for computed values, so both are
// accepted.
type timeCol struct{ p *time.Time }

func (c timeCol) Scan(src any) error {
	t, ok, err := parseTimeValue(src)
	if err != nil {
		return err
	}
	if ok {
		*c.p = t
	}
	return nil
}

// nullTimeCol scans a nullable time column into a *time.Time.
type nullTimeCol struct{ p **time.Time }

func (c nullTimeCol) Scan(src any) error {
	t, ok, err := parseTimeValue(src)
	if err != nil {
		return err
	}
	if ok {
		*c.p = &t
	} else {
		*c.p = nil
	}
	return nil
}

var timeLayouts = []string{
	"2006-01-02 15:04:05.999999999-07:00",
	time.RFC3339Nano,
	"2006-01-02 15:04:05.999999999",
	"2006-01-02 15:04:05",
}

func parseTimeValue(src any) (time.Time, bool, error) {
	switch v := src.(type) {
	case nil:
		return time.Time{}, false, nil
	case time.Time:
		return utc(v), true, nil
	case []byte:
		return parseTimeValue(string(v))
	case string:
		for _, l := range timeLayouts {
			if t, err := time.Parse(l, v); err == nil {
				return utc(t), true, nil
			}
		}
		return time.Time{}, false, fmt.Errorf("sqlstore: unrecognised time %q", v)
	}
	return time.Time{}, false, fmt.Errorf("sqlstore: cannot scan %T into a time", src)
}

// jsonCol scans a JSON column (text in SQLite, jsonb in PostgreSQL) into p.
// NULL leaves p unchanged.
type jsonCol struct{ p any }

func (c jsonCol) Scan(src any) error {
	var b []byte
	switch v := src.(type) {
	case nil:
		return nil
	case []byte:
		b = v
	case string:
		b = []byte(v)
	default:
		return fmt.Errorf("sqlstore: cannot scan %T as JSON", src)
	}
	return json.Unmarshal(b, c.p)
}

// rawJSONCol scans a nullable JSON column without decoding it.
type rawJSONCol struct{ p *json.RawMessage }

func (c rawJSONCol) Scan(src any) error {
	switch v := src.(type) {
	case nil:
		*c.p = nil
	case []byte:
		*c.p = append(json.RawMessage(nil), v...)
	case string:
		*c.p = json.RawMessage(v)
	default:
		return fmt.Errorf("sqlstore: cannot scan %T as JSON", src)
	}
	return nil
}

// nonNil returns s, or an empty slice when s is nil.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// inList returns "?, ?, ?" for n placeholders and the values as arguments.
func inList[T any](vals []T) (string, []any) {
	args := make([]any, len(vals))
	b := make([]byte, 0, 3*len(vals))
	for i, v := range vals {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = append(b, '?')
		args[i] = v
	}
	return string(b), args
}
