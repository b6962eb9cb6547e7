// The page's words in its two languages, French first: its messages, the names of the colours,
// money, dates and errors as the player reads them, and amounts typed in euros.
import { $, announce, html, wallet } from './page.js';
import { S } from './state.js';

const COLORS = {
  fr: ['violet', 'bleu', 'vert', 'jaune', 'orange', 'rose'],
  en: ['violet', 'blue', 'green', 'yellow', 'orange', 'pink'],
};
export const T = {
  fr: {
    star: (n, c, what) => `Étoile ${n}, ${c}${what ? ' : ' + what : ''}`,
    hidden: 'cachée', toClick: 'à révéler',
    empty: 'rien', milky_way: 'voie lactée', extra: 'Extra',
    supernova: c => `supernova ${c}`,
    shooting_star: d => `étoile filante ${d === 'rising' ? 'montante ↗' : 'descendante ↘'}`,
    sleeping: 'étoile', sky: 'Le ciel : 42 étoiles',
    choose: 'Sélectionnez une couleur parmi les 6 couleurs proposées.',
    click: c => `Cliquez sur chaque étoile de couleur « ${c} », dans l'ordre souhaité.`,
    milky: 'Voie lactée ! Les étoiles en contact direct explosent.',
    nova: c => `Supernova ! Les étoiles « ${c} » explosent.`,
    shoot: 'Étoile filante ! Les étoiles de sa diagonale explosent.',
    extraFound: 'Extra ! Révélez les étoiles restantes de votre couleur.',
    extraStage: 'Étape Extra : 42 nouvelles étoiles',
    extraBanner: 'Étape Extra',
    auto: c => `Auto : couleur « ${c} » tirée au sort.`,
    resumed: 'Partie reprise là où elle s\'était arrêtée.',
    won: m => `Gagné ${m}`, lost: 'Perdu',
    replay: (id, c) => `Relecture de la partie n° ${id}, couleur « ${c} ».`,
    replayDone: 'Fin de la relecture.',
    welcome: u => `Bonjour ${u} ! Choisissez votre mise.`,
    ready: 'Choisissez votre mise puis « Jouer » ou « Auto ».',
    deposited: m => `${m} crédités (argent fictif).`,
    open: 'En cours', resume: 'Reprendre', replayBtn: 'Revoir', proofBtn: 'Preuve',
    played: (id, res) => `Votre partie n° ${id} a été jouée pendant que la page se rechargeait : ${res}.`,
    unfinished: id => `Une partie n'est pas finie (n° ${id}) : reprenez-la là où elle s'est arrêtée.`,
    gainsOf: 'Sommes découvertes :', extraGains: 'étape Extra :', noGain: 'Aucune somme découverte.',
    goodWin: 'Beau gain !', bigWin: 'Gros lot !',
    manual: 'Jouer', autoMode: 'Auto', game: id => `Partie n° ${id}`,
    busy: 'Une partie est en cours : terminez-la d\'abord.',
    checking: 'Vérification…', verified: 'Vérifié : cette unité figure dans le bloc publié.',
    notVerified: 'Non vérifié : la preuve ne mène pas à la racine publiée.',
    noCrypto: 'Non vérifié : ce navigateur n\'offre pas WebCrypto (page non sécurisée).',
    fEmission: 'Émission', fBlock: 'Bloc', fIndex: 'Unité n°', fPrize: 'Lot de la ligne', fLine: 'Ligne d\'audit',
    fPath: 'Chemin (de la feuille vers la racine)', fRoot: 'Racine de la preuve', fPublished: 'Racine publiée du bloc', fComputed: 'Racine recalculée dans la page',
    deposits: 'dépôts', stakes: 'mises', notSet: 'non fixée', never: 'jamais', every: m => `toutes les ${m} min`,
    whyDeposit: 'Avant votre premier dépôt, la loi demande de fixer votre limite de dépôts par semaine (et celle de mises avant votre première mise). Fixez-les ici : vous pourrez les baisser à tout moment.',
    whyStake: 'Avant votre première mise, la loi demande de fixer votre limite de mises par semaine. Fixez-la ici : vous pourrez la baisser à tout moment.',
    realityIs: s => `Rappel du temps de jeu : ${s}.`,
    pendingRaise: (k, m, w) => `Hausse de votre limite de ${k} à ${m} en attente : elle s'appliquera le ${w}.`,
    savedNow: (k, m) => `Limite de ${k} : ${m}, appliquée tout de suite.`,
    savedLater: (k, m, w) => `Hausse de la limite de ${k} à ${m} enregistrée : elle s'appliquera le ${w}, dans 48 heures. D'ici là, l'ancienne limite s'applique.`,
    nothing: 'Rien n\'a changé.',
    badAmount: 'Indiquez un montant en euros, par exemple 50 ou 12,50, jusqu\'à 1 000 000 € (une limite fixée ne peut pas être retirée).',
    reached: (k, lim, sum, left) => `Limite de ${k} atteinte : votre limite est de ${lim} par semaine (7 jours glissants) et vous en êtes à ${sum}. Il vous reste ${left} cette semaine.`,
    exclText: (n, w) => `Pendant ${n} jour${n > 1 ? 's' : ''}, jusqu'au ${w} : votre solde vous sera versé, toutes vos sessions se terminent tout de suite, et vous ne pourrez ni vous connecter ni ouvrir un autre compte avant cette date. Une exclusion ne peut pas être raccourcie.`,
    badDays: 'Indiquez un nombre de jours entre 1 et 365.',
    closeText: m => `Votre solde de ${m} vous sera versé, puis votre compte sera fermé définitivement : vous ne pourrez plus vous y connecter.`,
    excludedUntil: (w, m) => `Vous êtes exclu du jeu jusqu'au ${w}. ${m ? `Votre solde de ${m} vous a été versé. ` : ''}Toutes vos sessions sont terminées.`,
    closed: 'Votre compte est fermé et votre solde vous a été versé. Vous ne pourrez plus vous y connecter.',
    realityText: (d, n) => `Vous jouez depuis ${d}. Résultat de la session : ${n} (gains moins mises). Voulez-vous continuer ?`,
    stopped: (d, n) => `Session terminée après ${d}. Résultat de la session : ${n}.`,
    walletEnded: 'Session terminée. Pour rejouer, ouvrez à nouveau le jeu depuis le site de votre opérateur.',
    // The result card at the end of a game (or of its replay), and the page's money and account forms.
    cardLost: 'Pas de chance', cardLostText: 'Aucune somme sous vos étoiles cette fois-ci. La prochaine sera peut-être la bonne.',
    level_small: 'Bien joué !', level_good: 'Beau gain !', level_big: 'Gros gain !', level_top: 'Le gros lot !',
    cardBoard: 'Plateau 1', cardExtra: 'Étape Extra', cardFound: 'Sommes découvertes', cardTotal: 'Total',
    cardStake: m => `Même mise : ${m}`, cardRegion: 'Résultat de la partie',
    lockedWhy: 'Disponible à la fin de la partie',
    withdrawn: (m, b) => `${m} retirés. Nouveau solde : ${b}.`,
    overBalance: b => `Vous ne pouvez pas retirer plus que votre solde (${b}).`,
    badWithdraw: 'Indiquez un montant en euros, par exemple 20 ou 12,50.',
    pwChanged: 'Mot de passe changé. Vos autres sessions sont terminées : reconnectez-vous avec le nouveau mot de passe sur vos autres appareils.',
    pwMismatch: 'Les deux nouveaux mots de passe ne sont pas les mêmes.',
    pwMissing: 'Indiquez votre mot de passe actuel et le nouveau.',
    // Demo play (docs/spec/API.md 1.2): play money, without an account.
    tryFree: 'Essayer gratuitement',
    tryFreeText: 'Sans compte et sans argent : une partie en argent fictif, avec les mêmes règles et les mêmes lots.',
    demoMark: 'Mode démo\u00a0— argent fictif',
    openAccount: 'Ouvrir un compte',
    demoInfoTitle: 'Mode démo',
    demoInfoText: 'L\'argent est fictif : en démo, ni dépôt, ni retrait, ni limites, ni preuve. Vos parties de démo sont oubliées à la fin de la démo. Pour jouer pour de vrai, ouvrez un compte.',
    demoEndText: 'Partie jouée en argent fictif. Envie de jouer pour de vrai ?',
    demoWelcome: m => `Démo : ${m} d'argent fictif pour essayer. Choisissez votre mise.`,
    demoOver: 'La démo est terminée et ses parties sont oubliées. Créez votre compte ci-dessous pour jouer pour de vrai.',
    demoErrors: {
      not_logged_in: 'Votre démo est terminée (30 minutes sans jouer, ou 4 heures en tout) : recommencez-en une, ou ouvrez un compte.',
      insufficient_funds: 'Plus assez d\'argent fictif pour cette mise : ouvrez un compte, ou recommencez une démo.',
      too_many_attempts: 'Trop de parties de démo d\'un coup : patientez un moment, ou ouvrez un compte.',
    },
    // In wallet mode these come from the operator's wallet, without the figures of a limit.
    walletErrors: {
      insufficient_funds: 'Solde insuffisant chez votre opérateur : créditez votre compte sur son site.',
      limit_reached: 'Votre opérateur refuse cette mise : une de vos limites de jeu est atteinte (voyez-les sur son site).',
      not_logged_in: 'Votre session est terminée : ouvrez à nouveau le jeu depuis le site de votre opérateur.',
    },
    errors: {
      insufficient_funds: 'Solde insuffisant : créditez votre compte.',
      username_taken: 'Cet identifiant, ou un identifiant qui lui ressemble, est déjà pris.',
      invalid_username: 'Identifiant refusé : de 3 à 32 lettres (accents compris), chiffres, « . », « _ » ou « - », commençant par une lettre ou un chiffre.',
      weak_password: 'Mot de passe refusé : 8 caractères au moins, ni un mot de passe courant, ni votre identifiant.',
      invalid_identity: 'Indiquez votre nom, vos prénoms et votre date de naissance (une date réelle, passée), en lettres latines comme sur vos papiers d\'identité.',
      underage: 'Le jeu est interdit aux mineurs : un compte ne s\'ouvre qu\'à partir de 18 ans révolus.',
      registration_refused: 'Aucun compte ne peut être ouvert pour cette personne. Le service client de l\'opérateur peut vous en dire plus.',
      body_too_large: 'La demande est trop grande.',
      unsupported_media_type: 'La demande n\'est pas dans un format accepté.',
      idempotency_key_reused: 'Cette demande a déjà été faite pour une autre opération.',
      request_in_flight: 'Cette demande est déjà en cours : patientez.',
      not_found: 'Introuvable.',
      invalid_move: 'Ce coup n\'est pas possible à ce moment de la partie.',
      forbidden: 'Action refusée.',
      internal_error: 'Une erreur est survenue de notre côté : rien n\'a été fait.',
      busy: 'Une partie est en cours : terminez-la d\'abord.',
      unknown: code => `Une erreur est survenue (${code || 'inconnue'}).`,
      not_logged_in: 'Identifiant ou mot de passe incorrect.',
      too_many_attempts: 'Trop de tentatives : réessayez dans un moment.',
      sold_out: 'Plus aucune unité de jeu à cette mise pour le moment.',
      unavailable: 'Le service est momentanément indisponible : rien n\'a été fait. Réessayez dans un moment.',
      invalid_input: 'Saisie invalide.',
      invalid_request: 'Requête invalide : rien n\'a été fait.',
      network: 'Le serveur ne répond pas. Réessayez.',
      limits_required: 'Fixez d\'abord vos limites de dépôts et de mises par semaine : la loi les demande.',
      limit_reached: 'Limite par semaine atteinte.',
      excluded: e => (until(e) ? `Vous vous êtes exclu du jeu jusqu'au ${when(until(e))} : impossible de vous connecter avant cette date.` : 'Vous êtes inscrit sur la liste nationale des personnes interdites de jeux : aucun compte ne peut être ouvert ni utilisé.'),
      account_closed: 'Ce compte a été fermé par son titulaire : on ne peut plus s\'y connecter.',
      wallet_mode: 'Cela se fait sur le site de votre opérateur : il tient votre compte, votre argent et vos limites.',
      wallet_unavailable: 'Votre opérateur n\'a pas répondu à temps : rien n\'a été vendu (une mise débitée malgré tout vous est rendue). Réessayez.',
      player_blocked: 'Votre opérateur refuse vos mises pour le moment : voyez sur son site.',
      wrong_password: 'Mot de passe actuel incorrect : rien n\'a changé.',
      duplicate_launch: 'Ce lien de lancement a déjà servi : ouvrez à nouveau le jeu depuis le site de votre opérateur.',
      demo_mode: 'En démo, l\'argent est fictif : ouvrez un compte pour déposer, retirer, fixer vos limites ou voir les preuves.',
    },
  },
  en: {
    star: (n, c, what) => `Star ${n}, ${c}${what ? ': ' + what : ''}`,
    hidden: 'hidden', toClick: 'to reveal',
    empty: 'nothing', milky_way: 'milky way', extra: 'Extra',
    supernova: c => `${c} supernova`,
    shooting_star: d => `shooting star ${d === 'rising' ? 'rising ↗' : 'falling ↘'}`,
    sleeping: 'star', sky: 'The sky: 42 stars',
    choose: 'Select one of the 6 colours.',
    click: c => `Click every ${c} star, in any order.`,
    milky: 'Milky way! The stars in direct contact explode.',
    nova: c => `Supernova! The ${c} stars explode.`,
    shoot: 'Shooting star! The stars on its diagonal explode.',
    extraFound: 'Extra! Reveal the remaining stars of your colour.',
    extraStage: 'Extra stage: 42 new stars',
    extraBanner: 'Extra stage',
    auto: c => `Auto: colour ${c} drawn at random.`,
    resumed: 'Game resumed where it stopped.',
    won: m => `Won ${m}`, lost: 'Lost',
    replay: (id, c) => `Replay of game #${id}, colour ${c}.`,
    replayDone: 'End of the replay.',
    welcome: u => `Hello ${u}! Pick your stake.`,
    ready: 'Pick your stake, then “Jouer” or “Auto”.',
    deposited: m => `${m} added (play money).`,
    open: 'In progress', resume: 'Resume', replayBtn: 'Watch again', proofBtn: 'Proof',
    played: (id, res) => `Your game #${id} was played while the page reloaded: ${res}.`,
    unfinished: id => `A game is not finished (#${id}): resume it where it stopped.`,
    gainsOf: 'Amounts found:', extraGains: 'Extra stage:', noGain: 'No amount found.',
    goodWin: 'Nice win!', bigWin: 'Big win!',
    manual: 'Jouer', autoMode: 'Auto', game: id => `Game #${id}`,
    busy: 'A game is in progress: finish it first.',
    checking: 'Checking…', verified: 'Verified: this unit is in the published block.',
    notVerified: 'Not verified: the proof does not lead to the published root.',
    noCrypto: 'Not verified: this browser offers no WebCrypto here (insecure page).',
    fEmission: 'Emission', fBlock: 'Block', fIndex: 'Unit #', fPrize: 'Prize in the line', fLine: 'Audit line',
    fPath: 'Path (from the leaf to the root)', fRoot: 'Root of the proof', fPublished: 'Published root of the block', fComputed: 'Root computed in this page',
    deposits: 'deposits', stakes: 'stakes', notSet: 'not set', never: 'never', every: m => `every ${m} min`,
    whyDeposit: 'Before your first deposit, the law asks you to set your weekly deposit limit (and your stake limit before your first stake). Set them here: you may lower them at any time.',
    whyStake: 'Before your first stake, the law asks you to set your weekly stake limit. Set it here: you may lower it at any time.',
    realityIs: s => `Reality check: ${s}.`,
    pendingRaise: (k, m, w) => `Raise of your ${k} limit to ${m} pending: it applies on ${w}.`,
    savedNow: (k, m) => `Your ${k} limit: ${m}, applied at once.`,
    savedLater: (k, m, w) => `Raise of your ${k} limit to ${m} recorded: it applies on ${w}, in 48 hours. Until then, the old limit holds.`,
    nothing: 'Nothing changed.',
    badAmount: 'Give an amount in euros, such as 50 or 12.50, up to €1,000,000 (a limit once set cannot be removed).',
    reached: (k, lim, sum, left) => `Your ${k} limit is reached: it is ${lim} a week (the last 7 days, rolling) and you are at ${sum}. You have ${left} left this week.`,
    exclText: (n, w) => `For ${n} day${n > 1 ? 's' : ''}, until ${w}: your balance will be paid out to you, every session of yours ends at once, and you cannot log in nor open another account before that date. An exclusion cannot be shortened.`,
    badDays: 'Give a number of days from 1 to 365.',
    closeText: m => `Your balance of ${m} will be paid out to you, then your account is closed for good: you cannot log in to it again.`,
    excludedUntil: (w, m) => `You are excluded from gambling until ${w}. ${m ? `Your balance of ${m} was paid out to you. ` : ''}Every session of yours has ended.`,
    closed: 'Your account is closed and its balance was paid out to you. You cannot log in to it again.',
    realityText: (d, n) => `You have been playing for ${d}. Result of this session: ${n} (winnings less stakes). Do you want to go on?`,
    stopped: (d, n) => `Session ended after ${d}. Result of this session: ${n}.`,
    walletEnded: 'Session ended. To play again, open the game again from your operator\'s site.',
    cardLost: 'No luck', cardLostText: 'No amount under your stars this time. The next one may be it.',
    level_small: 'Well played!', level_good: 'Nice win!', level_big: 'Big win!', level_top: 'The top prize!',
    cardBoard: 'Board 1', cardExtra: 'Extra stage', cardFound: 'Amounts found', cardTotal: 'Total',
    cardStake: m => `Same stake: ${m}`, cardRegion: 'Result of the game',
    lockedWhy: 'Available once the game has ended',
    withdrawn: (m, b) => `${m} withdrawn. New balance: ${b}.`,
    overBalance: b => `You cannot withdraw more than your balance (${b}).`,
    badWithdraw: 'Give an amount in euros, such as 20 or 12.50.',
    pwChanged: 'Password changed. Your other sessions have ended: log in again with the new password on your other devices.',
    pwMismatch: 'The two new passwords are not the same.',
    pwMissing: 'Give your current password and the new one.',
    tryFree: 'Try it for free',
    tryFreeText: 'No account and no money: a game with play money, with the same rules and the same prizes.',
    demoMark: 'Demo mode\u00a0— play money',
    openAccount: 'Open an account',
    demoInfoTitle: 'Demo mode',
    demoInfoText: 'The money is play money: in the demo there are no deposits, withdrawals, limits or proofs. Your demo games are forgotten when the demo ends. To play for real, open an account.',
    demoEndText: 'Played with play money. Would you like to play for real?',
    demoWelcome: m => `Demo: ${m} of play money to try the game. Pick your stake.`,
    demoOver: 'The demo is over and its games are forgotten. Sign up below to play for real.',
    demoErrors: {
      not_logged_in: 'Your demo has ended (30 minutes without playing, or 4 hours in all): start another, or open an account.',
      insufficient_funds: 'Not enough play money left for this stake: open an account, or start a new demo.',
      too_many_attempts: 'Too many demo games at once: wait a moment, or open an account.',
    },
    walletErrors: {
      insufficient_funds: 'Not enough money at your operator: add some on its site.',
      limit_reached: 'Your operator refuses this stake: one of your gambling limits is reached (see them on its site).',
      not_logged_in: 'Your session has ended: open the game again from your operator\'s site.',
    },
    errors: {
      insufficient_funds: 'Not enough money: add some to your account.',
      username_taken: 'This username, or one that reads like it, is taken.',
      invalid_username: 'Username refused: 3 to 32 letters (accents welcome), digits, “.”, “_” or “-”, starting with a letter or a digit.',
      weak_password: 'Password refused: at least 8 characters, not a common password, and not your username.',
      invalid_identity: 'Give your last name, first names and birth date (a real date, in the past), in Latin letters as on your identity papers.',
      underage: 'Gambling is forbidden to minors: an account opens from 18 years old on.',
      registration_refused: 'No account can be opened for this person. The operator\'s support can tell you more.',
      body_too_large: 'The request is too large.',
      unsupported_media_type: 'The request is not in an accepted format.',
      idempotency_key_reused: 'This request was already made for another operation.',
      request_in_flight: 'This request is already under way: please wait.',
      not_found: 'Not found.',
      invalid_move: 'This move is not possible at this point of the game.',
      forbidden: 'Refused.',
      internal_error: 'Something went wrong on our side: nothing was done.',
      busy: 'A game is in progress: finish it first.',
      unknown: code => `Something went wrong (${code || 'unknown'}).`,
      not_logged_in: 'Wrong username or password.',
      too_many_attempts: 'Too many attempts: try again in a moment.',
      sold_out: 'No game units left at this stake for now.',
      unavailable: 'The service is unavailable for a moment: nothing was done. Try again shortly.',
      invalid_input: 'Invalid input.',
      invalid_request: 'Invalid request: nothing was done.',
      network: 'The server does not answer. Try again.',
      limits_required: 'First set your weekly deposit and stake limits: the law asks for them.',
      limit_reached: 'Weekly limit reached.',
      excluded: e => (until(e) ? `You excluded yourself from gambling until ${when(until(e))}: you cannot log in before then.` : 'You are on the national list of persons banned from gambling: no account can be opened or used.'),
      account_closed: 'This account was closed by its holder: it cannot be logged in to again.',
      wallet_mode: 'This is done on your operator\'s site: it keeps your account, your money and your limits.',
      wallet_unavailable: 'Your operator did not answer in time: nothing was sold (a stake debited all the same is given back). Try again.',
      player_blocked: 'Your operator refuses your stakes for now: see its site.',
      wrong_password: 'Wrong current password: nothing changed.',
      duplicate_launch: 'This launch link was used already: open the game again from your operator\'s site.',
      demo_mode: 'In the demo the money is play money: open an account to deposit, withdraw, set your limits or see the proofs.',
    },
  },
};
// lang is the page's language.
export const lang = () => (html.lang === 'en' ? 'en' : 'fr');
// t is the message k in the page's language, given its figures.
export const t = (k, ...a) => {
  const v = T[lang()][k];
  return typeof v === 'function' ? v(...a) : v;
};
// colorName is the name of a colour (0 to 5).
export const colorName = c => COLORS[lang()][c];
// money writes cents in euros, as the page's language does.
export const money = c =>
  new Intl.NumberFormat(lang() === 'en' ? 'en-IE' : 'fr-FR', {
    style: 'currency', currency: 'EUR', minimumFractionDigits: c % 100 ? 2 : 0, maximumFractionDigits: 2,
  }).format(c / 100);
// A date and time, local, in the page's language.
export const when = iso =>
  new Intl.DateTimeFormat(lang() === 'en' ? 'en-GB' : 'fr-FR', { dateStyle: 'long', timeStyle: 'short' }).format(new Date(iso));
// The end of a self-exclusion, from the server's refusal (the only figure its words carry).
const until = e => ((e.message || '').match(/\d{4}-\d\d-\d\dT[\d:.]+(Z|[+-]\d\d:\d\d)/) || [])[0];
// Every error is told in the player's language, from its code, never in the server's words.
export const errText = e => {
  const m = T[lang()].errors;
  const v = e && e.code && e.code !== 'unknown' && ((wallet && T[lang()].walletErrors[e.code]) || (S.demo && T[lang()].demoErrors[e.code]) || m[e.code]);
  return typeof v === 'string' ? v : typeof v === 'function' ? v(e) : m.unknown(e && (e.code || e.status));
};

// ---- money typed in euros ----
// cents reads "12", "12,5" or "12.50" as whole cents, by splitting on the separator: no
// floating point on the way. It returns null for anything else, or above 1 000 000 €.
export function cents(s) {
  const m = /^(\d{1,7})(?:[.,](\d{1,2}))?$/.exec(s.replace(/[\s\u00a0\u202f€]/g, ''));
  if (!m) return null;
  const c = Number(m[1]) * 100 + Number((m[2] || '').padEnd(2, '0'));
  return c <= 100000000 ? c : null;
}
// euroInput writes cents for a field to edit: "12,50" or "12.50".
export const euroInput = c => {
  if (c === null || c === undefined) return '';
  const f = c % 100 ? (lang() === 'en' ? '.' : ',') + String(c % 100).padStart(2, '0') : '';
  return Math.floor(c / 100) + f;
};

// signed writes a result with its sign: "+2 €", "−1 €".
export const signed = c => (c > 0 ? '+' : c < 0 ? '−' : '') + money(Math.abs(c));

// showErr tells an error on the game screen, and to screen readers.
export function showErr(e) {
  announce(errText(e));
  $('#play-err').textContent = errText(e);
}
