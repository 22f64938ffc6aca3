package proxy

import (
	"bufio"
	"bytes"
	"errors"
	"io"
)

// errEventTooLarge: an event's data or one line exceeds the reader's bound.
var errEventTooLarge = errors.New("stream event larger than the payload bound")

// sseEvent is one dispatched Server-Sent Event.
type sseEvent struct {
	name string // "message" when the event named none
	data []byte // the data lines joined by newlines
	id   string // the last event id as of this event
}

// sseReader reads Server-Sent Events (the WHATWG event stream format):
// lines ending in LF or CRLF; "event", "data" and "id" fields; comments
// (heartbeats) and unknown fields are skipped; a blank line dispatches the
// event, unless it has no data.
type sseReader struct {
	r      *bufio.Reader
	max    int
	buf    []byte
	lastID string
	// touch, when set, is called for every line read, heartbeats included.
	touch func()
}

func newSSEReader(r io.Reader, limit int) *sseReader {
	return &sseReader{r: bufio.NewReaderSize(r, 64<<10), max: limit}
}

// next returns the next event. At the end of the stream it returns io.EOF;
// an event cut off by the end is dropped, as the format requires.
func (s *sseReader) next() (sseEvent, error) {
	var (
		name    string
		data    []byte
		hasData bool
	)
	for {
		line, err := s.line()
		if err != nil {
			return sseEvent{}, err
		}
		if s.touch != nil {
			s.touch()
		}
		if len(line) == 0 {
			if !hasData {
				name = ""
				continue
			}
			if name == "" {
				name = "message"
			}
			return sseEvent{name: name, data: data, id: s.lastID}, nil
		}
		if line[0] == ':' {
			continue
		}
		field, value, _ := bytes.Cut(line, []byte{':'})
		value = bytes.TrimPrefix(value, []byte{' '})
		switch string(field) {
		case "event":
			name = string(value)
		case "data":
			if hasData {
				data = append(data, '\n')
			}
			data = append(data, value...)
			hasData = true
			if len(data) > s.max {
				return sseEvent{}, errEventTooLarge
			}
		case "id":
			if bytes.IndexByte(value, 0) < 0 {
				s.lastID = string(value)
			}
		}
	}
}

// line reads one line without its LF or CRLF ending. The result is valid
// until the next call.
func (s *sseReader) line() ([]byte, error) {
	s.buf = s.buf[:0]
	for {
		chunk, more, err := s.r.ReadLine()
		if err != nil {
			return nil, err
		}
		s.buf = append(s.buf, chunk...)
		if len(s.buf) > s.max {
			return nil, errEventTooLarge
		}
		if !more {
			return s.buf, nil
		}
	}
}
