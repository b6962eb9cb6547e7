package admin

import (
	"fmt"
	"net/http"
	"strings"
	"time"

	"starcolor/internal/lottery"
)

// The back office speaks French by default, as the player's page does, and English on the same
// switch (the same cookie, langCookie). Its texts are written in English, which is their key:
// french holds their French. A text missing from it shows in English (a test finds them).

// langCookie remembers the reader's language. It is the player's page's cookie (web.LangCookie),
// so that a language chosen on either is kept on both; the tests set the page's and read the
// back office in it. Named here, the back office need not import the page for one name.
const langCookie = "starcolor_lang"

// languages are the back office's languages, the default first.
var languages = []string{"fr", "en"}

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
		if f, ok := french[s]; ok {
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
		"t":  func(s string) string { return tr(lang, s) },
		"tf": func(format string, args ...any) string { return fmt.Sprintf(tr(lang, format), args...) },
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

// french is every text of the back office in French.
var french = map[string]string{
	"The operator's wallet": "Le portefeuille de l'opérateur",
	"Disputed calls":        "Appels en litige",
	"The wallet refused these with a 4xx other than 401: they are not sent again. Settle each with the operator, by its transaction id.": "Le portefeuille les a refusés avec un statut 4xx autre que 401 : ils ne sont plus envoyés. Réglez chacun avec l'opérateur, par son identifiant de transaction.",
	"The first %d of %d.": "Les %d premiers sur %d.",
	"Waiting longest":     "En attente depuis le plus longtemps",
	"Pending calls are sent again with backoff, up to a minute apart, until the wallet answers them.": "Les appels en attente sont renvoyés à intervalles croissants, jusqu'à une minute, tant que le portefeuille n'y a pas répondu.",
	"Call":        "Appel",
	"Transaction": "Transaction",
	"Round":       "Tour de jeu",
	"Attempts":    "Envois",
	"Last error":  "Dernière erreur",
	"not sold":    "non vendu",
	"credit":      "crédit",
	"rollback":    "annulation",
	"pending":     "en attente",
	"disputed":    "en litige",
	// Player protection (issue 12): a player's identity, limits and exclusions; the list of
	// excluded persons.
	"Identity and protection": "Identité et protection",
	"Born":                    "Né(e) le",
	"not given (an account made before identities were asked)": "non donnée (un compte ouvert avant que l'identité soit demandée)",
	"Account": "Compte",
	"closed on %s: on the list of excluded persons": "fermé le %s : inscrit sur la liste des interdits de jeu",
	"closed by the player on %s":                    "fermé par le joueur le %s",
	"self-excluded until %s":                        "auto-exclu jusqu'au %s",
	"open":                                          "ouvert",
	"Weekly limit":                                  "Limite hebdomadaire",
	"In force":                                      "En vigueur",
	"Last 7 days":                                   "7 derniers jours",
	"Pending raise":                                 "Hausse en attente",
	"Deposits":                                      "Dépôts",
	"not set":                                       "non fixée",
	"%s from %s":                                    "%s à partir du %s",
	"No reality checks.":                            "Pas de rappel du temps de jeu.",
	"Changes of limits":                             "Modifications des limites",
	"Limit":                                         "Limite",
	"Was":                                           "Avant",
	"Asked for":                                     "Demandée",
	"deposit_weekly":                                "Dépôts",
	"stake_weekly":                                  "Mises",
	"player":                                        "le joueur",
	"server":                                        "le serveur",
	"command line":                                  "ligne de commande",
	"Exclusions":                                    "Exclusions",
	"Excluded persons":                              "Interdits de jeu",
	"The list of persons excluded from gambling: the national register of gaming bans, as the regulator gives it. An import replaces the list. A listed person cannot open an account; an open account of a listed person is closed at the import, its balance paid out and its sessions ended.": "La liste des personnes interdites de jeu : le fichier national des interdits de jeux, tel que le régulateur le transmet. Un import remplace la liste. Une personne inscrite ne peut pas ouvrir de compte ; le compte ouvert d'une personne inscrite est fermé à l'import, son solde reversé et ses sessions terminées.",
	"The list (CSV: last name, first names, birth date)": "La liste (CSV : nom, prénoms, date de naissance)",
	"Import":                      "Importer",
	"Imports":                     "Imports",
	"File":                        "Fichier",
	"Listed":                      "Inscrits",
	"Added":                       "Ajoutés",
	"Gone":                        "Retirés",
	"Accounts closed":             "Comptes fermés",
	"No list imported yet.":       "Aucune liste importée.",
	"Find a person":               "Trouver une personne",
	"Last name, or its beginning": "Nom, ou son début",
	"Last name":                   "Nom",
	"First names":                 "Prénoms",
	"The first 50 from there only: type more of the name.": "Les 50 premiers à partir de là seulement : tapez davantage du nom.",
	"No one from there on the list.":                       "Personne à partir de là sur la liste.",
	"Choose the file of the list to import.":               "Choisissez le fichier de la liste à importer.",
	"The file could not be read.":                          "Le fichier n'a pas pu être lu.",
	"Nothing was imported: %s":                             "Rien n'a été importé : %s",
	// The layout.
	"Star Color back office": "back-office de Star Color",
	"back office":            "back-office",
	"Sections":               "Rubriques",
	"Sales":                  "Ventes",
	"Emissions":              "Émissions",
	"Players":                "Joueurs",
	"Log":                    "Journal",
	"Logged in operator":     "Opérateur connecté",
	"Log out":                "Se déconnecter",
	"Log in":                 "Se connecter",

	// Logging in, and the pages of errors.
	"Operator login": "Connexion des opérateurs",
	"The back office of « Star Color ». Player accounts do not open it.": "Le back-office de «\u00a0Star Color\u00a0». Les comptes des joueurs n'y donnent pas accès.",
	"Name":                            "Nom",
	"Password":                        "Mot de passe",
	"No operator yet? On the server:": "Pas encore d'opérateur ? Sur le serveur :",
	"Wrong name or password.":         "Nom ou mot de passe incorrect.",
	"Too many failed attempts: try again in %s.":                    "Trop de tentatives échouées : réessayez dans %s.",
	"The server is busy checking passwords: try again in a moment.": "Le serveur vérifie trop de mots de passe à la fois : réessayez dans un instant.",
	"Sorry":                   "Désolé",
	"Back to the back office": "Retour au back-office",
	"Not found":               "Introuvable",
	"Not sold yet":            "Pas encore vendu",
	"This block still has units for sale: its export, in sale order, would show them before they are sold (docs/spec/RULES.md §6). It can be downloaded once the block is sold out. To check a block before its sale, rebuild it from the emission's seed with starcolor emission derive.": "Ce bloc a encore des unités en vente : son export, dans l'ordre de vente, les montrerait avant leur vente (docs/spec/RULES.md §6). Il se télécharge une fois le bloc épuisé. Pour vérifier un bloc avant sa vente, reconstruisez-le à partir de la graine de l'émission avec starcolor emission derive.",
	"Bad request":               "Demande incorrecte",
	"Unavailable":               "Indisponible",
	"Too large":                 "Trop grand",
	"Error":                     "Erreur",
	"The request is too large.": "La demande est trop grande.",
	"Something went wrong; the error is in the server's log.": "Quelque chose s'est mal passé ; l'erreur est dans le journal du serveur.",
	"No such player.":                                     "Ce joueur n'existe pas.",
	"No such creation.":                                   "Cette création n'existe pas.",
	"The sales report: %s.":                               "Le rapport des ventes : %s.",
	"Not logged in.":                                      "Non connecté.",
	"Nothing here answers to this address (%s).":          "Rien ne répond à cette adresse (%s).",
	"The store cannot serve this now: try again shortly.": "La base ne peut pas répondre pour l'instant : réessayez dans un moment.",

	// Sales.
	"Period":                              "Période",
	"48 hours":                            "48 heures",
	"30 days":                             "30 jours",
	"Key figures since the first sale":    "Chiffres clés depuis la première vente",
	"Units sold":                          "Unités vendues",
	"Stakes":                              "Mises",
	"Prizes":                              "Lots",
	"Return to players":                   "Taux de retour aux joueurs",
	"table":                               "tableau",
	"Hit rate":                            "Taux de gain",
	"Liability":                           "Engagement",
	"prizes still to be won":              "lots encore à gagner",
	"Return to players against the table": "Retour aux joueurs face au tableau des lots",
	"Each day's prizes over its stakes, the return since the start of the window, and the prize table's %s.":                           "Les lots de chaque jour rapportés à ses mises, le retour depuis le début de la période, et les %s du tableau des lots.",
	"Each hour's prizes over its stakes, the return since the start of the window, and the prize table's %s.":                          "Les lots de chaque heure rapportés à ses mises, le retour depuis le début de la période, et les %s du tableau des lots.",
	"A few big prizes move a short period far from the table: only the cumulative line should come near it, and only over many sales.": "Quelques gros lots écartent une courte période du tableau : seule la courbe cumulée doit s'en approcher, et seulement sur beaucoup de ventes.",
	"Return to players and units sold per day":  "Retour aux joueurs et unités vendues par jour",
	"Return to players and units sold per hour": "Retour aux joueurs et unités vendues par heure",
	"Return to players per day":                 "Retour aux joueurs par jour",
	"Return to players per hour":                "Retour aux joueurs par heure",
	"Units sold per day":                        "Unités vendues par jour",
	"Units sold per hour":                       "Unités vendues par heure",
	"each day":                                  "chaque jour",
	"each hour":                                 "chaque heure",
	"cumulative":                                "cumulé",
	"most":                                      "au plus",
	"%s: %s return, %s staked, %s won":          "%s : retour %s, %s misés, %s gagnés",
	"By price, since the first sale":            "Par mise, depuis la première vente",
	"Price":                                     "Mise",
	"Return":                                    "Retour",
	"Table":                                     "Tableau",
	"Nothing sold yet.":                         "Rien de vendu pour l'instant.",
	"Liability: the open blocks":                "Engagement : les blocs ouverts",
	"What each block still has to pay: its table's prizes less the prizes of the units already sold. Together %s, against %s of stakes still to take.": "Ce que chaque bloc doit encore payer : les lots de son tableau moins ceux des unités déjà vendues. En tout %s, pour %s de mises encore à encaisser.",
	"Emission":           "Émission",
	"Block":              "Bloc",
	"Sold":               "Vendues",
	"Remaining":          "Restantes",
	"Prizes paid":        "Lots payés",
	"Winning units left": "Unités gagnantes restantes",
	"Still to win":       "Encore à gagner",
	"%s %% sold":         "%s %% vendues",
	"No open block: every emission is sold out. Create one under": "Aucun bloc ouvert : toutes les émissions sont épuisées. Créez-en une dans",
	"By day":  "Par jour",
	"By hour": "Par heure",
	"Day":     "Jour",
	"Units":   "Unités",
	"Columns by price: units sold at that stake.": "Colonnes par mise : unités vendues à cette mise.",
	"No sale in this window.":                     "Aucune vente sur cette période.",
	"Sales report":                                "Rapport des ventes",
	"From":                                        "Du",
	"To":                                          "Au",
	"By":                                          "Par",
	"day":                                         "jour",
	"hour":                                        "heure",
	"Download CSV":                                "Télécharger le CSV",

	// Emissions.
	"Create an emission": "Créer une émission",
	"Blocks of %s units, each holding the prize table exactly, in an order drawn from a secure generator and committed by its root before any sale.": "Des blocs de %s unités, chacun avec exactement le tableau des lots, dans un ordre tiré d'un générateur sûr et engagé par sa racine avant toute vente.",
	"It takes about 3 s per block of a million units.": "Comptez environ 3 s par bloc d'un million d'unités.",
	"Sales go on while the units are generated, then pause for about 0.5 s per block while the emission is written into the database in one transaction.": "Les ventes continuent pendant que les unités sont générées, puis s'interrompent environ 0,5 s par bloc pendant que l'émission est écrite dans la base en une transaction.",
	"Being created:": "En cours de création :",
	"Id":             "Identifiant",
	"Blocks":         "Blocs",
	"Create":         "Créer",
	"All emissions":  "Toutes les émissions",
	"Created":        "Créée",
	"Status":         "État",
	"At each price, the oldest emission with units left is on sale; the others wait their turn, in the order they were created.": "À chaque mise, la plus ancienne émission qui a encore des unités est en vente ; les autres attendent leur tour, dans l'ordre de leur création.",
	"No emission yet.":                 "Aucune émission pour l'instant.",
	"queued":                           "en attente",
	"after":                            "après",
	"on sale now":                      "en vente",
	"on sale":                          "en vente",
	"sold out":                         "épuisée",
	"Report and charts":                "Rapport et graphiques",
	"of":                               "sur",
	"Game definition":                  "Définition du jeu",
	"Prize table":                      "Tableau des lots",
	"%s tiers, %s of prizes per block": "%s rangs de lots, %s de lots par bloc",
	"Each block is committed by the RFC 6962 root of its audit lines. Its export lets anyone check the root, every unit and the tier counts on their own": "Chaque bloc est engagé par la racine RFC 6962 de ses lignes d'audit. Son export permet à chacun de vérifier seul la racine, chaque unité et le nombre de lots de chaque rang",
	"Root":          "Racine",
	"Audit export":  "Export d'audit",
	"once sold out": "une fois épuisé",
	"A block exports once sold out: before, its export would show the units still for sale. To check a block before its sale, rebuild it from the emission's seed": "Un bloc s'exporte une fois épuisé : avant, son export montrerait les unités encore en vente. Pour vérifier un bloc avant sa vente, reconstruisez-le à partir de la graine de l'émission",
	"The id must be 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit.":                                                                    "L'identifiant compte de 1 à 64 lettres, chiffres, «\u00a0.\u00a0», «\u00a0_\u00a0» ou «\u00a0-\u00a0», et commence par une lettre ou un chiffre.",
	"This game is sold at %s.":                                  "Ce jeu se vend à %s.",
	"An emission has 1 to %d blocks here.":                      "Une émission compte ici de 1 à %d blocs.",
	"The emission %s already exists: choose another id.":        "L'émission %s existe déjà : choisissez un autre identifiant.",
	"The emission %s is being created: wait until it is done.":  "L'émission %s est en cours de création : attendez qu'elle soit finie.",
	"Another emission is being created: wait until it is done.": "Une autre émission est en cours de création : attendez qu'elle soit finie.",
	"Emission %s":  "Émission %s",
	"Creating %s":  "Création de %s",
	"Report of %s": "Rapport de %s",

	// Creating an emission.
	"Creating":                        "Création de",
	"units":                           "unités",
	"Created.":                        "Créée.",
	"Failed:":                         "Échec :",
	"Building and writing the units…": "Génération et écriture des unités…",
	"Lost contact with the server; retrying…": "Contact perdu avec le serveur ; nouvel essai…",
	"Open the emission":                       "Ouvrir l'émission",
	"Sales go on while the units are generated, then pause for about 0.5 s per block while the emission is written in. Leaving this page does not stop it.": "Les ventes continuent pendant que les unités sont générées, puis s'interrompent environ 0,5 s par bloc pendant l'écriture de l'émission. Quitter cette page ne l'arrête pas.",

	// The report.
	"Report of":            "Rapport de",
	"Open the chart alone": "Ouvrir le graphique seul",
	"Every unit read back and evaluated under the rules in %s (kept until the server restarts: an emission never changes).": "Chaque unité relue et évaluée selon les règles en %s (gardé jusqu'au redémarrage du serveur : une émission ne change jamais).",
	"Tiers against the table": "Rangs face au tableau",
	"exact":                   "exact",
	"MISMATCH":                "ÉCART",
	"Winning":                 "Gagnantes",
	"Tiers":                   "Rangs",
	"Charts":                  "Graphiques",
	"The emission's report drawn: tiers against the table, return and hit rate per block, amounts revealed, features": "Le rapport de l'émission en graphiques : rangs face au tableau, retour et taux de gain par bloc, sommes révélées, éléments de présentation",

	// The emission's report chart (chart.WriteReport): its labels sit in columns and cards of a
	// fixed width, so the French is kept short enough to fit (a browser test measures them).
	"Star Color — emission %s report":                                                                                            "Star Color — rapport de l'émission %s",
	"%d block(s), %d units at %s: prizes %s, return to player %s, hit rate %s.":                                                  "%d bloc(s), %d unités à %s : lots %s, retour aux joueurs %s, taux de gain %s.",
	"starcolor emission report · every unit read back and evaluated under the rules for the canonical colour · counts are exact": "starcolor emission report · chaque unité relue et évaluée selon les règles pour la couleur canonique · les nombres sont exacts",
	"Star Color — emission %s":                                                                                                   "Star Color — émission %s",
	"%d blocks of %s units at %s · game definition %s":                                                                           "%d blocs de %s unités à %s · définition du jeu %s",
	"%d block of %s units at %s · game definition %s":                                                                            "%d bloc de %s unités à %s · définition du jeu %s",
	"PRIZE TABLE":                          "TABLEAU DES LOTS",
	"all tiers, in every block":            "tous les rangs, dans chaque bloc",
	"in %d of %d block(s)":                 "dans %d bloc(s) sur %d",
	"UNITS":                                "UNITÉS",
	"%s of sales":                          "%s de ventes",
	"PRIZES":                               "LOTS",
	"table: %s":                            "tableau : %s",
	"RETURN TO PLAYER":                     "RETOUR AUX JOUEURS",
	"target %s":                            "cible %s",
	"HIT RATE":                             "TAUX DE GAIN",
	"%s wins":                              "%s gagne",
	"never":                                "jamais",
	"1 in %s":                              "1 sur %s",
	"losing":                               "perdant",
	"Units per tier: drawn vs prize table": "Unités par rang : tirées face au tableau des lots",
	"Exact counts over %d block(s), logarithmic scale. Composite tiers are reached only by cumulating several amounts.": "Nombres exacts sur %d bloc(s), échelle logarithmique. Les rangs composés ne s'atteignent qu'en cumulant plusieurs sommes.",
	"prize table":       "tableau des lots",
	"drawn":             "tirées",
	"mismatch":          "écart",
	"units (log scale)": "unités (échelle log.)",
	"(single gain)":     "(gain unique)",
	"composite":         "composé",
	"Return to player and hit rate, per block":                                      "Retour aux joueurs et taux de gain, par bloc",
	"Prizes ÷ (price × units), and winning units ÷ units; dashed: the prize table.": "Lots ÷ (mise × unités), et unités gagnantes ÷ unités ; en tirets : le tableau des lots.",
	"return to player":          "retour aux joueurs",
	"hit rate":                  "taux de gain",
	"block %s":                  "bloc %s",
	"block":                     "bloc",
	"table RTP":                 "retour visé",
	"table hit":                 "gain visé",
	"Amounts revealed per unit": "Sommes révélées par unité",
	"Share of all units revealing 0, 1, 2 … amounts; a total may be shown by several.": "Part des unités révélant 0, 1, 2 … sommes ; un total peut être montré par plusieurs.",
	"winning":                               "gagnant",
	"amounts revealed on the unit's boards": "sommes révélées sur les plateaux de l'unité",
	"How each winning tier is shown":        "Comment chaque rang gagnant se montre",
	"Share of each tier's units by amounts revealed; ways: distinct combinations.": "Unités de chaque rang par sommes révélées ; façons : combinaisons distinctes.",
	"amounts revealed": "sommes révélées",
	"ways":             "façons",
	"Cells: % of the tier's units. A composite tier never shows a single amount.": "Cases : % des unités du rang. Un rang composé ne montre jamais une seule somme.",
	"Presentation features": "Éléments de présentation",
	"Share of units showing each element; the last two among losing units.": "Part des unités montrant chaque élément ; les deux derniers parmi les perdantes.",
	"Extra stage":                  "étape Extra",
	"amount on the Extra board":    "somme au plateau Extra",
	"at least one explosion":       "au moins une explosion",
	"milky way":                    "voie lactée",
	"supernova":                    "supernova",
	"shooting star":                "étoile filante",
	"chain of explosions":          "explosions en chaîne",
	"explosion on a losing unit":   "explosion, unité perdante",
	"Extra stage on a losing unit": "étape Extra, unité perdante",

	// Players.
	"Find a player":          "Trouver un joueur",
	"Name, or its beginning": "Nom, ou son début",
	"Find":                   "Trouver",
	"Find a game":            "Trouver une partie",
	"A game, by its number":  "Une partie, par son numéro",
	"Find the game":          "Trouver la partie",
	"Player":                 "Joueur",
	"Balance":                "Solde",
	"The first 50 only: type more of the name.": "Les 50 premiers seulement : tapez plus du nom.",
	"No player's name starts with “%s”.":        "Aucun nom de joueur ne commence par «\u00a0%s\u00a0».",
	"No game %d.":                               "Pas de partie n° %d.",
	"Player %s":                                 "Joueur %s",
	"Find another":                              "En trouver un autre",
	"Games":                                     "Parties",
	"Staked":                                    "Misé",
	"Won":                                       "Gagné",
	"net":                                       "net",
	"Failed logins":                             "Connexions échouées",
	"none locked now":                           "aucun blocage en cours",
	"Ledger transfers":                          "Mouvements du grand livre",
	"Kind":                                      "Nature",
	"With":                                      "Avec",
	"Amount":                                    "Montant",
	"game %d":                                   "partie %d",
	"Latest":                                    "Les plus récents",
	"Older than these %d":                       "Plus anciens que ces %d",
	"No transfer yet.":                          "Aucun mouvement pour l'instant.",
	"Game":                                      "Partie",
	"Stake":                                     "Mise",
	"Mode":                                      "Mode",
	"Unit":                                      "Unité",
	"Prize":                                     "Lot",
	"No game yet.":                              "Aucune partie pour l'instant.",
	"deposit":                                   "dépôt",
	"withdrawal":                                "retrait",
	"stake":                                     "mise",
	"prize":                                     "lot",
	"manual":                                    "Jouer",
	"auto":                                      "Auto",
	"choose_color":                              "choix de la couleur",
	"playing":                                   "en cours",
	"finished":                                  "terminée",
	"bank":                                      "banque",
	"prize fund":                                "fonds des lots",
	"account %d":                                "compte %d",
	// A payout of the whole balance at a self-exclusion or a closure (docs/spec/API.md 1.2), told from a
	// withdrawal the player asked for.
	"Payout at self-exclusion":                     "Versement à l'auto-exclusion",
	"Payout at closure":                            "Versement à la clôture",
	"Payout at closure (list of excluded persons)": "Versement à la clôture (liste des interdits de jeu)",

	// The log.
	"Operator log": "Journal des opérateurs",
	"Every operator action, kept forever: the database refuses to change or delete a line.": "Chaque action des opérateurs, gardée pour toujours : la base refuse de modifier ou d'effacer une ligne.",
	"Operator":     "Opérateur",
	"Action":       "Action",
	"Detail":       "Détail",
	"Address":      "Adresse",
	"Older":        "Plus anciennes",
	"Nothing yet.": "Rien pour l'instant.",
	// Counts, in both forms (pluralOf: French takes the singular for 0 and 1).
	"%d block at %s, asked by %s.":                                                            "%d bloc à %s, demandé par %s.",
	"%d blocks at %s, asked by %s.":                                                           "%d blocs à %s, demandés par %s.",
	"%d call refused by the wallet: to settle by hand.":                                       "%d appel refusé par le portefeuille : à régler à la main.",
	"%d calls refused by the wallet: to settle by hand.":                                      "%d appels refusés par le portefeuille : à régler à la main.",
	"%d credit or rollback not yet acknowledged by the wallet; the oldest waits since %s.":    "%d crédit ou annulation pas encore acquitté par le portefeuille ; il attend depuis %s.",
	"%d credits and rollbacks not yet acknowledged by the wallet; the oldest waits since %s.": "%d crédits et annulations pas encore acquittés par le portefeuille ; le plus ancien attend depuis %s.",
	"%d round open: a game in play, debited, credited when it finishes.":                      "%d manche ouverte : une partie en cours, débitée, créditée à sa fin.",
	"%d rounds open: games in play, debited, credited when they finish.":                      "%d manches ouvertes : parties en cours, débitées, créditées à leur fin.",
	"%d year old":                      "%d\u00a0an",
	"%d years old":                     "%d\u00a0ans",
	"%s winner":                        "%s gagnante",
	"%s winners":                       "%s gagnantes",
	"locked from %d address":           "bloqué depuis %d adresse",
	"locked from %d addresses":         "bloqué depuis %d adresses",
	"Reality checks every %d minute.":  "Rappel du temps de jeu toutes les %d minute.",
	"Reality checks every %d minutes.": "Rappel du temps de jeu toutes les %d minutes.",
	"The list: %s person":              "La liste : %s personne",
	"The list: %s persons":             "La liste : %s personnes",
	"Imported %s.":                     "Importé : %s.",
	"When":                             "Quand",
	"Hour":                             "Heure",
	"Asked":                            "Demandée le",
	"In force from":                    "En vigueur dès le",
	"Kept since":                       "Gardé depuis",
	"Download CSV, English format":     "Télécharger le CSV au format anglais",
	"The games sold at each price, by day or by hour of Paris, between two dates both included, as CSV for a French spreadsheet: amounts in euros, the return to players worked out from the cents, and a total line. The English format has UTC days and hours and amounts in cents. Each download goes to the log.": "Les parties vendues à chaque mise, par jour ou par heure de Paris, entre deux dates incluses, en CSV pour un tableur français : les montants en euros, le retour aux joueurs calculé à partir des centimes, et une ligne de total. Le format anglais compte en jours et heures UTC et en centimes. Chaque téléchargement est noté au journal.",
	"The request could not be understood.": "La demande n'a pas pu être comprise.",
	"The stored units do not match their commitment: restore the database from a copy, then run starcolor ledger check.": "Les unités enregistrées ne correspondent pas à leur engagement : restaurez la base depuis une copie, puis lancez starcolor ledger check.",

	// The sales report's refusals (reportProblem).
	"the format is fr or en, not “%s”":               "le format est fr ou en, pas «\u00a0%s\u00a0»",
	"the period is hour or day, not “%s”":            "la période est hour ou day, pas «\u00a0%s\u00a0»",
	"the date “%s” is not a date like 2026-11-30":    "«\u00a0%s\u00a0» n'est pas une date comme 2026-11-30",
	"the first day, %s, is after the last, %s":       "le premier jour, %s, est après le dernier, %s",
	"from %s to %s: a report covers at most %d days": "du %s au %s : un rapport couvre au plus %d jours",

	// The operators' log: its actions (actionLabels) and their details (detailOf).
	"Operator created":                           "Opérateur créé",
	"Logged in":                                  "Connexion",
	"Login refused":                              "Connexion refusée",
	"Logged out":                                 "Déconnexion",
	"Player viewed":                              "Joueur consulté",
	"Emission asked for":                         "Émission demandée",
	"Emission created":                           "Émission créée",
	"Emission failed":                            "Émission en échec",
	"Block exported":                             "Bloc exporté",
	"Export refused":                             "Export refusé",
	"Sales report downloaded":                    "Rapport des ventes téléchargé",
	"List of excluded persons imported":          "Liste des interdits importée",
	"List of excluded persons refused":           "Liste des interdits refusée",
	"Usernames that read alike":                  "Pseudos qui se lisent pareil",
	"Open account on the list":                   "Compte ouvert d'un interdit",
	"Open account of a self-excluded person":     "Compte ouvert d'un auto-exclu",
	"from the command line":                      "en ligne de commande",
	"wrong password":                             "mot de passe incorrect",
	"unknown name":                               "nom inconnu",
	"too many failed attempts: locked for %s":    "trop de tentatives échouées : bloqué pour %s",
	"too many failed attempts: locked":           "trop de tentatives échouées : bloqué",
	"%s: %s at %s":                               "%s : %s à %s",
	"%s block":                                   "%s bloc",
	"%s blocks":                                  "%s blocs",
	"%s in %s":                                   "%s en %s",
	"%s: %s":                                     "%s : %s",
	"%s, block %d":                               "%s, bloc %d",
	"%s, block %d (compressed)":                  "%s, bloc %d (compressé)",
	"%s, block %d: still on sale":                "%s, bloc %d : encore en vente",
	"by day":                                     "par jour",
	"by hour":                                    "par heure",
	"%s from %s to %s, for a French spreadsheet": "%s du %s au %s, pour un tableur français",
	"%s from %s to %s, in the English format":    "%s du %s au %s, au format anglais",
	"%s: %s, %s, %s; %s":                         "%s : %s, %s, %s ; %s",
	"%s person listed":                           "%s personne inscrite",
	"%s persons listed":                          "%s personnes inscrites",
	"%s person added":                            "%s personne ajoutée",
	"%s persons added":                           "%s personnes ajoutées",
	"%s person gone":                             "%s personne retirée",
	"%s persons gone":                            "%s personnes retirées",
	"%s account closed":                          "%s compte fermé",
	"%s accounts closed":                         "%s comptes fermés",
	"%s (paid out: %s)":                          "%s (versé : %s)",
	"%d (%s)":                                    "n°\u00a0%d (%s)",
	"%s, born %s":                                "%s, né(e) le %s",
	"the usernames of accounts %s read alike: each still logs in with its own, and no new account may take one like them":                                                                  "les pseudos des comptes %s se lisent pareil : chacun se connecte toujours avec le sien, et aucun nouveau compte ne peut en prendre un semblable",
	"the open account %s (%s) matches a person on the list of excluded persons: it stays open until the next import of the list closes it (import the current list again to close it now)": "le compte ouvert %s (%s) correspond à une personne de la liste des interdits de jeu : il reste ouvert jusqu'à ce que le prochain import de la liste le ferme (importez à nouveau la liste actuelle pour le fermer tout de suite)",
	"the open account %s (%s) matches the self-exclusion of account %s, which runs until %s: it stays open, for the operator to look into":                                                 "le compte ouvert %s (%s) correspond à l'auto-exclusion du compte %s, qui court jusqu'au %s : il reste ouvert, à examiner par l'opérateur",
	"interrupted by the server's shutdown: nothing was written":                                                                                                                            "interrompue par l'arrêt du serveur : rien n'a été écrit",
	"its server stopped before it was done: nothing was written":                                                                                                                           "son serveur s'est arrêté avant la fin : rien n'a été écrit",
	"an error, kept in the server's log: nothing was written":                                                                                                                              "une erreur, notée dans le journal du serveur : rien n'a été écrit",
	"an error, kept in the server's log":                     "une erreur, notée dans le journal du serveur",
	"refused by the wallet: %s %s":                           "refusé par le portefeuille : %s %s",
	"the wallet's answer is unknown: sent again":             "réponse du portefeuille inconnue : envoi renouvelé",
	"the wallet's answer is unknown (status %s): sent again": "réponse du portefeuille inconnue (statut %s) : envoi renouvelé",
	"status %s": "statut %s",

	// Why a list of excluded persons was refused (identity.RegisterError).
	"the file is larger than %d MiB":                             "le fichier dépasse %d Mio",
	"the file lists no one":                                      "le fichier ne liste personne",
	"the file is not CSV":                                        "le fichier n'est pas un CSV",
	"the file is not CSV: a misplaced quote, line %d, column %d": "le fichier n'est pas un CSV : un guillemet mal placé, ligne %d, colonne %d",
	"these lines are not persons: %s":                            "ces lignes ne sont pas des personnes : %s",
	"line %d: %s":                                                "ligne %d : %s",
	"%d field, not 3 (last name, first names, birth date)":       "%d champ au lieu de 3 (nom, prénoms, date de naissance)",
	"%d fields, not 3 (last name, first names, birth date)":      "%d champs au lieu de 3 (nom, prénoms, date de naissance)",
	"the birth date “%s” is neither YYYY-MM-DD nor DD/MM/YYYY":   "la date de naissance «\u00a0%s\u00a0» n'est ni AAAA-MM-JJ ni JJ/MM/AAAA",
	"a last name and first names are needed: letters (accents welcome), spaces, hyphens and apostrophes, at most 100 characters each": "il faut un nom et des prénoms : des lettres (accents compris), espaces, traits d'union et apostrophes, 100 caractères au plus chacun",
	"names are written in the Latin alphabet, as on French identity papers (accents welcome)":                                         "les noms s'écrivent en alphabet latin, comme sur les papiers d'identité français (accents compris)",
	"the birth date is a real date, in the past, within the last 130 years":                                                           "la date de naissance doit être une date réelle, passée, des 130 dernières années",
	"not a person": "pas une personne",
}
