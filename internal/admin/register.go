package admin

import (
	"context"
	"errors"
	"io"
	"net/http"
	"path/filepath"
	"strings"

	"starcolor/internal/fault"
	"starcolor/internal/identity"
	"starcolor/internal/lottery"
)

// The list of excluded persons (the national register of gaming bans). The operator imports the
// file the regulator gives. The import:
//   - replaces the list;
//   - closes the open accounts of listed persons, paying their balances out and ending their
//     sessions on every server;
//   - is kept with its counts, and in the operators' log.

type registerData struct {
	Imports []lottery.RegisterImport
	Persons []identity.Person
	Total   int
	Query   string
	More    bool
	Done    *lottery.RegisterImport // the import just made
	Error   string
}

// maxRegisterUpload bounds an uploaded list (identity.ParseRegister reads up to 64 MiB of it).
const maxRegisterUpload = 65 << 20

func (s *Server) registerPage(w http.ResponseWriter, r *http.Request) {
	s.renderRegister(w, r, http.StatusOK, registerData{Query: strings.TrimSpace(r.URL.Query().Get("q"))})
}

func (s *Server) renderRegister(w http.ResponseWriter, r *http.Request, status int, d registerData) {
	var err error
	if d.Imports, err = s.db.RegisterImports(r.Context(), 20); err != nil {
		s.fail(w, r, err)
		return
	}
	if d.Persons, d.Total, err = s.db.RegisterPersons(r.Context(), d.Query, listLimit+1); err != nil {
		s.fail(w, r, err)
		return
	}
	if len(d.Persons) > listLimit {
		d.Persons, d.More = d.Persons[:listLimit], true
	}
	s.render(w, r, status, "exclusions", s.t(r, "Excluded persons"), d)
}

// importRegister imports an uploaded list: all of it or, if any line is not a person, nothing.
func (s *Server) importRegister(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, maxRegisterUpload)
	f, head, err := r.FormFile("file")
	if err != nil {
		s.renderRegister(w, r, http.StatusBadRequest, registerData{Error: s.t(r, "Choose the file of the list to import.")})
		return
	}
	defer f.Close()
	o := operator(r)
	imp, err := ImportRegister(r.Context(), s.db, f, head.Filename, lottery.OperatorAction{OperatorID: o.ID, Name: o.Name, Remote: Remote(r), CreatedAt: s.now()})
	s.ended(imp) // even if its line could not be logged: the accounts are closed
	var refused *RegisterRefused
	if errors.As(err, &refused) {
		// The log keeps why, as fields; the page says it in the operator's language, and the
		// server's log has the error's own words.
		s.log.Info("back office: a list of excluded persons refused", "file", head.Filename, "err", refused.Err)
		s.renderRegister(w, r, http.StatusBadRequest, registerData{Error: s.t(r, "Nothing was imported: %s", refusalText(langOf(r), refused.detail))})
		return
	}
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.renderRegister(w, r, http.StatusOK, registerData{Done: &imp})
}

// RegisterStore is what an import of the list needs of a store: the import, and the log.
type RegisterStore interface {
	ImportRegister(ctx context.Context, persons []identity.Person, imp lottery.RegisterImport) (lottery.RegisterImport, error)
	LogOperatorAction(ctx context.Context, a lottery.OperatorAction) error
}

// RegisterRefused is a list refused, nothing imported: why, as the log keeps it.
type RegisterRefused struct {
	Err    error // identity.ParseRegister's
	detail logDetail
}

func (e *RegisterRefused) Error() string { return "nothing was imported: " + e.Err.Error() }

// Unwrap makes a refusal fault.Invalid, for the operator API's answer.
func (e *RegisterRefused) Unwrap() error {
	return fault.Errorf(fault.Invalid, "nothing was imported: %v", e.Err)
}

// ImportRegister reads a list of excluded persons from src and imports it, all of it or, if any
// line is not a person, nothing (a *RegisterRefused). Either way the operators' log keeps it,
// under by's operator and address. It serves the back office and the operator API alike; the
// caller ends the closed accounts' sessions (Config.SessionsEnded).
func ImportRegister(ctx context.Context, db RegisterStore, src io.Reader, file string, by lottery.OperatorAction) (lottery.RegisterImport, error) {
	file = filepath.Base(file)
	persons, err := identity.ParseRegister(src, by.CreatedAt)
	if err != nil {
		d := refusal(err)
		d.File = file
		line := lottery.OperatorAction{OperatorID: by.OperatorID, Name: by.Name, Action: "register_refused", Detail: d.encode(), Remote: by.Remote, CreatedAt: by.CreatedAt}
		if logErr := db.LogOperatorAction(ctx, line); logErr != nil {
			return lottery.RegisterImport{}, logErr
		}
		return lottery.RegisterImport{}, &RegisterRefused{Err: err, detail: d}
	}
	imp, err := db.ImportRegister(ctx, persons, lottery.RegisterImport{At: by.CreatedAt, By: by.Name, Source: file})
	if err != nil {
		return imp, err
	}
	return imp, db.LogOperatorAction(ctx, lottery.OperatorAction{OperatorID: by.OperatorID, Name: by.Name, Action: "register_imported",
		Detail: importDetail(imp).encode(), Remote: by.Remote, CreatedAt: by.CreatedAt})
}

// ended tells the game server that the sessions of the accounts an import closed have ended.
func (s *Server) ended(imp lottery.RegisterImport) {
	if s.cfg.SessionsEnded == nil {
		return
	}
	ids := make([]int64, len(imp.ClosedPlayers))
	for i, c := range imp.ClosedPlayers {
		ids[i] = c.PlayerID
	}
	s.cfg.SessionsEnded(ids...)
}
