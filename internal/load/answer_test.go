package load

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
)

// answerTests are answers as servers may send them, each followed by
// "NEXT" so the tests can check that the reader stops at the answer's end.
var answerTests = []struct {
	name string
	in   string
	head bool
	want answer
	err  string // part of the error text; "" for none
}{
	{name: "content-length", in: "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhelloNEXT", want: answer{200, 5, true}},
	{name: "no reason", in: "HTTP/1.1 200\r\nContent-Length: 0\r\n\r\nNEXT", want: answer{200, 0, true}},
	{name: "bare LF", in: "HTTP/1.1 200 OK\nContent-Length: 2\n\nokNEXT", want: answer{200, 2, true}},
	{name: "name case", in: "HTTP/1.1 200 OK\r\ncOnTeNt-LeNgTh:3\r\n\r\nabcNEXT", want: answer{200, 3, true}},
	{name: "repeated equal length", in: "HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 1\r\n\r\nxNEXT", want: answer{200, 1, true}},
	{name: "chunked", in: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\nA;ext=1\r\n0123456789\r\n0\r\nTrailer: x\r\n\r\nNEXT", want: answer{200, 13, true}},
	{name: "chunked wins over length", in: "HTTP/1.1 200 OK\r\nContent-Length: 99\r\nTransfer-Encoding: Chunked\r\n\r\n1\r\nx\r\n0\r\n\r\nNEXT", want: answer{200, 1, true}},
	{name: "304 ignores length", in: "HTTP/1.1 304 Not Modified\r\nContent-Length: 1500\r\nEtag: \"x\"\r\n\r\nNEXT", want: answer{304, 0, true}},
	{name: "204", in: "HTTP/1.1 204 No Content\r\n\r\nNEXT", want: answer{204, 0, true}},
	{name: "head", in: "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nNEXT", head: true, want: answer{200, 0, true}},
	{name: "1xx first", in: "HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nxNEXT", want: answer{200, 1, true}},
	{name: "close", in: "HTTP/1.1 200 OK\r\nConnection: keep-alive, Close\r\nContent-Length: 1\r\n\r\nxNEXT", want: answer{200, 1, false}},
	{name: "1.0 closes", in: "HTTP/1.0 200 OK\r\nContent-Length: 1\r\n\r\nxNEXT", want: answer{200, 1, false}},
	{name: "1.0 keep-alive", in: "HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 1\r\n\r\nxNEXT", want: answer{200, 1, true}},
	{name: "body to EOF", in: "HTTP/1.1 200 OK\r\n\r\nall of thisNEXT", want: answer{200, 15, false}},
	{name: "101 is final", in: "HTTP/1.1 101 Switching Protocols\r\n\r\nNEXT", want: answer{101, 0, false}},

	{name: "nothing", in: "", err: "connection closed before the answer"},
	{name: "garbage", in: "garbage\r\n\r\nNEXT", err: "status line"},
	{name: "http/2", in: "HTTP/2.0 200 OK\r\n\r\nNEXT", err: "status line"},
	{name: "http/1.2", in: "HTTP/1.2 200 OK\r\n\r\nNEXT", err: "HTTP version"},
	{name: "short code", in: "HTTP/1.1 20 OK\r\n\r\nNEXT", err: "status line"},
	{name: "letters in code", in: "HTTP/1.1 2x0 OK\r\n\r\nNEXT", err: "status code"},
	{name: "code below 100", in: "HTTP/1.1 099 OK\r\n\r\nNEXT", err: "status code"},
	{name: "status line cut", in: "HTTP/1.1 200 OK", err: "mid-answer"},
	{name: "header cut", in: "HTTP/1.1 200 OK\r\nContent-Len", err: "mid-answer"},
	{name: "no colon", in: "HTTP/1.1 200 OK\r\nContent-Length 5\r\n\r\nhello", err: "header line"},
	{name: "blank in name", in: "HTTP/1.1 200 OK\r\nContent-Length : 5\r\n\r\nhello", err: "header line"},
	{name: "folded line", in: "HTTP/1.1 200 OK\r\nX: a\r\n b\r\n\r\n", err: "header line"},
	{name: "negative length", in: "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", err: "Content-Length"},
	{name: "empty length", in: "HTTP/1.1 200 OK\r\nContent-Length:\r\n\r\n", err: "Content-Length"},
	{name: "huge length", in: "HTTP/1.1 200 OK\r\nContent-Length: 99999999999999999999\r\n\r\n", err: "Content-Length"},
	{name: "two lengths", in: "HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nxy", err: "Content-Length"},
	{name: "body cut", in: "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nhello", err: "mid-answer"},
	{name: "gzip coding", in: "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n", err: "Transfer-Encoding"},
	{name: "bad chunk size", in: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", err: "chunk size"},
	{name: "empty chunk size", in: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n\r\n", err: "chunk size"},
	{name: "huge chunk size", in: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffff\r\n", err: "chunk size"},
	{name: "chunk longer than said", in: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nxy\r\n0\r\n\r\n", err: "chunk end"},
	{name: "chunk cut", in: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab", err: "mid-answer"},
	{name: "no last chunk", in: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nx\r\n", err: "mid-answer"},
	{name: "line too long", in: "HTTP/1.1 200 OK\r\nX: " + strings.Repeat("a", 20<<10) + "\r\n\r\n", err: "line too long"},
}

func TestReadAnswer(t *testing.T) {
	for _, tt := range answerTests {
		t.Run(tt.name, func(t *testing.T) {
			r := bufio.NewReaderSize(strings.NewReader(tt.in), 16<<10)
			got, err := readAnswer(r, tt.head)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("readAnswer = %+v, %v; want an error containing %q", got, err, tt.err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("readAnswer = %+v, %v; want %+v", got, err, tt.want)
			}
			if rest, _ := io.ReadAll(r); got.keepAlive && string(rest) != "NEXT" {
				t.Errorf("left %q unread, want the next answer's bytes", rest)
			}
		})
	}
}

// FuzzReadAnswer checks that no input makes the parser panic or read past
// its input, and that what it accepts is sane.
func FuzzReadAnswer(f *testing.F) {
	for _, tt := range answerTests {
		f.Add([]byte(tt.in), tt.head)
	}
	f.Fuzz(func(t *testing.T, in []byte, head bool) {
		// A small buffer makes long lines reachable for the fuzzer.
		a, err := readAnswer(bufio.NewReaderSize(bytes.NewReader(in), 64), head)
		if err != nil {
			var none *noAnswerError
			var bad malformedError
			if !errors.As(err, &none) && !errors.As(err, &bad) && err != errCutOff {
				t.Fatalf("unexpected kind of error %T: %v", err, err)
			}
			return
		}
		if a.status < 100 || a.status > 999 || a.bodyBytes < 0 || a.bodyBytes > int64(len(in)) {
			t.Fatalf("accepted %q as %+v", in, a)
		}
		if head && a.bodyBytes != 0 {
			t.Fatalf("a HEAD answer has a body: %+v", a)
		}
	})
}
