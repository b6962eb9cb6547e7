package admin

import (
	"encoding/csv"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"starcolor/internal/identity"
	"starcolor/internal/lottery"
)

// The operators' log and the errors of the back office in words: each action by its name, each
// detail from its fields (oplog.go), each refusal from its kind, in the reader's language. The
// Go errors keep their English for the server's log.

// actionLabels names every action that can be written to the log, in English: the key of its
// French. A test finds every action the code writes and wants it here.
var actionLabels = map[string]string{
	"operator_created":        "Operator created",
	"token_created":           "API token made",
	"token_revoked":           "API token revoked",
	"login":                   "Logged in",
	"login_failed":            "Login refused",
	"logout":                  "Logged out",
	"player_viewed":           "Player viewed",
	"game_replayed":           "Game replayed",
	"player_blocked":          "Player's play blocked",
	"player_unblocked":        "Player's play unblocked",
	"player_noted":            "Note on a player",
	"player_paid_out":         "Player's balance paid out",
	"player_closed":           "Player's account closed",
	"emission_create":         "Emission asked for",
	"emission_created":        "Emission created",
	"emission_failed":         "Emission failed",
	"emission_suspended":      "Emission suspended",
	"emission_resumed":        "Emission resumed",
	"operator_disabled":       "Operator disabled",
	"operator_enabled":        "Operator enabled",
	"operator_password_reset": "Operator's password reset",
	"operator_sessions_ended": "Operator's sessions ended",
	"proposal_made":           "Proposal made",
	"proposal_approved":       "Proposal approved",
	"proposal_rejected":       "Proposal rejected",
	"proposal_failed":         "Proposal approved, not carried out",
	"export":                  "Block exported",
	"export_refused":          "Export refused",
	"sales_exported":          "Sales report downloaded",
	"register_imported":       "List of excluded persons imported",
	"register_refused":        "List of excluded persons refused",
	"usernames_alike":         "Usernames that read alike",
	"identity_listed":         "Open account on the list",
	"identity_excluded":       "Open account of a self-excluded person",
}

// roleLabels name the roles in English, the keys of their French.
var roleLabels = map[string]string{
	"viewer":     "viewer",
	"finance":    "finance",
	"emissions":  "emissions",
	"compliance": "compliance",
	"approver":   "approver",
	"admin":      "admin",
}

// rolesText is a set of roles in words, in a language.
func rolesText(lang string, rs lottery.Roles) string {
	names := rs.Names()
	for i, n := range names {
		names[i] = tr(lang, roleLabels[n])
	}
	if len(names) == 0 {
		return tr(lang, "no role")
	}
	return strings.Join(names, ", ")
}

// actionName is an action as the log shows it; an action no code writes now shows as stored.
func actionName(lang, action string) string {
	if l, ok := actionLabels[action]; ok {
		return tr(lang, l)
	}
	return action
}

// whoName is who did an action: an operator's name, or the command line.
func whoName(lang, name string) string {
	if name == "command line" {
		return tr(lang, "command line")
	}
	return name
}

// detailOf words a line's detail in a language.
func detailOf(lang string, a lottery.OperatorAction) string {
	d := readDetail(a)
	if d.Text != "" {
		return d.Text
	}
	say := func(format string, args ...any) string { return fmt.Sprintf(tr(lang, format), args...) }
	switch a.Action {
	case "operator_created":
		roles, err := lottery.ParseRoles(d.Roles)
		switch {
		case d.Roles != "" && err != nil:
			break // roles no code writes: the detail as stored
		case d.Roles != "" && d.Via == "command_line":
			return say("from the command line, roles: %s", rolesText(lang, roles))
		case d.Roles != "":
			return say("roles: %s", rolesText(lang, roles))
		case d.Via == "command_line":
			return tr(lang, "from the command line")
		}
	case "token_created", "token_revoked":
		if d.Via == "command_line" {
			return say("token %d, from the command line", d.Token)
		}
		return say("token %d", d.Token)
	case "login_failed":
		switch d.Reason {
		case "wrong_password":
			return tr(lang, "wrong password")
		case "unknown_name":
			return tr(lang, "unknown name")
		case "disabled":
			return tr(lang, "the operator is disabled")
		case "locked":
			if d.WaitSec > 0 {
				return say("too many failed attempts: locked for %s", span(lang, time.Duration(d.WaitSec)*time.Second))
			}
			return tr(lang, "too many failed attempts: locked")
		}
	case "game_replayed":
		return say("game %d", d.Game)
	case "player_viewed", "player_noted", "player_unblocked":
		if d.Why != "" {
			return say("%s: %s", d.Player, d.Why)
		}
		return d.Player
	case "player_blocked":
		return say("%s: %s", d.Player, d.Why)
	case "player_paid_out", "player_closed":
		return say("%s, %s: %s", d.Player, money(lang, d.Amount), d.Why)
	case "emission_create":
		return say("%s: %s at %s", d.Emission, fmt.Sprintf(pluralOf(lang, int64(d.Blocks), "%s block", "%s blocks"), number(lang, int64(d.Blocks))), money(lang, d.Price))
	case "emission_created":
		return say("%s in %s", d.Emission, seconds(lang, time.Duration(d.Elapsed)*time.Millisecond))
	case "emission_suspended":
		return say("%s: %s", d.Emission, d.Why)
	case "emission_resumed":
		return d.Emission
	case "operator_disabled", "operator_enabled", "operator_password_reset", "operator_sessions_ended":
		return d.Operator
	case "proposal_made", "proposal_approved", "proposal_rejected", "proposal_failed":
		var line string
		switch d.Proposed {
		case lottery.ProposeCreation:
			p := lottery.Proposal{Action: d.Proposed, Emission: d.Emission, Price: d.Price, Blocks: d.Blocks}
			p.OnSaleAt, _ = time.Parse(time.RFC3339, d.OnSaleAt)
			line = say("proposal %d: %s", d.Proposal, proposalText(lang, p))
		case lottery.ProposeRoles:
			rs, _ := lottery.ParseRoles(d.Roles)
			line = say("proposal %d: %s", d.Proposal, proposalText(lang, lottery.Proposal{Action: d.Proposed, TargetName: d.For, Roles: rs}))
		default:
			line = say("proposal %d: withdraw %s (%s)", d.Proposal, d.Emission, d.Why)
		}
		if d.Note != "" {
			line = say("%s: %s", line, d.Note)
		}
		return line
	case "emission_failed":
		return say("%s: %s", d.Emission, failureText(lang, d.Failure))
	case "export", "export_refused":
		block := -1
		if d.Block != nil {
			block = *d.Block
		}
		switch {
		case a.Action == "export_refused":
			return say("%s, block %d: still on sale", d.Emission, block)
		case d.Gzip:
			return say("%s, block %d (compressed)", d.Emission, block)
		}
		return say("%s, block %d", d.Emission, block)
	case "sales_exported":
		by := tr(lang, "by day")
		if d.By == "hour" {
			by = tr(lang, "by hour")
		}
		from, to := dateOf(lang, d.From), dateOf(lang, d.To)
		if d.Format == "fr" {
			return say("%s from %s to %s, for a French spreadsheet", by, from, to)
		}
		return say("%s from %s to %s, in the English format", by, from, to)
	case "register_refused":
		return say("%s: %s", d.File, refusalText(lang, d))
	case "register_imported":
		if d.Counts == nil {
			break
		}
		c := d.Counts
		counted := func(k int, singular, plural string) string {
			return fmt.Sprintf(pluralOf(lang, int64(k), singular, plural), number(lang, int64(k)))
		}
		line := say("%s: %s, %s, %s; %s", d.File, counted(c.Listed, "%s person listed", "%s persons listed"), counted(c.Added, "%s person added", "%s persons added"),
			counted(c.Gone, "%s person gone", "%s persons gone"), counted(c.Closed, "%s account closed", "%s accounts closed"))
		var closed []string
		for _, p := range d.Closed {
			closed = append(closed, say("%s (paid out: %s)", p.Username, money(lang, p.PaidOut)))
		}
		if len(closed) > 0 {
			line = say("%s: %s", line, strings.Join(closed, ", "))
		}
		return line
	case "usernames_alike":
		return say("the usernames of accounts %s read alike: each still logs in with its own, and no new account may take one like them", accountsText(lang, d.Accounts))
	case "identity_listed":
		return say("the open account %s (%s) matches a person on the list of excluded persons: it stays open until the next import of the list closes it (import the current list again to close it now)",
			accountsText(lang, d.Accounts[:1]), personText(lang, d))
	case "identity_excluded":
		return say("the open account %s (%s) matches the self-exclusion of account %s, which runs until %s: it stays open, for the operator to look into",
			accountsText(lang, d.Accounts[:1]), personText(lang, d), accountsText(lang, d.Accounts[1:]), stamp(d.Until))
	}
	return a.Detail
}

// dateOf writes a YYYY-MM-DD date with its month's name.
func dateOf(lang, s string) string {
	d, err := time.Parse(time.DateOnly, s)
	if err != nil {
		return s
	}
	return longDate(lang, d)
}

func accountsText(lang string, as []logAccount) string {
	out := make([]string, len(as))
	for i, a := range as {
		out[i] = fmt.Sprintf(tr(lang, "%d (%s)"), a.ID, a.Username)
	}
	return strings.Join(out, ", ")
}

func personText(lang string, d logDetail) string {
	return fmt.Sprintf(tr(lang, "%s, born %s"), d.Name, dateOf(lang, d.Born))
}

// The failures of an emission's creation, as its job keeps them (endJob, jobView): by their
// kind, since a job holds the English of its error.
const (
	failInterrupted = "interrupted"
	failLost        = "lost"
	failError       = "error"
)

// Job errors as endJob and jobView write them.
const (
	interruptedText = "interrupted by the server's shutdown: nothing was written"
	lostText        = "its server stopped before it was done: nothing was written"
)

// failureOf is a job error's kind.
func failureOf(text string) string {
	switch {
	case text == interruptedText || strings.Contains(text, "context canceled"):
		return failInterrupted
	case text == lostText:
		return failLost
	}
	return failError
}

// failureText words a job failure; the error itself is in the server's log.
func failureText(lang, kind string) string {
	switch kind {
	case failInterrupted:
		return tr(lang, interruptedText)
	case failLost:
		return tr(lang, lostText)
	}
	return tr(lang, "an error, kept in the server's log: nothing was written")
}

// refusal reads a refused register file's error into a line's fields.
func refusal(err error) logDetail {
	var re *identity.RegisterError
	if !errors.As(err, &re) {
		return logDetail{Problem: "unreadable"}
	}
	d := logDetail{Problem: string(re.Problem), LimitMiB: re.LimitMiB}
	var pe *csv.ParseError
	if errors.As(re.Err, &pe) {
		d.ParseAt = [2]int{pe.Line, pe.Column}
	}
	for _, l := range re.Lines {
		ll := logLine{Line: l.Line, Fields: l.Fields, Date: l.Date}
		switch l.Err {
		case identity.ErrFields:
			ll.Reason = "fields"
		case identity.ErrDateLayout:
			ll.Reason = "date_layout"
		case identity.ErrName:
			ll.Reason = "name"
		case identity.ErrScript:
			ll.Reason = "script"
		case identity.ErrBirthDate:
			ll.Reason = "birth_date"
		}
		d.Lines = append(d.Lines, ll)
	}
	return d
}

// refusalText words why a register file was refused.
func refusalText(lang string, d logDetail) string {
	say := func(format string, args ...any) string { return fmt.Sprintf(tr(lang, format), args...) }
	switch identity.RegisterProblem(d.Problem) {
	case identity.RegisterTooLarge:
		return say("the file is larger than %d MiB", d.LimitMiB)
	case identity.RegisterEmpty:
		return tr(lang, "the file lists no one")
	case identity.RegisterNotCSV:
		if d.ParseAt[0] > 0 {
			return say("the file is not CSV: a misplaced quote, line %d, column %d", d.ParseAt[0], d.ParseAt[1])
		}
		return tr(lang, "the file is not CSV")
	case identity.RegisterBadLines:
		lines := make([]string, len(d.Lines))
		for i, l := range d.Lines {
			lines[i] = say("line %d: %s", l.Line, lineText(lang, l))
		}
		sep := "; "
		if lang == "fr" {
			sep = "\u202f; " // French puts a narrow no-break space before its semicolons
		}
		return say("these lines are not persons: %s", strings.Join(lines, sep))
	}
	return tr(lang, "The file could not be read.")
}

func lineText(lang string, l logLine) string {
	switch l.Reason {
	case "fields":
		return fmt.Sprintf(pluralOf(lang, int64(l.Fields), "%d field, not 3 (last name, first names, birth date)", "%d fields, not 3 (last name, first names, birth date)"), l.Fields)
	case "date_layout":
		return fmt.Sprintf(tr(lang, "the birth date “%s” is neither YYYY-MM-DD nor DD/MM/YYYY"), l.Date)
	case "name":
		return tr(lang, "a last name and first names are needed: letters (accents welcome), spaces, hyphens and apostrophes, at most 100 characters each")
	case "script":
		return tr(lang, "names are written in the Latin alphabet, as on French identity papers (accents welcome)")
	case "birth_date":
		return tr(lang, "the birth date is a real date, in the past, within the last 130 years")
	}
	return tr(lang, "not a person")
}

// walletRefusal is a call's last error as wallet.Refused writes it; walletStatus an HTTP status
// at the start of an error, or the status of an unknown answer (wallet.ErrUnknown).
var (
	walletRefusal = regexp.MustCompile(`^the wallet refused: (\d+) (\S*): `)
	walletStatus  = regexp.MustCompile(`^(\d{3}(?: [A-Za-z_]+){0,3})$|status (\d{3})$`)
)

// walletError words a call's last error, kept as the English of the wallet's client: a refusal
// by its status and code (the protocol's words, docs/spec/WALLET.md), an unknown answer as such, with its
// status when it had one.
func walletError(lang, s string) string {
	switch {
	case s == "":
		return "—"
	case walletRefusal.MatchString(s):
		m := walletRefusal.FindStringSubmatch(s)
		return fmt.Sprintf(tr(lang, "refused by the wallet: %s %s"), m[1], m[2])
	case strings.HasPrefix(s, "the wallet's answer is unknown"):
		if m := walletStatus.FindStringSubmatch(s); m != nil {
			return fmt.Sprintf(tr(lang, "the wallet's answer is unknown (status %s): sent again"), m[2])
		}
		return tr(lang, "the wallet's answer is unknown: sent again")
	case walletStatus.MatchString(s):
		return fmt.Sprintf(tr(lang, "status %s"), walletStatus.FindStringSubmatch(s)[1])
	}
	return tr(lang, "an error, kept in the server's log")
}

// importText is an import of the list in words, as its line in the log reads.
func importText(lang string, imp lottery.RegisterImport) string {
	return detailOf(lang, lottery.OperatorAction{Action: "register_imported", Detail: importDetail(imp).encode()})
}
