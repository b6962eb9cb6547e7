package loadtest

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"time"
)

// httpConn is one player's keep-alive HTTP/1.1 connection for the play phase, when the target is
// plain http. The tool shares the machine with the server it measures, so its own cost per
// request is taken from the server's: net/http's client costs about 95 µs of CPU a play (two
// goroutines per connection, a request and a response object, header maps), this about 15 µs.
// It sends exactly what net/http would for these small POSTs and reads any HTTP/1.1 answer
// (Content-Length, chunked, or until close); anything it does not understand is an error, and
// the connection is then dropped and dialled again.
type httpConn struct {
	t       *target
	origin  string // http://host[:port], which the URLs of requests start with
	host    string // the Host header
	timeout time.Duration
	cookie  string // the session's Cookie header value

	c   net.Conn
	br  *bufio.Reader
	req []byte
}

// errProtocol is an answer the connection cannot read.
var errProtocol = errors.New("malformed HTTP answer")

// post sends a POST with a JSON body and reads the answer's body into out. A transport error
// closes the connection; the next call dials again.
func (h *httpConn) post(ctx context.Context, path string, key []byte, body []byte, out *bytes.Buffer) (int, error) {
	if h.c == nil {
		c, err := h.t.dial(ctx)
		if err != nil {
			return 0, err
		}
		h.c, h.br = c, bufio.NewReaderSize(c, 16<<10)
	}
	b := append(h.req[:0], "POST "...)
	b = append(b, path...)
	b = append(b, " HTTP/1.1\r\nHost: "...)
	b = append(b, h.host...)
	b = append(b, "\r\nContent-Type: application/json\r\nContent-Length: "...)
	b = strconv.AppendInt(b, int64(len(body)), 10)
	if h.cookie != "" {
		b = append(b, "\r\nCookie: "...)
		b = append(b, h.cookie...)
	}
	if key != nil {
		b = append(b, "\r\nIdempotency-Key: "...)
		b = append(b, key...)
	}
	b = append(b, "\r\n\r\n"...)
	b = append(b, body...)
	h.req = b
	if h.timeout > 0 {
		h.c.SetDeadline(time.Now().Add(h.timeout))
	}
	status, err := h.exchange(out)
	if err != nil {
		h.close()
		if ctx.Err() != nil {
			return 0, ctx.Err()
		}
	}
	return status, err
}

func (h *httpConn) exchange(out *bytes.Buffer) (int, error) {
	if _, err := h.c.Write(h.req); err != nil {
		return 0, err
	}
	line, err := h.line()
	if err != nil {
		return 0, err
	}
	// "HTTP/1.1 201 Created"
	if len(line) < 12 || !bytes.HasPrefix(line, []byte("HTTP/1.")) || line[8] != ' ' {
		return 0, fmt.Errorf("%w: status line %q", errProtocol, line)
	}
	status, err := strconv.Atoi(string(line[9:12]))
	if err != nil {
		return 0, fmt.Errorf("%w: status line %q", errProtocol, line)
	}
	length, chunked, closing := int64(-1), false, false
	for {
		line, err := h.line()
		if err != nil {
			return 0, err
		}
		if len(line) == 0 {
			break
		}
		name, value, ok := bytes.Cut(line, []byte(":"))
		if !ok {
			return 0, fmt.Errorf("%w: header %q", errProtocol, line)
		}
		value = bytes.TrimSpace(value)
		switch {
		case strings.EqualFold(string(name), "Content-Length"):
			if length, err = strconv.ParseInt(string(value), 10, 64); err != nil || length < 0 {
				return 0, fmt.Errorf("%w: Content-Length %q", errProtocol, value)
			}
		case strings.EqualFold(string(name), "Transfer-Encoding"):
			chunked = strings.EqualFold(string(value), "chunked")
			if !chunked {
				return 0, fmt.Errorf("%w: Transfer-Encoding %q", errProtocol, value)
			}
		case strings.EqualFold(string(name), "Connection"):
			closing = strings.EqualFold(string(value), "close")
		}
	}
	out.Reset()
	switch {
	case chunked:
		err = h.chunks(out)
	case length >= 0:
		if length > maxBody {
			return 0, fmt.Errorf("answer of %d bytes", length)
		}
		_, err = io.CopyN(out, h.br, length)
	default: // the body runs until the server closes
		_, err = out.ReadFrom(io.LimitReader(h.br, maxBody))
		closing = true
	}
	if err != nil {
		return 0, err
	}
	if closing {
		h.close()
	}
	return status, nil
}

// chunks reads a chunked body.
func (h *httpConn) chunks(out *bytes.Buffer) error {
	for {
		line, err := h.line()
		if err != nil {
			return err
		}
		size, _, _ := bytes.Cut(line, []byte(";"))
		n, err := strconv.ParseInt(string(bytes.TrimSpace(size)), 16, 64)
		if err != nil || n < 0 || int64(out.Len())+n > maxBody {
			return fmt.Errorf("%w: chunk size %q", errProtocol, line)
		}
		if n == 0 {
			for { // trailers, then the empty line
				line, err := h.line()
				if err != nil || len(line) == 0 {
					return err
				}
			}
		}
		if _, err := io.CopyN(out, h.br, n); err != nil {
			return err
		}
		if line, err := h.line(); err != nil || len(line) != 0 {
			return fmt.Errorf("%w: chunk not followed by CRLF", errProtocol)
		}
	}
}

// line reads one CRLF-terminated line, without its end.
func (h *httpConn) line() ([]byte, error) {
	line, err := h.br.ReadSlice('\n')
	if err != nil {
		if errors.Is(err, bufio.ErrBufferFull) {
			return nil, fmt.Errorf("%w: line too long", errProtocol)
		}
		return nil, err
	}
	return bytes.TrimSuffix(line[:len(line)-1], []byte("\r")), nil
}

func (h *httpConn) close() {
	if h.c != nil {
		h.c.Close()
		h.c, h.br = nil, nil
	}
}
