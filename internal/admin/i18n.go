package admin

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"starcolor/internal/i18n"
	"starcolor/internal/lottery"
	"starcolor/internal/rules"
)

// The back office speaks French by default, as the player's page does, and English on the same
// switch (the same cookie, langCookie). Its texts are written in English, which is their key:
// internal/i18n/office.fr.json holds their French. A text missing from it shows in English (a
// test finds them).

// langCookie remembers the reader's language. It is the player's page's cookie (web.LangCookie),
// so that a language chosen on either is kept on both; the tests set the page's and read the
// back office in it. Named here, the back office need not import the page for one name.
const langCookie = "starcolor_lang"

// languages are the back office's languages, the default first.
var languages = i18n.Languages

// office is the back office's catalogue. Its files are embedded and checked by the tests of
// internal/i18n: one that cannot be read stops the server at start-up.
var office = func() *i18n.Catalog {
	c, err := i18n.Office()
	if err != nil {
		panic(err)
	}
	return c
}()

// langOf is the request's language: the cookie's, else French.
func langOf(r *http.Request) string {
	if c, err := r.Cookie(langCookie); err == nil && c.Value == "en" {
		return "en"
	}
	return "fr"
}

// tr translates a text into a language.
func tr(lang, s string) string {
	if lang == "fr" {
		if f, ok := office.Text("fr", s); ok {
			return frenchSpaces.Replace(f)
		}
	}
	return s
}

// frenchSpaces writes the French texts' punctuation the French way: a no-break space before
// « : » and a narrow one before « ; ! ? », so that no line begins with one. It runs on the
// texts, not on what fills them (names, file names), which are shown as they are.
var frenchSpaces = strings.NewReplacer(" :", "\u00a0:", " ;", "\u202f;", " !", "\u202f!", " ?", "\u202f?")

// t translates a text into the request's language, formatting it with args if there are any.
func (s *Server) t(r *http.Request, format string, args ...any) string {
	f := tr(langOf(r), format)
	if len(args) == 0 {
		return f
	}
	return fmt.Sprintf(f, args...)
}

// langFuncs are the template functions that depend on the language (format.go writes the
// numbers, the money and the dates).
func langFuncs(lang string) map[string]any {
	return map[string]any{
		"t": func(s string) string { return tr(lang, s) },
		// roles are a set of roles in words; allRoles their names, has whether a list holds one.
		"roles":    func(rs lottery.Roles) string { return rolesText(lang, rs) },
		"allRoles": func() []string { return lottery.AllRoles.Names() },
		"has":      func(list []string, s string) bool { return slices.Contains(list, s) },
		// star says what a star hides.
		"star": func(st rules.Star) string { return starText(lang, st) },
		// proposal says what a proposal proposes.
		"proposal": func(p lottery.Proposal) string { return proposalText(lang, p) },
		"tf":       func(format string, args ...any) string { return fmt.Sprintf(tr(lang, format), args...) },
		// tn is tf with the form of a text for a count: tn N "%d account" "%d accounts" args…
		"tn": func(n any, singular, plural string, args ...any) string {
			return fmt.Sprintf(pluralOf(lang, toInt64(n), singular, plural), args...)
		},
		"pct": func(x float64, decimals int) string {
			return pctIn(lang, x, decimals)
		},
		"share": func(a, b int) string {
			return decimalIn(lang, 100*ratio(int64(a), int64(b)), 1)
		},
		"eur":    func(cents int64) string { return money(lang, cents) },
		"signed": func(cents int64) string { return signedMoney(lang, cents) },
		"count":  func(v any) string { return number(lang, toInt64(v)) },
		"date":   func(t time.Time) string { return longDate(lang, t) },
		"span":   func(d time.Duration) string { return span(lang, d) },
		"secs":   func(d time.Duration) string { return seconds(lang, d) },
		"action": func(a lottery.OperatorAction) string { return actionName(lang, a.Action) },
		"detail": func(a lottery.OperatorAction) string { return detailOf(lang, a) },
		"who":    func(name string) string { return whoName(lang, name) },
		"wallet": func(s string) string { return walletError(lang, s) },
		"import": func(imp lottery.RegisterImport) string { return importText(lang, imp) },
		// pcts is the percent sign after a figure: "33,3 %", "33.3%".
		"pcts": func() string {
			if lang == "fr" {
				return nnbsp + "%"
			}
			return "%"
		},
	}
}

// toInt64 reads the integers templates hand over.
func toInt64(v any) int64 {
	switch n := v.(type) {
	case int:
		return int64(n)
	case int64:
		return n
	}
	return 0
}

// setLang keeps the language chosen in a cookie (the player's page reads the same one) and goes
// back to the page it was chosen on.
func (s *Server) setLang(w http.ResponseWriter, r *http.Request) {
	if err := readForm(w, r); err != nil {
		s.fail(w, r, err)
		return
	}
	lang := r.PostFormValue("lang")
	if lang != "fr" && lang != "en" {
		lang = "fr"
	}
	http.SetCookie(w, &http.Cookie{Name: langCookie, Value: lang, Path: "/", MaxAge: 365 * 24 * 3600, SameSite: http.SameSiteLaxMode, Secure: r.TLS != nil})
	http.Redirect(w, r, safeNext(r.PostFormValue("next")), http.StatusSeeOther)
}
