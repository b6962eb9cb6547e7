package admin_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"starcolor/internal/admin"
	"starcolor/internal/browsertest"
)

// overflowJS lists the texts of an SVG picture, opened on its own, that do not fit:
//   - those whose box (as drawn, rotation included) leaves their card, or the picture when they
//     have none. A text's card is the smallest rounded panel (rx 14) holding its centre.
//   - those that run into a bar's track (rx 7), as a long label would.
const overflowJS = `(() => {
	const box = e => e.getBoundingClientRect();
	const page = box(document.documentElement);
	const cards = [...document.querySelectorAll('rect[rx="14"]')].map(box);
	const tracks = [...document.querySelectorAll('rect[rx="7"]')].map(box);
	const out = [];
	const r = b => Math.round(b.left) + "…" + Math.round(b.right);
	for (const t of document.querySelectorAll('text')) {
		const b = box(t);
		if (b.width === 0) continue;
		const cx = (b.left + b.right) / 2, cy = (b.top + b.bottom) / 2;
		const card = cards.filter(c => cx >= c.left && cx <= c.right && cy >= c.top && cy <= c.bottom)
			.sort((a, b) => a.width * a.height - b.width * b.height)[0] || page;
		if (b.left < card.left - 0.5 || b.right > card.right + 0.5 || b.top < card.top - 0.5 || b.bottom > card.bottom + 0.5) {
			out.push(t.textContent + " [" + r(b) + " in " + r(card) + "]");
		}
		for (const k of tracks) {
			if (b.left < k.left - 0.5 && b.right > k.left + 0.5 && b.top < k.bottom && b.bottom > k.top) {
				out.push(t.textContent + " runs into a bar [" + r(b) + ", bar from " + Math.round(k.left) + "]");
			}
		}
	}
	return out;
})()`

// The back office read in French, in a desktop window (1366×768) and on a phone (390×844):
//   - each page says its figures the French way, and its times in Paris;
//   - the log is in French;
//   - the sales CSV is as a French spreadsheet reads it;
//   - no label of the charts leaves its card;
//   - axe-core passes on every page.
func TestBrowserBackOfficeInFrench(t *testing.T) {
	for _, size := range []browsertest.Options{{Width: 1366, Height: 768}, {Mobile: true}} {
		name := fmt.Sprintf("%dx%d", size.Width, size.Height)
		if size.Mobile {
			name = "phone"
		}
		t.Run(name, func(t *testing.T) {
			ctx := browsertest.New(t, size)
			e := newEnv(t, 1)
			e.player(t, "gaston", 199_700, 12) // Jeanne Martin, born 1990-01-01
			loginInBrowser(t, ctx, e, "")
			op := e.frenchClient(t)
			op.login(opName, opPassword)
			op.upload("liste-2026-12.csv", "MARTIN;jeanne;01/01/1990\nDurand;Paul;1980-05-05\n")
			gaston, err := e.db.PlayerByName(context.Background(), "gaston")
			if err != nil {
				t.Fatal(err)
			}
			for _, page := range []struct {
				path, wait string
				want       []string // texts the page shows
			}{
				{"/admin/", "#fig-units", []string{"Ventes", "Taux de retour aux joueurs", "\u202f%", "Télécharger le CSV au format anglais"}},
				{"/admin/emissions", "#emissions", []string{"Toutes les émissions", "1,00\u202f€", " CET"}},
				{"/admin/emissions/MINI", "#blocks", []string{"Émission", "Vendues"}},
				{"/admin/emissions/MINI/report", "#report-check", []string{"Rapport de", "\u202fs (gardé"}},
				{fmt.Sprintf("/admin/players/%d", gaston.ID), "#player-balance", []string{"Né(e) le", "1er janvier 1990", "36\u00a0ans", "fermé le"}},
				{"/admin/exclusions", "#register-imports", []string{"La liste\u00a0: 2 personnes", "5 mai 1980"}},
				{"/admin/log", "#log", []string{"Liste des interdits importée", "1 compte fermé\u00a0: gaston (versé\u00a0: ", "Joueur consulté", " CET"}},
			} {
				do(t, ctx, chromedp.Navigate(e.url+page.path), chromedp.WaitVisible(page.wait))
				poll(t, ctx, `[...document.images].every(i => i.complete && i.naturalWidth > 0)`)
				body, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector("main").textContent`))
				if err != nil {
					t.Fatal(err)
				}
				for _, w := range page.want {
					if !strings.Contains(body, w) {
						t.Errorf("%s lacks %q", page.path, w)
					}
				}
				for _, english := range []string{"cents", "(UTC)", "block(s)", "Born", "accounts closed", "not a list", "from the command line"} {
					if strings.Contains(body, english) {
						t.Errorf("%s shows %q in French", page.path, english)
					}
				}
				if size.Mobile {
					if w, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.documentElement.scrollWidth`)); err != nil || w > 390 {
						t.Errorf("%s is %d px wide on a 390 px screen (%v)", page.path, w, err)
					}
				}
				browsertest.Screenshot(t, ctx, "admin-fr-"+name+strings.ReplaceAll(page.path, "/", "-"))
				browsertest.Axe(t, ctx, page.path+" in French, "+name)
			}
			// What the player had was paid out at the closure, and the log says it in euros.
			transfers, err := e.db.PlayerTransfers(context.Background(), gaston, 1, 0)
			if err != nil || len(transfers) != 1 {
				t.Fatalf("gaston's payout: %v %v", transfers, err)
			}
			do(t, ctx, chromedp.Navigate(e.url+"/admin/log"), chromedp.WaitVisible("#log"))
			if log := text(t, ctx, "#log"); !strings.Contains(log, "gaston (versé\u00a0: "+admin.Money("fr", transfers[0].Amount)+")") {
				t.Errorf("the log does not say gaston's payout in euros: %s", log)
			}

			// The sales CSV, as the page's button downloads it: read by the page's own fetch.
			csv, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`(async () => {
				const r = await fetch("/admin/sales.csv");
				const b = new Uint8Array(await r.arrayBuffer());
				const text = new TextDecoder("utf-8", {ignoreBOM: true}).decode(b);
				return [String(b[0] === 0xEF && b[1] === 0xBB && b[2] === 0xBF), text.replace(/^\ufeff/, "").split("\r\n")[0], text.split("\r\n").slice(-2, -1)[0]];
			})()`, chromedp.EvalAwaitPromise))
			if err != nil || len(csv) != 3 || csv[0] != "true" || csv[1] != "Jour (heure de Paris);Fuseau;Mise (€);Parties;Mises (€);Lots (€);Parties gagnantes;Taux de retour (%)" ||
				!strings.HasPrefix(csv[2], "Total;;;12;12,00;") {
				t.Errorf("the French CSV: %q %v", csv, err)
			}

			// The charts: no label leaves its card, in French and in English.
			for _, lang := range []string{"fr", "en"} {
				if lang == "en" {
					english(t, ctx, e)
				}
				for _, chart := range []string{"/admin/emissions/MINI/report.svg", "/admin/sales.svg?by=hour", "/admin/sales.svg?by=day"} {
					do(t, ctx, chromedp.Navigate(e.url+chart), chromedp.WaitReady("svg"))
					out, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](overflowJS))
					if err != nil {
						t.Fatal(err)
					}
					for _, o := range out {
						t.Errorf("%s in %s: a label leaves its card: %s", chart, lang, o)
					}
				}
			}
		})
	}
}
