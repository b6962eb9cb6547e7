package httpapi

import (
	"fmt"
	"io"
	"net/http/httptest"
	"strings"
	"testing"

	"starcolor/internal/fault"
)

// An internal error says nothing of its cause to the client, and that nothing was changed;
// one raised on purpose with its own message (a committed sale whose answer failed) says that.
func TestInternalErrorMessages(t *testing.T) {
	for _, c := range []struct {
		err  error
		want string
	}{
		{fmt.Errorf("disk on fire: %w", io.ErrUnexpectedEOF), "something went wrong on our side; nothing was changed"},
		{&fault.Error{Code: fault.Internal, Message: "the game was bought (game 7)", Cause: io.EOF}, "the game was bought (game 7)"},
	} {
		rec := httptest.NewRecorder()
		writeError(rec, c.err)
		if rec.Code != 500 || !strings.Contains(rec.Body.String(), c.want) || strings.Contains(rec.Body.String(), "EOF") {
			t.Errorf("%v: %d %s", c.err, rec.Code, rec.Body)
		}
	}
}
