package admin

import (
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"starcolor/internal/web"
)

// The back office speaks French by default, as the player's page does, and English on the same
// switch (the same cookie, web.LangCookie). Its texts are written in English, which is their key:
// french holds their French. A text missing from it shows in English (a test finds them).

// languages are the back office's languages, the default first.
var languages = []string{"fr", "en"}

// langOf is the request's language: the cookie's, else French.
func langOf(r *http.Request) string {
	if c, err := r.Cookie(web.LangCookie); err == nil && c.Value == "en" {
		return "en"
	}
	return "fr"
}

// tr translates a text into a language.
func tr(lang, s string) string {
	if lang == "fr" {
		if f, ok := french[s]; ok {
			return f
		}
	}
	return s
}

// t translates a text into the request's language, formatting it with args if there are any.
func (s *Server) t(r *http.Request, format string, args ...any) string {
	f := tr(langOf(r), format)
	if len(args) == 0 {
		return f
	}
	return fmt.Sprintf(f, args...)
}

// langFuncs are the template functions that depend on the language.
func langFuncs(lang string) map[string]any {
	return map[string]any{
		"t":  func(s string) string { return tr(lang, s) },
		"tf": func(format string, args ...any) string { return fmt.Sprintf(tr(lang, format), args...) },
		"pct": func(x float64, decimals int) string {
			return pctIn(lang, x, decimals)
		},
		"share": func(a, b int) string {
			return decimal(lang, strconv.FormatFloat(100*ratio(int64(a), int64(b)), 'f', 1, 64))
		},
	}
}

// pctIn writes a share in percent with the given decimals, with the language's decimal mark;
// "—" when there is nothing to divide.
func pctIn(lang string, x float64, decimals int) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return "—"
	}
	return decimal(lang, strconv.FormatFloat(100*x, 'f', decimals, 64)) + "\u00a0%"
}

// decimal writes a number's decimal mark as the language does: a comma in French.
func decimal(lang, s string) string {
	if lang == "fr" {
		return strings.Replace(s, ".", ",", 1)
	}
	return s
}

// hourLabel names an hour, as "02 Jan 15h" or "02 janv. 15h".
func hourLabel(lang string, t time.Time) string {
	if lang != "fr" {
		return t.Format("02 Jan 15h")
	}
	return fmt.Sprintf("%02d %s %02dh", t.Day(), frenchMonths[t.Month()-1], t.Hour())
}

var frenchMonths = []string{"janv.", "févr.", "mars", "avr.", "mai", "juin", "juil.", "août", "sept.", "oct.", "nov.", "déc."}

// dayLabel names a day, as "Mon 02 Jan" or "lun. 02 janv.".
func dayLabel(lang string, t time.Time) string {
	if lang != "fr" {
		return t.Format("Mon 02 Jan")
	}
	days := []string{"dim.", "lun.", "mar.", "mer.", "jeu.", "ven.", "sam."}
	return fmt.Sprintf("%s %02d %s", days[t.Weekday()], t.Day(), frenchMonths[t.Month()-1])
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
	http.SetCookie(w, &http.Cookie{Name: web.LangCookie, Value: lang, Path: "/", MaxAge: 365 * 24 * 3600, SameSite: http.SameSiteLaxMode, Secure: r.TLS != nil})
	http.Redirect(w, r, safeNext(r.PostFormValue("next")), http.StatusSeeOther)
}

// french is every text of the back office in French.
var french = map[string]string{
	"The operator's wallet": "Le portefeuille de l'opérateur",
	"%d rounds open: games in play, debited, credited when they finish.":                      "%d manches ouvertes : parties en cours, débitées, créditées à leur fin.",
	"%d credits and rollbacks not yet acknowledged by the wallet; the oldest waits since %s.": "%d crédits et annulations pas encore acquittés par le portefeuille ; le plus ancien attend depuis %s.",
	"%d refused by the wallet: to settle by hand.":                                            "%d refusés par le portefeuille : à régler à la main.",
	"Disputed calls": "Appels en litige",
	"The wallet refused these with a 4xx other than 401: they are not sent again. Settle each with the operator, by its transaction id.": "Le portefeuille les a refusés avec un statut 4xx autre que 401 : ils ne sont plus envoyés. Réglez chacun avec l'opérateur, par son identifiant de transaction.",
	"The first %d of %d.": "Les %d premiers sur %d.",
	"Waiting longest":     "En attente depuis le plus longtemps",
	"Pending calls are sent again with backoff, up to a minute apart, until the wallet answers them.": "Les appels en attente sont renvoyés à intervalles croissants, jusqu'à une minute, tant que le portefeuille n'y a pas répondu.",
	"Call":             "Appel",
	"Transaction":      "Transaction",
	"Round":            "Tour de jeu",
	"Attempts":         "Envois",
	"Last error":       "Dernière erreur",
	"Kept since (UTC)": "Gardé depuis (UTC)",
	"not sold":         "non vendu",
	"credit":           "crédit",
	"rollback":         "annulation",
	"pending":          "en attente",
	"disputed":         "en litige",
	// Player protection (issue 12): a player's identity, limits and exclusions; the list of
	// excluded persons.
	"Identity and protection": "Identité et protection",
	"Born":                    "Né(e) le",
	"%d years old":            "%d ans",
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
	"Reality checks every %d minutes.":              "Rappel du temps de jeu toutes les %d minutes.",
	"No reality checks.":                            "Pas de rappel du temps de jeu.",
	"Changes of limits":                             "Modifications des limites",
	"Asked (UTC)":                                   "Demandée (UTC)",
	"Limit":                                         "Limite",
	"Was":                                           "Avant",
	"Asked for":                                     "Demandée",
	"In force from (UTC)":                           "En vigueur dès (UTC)",
	"deposit_weekly":                                "Dépôts",
	"stake_weekly":                                  "Mises",
	"player":                                        "le joueur",
	"server":                                        "le serveur",
	"command line":                                  "ligne de commande",
	"Exclusions":                                    "Exclusions",
	"Excluded persons":                              "Interdits de jeu",
	"The list of persons excluded from gambling: the national register of gaming bans, as the regulator gives it. An import replaces the list. A listed person cannot open an account; an open account of a listed person is closed at the import, its balance paid out and its sessions ended.": "La liste des personnes interdites de jeu : le fichier national des interdits de jeux, tel que le régulateur le transmet. Un import remplace la liste. Une personne inscrite ne peut pas ouvrir de compte ; le compte ouvert d'une personne inscrite est fermé à l'import, son solde reversé et ses sessions terminées.",
	"The list (CSV: last name, first names, birth date)": "La liste (CSV : nom, prénoms, date de naissance)",
	"Import": "Importer",
	"Imported %s: %d persons listed, %d added, %d gone; %d accounts closed.": "%s importé : %d personnes inscrites, %d ajoutées, %d retirées ; %d comptes fermés.",
	"Imports":                     "Imports",
	"File":                        "Fichier",
	"Listed":                      "Inscrits",
	"Added":                       "Ajoutés",
	"Gone":                        "Retirés",
	"Accounts closed":             "Comptes fermés",
	"No list imported yet.":       "Aucune liste importée.",
	"The list: %d persons":        "La liste : %d personnes",
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
	"The back office of « Star Color ». Player accounts do not open it.": "Le back-office de « Star Color ». Les comptes des joueurs n'y donnent pas accès.",
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
	"This block still has units for sale: its export, in sale order, would show them before they are sold (RULES §6). It can be downloaded once the block is sold out. To check a block before its sale, rebuild it from the emission's seed with starcolor emission derive.": "Ce bloc a encore des unités en vente : son export, dans l'ordre de vente, les montrerait avant leur vente (RULES §6). Il se télécharge une fois le bloc épuisé. Pour vérifier un bloc avant sa vente, reconstruisez-le à partir de la graine de l'émission avec starcolor emission derive.",
	"Bad request":                     "Demande incorrecte",
	"Unavailable":                     "Indisponible",
	"Too large":                       "Trop grand",
	"Error":                           "Erreur",
	"The request is too large.":       "La demande est trop grande.",
	"The form could not be read: %v.": "Le formulaire n'a pas pu être lu : %v.",
	"Something went wrong; the error is in the server's log.": "Quelque chose s'est mal passé ; l'erreur est dans le journal du serveur.",
	"No such player.":   "Ce joueur n'existe pas.",
	"No such creation.": "Cette création n'existe pas.",
	"The stored units do not match their commitment (%s): restore the database from a copy, then run starcolor ledger check.": "Les unités enregistrées ne correspondent pas à leur engagement (%s) : restaurez la base depuis une copie, puis lancez starcolor ledger check.",
	"The sales report: %s.":                               "Le rapport des ventes : %s.",
	"Not logged in.":                                      "Non connecté.",
	"Nothing here answers to this address (%s).":          "Rien ne répond à cette adresse (%s).",
	"The request could not be understood (%s).":           "La demande n'a pas pu être comprise (%s).",
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
	"By day":     "Par jour",
	"By hour":    "Par heure",
	"Day":        "Jour",
	"Hour (UTC)": "Heure (UTC)",
	"Units":      "Unités",
	"Columns by price: units sold at that stake.": "Colonnes par mise : unités vendues à cette mise.",
	"No sale in this window.":                     "Aucune vente sur cette période.",
	"Sales report":                                "Rapport des ventes",
	"The games sold at each price, by day or by hour (UTC), between two dates both included, as CSV: money in cents, the return to players worked out from them, and a total line. Each download goes to the log.": "Les parties vendues à chaque mise, par jour ou par heure (UTC), entre deux dates incluses, en CSV : les montants en centimes, le retour aux joueurs calculé à partir d'eux, et une ligne de total. Chaque téléchargement est noté au journal.",
	"From":         "Du",
	"To":           "Au",
	"By":           "Par",
	"day":          "jour",
	"hour":         "heure",
	"Download CSV": "Télécharger le CSV",

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
	"The id must be 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit.":                                                                    "L'identifiant compte de 1 à 64 lettres, chiffres, « . », « _ » ou « - », et commence par une lettre ou un chiffre.",
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
	"%d block(s) at %s, asked by %s.": "%d bloc(s) à %s, demandé(s) par %s.",
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

	// The emission's report chart (emission.WriteSVGIn).
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
	"table RTP":                 "retour du tableau",
	"table hit":                 "gain du tableau",
	"Amounts revealed per unit": "Sommes révélées par unité",
	"Share of all units revealing 0, 1, 2 … amounts; a total may be shown by several.": "Part des unités révélant 0, 1, 2 … sommes ; un total peut être montré par plusieurs.",
	"winning":                               "gagnant",
	"amounts revealed on the unit's boards": "sommes révélées sur les plateaux de l'unité",
	"How each winning tier is shown":        "Comment chaque rang gagnant se montre",
	"Share of each tier's units by amounts revealed; ways: distinct combinations.": "Part des unités de chaque rang par sommes révélées ; façons : combinaisons distinctes.",
	"amounts revealed": "sommes révélées",
	"ways":             "façons",
	"Cells: % of the tier's units. A composite tier never shows a single amount.": "Cases : % des unités du rang. Un rang composé ne montre jamais une seule somme.",
	"Presentation features": "Éléments de présentation",
	"Share of units showing each element; the last two among losing units.": "Part des unités montrant chaque élément ; les deux derniers parmi les unités perdantes.",
	"Extra stage":                  "étape Extra",
	"amount on the Extra board":    "somme sur le plateau Extra",
	"at least one explosion":       "au moins une explosion",
	"milky way":                    "voie lactée",
	"supernova":                    "supernova",
	"shooting star":                "étoile filante",
	"chain of explosions":          "explosions en chaîne",
	"explosion on a losing unit":   "explosion sur une unité perdante",
	"Extra stage on a losing unit": "étape Extra sur une unité perdante",

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
	"No player's name starts with “%s”.":        "Aucun nom de joueur ne commence par « %s ».",
	"No game %d.":                               "Pas de partie n° %d.",
	"Player %s":                                 "Joueur %s",
	"Find another":                              "En trouver un autre",
	"Games":                                     "Parties",
	"%s won":                                    "%s gagnantes",
	"Staked":                                    "Misé",
	"Won":                                       "Gagné",
	"net":                                       "net",
	"Failed logins":                             "Connexions échouées",
	"locked from %d address(es)":                "bloqué depuis %d adresse(s)",
	"none locked now":                           "aucun blocage en cours",
	"Ledger transfers":                          "Mouvements du grand livre",
	"When (UTC)":                                "Quand (UTC)",
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
	// A payout of the whole balance at a self-exclusion or a closure (API.md 1.2), told from a
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
}
