package admin_test

import (
	"context"
	"fmt"
	"html"
	"regexp"
	"strings"
	"testing"
	"time"

	"starcolor/internal/admin"
	"starcolor/internal/gamedef"
	"starcolor/internal/lottery"
)

// logRow is a line of the operators' log as its page shows it.
type logRow struct{ when, who, action, label, detail string }

var logRowPattern = regexp.MustCompile(`(?s)<tr class="[^"]*" data-action="([^"]*)"><td class="nowrap">(.*?)</td><td>(.*?)</td><td><span class="tag [^"]*">(.*?)</span></td><td class="detail">(.*?)</td>`)

// logRows reads the log's page, newest first.
func logRows(t *testing.T, c *client) []logRow {
	t.Helper()
	resp, page := c.do("GET", "/admin/log", nil)
	if resp.StatusCode != 200 {
		t.Fatalf("the log: %d", resp.StatusCode)
	}
	var out []logRow
	for _, m := range logRowPattern.FindAllStringSubmatch(page, -1) {
		out = append(out, logRow{action: m[1], when: html.UnescapeString(m[2]), who: html.UnescapeString(m[3]),
			label: html.UnescapeString(m[4]), detail: html.UnescapeString(m[5])})
	}
	return out
}

// The operators' log reads in the operator's language, lines written before issue 20 (English
// prose, which the log refuses to change) as the lines written now (fields): each action by its
// name, each detail in words, money in euros, times in Paris with their zone. Run on PostgreSQL
// too with STARCOLOR_TEST_STORE=postgres.
func TestLogInBothLanguages(t *testing.T) {
	e := newEnv(t, 1)
	ctx := context.Background()
	at := time.Date(2026, 12, 1, 22, 5, 7, 0, time.UTC) // 23:05:07 in Paris
	// Old lines, as the code before wrote them (lottery.RegisterImport.Summary, lottery.Rekey,
	// the back office's record calls).
	imp := lottery.RegisterImport{Source: "liste.csv", Listed: 1, Added: 1, Closed: 1, ClosedPlayers: []lottery.ClosedAccount{{Username: "bob", PaidOut: 199700}}}
	old := []lottery.OperatorAction{
		{Name: "command line", Action: "register_imported", Detail: imp.Summary()},
		{Name: "alice", Action: "emission_create", Detail: "NEW-1: 3 block(s) at " + gamedef.FormatEUR(250)},
		{Name: "alice", Action: "emission_created", Detail: "NEW-1 in 1.632s"},
		{Name: "alice", Action: "emission_failed", Detail: "NEW-2: interrupted by the server's shutdown: nothing was written"},
		{Name: "alice", Action: "login_failed", Detail: "wrong password"},
		{Name: "alice", Action: "export", Detail: "MINI-block-0.jsonl.gz"},
		{Name: "alice", Action: "export_refused", Detail: "MINI-block-1.jsonl"},
		{Name: "alice", Action: "sales_exported", Detail: "starcolor-sales-by-day-2026-11-01-2026-11-30.csv"},
		{Name: "alice", Action: "register_refused", Detail: "bad.csv: not a list of excluded persons (nothing was imported): line 2: 2 fields, not 3 (last name, first names, birth date); line 3: the birth date \"31/02/1980\" is neither YYYY-MM-DD nor DD/MM/YYYY"},
		{Name: "starcolor", Action: "usernames_alike", Detail: `the usernames of accounts 3 "demo", 4 "ｄｅｍｏ" read alike under the comparison of names of API.md 1.2: each still logs in with its own, and no new account may take one like them`},
		{Name: "starcolor", Action: "identity_listed", Detail: `the open account 5 "claire" (Jeanne Claire Martin, born 1990-01-01) matches a person on the register of excluded persons: it stays open until the next import of the register closes it (import the current list again to close it now)`},
		{Name: "starcolor", Action: "identity_excluded", Detail: `the open account 6 "bob2" (Bob Marie Durand, born 1990-05-04) matches the self-exclusion of account 2 "bob", which runs until 2027-06-01T10:00:00Z: it stays open, for the operator to look into`},
		{Name: "alice", Action: "player_viewed", Detail: "zoe"},
		{Name: "alice", Action: "a_future_action", Detail: "as stored"},
	}
	for i, a := range old {
		a.CreatedAt = at.Add(time.Duration(i) * time.Second)
		if err := e.db.LogOperatorAction(ctx, a); err != nil {
			t.Fatal(err)
		}
	}
	// New lines, through the pages: a refused list, an import that closes an account, a player
	// looked at, a report downloaded.
	e.player(t, "gaston", 2500, 1) // Jeanne Martin, born 1990-01-01
	fr := e.frenchClient(t)
	fr.login(opName, opPassword)
	fr.upload("mauvais.csv", "Martin;Jeanne;01/01/1990\nDurand;;1980-05-05\n")
	fr.upload("liste-2026-12.csv", "MARTIN;jeanne;01/01/1990\nDurand;Paul;1980-05-05\n")
	fr.do("GET", "/admin/players/"+e.playerID(t, "gaston"), nil)
	fr.do("GET", "/admin/sales.csv?from=2026-11-01&to=2026-11-30", nil)
	gaston, err := e.db.PlayerByName(ctx, "gaston")
	if err != nil {
		t.Fatal(err)
	}

	en := e.client(t)
	en.login(opName, opPassword)
	const n, nb = "\u202f", "\u00a0"
	want := map[string][2]logRow{ // by detail's start in English: French, English
		"register_imported old": {{who: "ligne de commande", label: "Liste des interdits importée", detail: "liste.csv\u00a0: 1 personne inscrite, 1 personne ajoutée, 0 personne retirée\u202f; 1 compte fermé\u00a0: bob (versé\u00a0: 1" + n + "997,00" + n + "€)"},
			{who: "command line", label: "List of excluded persons imported", detail: "liste.csv: 1 person listed, 1 person added, 0 persons gone; 1 account closed: bob (paid out: €1,997.00)"}},
		"emission_create":  {{label: "Émission demandée", detail: "NEW-1\u00a0: 3 blocs à 2,50" + n + "€"}, {label: "Emission asked for", detail: "NEW-1: 3 blocks at €2.50"}},
		"emission_created": {{label: "Émission créée", detail: "NEW-1 en 1,632" + n + "s"}, {label: "Emission created", detail: "NEW-1 in 1.632" + nb + "s"}},
		"emission_failed": {{label: "Émission en échec", detail: "NEW-2\u00a0: interrompue par l'arrêt du serveur\u00a0: rien n'a été écrit"},
			{label: "Emission failed", detail: "NEW-2: interrupted by the server's shutdown: nothing was written"}},
		"login_failed":   {{label: "Connexion refusée", detail: "mot de passe incorrect"}, {label: "Login refused", detail: "wrong password"}},
		"export":         {{label: "Bloc exporté", detail: "MINI, bloc 0 (compressé)"}, {label: "Block exported", detail: "MINI, block 0 (compressed)"}},
		"export_refused": {{label: "Export refusé", detail: "MINI, bloc 1\u00a0: encore en vente"}, {label: "Export refused", detail: "MINI, block 1: still on sale"}},
		"sales_exported old": {{label: "Rapport des ventes téléchargé", detail: "par jour du 1er novembre 2026 au 30 novembre 2026, au format anglais"},
			{label: "Sales report downloaded", detail: "by day from 1 November 2026 to 30 November 2026, in the English format"}},
		"register_refused old": {{label: "Liste des interdits refusée", detail: "bad.csv\u00a0: ces lignes ne sont pas des personnes\u00a0: ligne 2\u00a0: 2 champs au lieu de 3 (nom, prénoms, date de naissance)\u202f; ligne 3\u00a0: la date de naissance «" + nb + "31/02/1980" + nb + "» n'est ni AAAA-MM-JJ ni JJ/MM/AAAA"},
			{label: "List of excluded persons refused", detail: "bad.csv: these lines are not persons: line 2: 2 fields, not 3 (last name, first names, birth date); line 3: the birth date “31/02/1980” is neither YYYY-MM-DD nor DD/MM/YYYY"}},
		"usernames_alike": {{who: "starcolor", label: "Pseudos qui se lisent pareil", detail: "les pseudos des comptes n°" + nb + "3 (demo), n°" + nb + "4 (ｄｅｍｏ) se lisent pareil\u00a0: chacun se connecte toujours avec le sien, et aucun nouveau compte ne peut en prendre un semblable"},
			{who: "starcolor", label: "Usernames that read alike", detail: "the usernames of accounts 3 (demo), 4 (ｄｅｍｏ) read alike: each still logs in with its own, and no new account may take one like them"}},
		"identity_listed": {{label: "Compte ouvert d'un interdit", detail: "le compte ouvert n°" + nb + "5 (claire) (Jeanne Claire Martin, né(e) le 1er janvier 1990) correspond à une personne de la liste des interdits de jeu\u00a0: il reste ouvert jusqu'à ce que le prochain import de la liste le ferme (importez à nouveau la liste actuelle pour le fermer tout de suite)"},
			{label: "Open account on the list", detail: "the open account 5 (claire) (Jeanne Claire Martin, born 1 January 1990) matches a person on the list of excluded persons: it stays open until the next import of the list closes it (import the current list again to close it now)"}},
		"identity_excluded": {{label: "Compte ouvert d'un auto-exclu", detail: "le compte ouvert n°" + nb + "6 (bob2) (Bob Marie Durand, né(e) le 4 mai 1990) correspond à l'auto-exclusion du compte n°" + nb + "2 (bob), qui court jusqu'au 01/06/2027 12:00 CEST\u00a0: il reste ouvert, à examiner par l'opérateur"},
			{label: "Open account of a self-excluded person", detail: "the open account 6 (bob2) (Bob Marie Durand, born 4 May 1990) matches the self-exclusion of account 2 (bob), which runs until 01/06/2027 12:00 CEST: it stays open, for the operator to look into"}},
		"player_viewed old": {{label: "Joueur consulté", detail: "zoe"}, {label: "Player viewed", detail: "zoe"}},
		"a_future_action":   {{label: "a_future_action", detail: "as stored"}, {label: "a_future_action", detail: "as stored"}},
		"operator_created": {{label: "Opérateur créé", detail: "en ligne de commande, rôles\u00a0: lecture, finances, émissions, conformité, approbation, administration"},
			{label: "Operator created", detail: "from the command line, roles: viewer, finance, emissions, compliance, approver, admin"}},
		"register_refused new": {{label: "Liste des interdits refusée", detail: "mauvais.csv\u00a0: ces lignes ne sont pas des personnes\u00a0: ligne 2\u00a0: il faut un nom et des prénoms\u00a0: des lettres (accents compris), espaces, traits d'union et apostrophes, 100 caractères au plus chacun"},
			{label: "List of excluded persons refused", detail: "mauvais.csv: these lines are not persons: line 2: a last name and first names are needed: letters (accents welcome), spaces, hyphens and apostrophes, at most 100 characters each"}},
		"player_viewed new": {{label: "Joueur consulté", detail: "gaston"}, {label: "Player viewed", detail: "gaston"}},
		"sales_exported new": {{label: "Rapport des ventes téléchargé", detail: "par jour du 1er novembre 2026 au 30 novembre 2026, pour un tableur français"},
			{label: "Sales report downloaded", detail: "by day from 1 November 2026 to 30 November 2026, for a French spreadsheet"}},
	}
	for lang, c := range map[int]*client{0: fr, 1: en} {
		rows := logRows(t, c)
		seen := map[string]bool{}
		for _, r := range rows {
			key := r.action
			if _, ok := want[key]; !ok {
				key = r.action + " old"
				if !strings.HasPrefix(r.when, "01/12/2026 23:") {
					key = r.action + " new"
				}
			}
			w, ok := want[key]
			if !ok {
				continue // logins, and the new import below
			}
			seen[key] = true
			if got := w[lang]; r.label != got.label || r.detail != got.detail || (got.who != "" && r.who != got.who) {
				t.Errorf("%s, %s:\n got %q %q %q\nwant %q %q %q", []string{"fr", "en"}[lang], key, r.who, r.label, r.detail, got.who, got.label, got.detail)
			}
			if key == "emission_created" && r.when != "01/12/2026 23:05:09 CET" {
				t.Errorf("the old line's time %q, want 01/12/2026 23:05:09 CET", r.when)
			}
		}
		for k := range want {
			if !seen[k] {
				t.Errorf("%s: no line %s in the log", []string{"fr", "en"}[lang], k)
			}
		}
		// The import through the page closed gaston's account and paid out the balance.
		var imported *logRow
		for i, r := range rows {
			if r.action == "register_imported" && !strings.HasPrefix(r.when, "01/12/2026 23:") {
				imported = &rows[i]
			}
		}
		transfers, err := e.db.PlayerTransfers(ctx, gaston, 10, 0)
		if err != nil || len(transfers) == 0 || imported == nil {
			t.Fatalf("the import's line %v, gaston's transfers %v %v", imported, transfers, err)
		}
		payout := transfers[0].Amount
		wantImport := []string{fmt.Sprintf("liste-2026-12.csv\u00a0: 2 personnes inscrites, 2 personnes ajoutées, 0 personne retirée\u202f; 1 compte fermé\u00a0: gaston (versé\u00a0: %s)", frMoney(payout)),
			fmt.Sprintf("liste-2026-12.csv: 2 persons listed, 2 persons added, 0 persons gone; 1 account closed: gaston (paid out: %s)", enMoney(payout))}[lang]
		if imported.detail != wantImport || imported.who != opName {
			t.Errorf("the import's line %+v, want %q", imported, wantImport)
		}
	}
	// No English left in the French log.
	_, page := fr.do("GET", "/admin/log", nil)
	page = html.UnescapeString(regexp.MustCompile(`<[^>]*>`).ReplaceAllString(page, " "))
	for _, english := range []string{"cents paid", "from the command line", "block(s)", "listed", "not a list", "wrong password", " in 1.", "register_imported<"} {
		if strings.Contains(page, english) {
			t.Errorf("the French log shows %q", english)
		}
	}
}

func frMoney(cents int64) string { return admin.Money("fr", cents) }
func enMoney(cents int64) string { return admin.Money("en", cents) }

// A refused list is told in the operator's language, from the error's kind: never the English
// of identity's error inside a French sentence.
func TestRegisterRefusalInFrench(t *testing.T) {
	e := newEnv(t, 1)
	fr := e.frenchClient(t)
	fr.login(opName, opPassword)
	for file, want := range map[string]string{
		"Martin;Jeanne;01/01/1990\nDurand;Paul\nDupont;Jean;31/02/1980\n": "Rien n'a été importé\u00a0: ces lignes ne sont pas des personnes\u00a0: ligne 2\u00a0: 2 champs au lieu de 3 (nom, prénoms, date de naissance)\u202f; ligne 3\u00a0: la date de naissance «\u00a031/02/1980\u00a0» n'est ni AAAA-MM-JJ ni JJ/MM/AAAA",
		"":                           "Rien n'a été importé\u00a0: le fichier ne liste personne",
		"\"Martin,Jeanne,1990-01-01": "Rien n'a été importé\u00a0: le fichier n'est pas un CSV\u00a0: un guillemet mal placé, ligne 1, colonne 26",
	} {
		resp, page := fr.upload("liste.csv", file)
		m := regexp.MustCompile(`id="register-error">([^<]*)<`).FindStringSubmatch(page)
		if resp.StatusCode != 400 || m == nil || html.UnescapeString(m[1]) != want {
			t.Errorf("%q: %d %q, want %q", file, resp.StatusCode, m, want)
		}
	}
}
