package admin

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"time"

	"starcolor/internal/identity"
	"starcolor/internal/lottery"
)

// The operators' log keeps each action by its name and, since issue 20, its details as fields:
// a JSON object in the line's detail (logDetail), which the page words in the reader's language.
// Lines written before hold English prose, and the log refuses to change a line: those are read
// back into the same fields by the patterns of the code that wrote them (proseDetail), so that
// old and new lines read alike. A line that matches none is shown as it was stored.

// logDetail is what a line of the log says beyond its action. Every field is optional; which
// ones an action has is in detailOf.
type logDetail struct {
	Token    int64  `json:"token,omitempty"`      // token_*: the token's id
	Via      string `json:"via,omitempty"`        // operator_created, token_*: "command_line"
	Roles    string `json:"roles,omitempty"`      // operator_created: the roles given
	Reason   string `json:"reason,omitempty"`     // login_failed: wrong_password, unknown_name, locked
	WaitSec  int64  `json:"wait_s,omitempty"`     // login_failed, locked: the wait, in seconds
	Player   string `json:"player,omitempty"`     // player_*
	Game     int64  `json:"game,omitempty"`       // game_replayed
	Amount   int64  `json:"amount,omitempty"`     // player_paid_out, player_closed: the balance, in cents
	Emission string `json:"emission,omitempty"`   // emission_*, export*
	Operator string `json:"operator,omitempty"`   // operator_*: whom an admin changed
	For      string `json:"for,omitempty"`        // proposal_* of roles: whose
	OnSaleAt string `json:"on_sale_at,omitempty"` // proposal_* of a creation: when it opens (RFC 3339)
	Why      string `json:"why,omitempty"`        // emission_suspended, proposal_*: the reason given
	Proposal int64  `json:"proposal,omitempty"`   // proposal_*: its id
	Proposed string `json:"proposed,omitempty"`   // proposal_*: what it proposes (emission_withdraw)
	Note     string `json:"note,omitempty"`       // proposal_*: a rejection's reason, or why it failed
	Blocks   int    `json:"blocks,omitempty"`     // emission_create
	Price    int64  `json:"price,omitempty"`      // emission_create: cents
	Elapsed  int64  `json:"elapsed_ms,omitempty"` // emission_created
	Failure  string `json:"failure,omitempty"`    // emission_failed: a job failure (jobFailures)
	Block    *int   `json:"block,omitempty"`      // export*
	Gzip     bool   `json:"gzip,omitempty"`       // export
	By       string `json:"by,omitempty"`         // sales_exported: hour or day
	From     string `json:"from,omitempty"`       // sales_exported: YYYY-MM-DD
	To       string `json:"to,omitempty"`         // sales_exported: YYYY-MM-DD
	Format   string `json:"format,omitempty"`     // sales_exported: fr or en ("" before: en)
	File     string `json:"file,omitempty"`       // register_*
	// register_refused: why, as identity.RegisterError says it (Problem "unreadable" when the
	// upload could not be read at all).
	Problem  string          `json:"problem,omitempty"`
	LimitMiB int             `json:"limit_mib,omitempty"` // too_large: the bound
	Lines    []logLine       `json:"lines,omitempty"`
	ParseAt  [2]int          `json:"csv_at,omitzero"` // not_csv: line and column
	Counts   *registerCounts `json:"counts,omitempty"`
	Closed   []logClosed     `json:"closed,omitempty"`   // register_imported
	Accounts []logAccount    `json:"accounts,omitempty"` // usernames_alike; identity_*: the open account first
	Name     string          `json:"name,omitempty"`     // identity_*: the person's names
	Born     string          `json:"born,omitempty"`     // identity_*: YYYY-MM-DD
	Until    time.Time       `json:"until,omitzero"`     // identity_excluded: the self-exclusion's end
	Text     string          `json:"-"`                  // a line read as none of these: as stored
}

// logLine is a bad line of a refused register.
type logLine struct {
	Line   int    `json:"line"`
	Reason string `json:"reason"`           // fields, date_layout, name, script, birth_date
	Fields int    `json:"fields,omitempty"` // fields: how many
	Date   string `json:"date,omitempty"`   // date_layout: as written
}

// registerCounts are an import's counts.
type registerCounts struct {
	Listed int `json:"listed"`
	Added  int `json:"added"`
	Gone   int `json:"gone"`
	Closed int `json:"closed"`
}

// logClosed is an account an import closed, with what it paid out.
type logClosed struct {
	Username string `json:"username"`
	PaidOut  int64  `json:"paid_out"` // cents
}

// logAccount is an account a line names.
type logAccount struct {
	ID       int64  `json:"id"`
	Username string `json:"username"`
}

// encode writes a detail for the log's column.
func (d logDetail) encode() string {
	b, err := json.Marshal(d)
	if err != nil || string(b) == "{}" {
		return ""
	}
	return string(b)
}

// RegisterImported is the log's line of an import of the list of excluded persons, by an
// operator or, with name "command line", by starcolor exclusions import.
func RegisterImported(name string, imp lottery.RegisterImport) lottery.OperatorAction {
	return lottery.OperatorAction{Name: name, Action: "register_imported", Detail: importDetail(imp).encode(), CreatedAt: imp.At}
}

func importDetail(imp lottery.RegisterImport) logDetail {
	d := logDetail{File: imp.Source, Counts: &registerCounts{Listed: imp.Listed, Added: imp.Added, Gone: imp.Gone, Closed: imp.Closed}}
	for _, c := range imp.ClosedPlayers {
		d.Closed = append(d.Closed, logClosed{Username: c.Username, PaidOut: c.PaidOut})
	}
	return d
}

// readDetail reads a line's detail: its fields, from JSON or from the prose of old lines.
func readDetail(a lottery.OperatorAction) logDetail {
	if strings.HasPrefix(a.Detail, "{") {
		var d logDetail
		if err := json.Unmarshal([]byte(a.Detail), &d); err == nil {
			return d
		}
	}
	if a.Detail == "" {
		return logDetail{}
	}
	if d, ok := proseDetail(a.Action, a.Detail); ok {
		return d
	}
	return logDetail{Text: a.Detail}
}

// The prose of the lines written before issue 20, by action, as the code then wrote them:
// admin's record calls, lottery.RegisterImport.Summary, and lottery.Rekey's lines.
var (
	proseCreate    = regexp.MustCompile(`^(.+): (\d+) block\(s\) at (.+)$`)
	proseCreated   = regexp.MustCompile(`^(.+) in (\S+)$`)
	proseFailed    = regexp.MustCompile(`^(.+?): (.*)$`)
	proseExport    = regexp.MustCompile(`^(.+)-block-(-?\d+)\.jsonl(\.gz)?$`)
	proseSales     = regexp.MustCompile(`^starcolor-sales-by-(hour|day)-(\d{4}-\d\d-\d\d)-(\d{4}-\d\d-\d\d)\.csv$`)
	proseImported  = regexp.MustCompile(`^(.*): (\d+) listed, (\d+) added, (\d+) gone, (\d+) accounts closed(?:: (.*))?$`)
	proseClosed    = regexp.MustCompile(`(\S+) \((\d+) cents paid out\)`)
	proseAccount   = regexp.MustCompile(`(\d+) ("(?:[^"\\]|\\.)*")`)
	proseAlike     = regexp.MustCompile(`^the usernames of accounts (.*) read alike `)
	proseListed    = regexp.MustCompile(`^the open account (\d+) ("(?:[^"\\]|\\.)*") \((.*), born (\d{4}-\d\d-\d\d)\) matches a person on the register`)
	proseExcluded  = regexp.MustCompile(`^the open account (\d+) ("(?:[^"\\]|\\.)*") \((.*), born (\d{4}-\d\d-\d\d)\) matches the self-exclusion of account (\d+) ("(?:[^"\\]|\\.)*"), which runs until (\S+):`)
	proseLine      = regexp.MustCompile(`(?:^|; )line (\d+): `)
	proseFields    = regexp.MustCompile(`^(\d+) fields, not 3`)
	proseDateForm  = regexp.MustCompile(`^the birth date ("(?:[^"\\]|\\.)*") is neither`)
	proseLarger    = regexp.MustCompile(`the file is larger than (\d+) MiB`)
	proseCSV       = regexp.MustCompile(`line (\d+), column (\d+)`)
	proseRefusedAt = regexp.MustCompile(`^(.*?): (not a list of excluded persons.*|The file could not be read\.|Le fichier n'a pas pu être lu\.)$`)
	proseEUR       = regexp.MustCompile(`^(-?[\d\x{202f}]+)(?:,(\d\d))?[ \x{a0}\x{202f}]€$`)
)

// proseDetail reads an old line's prose into fields; false if it does not read as its action's.
func proseDetail(action, s string) (logDetail, bool) {
	var d logDetail
	switch action {
	case "operator_created":
		return logDetail{Via: "command_line"}, s == "from the command line"
	case "login_failed":
		switch {
		case s == "wrong password":
			d.Reason = "wrong_password"
		case s == "unknown name":
			d.Reason = "unknown_name"
		case strings.Contains(s, "too many"):
			d.Reason = "locked"
		default:
			return d, false
		}
		return d, true
	case "player_viewed":
		return logDetail{Player: s}, true
	case "emission_create":
		m := proseCreate.FindStringSubmatch(s)
		if m == nil {
			return d, false
		}
		d.Emission, d.Blocks = m[1], atoi(m[2])
		p := proseEUR.FindStringSubmatch(m[3])
		if p == nil {
			return d, false
		}
		euros, _ := strconv.ParseInt(strings.ReplaceAll(p[1], nnbsp, ""), 10, 64)
		d.Price = euros*100 + int64(atoi(p[2]))
		return d, true
	case "emission_created":
		m := proseCreated.FindStringSubmatch(s)
		if m == nil {
			return d, false
		}
		el, err := time.ParseDuration(m[2])
		d.Emission, d.Elapsed = m[1], el.Milliseconds()
		return d, err == nil
	case "emission_failed":
		m := proseFailed.FindStringSubmatch(s)
		if m == nil {
			return d, false
		}
		d.Emission, d.Failure = m[1], failureOf(m[2])
		return d, true
	case "export", "export_refused":
		m := proseExport.FindStringSubmatch(s)
		if m == nil {
			return d, false
		}
		k := atoi(m[2])
		d.Emission, d.Block, d.Gzip = m[1], &k, m[3] != ""
		return d, true
	case "sales_exported":
		m := proseSales.FindStringSubmatch(s)
		if m == nil {
			return d, false
		}
		d.By, d.From, d.To, d.Format = m[1], m[2], m[3], "en"
		return d, true
	case "register_imported":
		m := proseImported.FindStringSubmatch(s)
		if m == nil {
			return d, false
		}
		d.File = m[1]
		d.Counts = &registerCounts{Listed: atoi(m[2]), Added: atoi(m[3]), Gone: atoi(m[4]), Closed: atoi(m[5])}
		for _, c := range proseClosed.FindAllStringSubmatch(m[6], -1) {
			paid, _ := strconv.ParseInt(c[2], 10, 64)
			d.Closed = append(d.Closed, logClosed{Username: c[1], PaidOut: paid})
		}
		return d, true
	case "register_refused":
		m := proseRefusedAt.FindStringSubmatch(s)
		if m == nil {
			return d, false
		}
		d.File = m[1]
		readRefusal(&d, m[2])
		return d, true
	case "usernames_alike":
		m := proseAlike.FindStringSubmatch(s)
		if m == nil {
			return d, false
		}
		d.Accounts = accountsIn(m[1])
		return d, len(d.Accounts) > 0
	case "identity_listed", "identity_excluded":
		if m := proseListed.FindStringSubmatch(s); m != nil && action == "identity_listed" {
			return personLine(m[1], m[2], m[3], m[4])
		}
		m := proseExcluded.FindStringSubmatch(s)
		if m == nil || action != "identity_excluded" {
			return d, false
		}
		d, ok := personLine(m[1], m[2], m[3], m[4])
		until, err := time.Parse(time.RFC3339, m[7])
		d.Accounts = append(d.Accounts, accountsIn(m[5]+" "+m[6])...)
		d.Until = until
		return d, ok && err == nil && len(d.Accounts) == 2
	}
	return d, false
}

// readRefusal reads the English of a refused register into its problem and lines.
func readRefusal(d *logDetail, msg string) {
	switch {
	case !strings.HasPrefix(msg, "not a list"):
		d.Problem = "unreadable"
	case proseLarger.MatchString(msg):
		d.Problem = string(identity.RegisterTooLarge)
		d.LimitMiB = atoi(proseLarger.FindStringSubmatch(msg)[1])
	case strings.HasSuffix(msg, "the file lists no one"):
		d.Problem = string(identity.RegisterEmpty)
	case strings.Contains(msg, "(nothing was imported): "):
		d.Problem = string(identity.RegisterBadLines)
		_, rest, _ := strings.Cut(msg, "(nothing was imported): ")
		at := proseLine.FindAllStringSubmatchIndex(rest, -1)
		for i, m := range at {
			end := len(rest)
			if i+1 < len(at) {
				end = at[i+1][0]
			}
			l := logLine{Line: atoi(rest[m[2]:m[3]])}
			why := rest[m[1]:end]
			switch {
			case proseFields.MatchString(why):
				l.Reason, l.Fields = "fields", atoi(proseFields.FindStringSubmatch(why)[1])
			case proseDateForm.MatchString(why):
				l.Reason = "date_layout"
				l.Date, _ = strconv.Unquote(proseDateForm.FindStringSubmatch(why)[1])
			case why == identity.ErrName.Error():
				l.Reason = "name"
			case why == identity.ErrScript.Error():
				l.Reason = "script"
			case why == identity.ErrBirthDate.Error():
				l.Reason = "birth_date"
			}
			d.Lines = append(d.Lines, l)
		}
	default:
		d.Problem = string(identity.RegisterNotCSV)
		if m := proseCSV.FindStringSubmatch(msg); m != nil {
			d.ParseAt = [2]int{atoi(m[1]), atoi(m[2])}
		}
	}
}

// accountsIn reads accounts written `12 "bob", 13 "bób"`.
func accountsIn(s string) []logAccount {
	var out []logAccount
	for _, m := range proseAccount.FindAllStringSubmatch(s, -1) {
		id, _ := strconv.ParseInt(m[1], 10, 64)
		name, err := strconv.Unquote(m[2])
		if err != nil {
			return nil
		}
		out = append(out, logAccount{ID: id, Username: name})
	}
	return out
}

// personLine reads an account and its person, as lottery.Rekey writes them ("Bob Marie Durand,
// born 1990-01-01").
func personLine(id, username, name, born string) (logDetail, bool) {
	d := logDetail{Accounts: accountsIn(id + " " + username), Name: name, Born: born}
	_, err := time.Parse(identity.DateLayout, born)
	return d, err == nil && len(d.Accounts) == 1
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}
