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
	_, err := s.def.Table(price)
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
	// One creation at a time, whichever server runs it: the lease says which.
	holder := s.cfg.Holder + "/" + form.ID
	now := s.now()
	got, err := s.db.TryLease(r.Context(), jobLease, holder, now, now.Add(jobLost))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if !got {
		busy := s.t(r, "Another emission is being created: wait until it is done.")
		if j, ok, err := s.running(r.Context()); err == nil && ok {
			busy = s.t(r, "The emission %s is being created: wait until it is done.", j.Emission)
		}
		s.renderEmissions(w, r, http.StatusConflict, form, busy)
		return
	}
	op := operator(r)
	j := lottery.Job{Emission: form.ID, Price: price, Blocks: blocks, Operator: op.Name, Started: now, State: lottery.JobRunning,
		Total: blocks * s.def.BlockUnits, Beat: now}
	if j.ID, err = s.db.CreateJob(r.Context(), j); err != nil {
		s.db.ReleaseLease(context.Background(), jobLease, holder)
		s.fail(w, r, err)
		return
	}
	if err := s.record(r.Context(), r, "emission_create", logDetail{Emission: form.ID, Blocks: blocks, Price: price}); err != nil {
		s.endJob(j, holder, err)
		s.fail(w, r, err)
		return
	}
	addr := Remote(r)
	go func() {
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
		_, err := emission.Create(s.ctx, store.EmissionWrite(s.db, op.Name, true), emission.Order{ID: form.ID, Definition: s.def, Price: price,
			Blocks: blocks, Seed: emission.NewSeed(), CreatedAt: s.now().UTC(), Progress: progress})
		close(stop)
		<-beating
		j = s.endJob(j, holder, err)
		action, detail := "emission_created", logDetail{Emission: form.ID, Elapsed: j.Elapsed.Milliseconds()}
		if err != nil {
			action, detail = "emission_failed", logDetail{Emission: form.ID, Failure: failureOf(j.Error)}
			s.log.Error("back office: creating an emission", "id", form.ID, "err", err)
		} else {
			s.log.Info("emission created", "id", form.ID, "price", price, "blocks", blocks, "operator", op.Name)
		}
		s.db.LogOperatorAction(context.Background(), lottery.OperatorAction{OperatorID: op.ID, Name: op.Name, Action: action,
			Detail: detail.encode(), Remote: addr, CreatedAt: s.now()})
	}()
	http.Redirect(w, r, fmt.Sprintf("/admin/jobs/%d", j.ID), http.StatusSeeOther)
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
