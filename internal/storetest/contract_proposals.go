package storetest

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"starcolor/internal/fault"
	"starcolor/internal/gamedef/gamedeftest"
	"starcolor/internal/lottery"
)

// Proposals: a withdrawal is proposed, decided once by another operator than its proposer, and
// carried out in its approval's write; a rejection carries nothing out; an open proposal expires
// after seven days; one that can no longer be carried out fails, saying why. Two approvals at
// once, on two servers, carry it out once.
func testProposals(t *testing.T, h Harness) {
	stores, raw := h.servers(t, 2)
	f := fixtureOn(t, stores[0], raw)
	CreateEmission(t, f.s, gamedeftest.Mini(t), "T", 100, 1, 't')
	CreateEmission(t, f.s, gamedeftest.Mini(t), "U", 100, 1, 'u')
	made := lottery.OperatorAction{Action: "operator_created", CreatedAt: f.now}
	var ops [3]lottery.Operator
	for i, name := range []string{"paul", "anna", "alex"} {
		o, err := f.s.CreateOperator(f.ctx, name, "x", lottery.AllRoles, made)
		if err != nil {
			t.Fatal(err)
		}
		ops[i] = o
	}
	propose := func(id string, at time.Time) (lottery.Proposal, error) {
		return f.s.CreateProposal(f.ctx, lottery.Proposal{Action: lottery.ProposeWithdrawal, Emission: id, Reason: "a leak", ProposerID: ops[0].ID,
			ProposedBy: ops[0].Name, ProposedAt: at}, lottery.OperatorAction{OperatorID: ops[0].ID, Name: ops[0].Name, Action: "proposal_made", CreatedAt: at})
	}
	decide := func(s Store, id int64, who lottery.Operator, approve bool, at time.Time) (lottery.Proposal, error) {
		return s.DecideProposal(f.ctx, lottery.Decision{Proposal: id, Approve: approve, DeciderID: who.ID, DecidedBy: who.Name, At: at, Note: "no"},
			lottery.OperatorAction{OperatorID: who.ID, Name: who.Name, CreatedAt: at})
	}
	p, err := propose("S", f.now)
	if err != nil || p.Status != lottery.ProposalOpen || p.ID == 0 {
		t.Fatalf("the proposal: %+v %v", p, err)
	}
	if _, err := propose("S", f.now); !fault.Is(err, fault.InvalidState) {
		t.Errorf("a second withdrawal of S proposed: %v, want invalid_state", err)
	}
	if _, err := propose("NONE", f.now); !fault.Is(err, fault.NotFound) {
		t.Errorf("a withdrawal of no emission: %v, want not_found", err)
	}
	if _, err := decide(f.s, p.ID, ops[0], true, f.now); !fault.Is(err, fault.SameOperator) {
		t.Errorf("the proposer approves: %v, want same_operator", err)
	}
	if _, err := decide(f.s, p.ID, ops[0], false, f.now); !fault.Is(err, fault.SameOperator) {
		t.Errorf("the proposer rejects: %v, want same_operator", err)
	}
	// Two approvals at once, one a server: one carries it out, the other finds it decided.
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i, s := range stores[:2] {
		wg.Go(func() { _, errs[i] = decide(s, p.ID, ops[1+i], true, f.now.Add(time.Minute)) })
	}
	wg.Wait()
	if (errs[0] == nil) == (errs[1] == nil) || !fault.Is(errs[0], fault.InvalidState) && !fault.Is(errs[1], fault.InvalidState) {
		t.Fatalf("two approvals at once: %v and %v, want one approval and one invalid_state", errs[0], errs[1])
	}
	got, err := f.s.Proposal(f.ctx, p.ID)
	if err != nil || got.Status != lottery.ProposalApproved || got.DecidedBy == "" || !got.DecidedAt.Equal(f.now.Add(time.Minute)) {
		t.Fatalf("the proposal approved: %+v %v", got, err)
	}
	if hist, err := f.s.EmissionHistory(f.ctx, "S"); err != nil || len(hist) != 1 || hist[0].Status != lottery.Withdrawn || hist[0].Reason != "a leak" {
		t.Errorf("S's history: %+v %v", hist, err)
	}
	prizes := emissionPrizes(t, f.s, "S", "T", "U")
	buyer := f.player(t, "bea", 100_00)
	r := f.sale(buyer, "k1")
	r.Prizes = prizes
	if g, err := f.s.Sell(f.ctx, r, f.now); err != nil || g.Emission != "T" {
		t.Errorf("a sale after S's withdrawal: %+v %v, want a unit of T", g, err)
	}
	for _, st := range []string{lottery.OnSale, lottery.Suspended} {
		if _, err := f.s.ChangeEmissionStatus(f.ctx, lottery.EmissionChange{Emission: "S", Status: st, By: "x", At: f.now}, lottery.OperatorAction{Name: "x", CreatedAt: f.now}); !fault.Is(err, fault.InvalidState) {
			t.Errorf("a withdrawn emission becomes %s: %v, want invalid_state", st, err)
		}
	}
	if _, err := propose("S", f.now); !fault.Is(err, fault.InvalidState) {
		t.Errorf("a withdrawn emission's withdrawal proposed: %v", err)
	}

	// A rejection carries nothing out.
	q, err := propose("T", f.now)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := decide(f.s, q.ID, ops[1], false, f.now); err != nil || got.Status != lottery.ProposalRejected || got.Note != "no" {
		t.Fatalf("the rejection: %+v %v", got, err)
	}
	if st, err := f.s.EmissionStatuses(f.ctx); err != nil || st["T"] != "" {
		t.Errorf("T after its withdrawal was rejected: %q %v", st["T"], err)
	}
	if err := raw.Exec(`UPDATE proposals SET status = 'approved' WHERE id = ?`, q.ID); err == nil {
		t.Error("a decided proposal changed by hand: done, want refused by its trigger")
	}
	if err := raw.Exec(`DELETE FROM proposals WHERE id = ?`, q.ID); err == nil {
		t.Error("a proposal deleted by hand: done, want refused by its trigger")
	}

	// Seven days on, an open proposal has expired: listed so, and decided no more.
	old, err := propose("T", f.now.Add(-lottery.ProposalLife))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := decide(f.s, old.ID, ops[1], true, f.now); !fault.Is(err, fault.InvalidState) {
		t.Errorf("an expired proposal approved: %v, want invalid_state", err)
	}
	if list, err := f.s.Proposals(f.ctx, lottery.ProposalExpired, f.now, 10); err != nil || len(list) != 1 || list[0].ID != old.ID {
		t.Errorf("the expired proposals: %+v %v", list, err)
	}
	if list, err := f.s.Proposals(f.ctx, lottery.ProposalOpen, f.now, 10); err != nil || len(list) != 0 {
		t.Errorf("the open proposals: %+v %v", list, err)
	}

	// U sells out between its proposal and its approval: the approval fails, saying why.
	late, err := propose("U", f.now)
	if err != nil {
		t.Fatal(err)
	}
	if err := raw.Exec(`UPDATE blocks SET sold = units WHERE emission_id = 'U'`); err != nil {
		t.Fatal(err)
	}
	if got, err := decide(f.s, late.ID, ops[1], true, f.now); err != nil || got.Status != lottery.ProposalFailed || got.Note == "" {
		t.Fatalf("the approval of a sold-out emission's withdrawal: %+v %v, want failed with a note", got, err)
	}
	lines, err := f.s.OperatorLog(f.ctx, 100, 0)
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	for _, l := range lines {
		count[l.Action]++
	}
	if want := map[string]int{"proposal_made": 4, "proposal_approved": 1, "proposal_rejected": 1, "proposal_failed": 1}; fmt.Sprint(count["proposal_made"], count["proposal_approved"], count["proposal_rejected"], count["proposal_failed"]) !=
		fmt.Sprint(want["proposal_made"], want["proposal_approved"], want["proposal_rejected"], want["proposal_failed"]) {
		t.Errorf("the log's proposals: %v, want %v", count, want)
	}
}
