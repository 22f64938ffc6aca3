package httpx

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/signalbox/signalbox/internal/apierr"
)

// WriteJSON writes v as JSON with the given status and
// Content-Type "application/json; charset=utf-8". The value is encoded
// before anything is sent, so an encoding failure writes nothing and is
// returned (as an InternalError) for the caller to pass to apierr.Write.
// Like Express's res.json, it does not escape <, > and & and adds no
// trailing newline.
func WriteJSON(w http.ResponseWriter, status int, v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return apierr.Wrap(apierr.Internal, err, "cannot encode the response")
	}
	b := bytes.TrimSuffix(buf.Bytes(), []byte{'\n'})
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(status)
	_, err := w.Write(b)
	return err
}
