package httpx

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"reflect"
	"strings"
	"sync"

	"github.com/signalbox/signalbox/internal/apierr"
)

// DefaultMaxBodyBytes is the body limit DecodeJSON applies when given
// maxBytes <= 0.
const DefaultMaxBodyBytes = 1 << 20

// ErrEmptyBody is the cause of the error DecodeJSON returns for a missing
// or all-whitespace body; test for it with errors.Is. The error itself is
// a BadDataError, so callers that do not care can pass it to apierr.Write.
var ErrEmptyBody = errors.New("request body is empty")

// DecodeJSON decodes the JSON body of r into dst, reading at most maxBytes
// (DefaultMaxBodyBytes when maxBytes <= 0). Unknown fields are ignored, as
// Unleash ignores them. Every error is an *apierr.Error:
//
//   - Content-Type present but not JSON: ContentType (415). A request
//     without Content-Type is read as JSON, as the Unleash proxy does.
//   - body longer than maxBytes: PayloadTooLarge (413).
//   - empty body: BadData wrapping ErrEmptyBody.
//   - malformed JSON, or more than one value: BadData (400), naming the
//     byte (counted from 1) where parsing failed.
//   - a value of the wrong JSON type: Validation (400) naming the field.
//
// w is needed so that http.MaxBytesReader can close the connection after an
// oversized body instead of reading the rest of it.
func DecodeJSON(w http.ResponseWriter, r *http.Request, dst any, maxBytes int64) error {
	if err := checkContentType(r.Header.Get("Content-Type")); err != nil {
		return err
	}
	if maxBytes <= 0 {
		maxBytes = DefaultMaxBodyBytes
	}
	if r.Body == nil {
		return apierr.Wrap(apierr.BadData, ErrEmptyBody, "request body is empty")
	}
	body := &countingReader{r: http.MaxBytesReader(w, r.Body, maxBytes)}
	// A small body, as nearly all are, is read whole into a pooled buffer
	// and decoded with json.Unmarshal, without the buffers a Decoder
	// allocates for every body (most of what a proxy lookup cost). Bodies
	// that are not one well-formed JSON value (Unmarshal checks that before
	// it decodes anything) and larger ones take the Decoder below, over the
	// bytes already read, and get its answers.
	bp := smallBodies.Get().(*[]byte)
	defer smallBodies.Put(bp)
	n, rerr := io.ReadFull(body, *bp)
	read := (*bp)[:n]
	var rest io.Reader
	switch {
	case rerr == io.EOF || rerr == io.ErrUnexpectedEOF: // the whole body
		if cd, ok := dst.(CommonDecoder); ok && cd.DecodeCommon(read) {
			return nil
		}
		err := json.Unmarshal(read, dst)
		var syntax *json.SyntaxError
		if err == nil {
			return nil
		}
		if !errors.As(err, &syntax) {
			return decodeError(err, maxBytes, body.n)
		}
		rest = bytes.NewReader(read)
	case rerr == nil: // more to come
		rest = io.MultiReader(bytes.NewReader(read), body)
	default:
		rest = io.MultiReader(bytes.NewReader(read), errReader{rerr})
	}
	dec := json.NewDecoder(rest)
	if err := dec.Decode(dst); err != nil {
		return decodeError(err, maxBytes, body.n)
	}
	// A second value or trailing garbage means the client sent something
	// other than what we decoded; say so rather than act on half of it.
	if _, err := dec.Token(); err != io.EOF {
		if err == nil {
			return apierr.New(apierr.BadData,
				"the request body could not be parsed as JSON: unexpected data after the JSON value that ends at byte %d", dec.InputOffset())
		}
		return decodeError(err, maxBytes, body.n)
	}
	return nil
}

// CommonDecoder is a destination that decodes the bodies clients send most
// itself, faster than encoding/json. DecodeCommon must report true only for
// a body that is one valid JSON value, having decoded it as json.Unmarshal
// would; for any other body it reports false and leaves the destination
// untouched, and DecodeJSON decodes with encoding/json (so every error
// answer stays encoding/json's).
type CommonDecoder interface {
	DecodeCommon(body []byte) bool
}

// smallBodies holds the buffers small bodies are read into.
var smallBodies = sync.Pool{New: func() any { b := make([]byte, smallBodyBytes); return &b }}

// smallBodyBytes is the largest body read whole before decoding: lookups
// and most admin changes fit.
const smallBodyBytes = 8 << 10

// errReader returns err, after the bytes read before a read failed.
type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

// countingReader counts the bytes read, to tell where a truncated body ended.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// checkContentType accepts an absent type, application/json and any
// application/*+json type, ignoring parameters such as charset.
func checkContentType(ct string) error {
	if strings.TrimSpace(ct) == "" || IsJSONContentType(ct) {
		return nil
	}
	return apierr.New(apierr.ContentType, "the request body must be JSON (Content-Type: application/json), not %q", ct)
}

// IsJSONContentType reports whether the Content-Type header value ct names
// JSON: application/json or an application/*+json type, with any
// parameters. An absent type is not JSON. Callers that must know a body was
// declared JSON (those a browser could send from another site as a "simple"
// request, which may carry no type) use it instead of relying on
// DecodeJSON, which reads a body without a type as JSON.
func IsJSONContentType(ct string) bool {
	if ct == "application/json" { // what nearly every client sends: no parsing
		return true
	}
	mt, _, err := mime.ParseMediaType(ct)
	return err == nil && (mt == "application/json" ||
		(strings.HasPrefix(mt, "application/") && strings.HasSuffix(mt, "+json")))
}

// decodeError maps an encoding/json error to the error kinds DecodeJSON
// documents.
func decodeError(err error, limit, read int64) error {
	var (
		tooLarge *http.MaxBytesError
		syntax   *json.SyntaxError
		typ      *json.UnmarshalTypeError
		invalid  *json.InvalidUnmarshalError
	)
	switch {
	case errors.As(err, &tooLarge):
		return apierr.Wrap(apierr.PayloadTooLarge, err, "the request body is larger than %d bytes", limit)
	case errors.Is(err, io.EOF):
		return apierr.Wrap(apierr.BadData, ErrEmptyBody, "request body is empty")
	case errors.Is(err, io.ErrUnexpectedEOF):
		return apierr.Wrap(apierr.BadData, err, "the request body could not be parsed as JSON: it ends after byte %d, inside the JSON value", read)
	case errors.As(err, &syntax):
		return apierr.Wrap(apierr.BadData, err, "the request body could not be parsed as JSON: %s at byte %d", syntax.Error(), syntax.Offset)
	case errors.As(err, &typ):
		field := typ.Field
		if field == "" {
			field = "body"
		}
		return apierr.Invalid(field, "%s must be %s, not %s", field, jsonKind(typ.Type), typ.Value)
	case errors.As(err, &invalid):
		// dst was not a non-nil pointer: a bug in the caller, not the client.
		return apierr.Wrap(apierr.Internal, err, "cannot decode request body")
	default:
		// Read errors from the connection (client went away, timeout).
		return apierr.Wrap(apierr.BadRequest, err, "the request body could not be read")
	}
}

// jsonKind names the JSON type a Go type is decoded from, for messages
// meant for API callers rather than Go programmers.
func jsonKind(t reflect.Type) string {
	if t == nil {
		return "a different type"
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Bool:
		return "a boolean"
	case reflect.String:
		return "a string"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Map, reflect.Struct:
		return "an object"
	default:
		return fmt.Sprintf("a %s", t.Kind())
	}
}

// DecodeValue decodes data, the JSON value at path of a body DecodeJSON
// already read (kept as a json.RawMessage, so that part of a body can be
// decoded only when needed), into dst. Its errors are DecodeJSON's, with
// field names starting at path.
func DecodeValue(data []byte, dst any, path string) error {
	err := json.Unmarshal(data, dst)
	if err == nil {
		return nil
	}
	var typ *json.UnmarshalTypeError
	if errors.As(err, &typ) {
		field := path
		if typ.Field != "" {
			field = path + "." + typ.Field
		}
		return apierr.Invalid(field, "%s must be %s, not %s", field, jsonKind(typ.Type), typ.Value)
	}
	return decodeError(err, int64(len(data)), int64(len(data)))
}
