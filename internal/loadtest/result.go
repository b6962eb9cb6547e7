package loadtest

import (
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"starcolor/internal/gamedef"
)

// Result is what a run measured.
type Result struct {
	Config      Config    // as run, defaults filled in
	Target      string    // the checked base URL
	Started     time.Time // when the setup began
	Setup       time.Duration
	Elapsed     time.Duration // the play phase: from its start until the last player stopped
	Interrupted bool          // ctx was cancelled (or the hard stop hit) before the players were done

	PlayersReady   int // players set up (registered, logged in, first deposit made)
	PlayersFailed  int // players whose setup failed
	PlayersSoldOut int // players stopped by a 503 (sold out)
	PlayersAborted int // players stopped after too many failures in a row

	Games          int64   // finished games
	PlaysPerSecond float64 // Games / Elapsed
	Stakes         int64   // cents staked on games sold
	Prizes         int64   // cents won by games sold
	Deposits       int64   // successful deposits
	Deposited      int64   // cents deposited
	Insufficient   int64   // 402 answers to POST /games (the player deposited again)
	SoldOut        int64   // 503 answers to POST /games

	Requests  [NumKinds]RequestStats // per type of request
	WholeGame Latency                // manual games: first request to the finished answer

	Errors          map[int]int64 // unexpected answers (not 2xx, and not 402 or 503 to POST /games) by status
	TransportErrors int64         // requests without an answer (refused, reset, timed out)
	ErrorSamples    []string      // the first few errors, with the answer's body

	Violations       int64    // answers contradicting the API or the player's history: server bugs
	ViolationSamples []string // the first few

	// The CPU time the play phase cost (cpu.go): the load tool's, and the server's when it
	// publishes process_cpu_seconds_total at /metrics.
	ToolCPU, ServerCPU time.Duration
	ServerCPUKnown     bool
	ServerCPUUnknown   error // why not, when not known
}

// RequestStats is what one type of request measured.
type RequestStats struct {
	Kind            Kind
	Count           int64         // requests sent (answered or not)
	OK              int64         // answered 2xx
	Statuses        map[int]int64 // other answers by status
	TransportErrors int64         // not answered
	Latency         Latency       // of the answered requests, to the last byte of the body
}

// Latency summarises recorded durations with exact (nearest-rank) percentiles.
type Latency struct {
	N                             int
	Min, Mean, P50, P90, P99, Max time.Duration
}

// Summarize sorts d in place and summarises it.
func Summarize(d []time.Duration) Latency {
	if len(d) == 0 {
		return Latency{}
	}
	slices.Sort(d)
	var sum float64
	for _, x := range d {
		sum += float64(x)
	}
	return Latency{
		N: len(d), Min: d[0], Max: d[len(d)-1], Mean: time.Duration(sum / float64(len(d))),
		P50: Percentile(d, 50), P90: Percentile(d, 90), P99: Percentile(d, 99),
	}
}

// Percentile is the nearest-rank p-th percentile of sorted durations: the smallest recorded
// value that at least p % of the values do not exceed. It is 0 for no values.
func Percentile(sorted []time.Duration, p float64) time.Duration {
	n := len(sorted)
	if n == 0 {
		return 0
	}
	rank := int(math.Ceil(p / 100 * float64(n)))
	rank = min(max(rank, 1), n)
	return sorted[rank-1]
}

// newResult merges the players' tallies.
func newResult(cfg Config, base string, players []*player, ready []bool) *Result {
	res := &Result{Config: cfg, Target: base, Errors: map[int]int64{}}
	var lat [NumKinds][]time.Duration
	var whole []time.Duration
	for k := range res.Requests {
		res.Requests[k].Kind = Kind(k)
		res.Requests[k].Statuses = map[int]int64{}
		n := 0
		for _, p := range players {
			n += len(p.t.lat[k])
		}
		lat[k] = make([]time.Duration, 0, n)
	}
	for i, p := range players {
		t := &p.t
		if ready[i] {
			res.PlayersReady++
		} else {
			res.PlayersFailed++
		}
		switch p.stop {
		case stopSoldOut:
			res.PlayersSoldOut++
		case stopAborted:
			res.PlayersAborted++
		}
		for k := range res.Requests {
			rs := &res.Requests[k]
			rs.Count += t.count[k]
			rs.OK += t.ok[k]
			rs.TransportErrors += t.transport[k]
			res.TransportErrors += t.transport[k]
			for s, n := range t.statuses[k] {
				rs.Statuses[s] += n
				if !(Kind(k) == KindGame && (s == 402 || s == 503)) {
					res.Errors[s] += n
				}
			}
			lat[k] = append(lat[k], t.lat[k]...)
			t.lat[k] = nil
		}
		whole = append(whole, t.whole...)
		t.whole = nil
		res.Games += t.games
		res.Stakes += t.stakes
		res.Prizes += t.prizes
		res.Deposits += t.deposits
		res.Deposited += t.deposited
		res.Insufficient += t.insufficient
		res.SoldOut += t.soldOut
		res.Violations += t.violations
	}
	for k := range res.Requests {
		res.Requests[k].Latency = Summarize(lat[k])
	}
	res.WholeGame = Summarize(whole)
	return res
}

// ErrorCount is the number of requests that failed: unexpected statuses and transport errors.
func (r *Result) ErrorCount() int64 {
	n := r.TransportErrors
	for _, c := range r.Errors {
		n += c
	}
	return n
}

func (r *Result) String() string {
	var b strings.Builder
	r.Report(&b)
	return b.String()
}

// Report prints the result for people.
func (r *Result) Report(w io.Writer) error {
	var b strings.Builder
	c := r.Config
	fmt.Fprintf(&b, "Star Color load test of %s\n", r.Target)
	fmt.Fprintf(&b, "%d players, mode %s, stake %s, deposit %s, duration %s, %s keys", c.Players, c.Mode,
		gamedef.FormatEUR(c.Stake), gamedef.FormatEUR(c.Deposit), c.Duration, c.Keys)
	if c.MaxPlays > 0 {
		fmt.Fprintf(&b, ", at most %s plays", group(c.MaxPlays))
	}
	fmt.Fprintf(&b, "\nset up %d players in %s", r.PlayersReady, fmtDur(r.Setup))
	if r.PlayersFailed > 0 {
		fmt.Fprintf(&b, " (%d failed)", r.PlayersFailed)
	}
	b.WriteString("\n")
	if r.Interrupted {
		b.WriteString("INTERRUPTED: the figures cover the part that was played\n")
	}
	fmt.Fprintf(&b, "\nplays   %s finished games in %s: %.1f plays/s\n", group(r.Games), fmtDur(r.Elapsed), r.PlaysPerSecond)
	fmt.Fprintf(&b, "money   stakes %s, prizes %s", gamedef.FormatEUR(r.Stakes), gamedef.FormatEUR(r.Prizes))
	if r.Stakes > 0 {
		fmt.Fprintf(&b, " (%.1f %% returned)", 100*float64(r.Prizes)/float64(r.Stakes))
	}
	fmt.Fprintf(&b, ", %s deposits of %s\n", group(r.Deposits), gamedef.FormatEUR(c.Deposit))
	if r.Games > 0 && r.Elapsed > 0 {
		b.WriteString("cpu     ")
		if r.ServerCPUKnown {
			fmt.Fprintf(&b, "server %s a play (%.2f cores), ", perPlay(r.ServerCPU, r.Games), r.ServerCPU.Seconds()/r.Elapsed.Seconds())
		} else {
			fmt.Fprintf(&b, "server not known (%v), ", r.ServerCPUUnknown)
		}
		fmt.Fprintf(&b, "load tool %s a play (%.2f cores), during the play phase\n", perPlay(r.ToolCPU, r.Games), r.ToolCPU.Seconds()/r.Elapsed.Seconds())
	}
	b.WriteString("\n")

	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "%-*s\tcount\tok\tnot ok\tp50\tp90\tp99\tmax\t\n", nameWidth, "request")
	for _, rs := range r.Requests {
		if rs.Count == 0 {
			continue
		}
		l := rs.Latency
		fmt.Fprintf(tw, "%-*s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", nameWidth, rs.Kind, group(rs.Count), group(rs.OK),
			group(rs.Count-rs.OK), fmtDur(l.P50), fmtDur(l.P90), fmtDur(l.P99), fmtDur(l.Max))
	}
	if l := r.WholeGame; l.N > 0 {
		fmt.Fprintf(tw, "%-*s\t%s\t%s\t\t%s\t%s\t%s\t%s\t\n", nameWidth, "whole manual game", group(int64(l.N)), group(int64(l.N)),
			fmtDur(l.P50), fmtDur(l.P90), fmtDur(l.P99), fmtDur(l.Max))
	}
	tw.Flush()
	b.WriteString("latency: from sending the request to the last byte of the answer; exact percentiles\n\n")

	if r.Insufficient > 0 || r.SoldOut > 0 {
		fmt.Fprintf(&b, "refusals to POST /games: %s × 402 not enough money (deposited again), %s × 503 sold out\n",
			group(r.Insufficient), group(r.SoldOut))
	}
	if n := r.ErrorCount(); n == 0 {
		b.WriteString("errors: none\n")
	} else {
		fmt.Fprintf(&b, "errors: %s (", group(n))
		codes := make([]int, 0, len(r.Errors))
		for s := range r.Errors {
			codes = append(codes, s)
		}
		sort.Ints(codes)
		var parts []string
		for _, s := range codes {
			parts = append(parts, fmt.Sprintf("%d × %s", s, group(r.Errors[s])))
		}
		if r.TransportErrors > 0 {
			parts = append(parts, "no answer × "+group(r.TransportErrors))
		}
		b.WriteString(strings.Join(parts, ", ") + ")\n")
		for _, s := range r.ErrorSamples {
			b.WriteString("  " + s + "\n")
		}
	}
	fmt.Fprintf(&b, "players: %d set up; stopped sold out: %d, after repeated failures: %d\n",
		r.PlayersReady, r.PlayersSoldOut, r.PlayersAborted)
	if r.Violations == 0 {
		b.WriteString("consistency: every answer checked, no violation\n")
	} else {
		fmt.Fprintf(&b, "CONSISTENCY VIOLATIONS: %s (bugs of the server)\n", group(r.Violations))
		for _, s := range r.ViolationSamples {
			b.WriteString("  " + s + "\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// perPlay is a CPU time shared out over the plays, in microseconds.
func perPlay(cpu time.Duration, plays int64) string {
	return fmt.Sprintf("%.0f µs", float64(cpu.Microseconds())/float64(plays))
}

// nameWidth is the width of the report's first column.
const nameWidth = len("POST /games/{id}/reveal")

// fmtDur prints a duration with about three significant digits.
func fmtDur(d time.Duration) string {
	switch {
	case d == 0:
		return "-"
	case d >= 10*time.Second:
		return d.Round(10 * time.Millisecond).String()
	case d >= time.Second:
		return d.Round(time.Millisecond).String()
	case d >= 10*time.Millisecond:
		return d.Round(100 * time.Microsecond).String()
	case d >= time.Millisecond:
		return d.Round(10 * time.Microsecond).String()
	case d >= 10*time.Microsecond:
		return d.Round(time.Microsecond).String()
	}
	return d.Round(10 * time.Nanosecond).String()
}

// group writes n with thin spaces between groups of three digits, as gamedef.FormatEUR does.
func group(n int64) string {
	s := fmt.Sprint(n)
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "\u202f" + s[i:]
	}
	if neg {
		s = "-" + s
	}
	return s
}
