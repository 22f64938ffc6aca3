package load

import (
	"bufio"
	"bytes"
	"errors"
	"io"
)

// maxHeaderBytes bounds the header (and trailer) lines of one answer, so a
// server that never ends its header cannot grow the count forever.
const maxHeaderBytes = 1 << 20

// answer is what readAnswer learned from one HTTP/1.x answer.
type answer struct {
	status    int
	bodyBytes int64 // as sent: chunk framing excluded, compression kept
	keepAlive bool  // the connection may carry the next request
}

// malformedError says what was wrong with an answer. Its text never quotes
// the answer, so errors group by cause in Result.ErrorCounts.
type malformedError string

func (e malformedError) Error() string { return "malformed answer: " + string(e) }

// noAnswerError is a connection that ended before any byte of the answer.
// On a kept-alive connection it usually means the server closed it while
// idle, so the request can be sent again on a new one.
type noAnswerError struct{ err error }

func (e *noAnswerError) Error() string {
	if e.err == io.EOF {
		return "connection closed before the answer"
	}
	return e.err.Error()
}

func (e *noAnswerError) Unwrap() error { return e.err }

// errCutOff is an answer whose connection ended before its last byte.
var errCutOff = errors.New("connection closed mid-answer")

// cutOff names an end of input inside an answer; other read errors (a
// timeout, a reset) stay as they are.
func cutOff(err error) error {
	if err == io.EOF {
		return errCutOff
	}
	return err
}

// readAnswer reads one answer from r and discards its body, counting it.
// head is true when the request was HEAD, whose answer has no body. It
// allocates nothing, so a worker's steady state costs no garbage.
func readAnswer(r *bufio.Reader, head bool) (answer, error) {
	for {
		a, err := readOneAnswer(r, head)
		// 1xx answers (103 Early Hints, an unasked 100 Continue) come before
		// the real one, as net/http also assumes. 101 ends HTTP on the
		// connection, so it is final.
		if err != nil || a.status >= 200 || a.status == 101 {
			return a, err
		}
	}
}

func readOneAnswer(r *bufio.Reader, head bool) (answer, error) {
	line, err := r.ReadSlice('\n')
	if err != nil && len(line) == 0 {
		return answer{}, &noAnswerError{err}
	}
	if line, err = trimLine(line, err); err != nil {
		return answer{}, err
	}
	a := answer{}
	var http11 bool
	if a.status, http11, err = parseStatusLine(line); err != nil {
		return answer{}, err
	}
	h, err := readHeader(r)
	if err != nil {
		return answer{}, err
	}
	a.keepAlive = !h.close && (http11 || h.keepAlive) && a.status != 101
	switch {
	case head || a.status < 200 || a.status == 204 || a.status == 304:
		// No body, whatever the header says.
	case h.chunked:
		a.bodyBytes, err = discardChunked(r)
	case h.contentLength >= 0:
		var n int
		n, err = r.Discard(h.contentLength)
		a.bodyBytes = int64(n)
		err = cutOff(err)
	default:
		// Neither length nor chunks: the body ends when the connection does.
		a.keepAlive = false
		a.bodyBytes, err = discardToEOF(r)
	}
	if err != nil {
		return answer{}, err
	}
	return a, nil
}

// readLine reads one line of the header or of chunk framing, without its
// line end (CRLF, or a bare LF as net/http accepts).
func readLine(r *bufio.Reader) ([]byte, error) {
	return trimLine(r.ReadSlice('\n'))
}

func trimLine(line []byte, err error) ([]byte, error) {
	switch {
	case err == bufio.ErrBufferFull:
		return nil, malformedError("line too long")
	case err != nil:
		return nil, cutOff(err)
	}
	line = line[:len(line)-1]
	if n := len(line); n > 0 && line[n-1] == '\r' {
		line = line[:n-1]
	}
	return line, nil
}

// parseStatusLine accepts "HTTP/1.x NNN[ reason]".
func parseStatusLine(line []byte) (status int, http11 bool, err error) {
	if len(line) < 12 || !bytes.HasPrefix(line, []byte("HTTP/1.")) || line[8] != ' ' ||
		(len(line) > 12 && line[12] != ' ') {
		return 0, false, malformedError("status line")
	}
	switch line[7] {
	case '0':
	case '1':
		http11 = true
	default:
		return 0, false, malformedError("HTTP version")
	}
	for _, c := range line[9:12] {
		if c < '0' || c > '9' {
			return 0, false, malformedError("status code")
		}
		status = status*10 + int(c-'0')
	}
	if status < 100 {
		return 0, false, malformedError("status code")
	}
	return status, http11, nil
}

// header holds the few header fields that frame an answer.
type header struct {
	contentLength int // -1 when absent
	chunked       bool
	close         bool // Connection: close
	keepAlive     bool // Connection: keep-alive (matters for HTTP/1.0)
}

func readHeader(r *bufio.Reader) (header, error) {
	h := header{contentLength: -1}
	size := 0
	for {
		line, err := readLine(r)
		if err != nil {
			return h, err
		}
		if len(line) == 0 {
			return h, nil
		}
		if size += len(line); size > maxHeaderBytes {
			return h, malformedError("header too large")
		}
		colon := bytes.IndexByte(line, ':')
		// A name is non-empty and has no blanks, and obsolete line folding
		// (a line starting with a blank) is refused, as RFC 9112 allows.
		if colon <= 0 || bytes.ContainsAny(line[:colon], " \t") {
			return h, malformedError("header line")
		}
		name, value := line[:colon], bytes.Trim(line[colon+1:], " \t")
		switch {
		case bytes.EqualFold(name, []byte("Content-Length")):
			n, ok := parseDecimal(value)
			if !ok || (h.contentLength >= 0 && n != h.contentLength) {
				return h, malformedError("Content-Length")
			}
			h.contentLength = n
		case bytes.EqualFold(name, []byte("Transfer-Encoding")):
			// Servers chunk or send a length; other codings (gzip here) are
			// deprecated and net/http refuses them too.
			if !bytes.EqualFold(value, []byte("chunked")) {
				return h, malformedError("unsupported Transfer-Encoding")
			}
			h.chunked = true
		case bytes.EqualFold(name, []byte("Connection")):
			for tok := range bytes.SplitSeq(value, []byte(",")) {
				tok = bytes.Trim(tok, " \t")
				h.close = h.close || bytes.EqualFold(tok, []byte("close"))
				h.keepAlive = h.keepAlive || bytes.EqualFold(tok, []byte("keep-alive"))
			}
		}
	}
}

// discardChunked reads a chunked body and its trailer, and returns the
// size of the data in the chunks.
func discardChunked(r *bufio.Reader) (int64, error) {
	var total int64
	for {
		line, err := readLine(r)
		if err != nil {
			return total, err
		}
		if semi := bytes.IndexByte(line, ';'); semi >= 0 {
			line = line[:semi] // chunk extensions mean nothing to us
		}
		size, ok := parseHex(bytes.Trim(line, " \t"))
		if !ok {
			return total, malformedError("chunk size")
		}
		if size == 0 {
			break
		}
		n, err := r.Discard(size)
		total += int64(n)
		if err != nil {
			return total, cutOff(err)
		}
		if line, err = readLine(r); err != nil {
			return total, err
		}
		if len(line) != 0 {
			return total, malformedError("chunk end")
		}
	}
	// The trailer has the header's syntax; its fields change nothing here.
	size := 0
	for {
		line, err := readLine(r)
		if err != nil {
			return total, err
		}
		if len(line) == 0 {
			return total, nil
		}
		if size += len(line); size > maxHeaderBytes {
			return total, malformedError("trailer too large")
		}
	}
}

func discardToEOF(r *bufio.Reader) (int64, error) {
	var total int64
	for {
		n, err := r.Discard(r.Size())
		total += int64(n)
		if err == io.EOF {
			return total, nil
		}
		if err != nil {
			return total, err
		}
	}
}

// maxBodyPart bounds a Content-Length or chunk size so that it fits an
// int everywhere; no answer we measure is anywhere near it.
const maxBodyPart = 1 << 30

func parseDecimal(b []byte) (int, bool) {
	if len(b) == 0 || len(b) > 16 {
		return 0, false
	}
	var n int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	return int(n), n <= maxBodyPart
}

func parseHex(b []byte) (int, bool) {
	if len(b) == 0 || len(b) > 15 {
		return 0, false
	}
	var n int64
	for _, c := range b {
		var d byte
		switch {
		case '0' <= c && c <= '9':
			d = c - '0'
		case 'a' <= c && c <= 'f':
			d = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			d = c - 'A' + 10
		default:
			return 0, false
		}
		n = n<<4 | int64(d)
	}
	return int(n), n <= maxBodyPart
}
