package app

import (
	"encoding/json"
	"errors"
	"net/http"

	"starcolor/internal/admin"
	"starcolor/internal/fault"
	"starcolor/internal/lottery"
)

// The control socket: what a command run beside the server must have the server do, because
// only the server can do it at once. Over a SQLite file the server keeps the sessions in memory;
// a register import made by another process would close accounts whose sessions the server
// still honours. So `starcolor exclusions import` sends the list to the server serving the file,
// over a Unix socket beside it that only the file's owner can open (cmd/starcolor's control.go).
// Its calls are the command line's: the log names them so.

// maxControlRegister bounds a register sent over the control socket, as the API bounds its own.
const maxControlRegister = 64 << 20

// ControlImport is the answer to a register import over the control socket.
type ControlImport struct {
	Listed, Added, Gone, Closed int
	ClosedPlayers               []lottery.ClosedAccount `json:",omitempty"`
	Error                       string                  `json:",omitempty"` // why nothing was imported
	Code                        fault.Code              `json:",omitempty"`
}

// ControlHandler serves the control socket: PUT /exclusions?file=NAME, the register as CSV, is
// imported as from the command line, and the sessions of the accounts it closes end at once.
func (a *App) ControlHandler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("PUT /exclusions", func(w http.ResponseWriter, r *http.Request) {
		body := http.MaxBytesReader(w, r.Body, maxControlRegister)
		imp, err := admin.ImportRegister(r.Context(), a.Store, body, r.URL.Query().Get("file"),
			lottery.OperatorAction{Name: lottery.ByCommandLine, CreatedAt: a.now()})
		if len(imp.ClosedPlayers) > 0 {
			ids := make([]int64, len(imp.ClosedPlayers))
			for i, c := range imp.ClosedPlayers {
				ids[i] = c.PlayerID
			}
			a.Game.SessionsEnded(ids...)
		}
		out := ControlImport{Listed: imp.Listed, Added: imp.Added, Gone: imp.Gone, Closed: imp.Closed, ClosedPlayers: imp.ClosedPlayers}
		status := http.StatusOK
		if err != nil {
			out = ControlImport{Error: err.Error(), Code: fault.CodeOf(err)}
			status = http.StatusUnprocessableEntity
			var tooLarge *http.MaxBytesError
			if errors.As(err, &tooLarge) {
				out.Error = "the register is larger than 64 MiB"
			}
			a.log.Error("control socket: a register import refused", "err", err)
		} else {
			a.log.Info("control socket: register imported", "listed", imp.Listed, "closed", imp.Closed)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		json.NewEncoder(w).Encode(out)
	})
	return mux
}
