package admin

import (
	"compress/gzip"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"starcolor/internal/emission"
	"starcolor/internal/gamedef"
	"starcolor/internal/sqlite"
)

// MaxBlocks bounds the blocks of an emission created from the back office (about 3 s each, and
// sales pause about 0.5 s a block while the emission is copied in).
const MaxBlocks = 50

type emissionRow struct {
	*emission.Emission
	Remaining int
	Open      bool
	// Queued: the emission has units left, but an older one at its price sells first (the sales
	// take the oldest open block: sqlite's nextUnit); SellingNow names that one.
	Queued     bool
	SellingNow string
	Roots      []string
}

// rows describes emissions, given oldest first as the store lists them: which sells now at its
// price, which waits.
func rows(es []*emission.Emission) []emissionRow {
	selling := map[int64]string{}
	out := make([]emissionRow, len(es))
	for i, e := range es {
		r := emissionRow{Emission: e, Remaining: e.Units() - e.Sold()}
		r.Open = r.Remaining > 0
		for _, b := range e.Blocks {
			r.Roots = append(r.Roots, hex.EncodeToString(b.Root[:]))
		}
		if r.Open {
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
	Unit      int // units in a block
	MaxBlocks int
}

type createForm struct {
	ID     string
	Price  int64
	Blocks int
}

func (s *Server) emissionsPage(w http.ResponseWriter, r *http.Request) {
	s.renderEmissions(w, r, http.StatusOK, createForm{}, "")
}

func (s *Server) renderEmissions(w http.ResponseWriter, r *http.Request, status int, form createForm, msg string) {
	es, err := s.db.Emissions(r.Context())
	if err != nil {
		s.fail(w, r, err)
		return
	}
	d := emissionsData{Prices: s.def.Tables, Form: form, Error: msg, Unit: s.def.BlockUnits, MaxBlocks: MaxBlocks}
	// Newest first: the operator looks for what was just made.
	all := rows(es)
	for i := len(all) - 1; i >= 0; i-- {
		d.Emissions = append(d.Emissions, all[i])
	}
	if d.Form.ID == "" {
		d.Form = createForm{ID: s.now().UTC().Format("20060102-150405"), Price: s.def.Tables[0].Price, Blocks: 1}
	}
	if j := s.running(); j != nil {
		v := j.view()
		d.Running = &v
	}
	s.render(w, r, status, "emissions", s.t(r, "Emissions"), d)
}

func (s *Server) emissionPage(w http.ResponseWriter, r *http.Request) {
	es, err := s.db.Emissions(r.Context())
	if err != nil {
		s.fail(w, r, err)
		return
	}
	id := r.PathValue("id")
	for _, row := range rows(es) {
		if row.ID == id {
			s.render(w, r, http.StatusOK, "emission", s.t(r, "Emission %s", id), row)
			return
		}
	}
	s.fail(w, r, fmt.Errorf("%w: no emission %q", emission.ErrNotFound, id))
}

// job is an emission being created in the background.
type job struct {
	ID       int
	Emission string
	Price    int64
	Blocks   int
	Operator string
	Started  time.Time

	mu          sync.Mutex
	done, total int
	state       string // running, done or failed
	err         string
	elapsed     time.Duration
}

type jobView struct {
	ID       int     `json:"id"`
	Emission string  `json:"emission"`
	Price    string  `json:"price"`
	Blocks   int     `json:"blocks"`
	Operator string  `json:"operator"`
	State    string  `json:"state"`
	Done     int     `json:"done"`
	Total    int     `json:"total"`
	Percent  float64 `json:"percent"`
	Elapsed  string  `json:"elapsed"`
	Error    string  `json:"error,omitempty"`
}

func (j *job) view() jobView {
	j.mu.Lock()
	defer j.mu.Unlock()
	v := jobView{ID: j.ID, Emission: j.Emission, Price: gamedef.FormatEUR(j.Price), Blocks: j.Blocks, Operator: j.Operator,
		State: j.state, Done: j.done, Total: j.total, Error: j.err}
	if j.total > 0 {
		v.Percent = float64(int(1000*float64(j.done)/float64(j.total))) / 10
	}
	el := j.elapsed
	if j.state == "running" {
		el = time.Since(j.Started)
	}
	v.Elapsed = el.Round(100 * time.Millisecond).String()
	return v
}

func (j *job) progress(done, total int) {
	j.mu.Lock()
	j.done, j.total = done, total
	j.mu.Unlock()
}

func (s *Server) running() *job {
	s.jobsMu.Lock()
	defer s.jobsMu.Unlock()
	for _, j := range s.jobs {
		j.mu.Lock()
		st := j.state
		j.mu.Unlock()
		if st == "running" {
			return j
		}
	}
	return nil
}

func (s *Server) createEmission(w http.ResponseWriter, r *http.Request) {
	if err := readForm(w, r); err != nil {
		s.fail(w, r, err)
		return
	}
	form := createForm{ID: strings.TrimSpace(r.PostFormValue("id"))}
	price, perr := strconv.ParseInt(r.PostFormValue("price"), 10, 64)
	blocks, berr := strconv.Atoi(r.PostFormValue("blocks"))
	form.Price, form.Blocks = price, blocks
	if err := emission.CheckID(form.ID); err != nil {
		s.renderEmissions(w, r, http.StatusBadRequest, form, s.t(r, "The id must be 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit."))
		return
	}
	table, err := s.def.Table(price)
	if perr != nil || err != nil {
		s.renderEmissions(w, r, http.StatusBadRequest, form, s.t(r, "This game is sold at %s.", s.def.PriceList()))
		return
	}
	if berr != nil || blocks < 1 || blocks > MaxBlocks {
		s.renderEmissions(w, r, http.StatusBadRequest, form, s.t(r, "An emission has 1 to %d blocks here.", MaxBlocks))
		return
	}
	if _, err := s.db.Emission(r.Context(), form.ID); err == nil {
		s.renderEmissions(w, r, http.StatusConflict, form, s.t(r, "The emission %s already exists: choose another id.", form.ID))
		return
	} else if !errors.Is(err, emission.ErrNotFound) {
		s.fail(w, r, err)
		return
	}
	s.jobsMu.Lock()
	for _, j := range s.jobs {
		if j.view().State == "running" {
			s.jobsMu.Unlock()
			s.renderEmissions(w, r, http.StatusConflict, form, s.t(r, "The emission %s is being created: wait until it is done.", j.Emission))
			return
		}
	}
	j := &job{ID: len(s.jobs) + 1, Emission: form.ID, Price: price, Blocks: blocks, Operator: operator(r).Name, Started: time.Now(),
		state: "running", total: blocks * s.def.BlockUnits}
	s.jobs = append(s.jobs, j)
	s.jobsMu.Unlock()

	detail := fmt.Sprintf("%s: %d block(s) at %s", form.ID, blocks, gamedef.FormatEUR(price))
	if err := s.record(r.Context(), r, "emission_create", detail); err != nil {
		j.finish(err)
		s.fail(w, r, err)
		return
	}
	op := operator(r)
	addr := remote(r)
	go func() {
		var seed [emission.SeedSize]byte
		rand.Read(seed[:])
		e := &emission.Emission{ID: form.ID, Price: price, Definition: s.def.Version, Table: *table, CreatedAt: s.now().UTC()}
		// Staged: sales go on while the units are generated, and pause only for the copy.
		err := s.db.CreateEmissionStaged(s.ctx, e, seed, func(put func(emission.Page) error) ([]emission.Block, error) {
			return emission.Build(s.ctx, emission.Plan{Definition: s.def, Price: price, Blocks: blocks, Seed: seed}, put, j.progress)
		})
		j.finish(err)
		action, detail := "emission_created", fmt.Sprintf("%s in %s", form.ID, j.view().Elapsed)
		if err != nil {
			action, detail = "emission_failed", fmt.Sprintf("%s: %v", form.ID, err)
			s.log.Error("back office: creating an emission", "id", form.ID, "err", err)
		} else {
			s.log.Info("emission created", "id", form.ID, "price", price, "blocks", blocks, "operator", op.Name)
		}
		s.db.Update(context.Background(), func(tx *sqlite.Tx) error {
			return tx.LogOperatorAction(sqlite.OperatorAction{OperatorID: op.OperatorID, Name: op.Name, Action: action,
				Detail: detail, Remote: addr, CreatedAt: s.now()})
		})
	}()
	http.Redirect(w, r, fmt.Sprintf("/admin/jobs/%d", j.ID), http.StatusSeeOther)
}

func (j *job) finish(err error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.elapsed = time.Since(j.Started)
	if err != nil {
		j.state, j.err = "failed", err.Error()
		if errors.Is(err, context.Canceled) {
			j.err = "interrupted by the server's shutdown: nothing was written"
		}
		return
	}
	j.state, j.done = "done", j.total
}

func (s *Server) job(r *http.Request) *job {
	n, err := strconv.Atoi(r.PathValue("job"))
	s.jobsMu.Lock()
	defer s.jobsMu.Unlock()
	if err != nil || n < 1 || n > len(s.jobs) {
		return nil
	}
	return s.jobs[n-1]
}

func (s *Server) jobPage(w http.ResponseWriter, r *http.Request) {
	j := s.job(r)
	if j == nil {
		s.render(w, r, http.StatusNotFound, "error", s.t(r, "Not found"), s.t(r, "No such creation: they are forgotten when the server restarts."))
		return
	}
	s.render(w, r, http.StatusOK, "job", s.t(r, "Creating %s", j.Emission), j.view())
}

func (s *Server) jobStatus(w http.ResponseWriter, r *http.Request) {
	j := s.job(r)
	if j == nil {
		http.Error(w, "no such creation", http.StatusNotFound)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	json.NewEncoder(w).Encode(j.view())
}

// export streams a block's audit export (RULES §8), gzip-compressed for .gz.
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
	if _, err := e.Block(k); err != nil {
		s.fail(w, r, err)
		return
	}
	gz := strings.HasSuffix(r.URL.Path, ".gz")
	name := fmt.Sprintf("%s-block-%d.jsonl", e.ID, k)
	if err := s.record(r.Context(), r, "export", name+map[bool]string{true: ".gz", false: ""}[gz]); err != nil {
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
	d := reportData{E: rows([]*emission.Emission{e})[0], R: ent.rep, Took: ent.took.Round(time.Millisecond), Table: &e.Table}
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
	ent.rep.WriteSVGIn(w, chartWords(langOf(r)))
}

// chartWords draws the emission's report chart in a language.
func chartWords(lang string) emission.Words {
	return emission.Words{T: func(s string) string { return tr(lang, s) }, Comma: lang == "fr"}
}
