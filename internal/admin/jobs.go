package admin

import (
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
	"starcolor/internal/fault"
	"starcolor/internal/lottery"
	"starcolor/internal/store"
)

// An emission created from the back office is built in the background by the server the
// operator asked, and its job (its progress, then its end) is kept in the store, so that every
// server of the game shows it. One creation runs at a time across them all: the one creating
// holds a lease in the store, renewed as it beats; a server that dies with a creation stops
// beating, and its job is shown as lost.

// jobLease names the lease of the creation running.
const jobLease = "emission-creation"

// beatEvery is how often a creation writes its progress and renews its lease; a job whose server
// has not beaten for jobLost has died with it.
const (
	beatEvery = 500 * time.Millisecond
	jobLost   = 30 * time.Second
)

// newHolder names a server in the store's leases.
func newHolder() string {
	var b [8]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

type jobView struct {
	ID       int64   `json:"id"`
	Emission string  `json:"emission"`
	Price    string  `json:"price"`
	Blocks   int     `json:"blocks"`
	Operator string  `json:"operator"`
	State    string  `json:"state"`
	Done     int     `json:"done"`
	Total    int     `json:"total"`
	Percent  float64 `json:"percent"`
	Shown    string  `json:"percent_shown"` // the percent in the operator's language: "33,3"
	Elapsed  string  `json:"elapsed"`
	Error    string  `json:"error,omitempty"`
}

// jobView shows a job as it stands, in a language; a running job whose server has stopped
// beating is lost. Its error is worded from its kind: a job keeps the English of its error.
func (s *Server) jobView(lang string, j lottery.Job) jobView {
	v := jobView{ID: j.ID, Emission: j.Emission, Price: money(lang, j.Price), Blocks: j.Blocks, Operator: j.Operator,
		State: j.State, Done: j.Done, Total: j.Total}
	if j.State == lottery.JobFailed {
		v.Error = failureText(lang, failureOf(j.Error))
	}
	if j.Total > 0 {
		v.Percent = float64(int(1000*float64(j.Done)/float64(j.Total))) / 10
	}
	el := j.Elapsed
	if j.State == lottery.JobRunning {
		el = s.now().Sub(j.Started)
		if s.now().Sub(j.Beat) > jobLost {
			v.State, v.Error, el = lottery.JobFailed, failureText(lang, failLost), j.Beat.Sub(j.Started)
		}
	}
	v.Shown = decimalIn(lang, v.Percent, -1)
	v.Elapsed = span(lang, el)
	return v
}

// running is the creation running now, on any server, if any.
func (s *Server) running(ctx context.Context) (lottery.Job, bool, error) {
	j, ok, err := s.db.RunningJob(ctx)
	if err != nil || !ok || s.now().Sub(j.Beat) > jobLost {
		return j, false, err
	}
	return j, true, nil
}

// proposeCreation proposes an emission from the emissions page's form: another operator, an
// approver, approves it on the proposals page, and a server then makes it (StartApproved).
func (s *Server) proposeCreation(w http.ResponseWriter, r *http.Request) {
	if err := readForm(w, r); err != nil {
		s.fail(w, r, err)
		return
	}
	form := createForm{ID: strings.TrimSpace(r.PostFormValue("id")), OnSaleAt: strings.TrimSpace(r.PostFormValue("on_sale_at"))}
	price, perr := strconv.ParseInt(r.PostFormValue("price"), 10, 64)
	blocks, berr := strconv.Atoi(r.PostFormValue("blocks"))
	form.Price, form.Blocks = price, blocks
	if err := emission.CheckID(form.ID); err != nil {
		s.renderEmissions(w, r, http.StatusBadRequest, form, s.t(r, "The id must be 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit."))
		return
	}
	_, err := s.def.Table(price)
	if perr != nil || err != nil {
		s.renderEmissions(w, r, http.StatusBadRequest, form, s.t(r, "This game is sold at %s.", s.def.PriceList()))
		return
	}
	if berr != nil || blocks < 1 || blocks > MaxBlocks {
		s.renderEmissions(w, r, http.StatusBadRequest, form, s.t(r, "An emission has 1 to %d blocks here.", MaxBlocks))
		return
	}
	var onSale time.Time
	if form.OnSaleAt != "" {
		// A datetime-local field: a wall-clock time in Paris, to the minute.
		if onSale, err = time.ParseInLocation("2006-01-02T15:04", form.OnSaleAt, Paris); err != nil {
			s.renderEmissions(w, r, http.StatusBadRequest, form, s.t(r, "The opening is a date and a time, Paris time."))
			return
		}
	}
	op := operator(r)
	p, err := ProposeCreation(r.Context(), s.db, s.def, Creation{ID: form.ID, Price: price, Blocks: blocks, OnSaleAt: onSale},
		lottery.OperatorAction{OperatorID: op.ID, Name: op.Name, Remote: Remote(r), CreatedAt: s.now()})
	if fault.Is(err, fault.InvalidState) {
		s.renderEmissions(w, r, http.StatusConflict, form, s.t(r, "The emission %s exists already, or its creation is proposed already: choose another id.", form.ID))
		return
	}
	if err != nil {
		s.fail(w, r, err)
		return
	}
	http.Redirect(w, r, fmt.Sprintf("/admin/proposals#proposal-%d", p.ID), http.StatusSeeOther)
}

// StartApproved makes the oldest approved creation not yet made, unless a creation runs on any
// server: every server calls it, every second and after an approval. The lease of the creation
// says which one makes it:
//
//  1. the creations waiting are read, and the oldest approved one is taken;
//  2. the lease is taken under a name of this attempt's own, so that no other attempt, here or
//     on another server, holds it at the same time;
//  3. the emission is looked for again: a server that made it just before gave up the lease
//     after its commit;
//  4. its job is recorded, and the units are made in the background (generate).
func (s *Server) StartApproved(ctx context.Context) error {
	_, err := s.startApproved(ctx)
	return err
}

// startApproved is StartApproved, and the job it started, if any.
func (s *Server) startApproved(ctx context.Context) (lottery.Job, error) {
	var j lottery.Job
	waiting, err := s.db.Creations(ctx, s.now())
	if err != nil {
		return j, err
	}
	var p *lottery.Proposal
	for i := range waiting {
		if waiting[i].Status == lottery.ProposalApproved {
			p = &waiting[i]
			break
		}
	}
	if p == nil {
		return j, nil
	}
	holder := s.cfg.Holder + "/" + p.Emission + "/" + newHolder()
	now := s.now()
	if got, err := s.db.TryLease(ctx, jobLease, holder, now, now.Add(jobLost)); err != nil || !got {
		return j, err
	}
	if _, err := s.db.Emission(ctx, p.Emission); !errors.Is(err, emission.ErrNotFound) {
		s.db.ReleaseLease(context.Background(), jobLease, holder)
		return j, err
	}
	j = lottery.Job{Emission: p.Emission, Price: p.Price, Blocks: p.Blocks, Operator: p.DecidedBy, Started: now, State: lottery.JobRunning,
		Total: p.Blocks * s.def.BlockUnits, Beat: now}
	if j.ID, err = s.db.CreateJob(ctx, j); err != nil {
		s.db.ReleaseLease(context.Background(), jobLease, holder)
		return lottery.Job{}, err
	}
	if err := s.db.LogOperatorAction(ctx, lottery.OperatorAction{OperatorID: p.DeciderID, Name: p.DecidedBy, Action: "emission_create",
		Detail: logDetail{Emission: p.Emission, Blocks: p.Blocks, Price: p.Price, Proposal: p.ID}.encode(), CreatedAt: now}); err != nil {
		s.endJob(j, holder, err)
		return lottery.Job{}, err
	}
	go s.generate(*p, j, holder)
	return j, nil
}

// generate makes an approved creation's emission, writing its job's progress and renewing the
// lease as it goes. A creation that fails is failed, saying why, unless the server stopped
// under it: another server, or this one restarted, makes it again from the start (nothing of
// an emission remains until its commit).
func (s *Server) generate(p lottery.Proposal, j lottery.Job, holder string) {
	var mu sync.Mutex
	progress := func(done, total int) {
		mu.Lock()
		j.Done, j.Total = done, total
		mu.Unlock()
	}
	stop := make(chan struct{})
	beating := make(chan struct{})
	go func() { // the job's progress and the lease, written as it goes
		defer close(beating)
		t := time.NewTicker(beatEvery)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
			}
			now := s.now()
			mu.Lock()
			j.Beat = now
			beat := j
			mu.Unlock()
			s.db.UpdateJob(s.ctx, beat)
			s.db.TryLease(s.ctx, jobLease, holder, now, now.Add(jobLost))
		}
	}()
	// Staged: sales go on while the units are generated, and pause only for the copy.
	_, err := emission.Create(s.ctx, store.EmissionWrite(s.db, p.DecidedBy, true), emission.Order{ID: p.Emission, Definition: s.def, Price: p.Price,
		Blocks: p.Blocks, Seed: emission.NewSeed(), CreatedAt: s.now().UTC(), OnSaleAt: p.OnSaleAt, Progress: progress})
	close(stop)
	<-beating
	j = s.endJob(j, holder, err)
	line := lottery.OperatorAction{OperatorID: p.DeciderID, Name: p.DecidedBy, Action: "emission_created",
		Detail: logDetail{Emission: p.Emission, Elapsed: j.Elapsed.Milliseconds()}.encode(), Remote: "", CreatedAt: s.now()}
	switch {
	case err == nil:
		s.log.Info("emission created", "id", p.Emission, "price", p.Price, "blocks", p.Blocks, "proposal", p.ID, "approved_by", p.DecidedBy)
	case errors.Is(err, context.Canceled):
		s.log.Warn("back office: a creation interrupted, to be made again", "id", p.Emission, "proposal", p.ID)
		line.Action = "emission_failed"
		line.Detail = logDetail{Emission: p.Emission, Failure: failureOf(j.Error)}.encode()
	default:
		s.log.Error("back office: creating an emission", "id", p.Emission, "err", err)
		line.Action = "emission_failed"
		line.Detail = logDetail{Emission: p.Emission, Failure: failureOf(j.Error)}.encode()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if ferr := s.db.FailCreation(ctx, p.ID, failureText("en", failureOf(j.Error)), lottery.OperatorAction{OperatorID: p.DeciderID, Name: p.DecidedBy,
			Action: "proposal_failed", CreatedAt: s.now()}); ferr != nil {
			s.log.Error("back office: failing a creation", "proposal", p.ID, "err", ferr)
		}
	}
	s.db.LogOperatorAction(context.Background(), line)
}

// endJob writes a job's end, and gives its lease up.
func (s *Server) endJob(j lottery.Job, holder string, err error) lottery.Job {
	now := s.now()
	j.Elapsed, j.Beat = now.Sub(j.Started), now
	if err != nil {
		j.State, j.Error = lottery.JobFailed, err.Error()
		if errors.Is(err, context.Canceled) {
			j.Error = interruptedText
		}
	} else {
		j.State, j.Done = lottery.JobDone, j.Total
	}
	// Written even as the server shuts down: the job must not stay running.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if werr := s.db.UpdateJob(ctx, j); werr != nil {
		s.log.Error("back office: writing a job's end", "job", j.ID, "err", werr)
	}
	s.db.ReleaseLease(ctx, jobLease, holder)
	return j
}

// job reads the job a request names; nil if there is none.
func (s *Server) job(r *http.Request) (*lottery.Job, error) {
	n, err := strconv.ParseInt(r.PathValue("job"), 10, 64)
	if err != nil || n < 1 {
		return nil, nil
	}
	j, err := s.db.Job(r.Context(), n)
	if fault.Is(err, fault.NotFound) {
		return nil, nil
	}
	return &j, err
}

func (s *Server) jobPage(w http.ResponseWriter, r *http.Request) {
	j, err := s.job(r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if j == nil {
		s.render(w, r, http.StatusNotFound, "error", s.t(r, "Not found"), s.t(r, "No such creation."))
		return
	}
	s.render(w, r, http.StatusOK, "job", s.t(r, "Creating %s", j.Emission), s.jobView(langOf(r), *j))
}

func (s *Server) jobStatus(w http.ResponseWriter, r *http.Request) {
	j, err := s.job(r)
	if err != nil {
		http.Error(w, "the store cannot serve this now", http.StatusServiceUnavailable)
		return
	}
	if j == nil {
		http.Error(w, "no such creation", http.StatusNotFound)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	json.NewEncoder(w).Encode(s.jobView(langOf(r), *j))
}
