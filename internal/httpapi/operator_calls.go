package httpapi

import (
	"errors"
	"mime"
	"net/http"
	"time"

	"starcolor/internal/admin"
	"starcolor/internal/emission"
	"starcolor/internal/fault"
	"starcolor/internal/lottery"
)

// The operator API's calls (OPERATOR.md, « Calls »), each behind its role (operator.go).

// opEmission is an emission as the operator API lists it.
type opEmission struct {
	ID       string     `json:"id"`
	Price    int64      `json:"price"`
	Blocks   int        `json:"blocks"`
	Status   string     `json:"status"`
	OnSaleAt *time.Time `json:"on_sale_at"` // null for a creation proposed to open once made
	Sold     int64      `json:"sold"`
	Units    int64      `json:"units"`
}

// GET /emissions: every emission made, oldest first, then those proposed or being generated.
func (s *Server) opEmissions(w http.ResponseWriter, r *http.Request, _ lottery.Operator) error {
	if err := noQuery(r); err != nil {
		return err
	}
	// The creations first: one made between the two reads is listed twice rather than never.
	waiting, err := s.ops.Store.Creations(r.Context(), s.ops.Now())
	if err != nil {
		return err
	}
	all, err := s.ops.Store.Emissions(r.Context())
	if err != nil {
		return err
	}
	statuses, err := s.ops.Store.EmissionStatuses(r.Context())
	if err != nil {
		return err
	}
	out := make([]opEmission, 0, len(all)+len(waiting))
	made := map[string]bool{}
	for _, e := range all {
		out = append(out, emissionOf(e, statuses[e.ID]))
		made[e.ID] = true
	}
	for _, p := range waiting {
		if made[p.Emission] {
			continue
		}
		o := opEmission{ID: p.Emission, Price: p.Price, Blocks: p.Blocks, Status: lottery.Proposed}
		if p.Status == lottery.ProposalApproved {
			o.Status = lottery.Generating
		}
		if s.ops.Definition != nil {
			o.Units = int64(p.Blocks) * int64(s.ops.Definition.BlockUnits)
		}
		if !p.OnSaleAt.IsZero() {
			at := p.OnSaleAt.UTC()
			o.OnSaleAt = &at
		}
		out = append(out, o)
	}
	return writeJSON(w, http.StatusOK, map[string]any{"emissions": out})
}

// POST /emissions {"id", "price", "blocks", "on_sale_at"?}: 202 the proposal of its creation,
// made once an approver other than its proposer approves it.
func (s *Server) opPropose(w http.ResponseWriter, r *http.Request, o lottery.Operator) error {
	if err := noQuery(r); err != nil {
		return err
	}
	var body struct {
		ID       *string `json:"id"`
		Price    *int64  `json:"price"`
		Blocks   *int    `json:"blocks"`
		OnSaleAt *string `json:"on_sale_at"`
	}
	if _, err := readJSON(r, &body); err != nil {
		return err
	}
	if body.ID == nil || body.Price == nil || body.Blocks == nil {
		return fault.Errorf(fault.Invalid, "an emission is {\"id\", \"price\" (cents), \"blocks\", \"on_sale_at\"?}")
	}
	c := admin.Creation{ID: *body.ID, Price: *body.Price, Blocks: *body.Blocks}
	if body.OnSaleAt != nil {
		at, err := time.Parse(time.RFC3339, *body.OnSaleAt)
		if err != nil {
			return fault.Errorf(fault.Invalid, "on_sale_at is a time of RFC 3339, such as 2027-01-15T09:00:00+01:00")
		}
		c.OnSaleAt = at.UTC()
	}
	if s.ops.Definition == nil {
		return fault.Errorf(fault.Unavailable, "this server makes no emission")
	}
	now := s.ops.Now()
	p, err := admin.ProposeCreation(r.Context(), s.ops.Store, s.ops.Definition, c,
		lottery.OperatorAction{OperatorID: o.ID, Name: o.Name, Remote: admin.Remote(r), CreatedAt: now})
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusAccepted, proposalOf(p, now))
}

// emissionOf is an emission as the operator API shows it, its latest change of status status
// ("" for none): sold out once every unit is sold, whatever that was.
func emissionOf(e *emission.Emission, status string) opEmission {
	open := e.SalesOpen().UTC()
	o := opEmission{ID: e.ID, Price: e.Price, Blocks: len(e.Blocks), Status: status, OnSaleAt: &open}
	for _, b := range e.Blocks {
		o.Sold += int64(b.Sold)
		o.Units += int64(b.Units)
	}
	switch {
	case o.Sold == o.Units:
		o.Status = lottery.SoldOut
	case o.Status == "":
		o.Status = lottery.OnSale
	}
	return o
}

// POST /emissions/{id}/suspend {"reason"} and POST /emissions/{id}/resume: the emergency stop
// and its end, through the back office's own (admin.ChangeStatus). Either takes effect on every
// server at once: 200 the emission.
func (s *Server) opChangeStatus(status string) operatorHandler {
	return func(w http.ResponseWriter, r *http.Request, o lottery.Operator) error {
		if err := noQuery(r); err != nil {
			return err
		}
		// A suspension says why; a resumption takes no body ({} read as none).
		var reason string
		var err error
		if status == lottery.Suspended {
			reason, err = reasonBody(r)
		} else {
			err = noBody(r)
		}
		if err != nil {
			return err
		}
		id := r.PathValue("id")
		if _, err := admin.ChangeStatus(r.Context(), s.ops.Store, id, status, reason,
			lottery.OperatorAction{OperatorID: o.ID, Name: o.Name, Remote: admin.Remote(r), CreatedAt: s.ops.Now()}); err != nil {
			return err
		}
		e, err := s.ops.Store.Emission(r.Context(), id)
		if err != nil {
			return err
		}
		return writeJSON(w, http.StatusOK, emissionOf(e, status))
	}
}

// opLogEntry is a line of the operators' log; detail is as kept (JSON for new lines).
type opLogEntry struct {
	ID       int64     `json:"id"`
	Time     time.Time `json:"time"`
	Operator string    `json:"operator"`
	Action   string    `json:"action"`
	Detail   string    `json:"detail"`
}

// The bounds of a page of the log.
const (
	logPage    = 100
	logPageMax = 1000
)

// GET /log?limit=N&before=ID: the latest lines, newest first, before ID.
func (s *Server) opLog(w http.ResponseWriter, r *http.Request, _ lottery.Operator) error {
	if err := onlyQuery(r, "limit", "before"); err != nil {
		return err
	}
	limit, err := queryInt(r, "limit", logPage, logPageMax)
	if err != nil {
		return err
	}
	before, err := queryInt(r, "before", 0, 1<<62)
	if err != nil {
		return err
	}
	lines, err := s.ops.Store.OperatorLog(r.Context(), int(limit), before)
	if err != nil {
		return err
	}
	out := make([]opLogEntry, len(lines))
	for i, a := range lines {
		out[i] = opLogEntry{ID: a.ID, Time: a.CreatedAt.UTC(), Operator: a.Name, Action: a.Action, Detail: a.Detail}
	}
	return writeJSON(w, http.StatusOK, map[string]any{"entries": out})
}

// maxReportDays bounds a daily report: a year and a day.
const maxReportDays = 367

// opDay is a day's sales at one price.
type opDay struct {
	Date            string `json:"date"`
	Price           int64  `json:"price"`
	UnitsSold       int64  `json:"units_sold"`
	Stakes          int64  `json:"stakes"`
	Prizes          int64  `json:"prizes"`
	PrizesUnclaimed int64  `json:"prizes_unclaimed"`
}

// GET /reports/daily?from=YYYY-MM-DD&to=YYYY-MM-DD: each Paris day's sales by price, both days
// included, from the hourly totals (Paris's offsets are whole hours). prizes_unclaimed are the
// prizes of the day's games still in play: credited, but their reveal not ended.
func (s *Server) opDaily(w http.ResponseWriter, r *http.Request, _ lottery.Operator) error {
	if err := onlyQuery(r, "from", "to"); err != nil {
		return err
	}
	q := r.URL.Query()
	from, err1 := time.ParseInLocation(time.DateOnly, q.Get("from"), admin.Paris)
	to, err2 := time.ParseInLocation(time.DateOnly, q.Get("to"), admin.Paris)
	if err1 != nil || err2 != nil {
		return fault.Errorf(fault.Invalid, "from and to are days, YYYY-MM-DD")
	}
	until := to.AddDate(0, 0, 1)
	if !from.Before(until) || until.After(from.AddDate(0, 0, maxReportDays)) {
		return fault.Errorf(fault.Invalid, "from is a day before to, or to itself, and a report covers at most %d days", maxReportDays)
	}
	hours, err := s.ops.Store.SalesBetween(r.Context(), lottery.Hour, from, until)
	if err != nil {
		return err
	}
	unfinished, err := s.ops.Store.UnfinishedPrizes(r.Context(), from, until)
	if err != nil {
		return err
	}
	type key struct {
		date  string
		price int64
	}
	var order []key
	days := map[key]*opDay{}
	at := func(t time.Time, price int64) *opDay {
		k := key{t.In(admin.Paris).Format(time.DateOnly), price}
		d := days[k]
		if d == nil {
			d = &opDay{Date: k.date, Price: price}
			days[k] = d
			order = append(order, k)
		}
		return d
	}
	for _, h := range hours {
		d := at(h.Period, h.Price)
		d.UnitsSold += h.Units
		d.Stakes += h.Stakes
		d.Prizes += h.Prizes
	}
	for _, g := range unfinished {
		at(g.Period, g.Price).PrizesUnclaimed += g.Prizes
	}
	out := make([]opDay, 0, len(order))
	for _, k := range order {
		out = append(out, *days[k])
	}
	sortDays(out)
	return writeJSON(w, http.StatusOK, map[string]any{"days": out})
}

// maxRegister bounds the register sent to PUT /exclusions (identity.ParseRegister reads up to
// 64 MiB of it).
const maxRegister = 65 << 20

// opImport is what a register import did.
type opImport struct {
	Listed int `json:"listed"`
	Added  int `json:"added"`
	Gone   int `json:"gone"`
	Closed int `json:"closed"`
}

// PUT /exclusions: the register as CSV replaces the list, as the back office's import does;
// the sessions of the accounts it closes end at once on every server.
func (s *Server) opExclusions(w http.ResponseWriter, r *http.Request, o lottery.Operator) error {
	if err := noQuery(r); err != nil {
		return err
	}
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "text/csv" {
		return fault.Errorf(fault.UnsupportedMediaType, "the register is sent as CSV, with Content-Type: text/csv")
	}
	imp, err := admin.ImportRegister(r.Context(), s.ops.Store, r.Body, "operator API",
		lottery.OperatorAction{OperatorID: o.ID, Name: o.Name, Remote: admin.Remote(r), CreatedAt: s.ops.Now()})
	if s.ops.SessionsEnded != nil && len(imp.ClosedPlayers) > 0 {
		ids := make([]int64, len(imp.ClosedPlayers))
		for i, c := range imp.ClosedPlayers {
			ids[i] = c.PlayerID
		}
		s.ops.SessionsEnded(ids...)
	}
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		return fault.Errorf(fault.TooLarge, "the register is larger than %d MiB", maxRegister>>20)
	}
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, opImport{Listed: imp.Listed, Added: imp.Added, Gone: imp.Gone, Closed: imp.Closed})
}
