package admin

import (
	"compress/gzip"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"starcolor/internal/chart"
	"starcolor/internal/emission"
	"starcolor/internal/fault"
	"starcolor/internal/gamedef"
	"starcolor/internal/lottery"
)

// MaxBlocks bounds the blocks of an emission created from the back office (about 3 s each, and
// sales pause about 0.5 s a block while the emission is copied in).
const MaxBlocks = 50

type emissionRow struct {
	*emission.Emission
	Remaining int
	Open      bool
	Scheduled bool                     // made, not yet on sale: it opens at its OnSaleAt
	Suspended bool                     // its sales stopped (docs/spec/OPERATOR.md): not on sale, not queued
	Withdrawn bool                     // never to sell again: its Remaining units are withdrawn
	History   []lottery.EmissionChange // its changes of status, oldest first (the emission's page only)
	// Queued: the emission has units left, but an older one at its price sells first (the sales
	// take the oldest open block: sqlite's nextUnit); SellingNow names that one.
	Queued     bool
	SellingNow string
	Roots      []string
}

// rows describes emissions, given oldest first as the store lists them, each with its latest
// change of status: which sells now at its price, which waits, which is suspended.
func rows(es []*emission.Emission, statuses map[string]string) []emissionRow {
	selling := map[int64]string{}
	out := make([]emissionRow, len(es))
	for i, e := range es {
		r := emissionRow{Emission: e, Remaining: e.Units() - e.Sold()}
		r.Open = r.Remaining > 0
		r.Suspended = r.Open && statuses[e.ID] == lottery.Suspended
		r.Withdrawn = r.Open && statuses[e.ID] == lottery.Withdrawn
		r.Scheduled = r.Open && statuses[e.ID] == lottery.Scheduled
		for _, b := range e.Blocks {
			r.Roots = append(r.Roots, hex.EncodeToString(b.Root[:]))
		}
		if r.Open && !r.Suspended && !r.Withdrawn && !r.Scheduled {
			if first, ok := selling[e.Price]; ok {
				r.Queued, r.SellingNow = true, first
			} else {
				selling[e.Price] = e.ID
			}
		}
		out[i] = r
	}
	return out
}

type emissionsData struct {
	Emissions []emissionRow
	Prices    []gamedef.Table
	Form      createForm
	Error     string
	Running   *jobView
	Pending   []lottery.Proposal // the creations proposed, or approved and being made
	Unit      int                // units in a block
	MaxBlocks int
}

type createForm struct {
	ID       string
	Price    int64
	Blocks   int
	OnSaleAt string // a datetime-local value, Paris time; "" for once made
}

func (s *Server) emissionsPage(w http.ResponseWriter, r *http.Request) {
	s.renderEmissions(w, r, http.StatusOK, createForm{}, "")
}

// emissionRows are every emission's rows, oldest first.
func (s *Server) emissionRows(ctx context.Context) ([]emissionRow, error) {
	es, err := s.db.Emissions(ctx)
	if err != nil {
		return nil, err
	}
	statuses, err := s.db.EmissionStatuses(ctx)
	if err != nil {
		return nil, err
	}
	return rows(es, statuses), nil
}

func (s *Server) renderEmissions(w http.ResponseWriter, r *http.Request, status int, form createForm, msg string) {
	all, err := s.emissionRows(r.Context())
	if err != nil {
		s.fail(w, r, err)
		return
	}
	d := emissionsData{Prices: s.def.Tables, Form: form, Error: msg, Unit: s.def.BlockUnits, MaxBlocks: MaxBlocks}
	// Newest first: the operator looks for what was just made.
	for i := len(all) - 1; i >= 0; i-- {
		d.Emissions = append(d.Emissions, all[i])
	}
	if d.Form.ID == "" {
		d.Form = createForm{ID: s.now().UTC().Format("20060102-150405"), Price: s.def.Tables[0].Price, Blocks: 1}
	}
	if d.Pending, err = s.db.Creations(r.Context(), s.now()); err != nil {
		s.fail(w, r, err)
		return
	}
	if j, ok, err := s.running(r.Context()); err != nil {
		s.fail(w, r, err)
		return
	} else if ok {
		v := s.jobView(langOf(r), j)
		d.Running = &v
	}
	s.render(w, r, status, "emissions", s.t(r, "Emissions"), d)
}

func (s *Server) emissionPage(w http.ResponseWriter, r *http.Request) {
	s.renderEmission(w, r, http.StatusOK, "")
}

// emissionData is an emission's page: its row, and the error of a change of status refused.
type emissionData struct {
	emissionRow
	Error string
}

func (s *Server) renderEmission(w http.ResponseWriter, r *http.Request, status int, msg string) {
	all, err := s.emissionRows(r.Context())
	if err != nil {
		s.fail(w, r, err)
		return
	}
	id := r.PathValue("id")
	for _, row := range all {
		if row.ID == id {
			if row.History, err = s.db.EmissionHistory(r.Context(), id); err != nil {
				s.fail(w, r, err)
				return
			}
			s.render(w, r, status, "emission", s.t(r, "Emission %s", id), emissionData{row, msg})
			return
		}
	}
	s.fail(w, r, fmt.Errorf("%w: no emission %q", emission.ErrNotFound, id))
}

// changeStatus suspends or resumes the emission of the page (ChangeStatus), then shows it again.
func (s *Server) changeStatus(status string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if err := readForm(w, r); err != nil {
			s.fail(w, r, err)
			return
		}
		o := operator(r)
		id := r.PathValue("id")
		_, err := ChangeStatus(r.Context(), s.db, id, status, r.PostFormValue("reason"),
			lottery.OperatorAction{OperatorID: o.ID, Name: o.Name, Remote: Remote(r), CreatedAt: s.now()})
		switch code := fault.CodeOf(err); {
		case err == nil:
			http.Redirect(w, r, "/admin/emissions/"+url.PathEscape(id), http.StatusSeeOther)
		case code == fault.Invalid:
			s.renderEmission(w, r, http.StatusBadRequest, s.t(r, "Say why the sales stop, in one line of at most %d characters.", lottery.MaxReason))
		case code == fault.InvalidState:
			s.renderEmission(w, r, http.StatusConflict, s.t(r, "Nothing was changed: the emission's status changed meanwhile, or it is sold out."))
		default:
			s.fail(w, r, err)
		}
	}
}

// export streams a block's audit export (docs/spec/RULES.md §8), gzip-compressed for .gz, once the block is
// sold out (emission.Exportable): before, it would tell the operator the next prizes.
func (s *Server) export(w http.ResponseWriter, r *http.Request) {
	e, rd, err := s.readerOf(r.Context(), r.PathValue("id"))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	k, err := strconv.Atoi(r.PathValue("block"))
	if err != nil {
		k = -1
	}
	gz := strings.HasSuffix(r.URL.Path, ".gz")
	name := fmt.Sprintf("%s-block-%d.jsonl", e.ID, k)
	if err := e.Exportable(k); err != nil {
		if errors.Is(err, emission.ErrUnsold) {
			// An operator asking for the units still for sale is worth the auditors' notice.
			if err := s.record(r.Context(), r, "export_refused", logDetail{Emission: e.ID, Block: &k}); err != nil {
				s.log.Error("back office: logging a refused export", "err", err)
			}
		}
		s.fail(w, r, err)
		return
	}
	if err := s.record(r.Context(), r, "export", logDetail{Emission: e.ID, Block: &k, Gzip: gz}); err != nil {
		s.fail(w, r, err)
		return
	}
	// A block of a million units is about 200 MB: longer than the server's write timeout.
	http.NewResponseController(w).SetWriteDeadline(time.Now().Add(30 * time.Minute))
	h := w.Header()
	h.Set("Cache-Control", "no-store")
	if gz {
		h.Set("Content-Type", "application/gzip")
		h.Set("Content-Disposition", `attachment; filename="`+name+`.gz"`)
		zw, _ := gzip.NewWriterLevel(w, gzip.BestSpeed)
		err = rd.Export(r.Context(), zw, k)
		if err == nil {
			err = zw.Close()
		}
	} else {
		h.Set("Content-Type", "application/jsonl; charset=utf-8")
		h.Set("Content-Disposition", `attachment; filename="`+name+`"`)
		err = rd.Export(r.Context(), w, k)
	}
	if err != nil && r.Context().Err() == nil {
		// The status is sent: the client sees a truncated file, which the verifier refuses.
		s.log.Error("back office: export", "emission", e.ID, "block", k, "err", err)
	}
}

// reportEntry is an emission's report, made once: an emission never changes.
type reportEntry struct {
	done chan struct{}
	rep  *emission.Report
	err  error
	took time.Duration
}

func (s *Server) report(ctx context.Context, id string) (*reportEntry, error) {
	s.reportsMu.Lock()
	ent := s.reports[id]
	if ent == nil {
		ent = &reportEntry{done: make(chan struct{})}
		s.reports[id] = ent
		go func() {
			start := time.Now()
			_, rd, err := s.readerOf(s.ctx, id)
			if err == nil {
				ent.rep, err = rd.Report(s.ctx)
			}
			ent.err, ent.took = err, time.Since(start)
			if err != nil {
				s.reportsMu.Lock()
				delete(s.reports, id)
				s.reportsMu.Unlock()
			}
			close(ent.done)
		}()
	}
	s.reportsMu.Unlock()
	select {
	case <-ent.done:
		return ent, ent.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

type reportData struct {
	E      emissionRow
	R      *emission.Report
	Took   time.Duration
	Table  *gamedef.Table
	Blocks []blockReportRow
}

type blockReportRow struct {
	emission.BlockReport
	OK bool
}

func (s *Server) reportPage(w http.ResponseWriter, r *http.Request) {
	e, err := s.db.Emission(r.Context(), r.PathValue("id"))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	http.NewResponseController(w).SetWriteDeadline(time.Now().Add(10 * time.Minute))
	ent, err := s.report(r.Context(), e.ID)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	statuses, err := s.db.EmissionStatuses(r.Context())
	if err != nil {
		s.fail(w, r, err)
		return
	}
	d := reportData{E: rows([]*emission.Emission{e}, statuses)[0], R: ent.rep, Took: ent.took.Round(time.Millisecond), Table: &e.Table}
	if d.E.History, err = s.db.EmissionHistory(r.Context(), e.ID); err != nil {
		s.fail(w, r, err)
		return
	}
	for _, b := range ent.rep.Blocks {
		d.Blocks = append(d.Blocks, blockReportRow{BlockReport: b, OK: b.OK()})
	}
	s.render(w, r, http.StatusOK, "report", s.t(r, "Report of %s", e.ID), d)
}

func (s *Server) reportChart(w http.ResponseWriter, r *http.Request) {
	http.NewResponseController(w).SetWriteDeadline(time.Now().Add(10 * time.Minute))
	ent, err := s.report(r.Context(), r.PathValue("id"))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "image/svg+xml")
	w.Header().Set("Cache-Control", "private, max-age=3600")
	w.Header().Set("Vary", "Cookie") // its language
	chart.WriteReport(w, ent.rep, chartWords(langOf(r)))
}

// chartWords draws the emission's report chart in a language.
func chartWords(lang string) chart.Words {
	return chart.Words{T: func(s string) string { return tr(lang, s) }, Comma: lang == "fr"}
}
