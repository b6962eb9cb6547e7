package admin

import (
	"net/http"
	"path/filepath"
	"strings"

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
	persons, err := identity.ParseRegister(f, s.now())
	if err != nil {
		// The log keeps why, as fields; the page says it in the operator's language, and the
		// server's log has the error's own words.
		s.log.Info("back office: a list of excluded persons refused", "file", head.Filename, "err", err)
		d := refusal(err)
		d.File = head.Filename
		s.record(r.Context(), r, "register_refused", d)
		s.renderRegister(w, r, http.StatusBadRequest, registerData{Error: s.t(r, "Nothing was imported: %s", refusalText(langOf(r), d))})
		return
	}
	imp, err := s.db.ImportRegister(r.Context(), persons, lottery.RegisterImport{At: s.now(), By: operator(r).Name, Source: filepath.Base(head.Filename)})
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.ended(imp)
	if err := s.record(r.Context(), r, "register_imported", importDetail(imp)); err != nil {
		s.fail(w, r, err)
		return
	}
	s.renderRegister(w, r, http.StatusOK, registerData{Done: &imp})
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
