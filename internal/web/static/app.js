// The player's page of « Star Color »: plays on the player API (/api/v1, docs/spec/API.md) and animates what
// the server reveals. The page never decides anything: every star shown was revealed by the
// server, and the prize the server returns with the sale is held back until the reveal ends.
'use strict';
(() => {
  const $ = (s, r = document) => r.querySelector(s);
  const $$ = (s, r = document) => Array.from(r.querySelectorAll(s));
  const html = document.documentElement;
  const body = document.body;
  const params = new URLSearchParams(location.search);
  const reduced = matchMedia('(prefers-reduced-motion: reduce)').matches;
  // Seamless wallet mode (docs/spec/WALLET.md): the operator keeps the accounts, the money and player
  // protection, and opens the game with a launch link. The server leaves their forms out of the
  // page, and marks it so.
  const wallet = body.dataset.wallet === 'yes';
  // ?speed=N runs every animation N times faster (the browser tests use it).
  const baseSpeed = Math.max(0.25, Number(params.get('speed')) || (reduced ? 4 : 1));

  const COLORS = {
    fr: ['violet', 'bleu', 'vert', 'jaune', 'orange', 'rose'],
    en: ['violet', 'blue', 'green', 'yellow', 'orange', 'pink'],
  };
  const T = {
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
  const lang = () => (html.lang === 'en' ? 'en' : 'fr');
  const t = (k, ...a) => {
    const v = T[lang()][k];
    return typeof v === 'function' ? v(...a) : v;
  };
  const colorName = c => COLORS[lang()][c];
  const money = c =>
    new Intl.NumberFormat(lang() === 'en' ? 'en-IE' : 'fr-FR', {
      style: 'currency', currency: 'EUR', minimumFractionDigits: c % 100 ? 2 : 0, maximumFractionDigits: 2,
    }).format(c / 100);
  // A date and time, local, in the page's language.
  const when = iso =>
    new Intl.DateTimeFormat(lang() === 'en' ? 'en-GB' : 'fr-FR', { dateStyle: 'long', timeStyle: 'short' }).format(new Date(iso));
  // The end of a self-exclusion, from the server's refusal (the only figure its words carry).
  const until = e => ((e.message || '').match(/\d{4}-\d\d-\d\dT[\d:.]+(Z|[+-]\d\d:\d\d)/) || [])[0];
  // Every error is told in the player's language, from its code, never in the server's words.
  const errText = e => {
    const m = T[lang()].errors;
    const v = e && e.code && e.code !== 'unknown' && ((wallet && T[lang()].walletErrors[e.code]) || (S.demo && T[lang()].demoErrors[e.code]) || m[e.code]);
    return typeof v === 'string' ? v : typeof v === 'function' ? v(e) : m.unknown(e && (e.code || e.status));
  };

  // ---- the API ----
  const newKey = () => {
    const b = new Uint8Array(16);
    crypto.getRandomValues(b);
    return hex(b);
  };
  async function api(method, path, payload, key) {
    const headers = { Accept: 'application/json' };
    if (payload !== undefined) headers['Content-Type'] = 'application/json';
    if (key) headers['Idempotency-Key'] = key;
    let r;
    try {
      r = await fetch('/api/v1' + path, {
        method, headers, credentials: 'same-origin',
        body: payload === undefined ? undefined : JSON.stringify(payload),
      });
    } catch (e) {
      const err = new Error('network');
      err.code = 'network';
      throw err;
    }
    if (r.status === 204) return null;
    const data = await r.json().catch(() => ({}));
    if (!r.ok) {
      const err = new Error((data.error && data.error.message) || r.statusText);
      err.status = r.status;
      err.code = data.error && data.error.code;
      throw err;
    }
    return data;
  }
  // A money-moving call is retried once with the same key when the network fails: the server
  // answers a retry with the first answer and moves no money again.
  async function apiMoney(method, path, payload) {
    const key = newKey();
    try {
      return await api(method, path, payload, key);
    } catch (e) {
      if (e.code !== 'network') throw e;
      return api(method, path, payload, key);
    }
  }

  // ---- state ----
  const S = {
    user: null,
    balance: 0,
    hold: 0, // the prize of the game on show, already in the balance, shown only at the end
    game: null, // the game on show (the server's last answer)
    mode: 'idle', // idle | choose | play | auto | replay
    speed: baseSpeed,
    skip: false,
    shownBoard: 0, // the board the sky shows (1 or 2)
    total: 0, // the running total of amounts landed
    flights: [],
    queue: Promise.resolve(),
    pending: 0,
    result: null, // {prize} of the last game ended on screen
    run: 0, // bumped to cancel an animation in progress
    replay: null,
    history: [],
    showing: Number(sessionStorage.getItem('starcolor_showing')) || 0, // the game whose reveal runs in this tab
    last: null, // {stake, mode} of the last game bought, for « Rejouer »
    buys: 0, // games bought in this tab: an answer of /me sent before one is not shown
    unfinished: null, // an unfinished game this tab does not show, offered on the game screen
  };
  // The game being revealed in this tab is remembered for the tab's life: after a reload, a game
  // the page was showing is told as played, with its result [4.1].
  function setShowing(id) {
    S.showing = id;
    if (id) sessionStorage.setItem('starcolor_showing', String(id));
    else sessionStorage.removeItem('starcolor_showing');
  }

  const sky = $('#sky');
  const fx = $('#fx');
  const fly = $('#fly');

  // ---- timing ----
  const k = () => (S.skip ? 0 : 1 / S.speed);
  // A motion too short to be seen is not played at all.
  const dur = ms => (ms * k() < 5 ? 0 : ms * k());
  const wait = ms =>
    new Promise(r => {
      const d = dur(ms);
      if (d <= 0) r();
      else setTimeout(r, d);
    });
  function setSpeed(v, skip) {
    S.speed = v;
    S.skip = !!skip;
    html.style.setProperty('--k', String(k()));
  }
  setSpeed(baseSpeed);
  function busy(delta) {
    S.pending += delta;
    body.dataset.busy = S.pending > 0 ? 'yes' : 'no';
  }

  // ---- sound ----
  // Short effects made in the page (Web Audio), off until the player turns them on; the choice
  // is remembered. Every effect played is logged in window.starcolor.sounds (the tests read it).
  const sounds = [];
  const Sound = {
    on: localStorage.getItem('starcolor_sound') === 'on',
    ctx: null,
    last: {},
    audio() {
      if (!this.ctx) {
        const AC = window.AudioContext || window.webkitAudioContext;
        if (!AC) return null;
        this.ctx = new AC();
      }
      if (this.ctx.state === 'suspended') this.ctx.resume().catch(() => {});
      return this.ctx;
    },
    set(on) {
      this.on = on;
      localStorage.setItem('starcolor_sound', on ? 'on' : 'off');
      $('#sound').setAttribute('aria-pressed', on ? 'true' : 'false');
      if (on) this.audio();
    },
    // tone plays an oscillator: its type, frequencies from f0 to f1, from `at` seconds for `len`.
    tone(ac, type, f0, f1, at, len, vol) {
      const o = ac.createOscillator();
      const g = ac.createGain();
      const t0 = ac.currentTime + at;
      o.type = type;
      o.frequency.setValueAtTime(f0, t0);
      o.frequency.exponentialRampToValueAtTime(f1, t0 + len);
      g.gain.setValueAtTime(0.0001, t0);
      g.gain.exponentialRampToValueAtTime(vol, t0 + 0.01);
      g.gain.exponentialRampToValueAtTime(0.0001, t0 + len);
      o.connect(g).connect(ac.destination);
      o.start(t0);
      o.stop(t0 + len + 0.02);
    },
    noise(ac, at, len, vol, freq) {
      const n = Math.floor(ac.sampleRate * len);
      const buf = ac.createBuffer(1, n, ac.sampleRate);
      const d = buf.getChannelData(0);
      for (let i = 0; i < n; i++) d[i] = (Math.random() * 2 - 1) * (1 - i / n);
      const src = ac.createBufferSource();
      const f = ac.createBiquadFilter();
      const g = ac.createGain();
      f.type = 'bandpass';
      f.frequency.value = freq;
      g.gain.value = vol;
      src.buffer = buf;
      src.connect(f).connect(g).connect(ac.destination);
      src.start(ac.currentTime + at);
    },
    play(name) {
      if (!this.on || S.skip) return;
      // A chain of explosions is one crackle, not a hundred.
      const now = performance.now();
      if (now - (this.last[name] || 0) < 45) return;
      this.last[name] = now;
      const ac = this.audio();
      if (!ac) return;
      sounds.push(name);
      switch (name) {
        case 'click': this.tone(ac, 'triangle', 880, 660, 0, 0.07, 0.18); break;
        case 'explode': this.noise(ac, 0, 0.12, 0.5, 1800); break;
        case 'milky_way': this.tone(ac, 'sine', 300, 900, 0, 0.35, 0.15); this.noise(ac, 0.05, 0.3, 0.25, 3000); break;
        case 'supernova': this.tone(ac, 'sawtooth', 140, 50, 0, 0.45, 0.2); this.noise(ac, 0, 0.4, 0.5, 600); break;
        case 'shooting_star': this.tone(ac, 'sine', 1800, 400, 0, 0.4, 0.12); break;
        case 'extra': [523, 659, 784].forEach((f, i) => this.tone(ac, 'square', f, f, i * 0.09, 0.12, 0.08)); break;
        case 'gain': this.tone(ac, 'sine', 1320, 1320, 0, 0.09, 0.15); this.tone(ac, 'sine', 1760, 1760, 0.07, 0.16, 0.15); break;
        case 'lose': this.tone(ac, 'sine', 330, 220, 0, 0.4, 0.12); break;
        case 'win': [523, 659, 784, 1047].forEach((f, i) => this.tone(ac, 'triangle', f, f, i * 0.08, 0.2, 0.14)); break;
        case 'bigwin': [523, 659, 784, 1047, 1319, 1568].forEach((f, i) => this.tone(ac, 'square', f, f * 1.01, i * 0.11, 0.35, 0.09)); break;
        case 'goodwin': [523, 659, 784, 1047, 1319].forEach((f, i) => this.tone(ac, 'triangle', f, f, i * 0.09, 0.26, 0.14)); break;
        case 'topwin':
          [523, 659, 784, 1047, 1319, 1568, 2093].forEach((f, i) => this.tone(ac, 'square', f, f * 1.01, i * 0.12, 0.4, 0.09));
          [1047, 1319, 1568, 2093].forEach((f, i) => this.tone(ac, 'sine', f, f, 0.9 + i * 0.06, 0.9, 0.08));
          this.noise(ac, 0.85, 0.6, 0.2, 5000);
          break;
      }
    },
  };
  $('#sound').setAttribute('aria-pressed', Sound.on ? 'true' : 'false');

  // ---- the sky ----
  const cells = [];
  for (let i = 0; i < 42; i++) {
    const b = document.createElement('button');
    b.type = 'button';
    b.className = 'star';
    b.dataset.cell = String(i);
    b.innerHTML =
      '<svg class="shape" aria-hidden="true"><use href="#star"/></svg>' +
      '<svg class="mark" aria-hidden="true"><use href=""/></svg>' +
      '<span class="content" aria-hidden="true"></span>';
    b.style.setProperty('--i', String(i));
    sky.appendChild(b);
    cells.push(b);
  }
  const rowCol = i => [Math.floor(i / 7), i % 7];

  function contentLabel(cell) {
    switch (cell.kind) {
      case 'amount': return money(cell.amount);
      case 'supernova': return t('supernova', colorName(cell.color));
      case 'shooting_star': return t('shooting_star', cell.direction);
      default: return t(cell.kind);
    }
  }
  function paintContent(el, cell) {
    const c = el.querySelector('.content');
    el.dataset.kind = cell.kind;
    delete el.dataset.target;
    delete el.dataset.dir;
    switch (cell.kind) {
      case 'amount':
        c.textContent = money(cell.amount);
        break;
      case 'milky_way':
        c.innerHTML = '<svg><use href="#milky"/></svg>';
        break;
      case 'supernova':
        el.dataset.target = String(cell.color);
        c.innerHTML = `<svg class="nv"><use href="#nova"/></svg><svg class="nm"><use href="#m${cell.color}"/></svg>`;
        break;
      case 'shooting_star':
        el.dataset.dir = cell.direction;
        c.innerHTML = '<svg><use href="#shoot"/></svg>';
        break;
      case 'extra':
        c.textContent = 'EXTRA';
        break;
      default:
        c.textContent = '';
    }
  }
  // paintStar shows one star as the game stands: its colour, and its content once revealed.
  function paintStar(i, board, g) {
    const el = cells[i];
    const color = board ? board.colors[i] : null;
    const cell = board ? board.cells[i] : null;
    el.classList.remove('pop', 'vanish', 'appear', 'hit', 'pending');
    if (color === null) {
      delete el.dataset.color;
      el.querySelector('.mark use').setAttribute('href', '');
    } else {
      el.dataset.color = String(color);
      el.querySelector('.mark use').setAttribute('href', '#m' + color);
    }
    if (cell) {
      el.dataset.state = 'revealed';
      paintContent(el, cell);
    } else {
      el.dataset.state = 'hidden';
      delete el.dataset.kind;
      el.querySelector('.content').textContent = '';
    }
    label(i, board, g);
  }
  function playable(i, g) {
    return (
      S.mode === 'play' && g && g.status === 'playing' && S.shownBoard === 1 &&
      g.boards[0].colors[i] === g.color && !g.boards[0].cells[i] && !cells[i].classList.contains('pending')
    );
  }
  function label(i, board, g) {
    const el = cells[i];
    const color = board ? board.colors[i] : null;
    const cell = board ? board.cells[i] : null;
    const can = board && playable(i, g);
    el.classList.toggle('playable', !!can);
    el.setAttribute('aria-disabled', can ? 'false' : 'true');
    el.tabIndex = can ? 0 : -1;
    const name = color === null ? t('sleeping') : colorName(color);
    const what = el.dataset.state === 'revealed' && cell ? contentLabel(cell) : can ? t('toClick') : t('hidden');
    el.setAttribute('aria-label', t('star', i + 1, name, what));
  }
  function board(g) {
    return g && g.boards[S.shownBoard - 1];
  }
  function relabel() {
    const g = S.replay ? S.replay.view : S.game;
    const b = board(g);
    cells.forEach((_, i) => label(i, b, g));
    sky.setAttribute('aria-label', t('sky'));
  }
  function drawBoard(g, n, hiddenAll) {
    S.shownBoard = n;
    sky.dataset.board = String(n);
    const b = g.boards[n - 1];
    const shown = hiddenAll ? { colors: b.colors, cells: new Array(42).fill(null) } : b;
    cells.forEach((_, i) => paintStar(i, shown, g));
    sky.classList.toggle('chosen', g.color !== null);
    if (g.color !== null) sky.dataset.chosen = String(g.color);
    else delete sky.dataset.chosen;
  }
  function drawSleeping() {
    S.shownBoard = 0;
    delete sky.dataset.chosen;
    sky.dataset.board = '0';
    cells.forEach((_, i) => paintStar(i, null, null));
  }

  // ---- text on screen ----
  function status(msg) {
    $('#status').textContent = msg || '';
  }
  function announce(msg) {
    $('#announce').textContent = msg;
  }
  function banner(msg) {
    const b = $('#banner');
    b.textContent = msg;
    b.classList.remove('show');
    void b.offsetWidth;
    b.classList.add('show');
  }
  function renderBalance() {
    const el = $('#balance');
    const c = S.balance - S.hold;
    el.dataset.cents = String(c);
    el.textContent = S.user ? money(c) : '—';
  }
  function renderTotal(bump) {
    const el = $('#total');
    el.dataset.cents = String(S.total);
    el.textContent = money(S.total);
    if (bump) {
      el.classList.remove('bump');
      void el.offsetWidth;
      el.classList.add('bump');
    }
  }
  function renderResult() {
    const el = $('#result');
    if (!S.result) {
      el.textContent = '';
      el.className = 'result';
      return;
    }
    el.textContent = S.result.prize > 0 ? t('won', money(S.result.prize)) : t('lost');
    el.className = 'result ' + (S.result.prize > 0 ? 'won' : 'lost');
  }
  function setResult(r, state) {
    S.result = r;
    $('#result').dataset.state = state;
    renderResult();
  }
  function controls() {
    const locked = S.mode !== 'idle';
    $('#play').disabled = locked;
    $('#auto').disabled = locked;
    $('#colors').hidden = S.mode !== 'choose';
    $('#autoctl').hidden = S.mode !== 'auto';
    $('#replayctl').hidden = S.mode !== 'replay';
    // "loading" until the session is known: a test (or a style) must not take the page for
    // logged out while /me is on its way.
    body.dataset.state = !S.known ? 'loading' : S.user ? S.mode : 'auth';
    $$('#history button.replay').forEach(b => (b.disabled = locked));
    renderUnfinished();
    lockReason(locked);
    demoEnd();
  }

  // ---- effects ----
  function center(el, rel) {
    const r = el.getBoundingClientRect();
    const o = rel ? rel.getBoundingClientRect() : { left: 0, top: 0 };
    return [r.left - o.left + r.width / 2, r.top - o.top + r.height / 2];
  }
  function spark(cls, x, y, color) {
    const d = document.createElement('div');
    d.className = 'spark ' + cls;
    d.style.left = x + 'px';
    d.style.top = y + 'px';
    if (color !== undefined) d.dataset.color = String(color);
    fx.appendChild(d);
    return d;
  }
  async function effect(g, bn, i) {
    const cell = g.boards[bn - 1].cells[i];
    const el = cells[i];
    const [x, y] = center(el, fx);
    if (cell.kind === 'milky_way') {
      status(t('milky'));
      if (dur(520) > 0) {
        const d = spark('ring', x, y);
        await d.animate(
          [{ transform: 'translate(-50%,-50%) scale(.2)', opacity: 1 }, { transform: 'translate(-50%,-50%) scale(3.4)', opacity: 0 }],
          { duration: dur(520), easing: 'cubic-bezier(.2,.7,.3,1)' }).finished.catch(() => {});
        d.remove();
      }
    } else if (cell.kind === 'supernova') {
      status(t('nova', colorName(cell.color)));
      if (dur(520) > 0) {
        const d = spark('flash', 0, 0, cell.color);
        const same = cells.filter((c, j) => g.boards[bn - 1].colors[j] === cell.color);
        same.forEach(c => c.animate([{ transform: 'scale(1)' }, { transform: 'scale(1.25)' }, { transform: 'scale(1)' }], { duration: dur(480) }));
        await d.animate([{ opacity: 0 }, { opacity: 0.55 }, { opacity: 0 }], { duration: dur(520) }).finished.catch(() => {});
        d.remove();
      }
    } else if (cell.kind === 'shooting_star') {
      status(t('shoot'));
      if (dur(520) > 0) {
        const [r, c] = rowCol(i);
        const rising = cell.direction === 'rising';
        // The ends of the diagonal: rising (↗) from bottom-left to top-right, falling (↘) from top-left to bottom-right.
        let a = [r, c], b = [r, c];
        if (rising) {
          while (a[0] < 5 && a[1] > 0) a = [a[0] + 1, a[1] - 1];
          while (b[0] > 0 && b[1] < 6) b = [b[0] - 1, b[1] + 1];
        } else {
          while (a[0] > 0 && a[1] > 0) a = [a[0] - 1, a[1] - 1];
          while (b[0] < 5 && b[1] < 6) b = [b[0] + 1, b[1] + 1];
        }
        const [x0, y0] = center(cells[a[0] * 7 + a[1]], fx);
        const [x1, y1] = center(cells[b[0] * 7 + b[1]], fx);
        const ang = (Math.atan2(y1 - y0, x1 - x0) * 180) / Math.PI;
        const d = spark('streak', 0, 0);
        await d.animate(
          [
            { transform: `translate(${x0}px,${y0}px) rotate(${ang}deg) scaleX(.2)`, opacity: 0 },
            { transform: `translate(${(x0 + x1) / 2}px,${(y0 + y1) / 2}px) rotate(${ang}deg) scaleX(1)`, opacity: 1, offset: 0.5 },
            { transform: `translate(${x1}px,${y1}px) rotate(${ang}deg) scaleX(.3)`, opacity: 0 },
          ],
          { duration: dur(560), easing: 'ease-in-out' }).finished.catch(() => {});
        d.remove();
      }
    }
  }
  function flyAmount(el, amount) {
    const land = () => {
      S.total += amount;
      renderTotal(true);
      Sound.play('gain');
    };
    if (dur(760) <= 0) {
      land();
      return Promise.resolve();
    }
    const [x0, y0] = center(el);
    const [x1, y1] = center($('#total'));
    const chip = document.createElement('div');
    chip.className = 'chip';
    chip.textContent = '+' + money(amount);
    fly.appendChild(chip);
    const a = chip.animate(
      [
        { transform: `translate(${x0}px,${y0}px) translate(-50%,-50%) scale(1.3)`, opacity: 1 },
        { transform: `translate(${x0 + (x1 - x0) * 0.3}px,${Math.min(y0, y1) - 40}px) translate(-50%,-50%) scale(1.1)`, opacity: 1, offset: 0.4 },
        { transform: `translate(${x1}px,${y1}px) translate(-50%,-50%) scale(.5)`, opacity: 0.2 },
      ],
      { duration: dur(760), easing: 'ease-in' });
    return a.finished.catch(() => {}).then(() => {
      chip.remove();
      land();
    });
  }

  // reveal shows one event's star, then its symbol's explosion.
  async function reveal(g, ev) {
    const cell = g.boards[ev.board - 1].cells[ev.cell];
    const el = cells[ev.cell];
    el.classList.remove('pending', 'playable');
    el.dataset.state = 'revealed';
    paintContent(el, cell);
    label(ev.cell, g.boards[ev.board - 1], g);
    el.classList.remove('pop', 'hit');
    void el.offsetWidth;
    el.classList.add(ev.cause === 'click' || ev.cause === 'auto' ? 'pop' : 'hit');
    if (ev.cause !== 'click' && ev.cause !== 'auto') Sound.play('explode');
    if (['milky_way', 'supernova', 'shooting_star', 'extra'].includes(cell.kind)) Sound.play(cell.kind);
    announce(el.getAttribute('aria-label'));
    if (cell.kind === 'amount') S.flights.push(flyAmount(el, cell.amount));
    await wait(ev.cause === 'click' || ev.cause === 'auto' ? 300 : 190);
    if (cell.kind === 'extra' && ev.board === 1) {
      status(t('extraFound'));
      banner('EXTRA');
      await wait(500);
    }
    if (['milky_way', 'supernova', 'shooting_star'].includes(cell.kind)) await effect(g, ev.board, ev.cell);
  }

  // The Extra stage [4.6.1]: the other stars vanish, and 42 new stars appear.
  async function extraStage(g) {
    status(t('extraStage'));
    banner(t('extraBanner'));
    announce(t('extraStage'));
    await wait(500);
    cells.forEach(c => c.classList.add('vanish'));
    await wait(700);
    drawBoard(g, 2, true);
    cells.forEach(c => c.classList.add('appear'));
    await wait(800);
    cells.forEach(c => c.classList.remove('appear'));
  }

  // animate plays events [from, to) of a game, in order; it stops if another run starts.
  async function animate(g, from, to) {
    const run = S.run;
    for (let i = from; i < to; i++) {
      if (run !== S.run) return false;
      const ev = g.events[i];
      if (ev.board !== S.shownBoard) await extraStage(g);
      if (run !== S.run) return false;
      await reveal(g, ev);
    }
    await Promise.all(S.flights);
    S.flights = [];
    return run === S.run;
  }
  function won(g) {
    let sum = 0;
    for (const b of g.boards) for (const c of b.cells) if (c && c.kind === 'amount') sum += c.amount;
    return sum;
  }
  // renderGains shows, at the end of a game (or of its replay), every amount that makes its
  // prize, in the order they were found, those of the Extra stage apart [4.6.1, 4.7].
  function renderGains(g) {
    const el = $('#gains');
    el.textContent = '';
    if (!g) {
      el.dataset.cents = '';
      return;
    }
    const per = [[], []];
    for (const ev of g.events) {
      const c = g.boards[ev.board - 1].cells[ev.cell];
      if (c && c.kind === 'amount') per[ev.board - 1].push(c.amount);
    }
    const all = per[0].length + per[1].length;
    el.dataset.cents = String(per[0].concat(per[1]).reduce((a, b) => a + b, 0));
    const span = (cls, text) => {
      const x = document.createElement('span');
      x.className = cls;
      x.textContent = text;
      el.appendChild(x);
    };
    if (!all) {
      span('none', t('noGain'));
      return;
    }
    span('lbl', t('gainsOf'));
    per.forEach((list, b) => {
      if (!list.length) return;
      if (b === 1) span('lbl', t('extraGains'));
      list.forEach((a, i) => {
        if (i > 0) span('sep', '+');
        span('g' + (b === 1 ? ' b2' : ''), money(a));
      });
    });
    if (all > 1) span('eq', '= ' + money(g.prize));
  }
  // celebrate marks a win by its size against the stake: small, good (10 times the stake) or
  // big (100 times), each with its own effect and sound.
  function winTier(g) {
    if (!g || g.prize <= 0) return '';
    if (topOf(g.stake) > 0 && g.prize >= topOf(g.stake)) return 'top';
    return g.prize >= 100 * g.stake ? 'big' : g.prize >= 10 * g.stake ? 'good' : 'small';
  }
  function celebrate(g, withBanner) {
    const tier = winTier(g);
    const box = $('#celebrate');
    box.textContent = '';
    $('#result').dataset.win = tier || 'none';
    box.dataset.win = tier;
    if (!tier || motionless()) return;
    const n = { small: 10, good: 24, big: 60, top: 96 }[tier];
    for (let i = 0; i < n; i++) {
      const p = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
      p.setAttribute('class', 'p');
      p.innerHTML = '<use href="#star"/>';
      p.style.setProperty('--a', (i * 360) / n + 'deg');
      p.style.setProperty('--r', (tier === 'small' ? 90 : 160) + (i % 3) * 30 + 'px');
      p.style.setProperty('--x', ((i * 37) % 100) + '%');
      p.style.setProperty('--d', String(tier === 'big' || tier === 'top' ? (i * 53) % (tier === 'top' ? 1600 : 900) : (i % 4) * 40));
      box.appendChild(p);
    }
    if (withBanner) {
      const b = $('#banner');
      b.classList.remove('good', 'big');
      if (tier !== 'small') b.classList.add(tier);
      banner(tier === 'big' ? t('bigWin') + ' ' + money(g.prize) : tier === 'good' ? t('goodWin') + ' ' + money(g.prize) : t('won', money(g.prize)));
    }
  }

  // ---- a game ----
  function resetStage() {
    S.run++;
    S.flights = [];
    fx.textContent = '';
    fly.textContent = '';
    S.total = 0;
    renderTotal();
    setResult(null, 'idle');
    renderGains(null);
    celebrate(null);
    hideCard();
    $('#played').hidden = true;
    setSpeed(baseSpeed);
  }
  async function buy(mode, again) {
    if (S.mode !== 'idle') return;
    if (again) $(`input[name=stake][value="${again}"]`).checked = true;
    showTop();
    const stake = Number($('input[name=stake]:checked').value);
    $('#play-err').textContent = '';
    S.mode = 'buying';
    setResult(null, 'idle');
    controls();
    let g;
    try {
      g = await apiMoney('POST', '/games', { stake, mode });
    } catch (e) {
      S.mode = 'idle';
      controls();
      // The wallet refused the stake: the balance it holds may not be the one shown.
      if (wallet && ['insufficient_funds', 'limit_reached', 'player_blocked'].includes(e.code)) refreshBalance();
      $('#play-err').textContent = await refused(e, 'stake_weekly');
      return;
    }
    S.buys++;
    tell({ type: 'game', game: g });
    S.balance = g.balance;
    S.hold = g.prize;
    S.last = { stake, mode };
    setShowing(g.id);
    renderBalance();
    resetStage();
    S.game = g;
    if (mode === 'auto') return runAuto(g);
    drawSleeping();
    S.mode = 'choose';
    controls();
    status(t('choose'));
    $('#colors .swatch').focus();
  }
  async function chooseColor(c) {
    const g0 = S.game;
    if (!g0 || S.mode !== 'choose') return;
    $$('#colors .swatch').forEach(b => (b.disabled = true));
    try {
      const g = await api('POST', `/games/${g0.id}/color`, { color: c });
      tell({ type: 'game', game: g });
      S.game = g;
      S.mode = 'play';
      controls();
      drawBoard(g, 1, false);
      status(t('click', colorName(g.color)));
      const first = cells.find(el => el.classList.contains('playable'));
      if (first) first.focus();
    } catch (e) {
      if (!(e.status === 409 && (await resync(g0.id)))) $('#play-err').textContent = errText(e);
    } finally {
      $$('#colors .swatch').forEach(b => (b.disabled = false));
    }
  }
  function clickStar(i) {
    const g = S.game;
    if (!playable(i, g)) return;
    const el = cells[i];
    el.classList.add('pending');
    label(i, g.boards[0], g);
    Sound.play('click');
    busy(1);
    S.queue = S.queue
      .then(async () => {
        const cur = S.game;
        if (!cur || cur.id !== g.id || cur.status !== 'playing' || cur.boards[0].cells[i]) return;
        const before = cur.events.length;
        const next = await api('POST', `/games/${cur.id}/reveal`, { cell: i });
        tell({ type: 'game', game: next });
        S.game = next;
        await animate(next, before, next.events.length);
        if (next.status === 'finished') await finishShow(next);
        else {
          status(t('click', colorName(next.color)));
          relabel();
          // The keyboard goes on from a star still to click.
          const f = document.activeElement;
          if (!f || f === body || (f.classList.contains('star') && !f.classList.contains('playable'))) {
            const first = cells.find(c => c.classList.contains('playable'));
            if (first) first.focus();
          }
        }
      })
      .catch(async e => {
        el.classList.remove('pending');
        // Another tab or device moved first: the game is shown as it now stands, not an error.
        if (e.status === 409 && (await resync(g.id))) return;
        $('#play-err').textContent = errText(e);
        relabel();
      })
      .finally(() => busy(-1));
  }
  async function finishShow(g) {
    await Promise.all(S.flights);
    S.flights = [];
    S.total = won(g);
    renderTotal();
    S.hold = 0;
    renderBalance();
    S.mode = 'idle';
    S.game = g;
    setShowing(0);
    setResult({ prize: g.prize }, 'done');
    $('#result').dataset.game = String(g.id);
    renderGains(g);
    // « Passer » skipped the reveal: the card and its celebration play at the page's speed.
    setSpeed(baseSpeed);
    celebrate(g, false);
    status(t('ready'));
    controls();
    relabel();
    showCard(g, false);
    if (S.history.length) loadHistory();
  }
  async function runAuto(g) {
    S.mode = 'auto';
    controls();
    busy(1);
    try {
      drawBoard(g, 1, true);
      status(t('auto', colorName(g.color)));
      await wait(500);
      if (await animate(g, 0, g.events.length)) await finishShow(g);
    } finally {
      busy(-1);
    }
  }
  // resume shows an unfinished game as it stands, ready to go on [4.1].
  function resume(g) {
    resetStage();
    S.game = g;
    S.hold = g.prize;
    setShowing(g.id);
    renderBalance();
    if (g.status === 'choose_color') {
      drawSleeping();
      S.mode = 'choose';
      controls();
      status(t('choose'));
      return;
    }
    playOn(g, t('resumed') + ' ' + t('click', colorName(g.color)));
  }
  // playOn shows a game in play as it stands (resumed, or moved elsewhere), saying msg.
  function playOn(g, msg) {
    S.mode = 'play';
    controls();
    drawBoard(g, 1, false);
    S.total = won(g);
    renderTotal();
    status(msg);
  }

  // ---- replay ----
  async function openReplay(id) {
    if (S.mode !== 'idle') return;
    const g = await api('GET', `/games/${id}`);
    if (g.status !== 'finished') return;
    resetStage();
    // The replay shows the game as it was before any reveal, and reveals it step by step.
    const steps = [];
    g.events.forEach((ev, i) => {
      if (ev.cause === 'click' || ev.cause === 'auto' || steps.length === 0) steps.push(i);
    });
    steps.push(g.events.length);
    S.replay = { game: g, view: g, steps, at: 0 };
    S.mode = 'replay';
    controls();
    location.hash = '#jeu';
    drawBoard(g, 1, true);
    route();
    boardIntoView();
    status(t('replay', g.id, colorName(g.color)));
    $('#replayctl').dataset.step = '0';
    $('#step').disabled = false;
    $('#replay-all').disabled = false;
    $('#step').focus();
  }
  async function replayStep(all) {
    const r = S.replay;
    if (!r || r.busy) return;
    r.busy = true;
    busy(1);
    try {
      if (all) setSpeed(baseSpeed * 2);
      do {
        if (r.at >= r.steps.length - 1) break;
        const ok = await animate(r.game, r.steps[r.at], r.steps[r.at + 1]);
        if (!ok) return;
        r.at++;
        $('#replayctl').dataset.step = String(r.at);
      } while (all);
      if (r.at >= r.steps.length - 1) {
        S.total = won(r.game);
        renderTotal();
        setResult({ prize: r.game.prize }, 'replayed');
        $('#result').dataset.game = String(r.game.id);
        renderGains(r.game);
        setSpeed(baseSpeed);
        celebrate(r.game, false);
        status(t('replayDone'));
        $('#step').disabled = true;
        $('#replay-all').disabled = true;
        showCard(r.game, true);
      }
    } finally {
      r.busy = false;
      busy(-1);
    }
  }
  function closeReplay() {
    S.replay = null;
    S.mode = 'idle';
    resetStage();
    drawSleeping();
    controls();
    status(t('ready'));
  }

  // ---- history and proofs ----
  let historySeq = 0;
  async function loadHistory(more) {
    const seq = ++historySeq;
    const ol = $('#history');
    ol.setAttribute('aria-busy', 'true');
    try {
      const before = more && S.history.length ? `&before=${S.history[S.history.length - 1].id}` : '';
      const list = await api('GET', '/games?limit=20' + before);
      if (seq !== historySeq) return; // a later load answers instead
      const games = more ? S.history.concat(list.games) : list.games;
      $('#more').hidden = list.games.length < 20;
      // The same games are not drawn again: the buttons under the pointer stay where they are.
      const drawn = JSON.stringify(games) + '|' + S.showing;
      if (drawn === S.historyDrawn && ol.children.length) return;
      S.history = games;
      renderHistory();
    } finally {
      if (seq === historySeq) ol.setAttribute('aria-busy', 'false');
    }
  }
  function renderHistory() {
    const ol = $('#history');
    ol.textContent = '';
    S.historyDrawn = JSON.stringify(S.history) + '|' + S.showing;
    $('#history-empty').hidden = S.history.length > 0;
    const fmt = new Intl.DateTimeFormat(lang() === 'en' ? 'en-GB' : 'fr-FR', { dateStyle: 'short', timeStyle: 'short' });
    for (const g of S.history) {
      const li = document.createElement('li');
      li.className = 'hrow';
      li.dataset.id = String(g.id);
      // The game this tab is revealing reads the same here, won or lost, until its reveal ends
      // on screen. Any other game shows its result, finished or not [4.1].
      const onShow = S.showing === g.id;
      const cls = onShow ? 'open' : g.prize > 0 ? 'won' : 'lost';
      const res = onShow ? t('open') : g.prize > 0 ? t('won', money(g.prize)) : t('lost');
      li.dataset.state = onShow ? 'showing' : g.status;
      li.innerHTML =
        `<span class="hid"></span><span class="hdate"></span><span class="hstake"></span><span class="hmode"></span>` +
        `<span class="hres ${cls}"></span><span class="hact"></span>`;
      li.querySelector('.hid').textContent = t('game', g.id);
      li.querySelector('.hdate').textContent = fmt.format(new Date(g.created_at));
      li.querySelector('.hstake').textContent = money(g.stake);
      li.querySelector('.hmode').textContent = g.mode === 'auto' ? t('autoMode') : t('manual');
      li.querySelector('.hres').textContent = res;
      const act = li.querySelector('.hact');
      const btn = (cls, text, fn, disabled) => {
        const b = document.createElement('button');
        b.type = 'button';
        b.className = cls;
        b.textContent = text;
        b.disabled = !!disabled;
        b.setAttribute('aria-label', `${text} — ${t('game', g.id)}`);
        b.addEventListener('click', fn);
        act.appendChild(b);
      };
      if (onShow) btn('resume', t('resume'), () => (location.hash = '#jeu'));
      else if (g.status !== 'finished') btn('resume', t('resume'), () => resumeGame(g.id).catch(showErr), S.mode !== 'idle');
      else {
        btn('replay', t('replayBtn'), () => openReplay(g.id).catch(showErr), S.mode !== 'idle');
        btn('proofbtn', t('proofBtn'), () => showProof(g).catch(showErr));
      }
      ol.appendChild(li);
    }
    lockReason(S.mode !== 'idle');
  }
  // resumeGame brings an unfinished game (begun in another tab, on another device) to this tab.
  async function resumeGame(id) {
    if (S.mode !== 'idle') throw Object.assign(new Error('busy'), { code: 'busy' });
    const [g, me] = await Promise.all([api('GET', `/games/${id}`), api('GET', '/me')]);
    location.hash = '#jeu';
    if (g.status === 'finished') return openReplay(g.id);
    S.balance = me.balance; // the game was bought elsewhere: the balance moved there
    resume(g);
  }
  function showErr(e) {
    announce(errText(e));
    $('#play-err').textContent = errText(e);
  }
  function hex(b) {
    return Array.from(b, x => x.toString(16).padStart(2, '0')).join('');
  }
  function unhex(s) {
    if (!/^([0-9a-f]{2})*$/i.test(s)) throw new Error('bad hex');
    const out = new Uint8Array(s.length / 2);
    for (let i = 0; i < out.length; i++) out[i] = parseInt(s.substr(2 * i, 2), 16);
    return out;
  }
  async function sha256(...parts) {
    const n = parts.reduce((a, p) => a + p.length, 0);
    const buf = new Uint8Array(n);
    let o = 0;
    for (const p of parts) {
      buf.set(p, o);
      o += p.length;
    }
    return new Uint8Array(await crypto.subtle.digest('SHA-256', buf));
  }
  // rootFromPath recomputes a block's root from a unit's audit line and its inclusion proof, as
  // RFC 6962 (RFC 9162 §2.1.3.2) tells: leaf = SHA-256(0x00 ‖ line), node = SHA-256(0x01 ‖ l ‖ r).
  // It returns the root in hex, or null when the path cannot belong to a tree of that size.
  async function rootFromPath(line, index, size, path) {
    if (!(index >= 0 && index < size)) return null;
    let r = await sha256(Uint8Array.of(0), new TextEncoder().encode(line));
    let fn = index, sn = size - 1;
    for (const h of path) {
      const p = unhex(h);
      if (sn === 0) return null;
      if (fn % 2 === 1 || fn === sn) {
        r = await sha256(Uint8Array.of(1), p, r);
        while (fn % 2 === 0 && fn !== 0) {
          fn = Math.floor(fn / 2);
          sn = Math.floor(sn / 2);
        }
      } else {
        r = await sha256(Uint8Array.of(1), r, p);
      }
      fn = Math.floor(fn / 2);
      sn = Math.floor(sn / 2);
    }
    return sn === 0 ? hex(r) : null;
  }
  async function showProof(g) {
    const dlg = $('#proof');
    const st = $('#proof-status');
    const facts = $('#proof-facts');
    st.textContent = t('checking');
    st.dataset.verified = '';
    st.className = 'verdict';
    facts.textContent = '';
    openDialog(dlg);
    const [p, em] = await Promise.all([api('GET', `/games/${g.id}/proof`), api('GET', '/emissions')]);
    const e = em.emissions.find(x => x.id === p.emission);
    const blk = e && e.blocks.find(b => b.block === p.block);
    let computed = null, ok = false, linePrize = null;
    if (!(crypto && crypto.subtle)) {
      st.textContent = t('noCrypto');
    } else {
      try {
        const rec = JSON.parse(p.line);
        linePrize = rec.prize;
        computed = blk ? await rootFromPath(p.line, p.index, blk.units, p.path) : null;
        ok = !!blk && computed === blk.root && p.root === blk.root && rec.i === p.index && rec.prize === g.prize;
      } catch (err) {
        ok = false;
      }
      st.textContent = ok ? t('verified') : t('notVerified');
    }
    st.dataset.verified = ok ? 'true' : 'false';
    st.className = 'verdict ' + (ok ? 'ok' : 'ko');
    const add = (k, v, cls) => {
      const dt = document.createElement('dt');
      dt.textContent = t(k);
      const dd = document.createElement('dd');
      if (cls) dd.className = cls;
      if (Array.isArray(v)) {
        const ol = document.createElement('ol');
        for (const x of v) {
          const li = document.createElement('li');
          li.textContent = x;
          ol.appendChild(li);
        }
        dd.appendChild(ol);
      } else dd.textContent = v;
      facts.append(dt, dd);
    };
    add('fEmission', p.emission);
    add('fBlock', String(p.block));
    add('fIndex', String(p.index));
    add('fPrize', linePrize === null ? '—' : money(linePrize));
    add('fLine', p.line, 'mono line');
    add('fPath', p.path, 'mono');
    add('fRoot', p.root, 'mono');
    add('fPublished', blk ? blk.root : '—', 'mono');
    add('fComputed', computed || '—', 'mono ' + (ok ? 'ok' : 'ko'));
  }

  // ---- accounts ----
  // refreshBalance reads the wallet's balance again (wallet mode), for an idle page: an answer
  // that a sale overtook is not shown.
  function refreshBalance() {
    if (!S.user || S.mode !== 'idle') return;
    const last = S.last;
    api('GET', '/me')
      .then(me => {
        if (S.user !== me.username || S.mode !== 'idle' || S.last !== last) return;
        S.balance = me.balance;
        renderBalance();
      })
      .catch(() => {});
  }
  // onLogin shows the player's page; fresh: a login here, which starts a new session.
  async function onLogin(me, fresh) {
    S.known = true;
    S.user = me.username;
    S.balance = me.balance;
    setSession(me.session);
    S.said = null;
    sayOut();
    if (!wallet) loadLimits().catch(() => {}); // for the reality checks (the operator's, in wallet mode)
    tick();
    scrollTo(0, 0);
    S.hold = 0;
    $('#user').textContent = wallet ? '' : me.username; // an operator's player is named by the operator
    body.classList.add('in');
    const list = await api('GET', '/games?limit=10');
    S.history = [];
    // A page just opened (a new tab, a reload, another device) reveals nothing yet: it takes no
    // game over, and every game of the history shows its result [4.1]. An unfinished one is
    // offered plainly on the game screen.
    const was = S.showing;
    setShowing(0);
    S.mode = 'idle';
    resetStage();
    drawSleeping();
    S.unfinished = list.games.find(g => g.status !== 'finished') || null;
    controls();
    status(wallet ? t('ready') : t('welcome', me.username));
    renderBalance();
    route();
    // The page was revealing a game when it reloaded: it says the game was played, its result
    // and a way to watch it [4.1].
    if (was) await showPlayed(was).catch(() => {});
  }
  async function showPlayed(id) {
    const g = await api('GET', `/games/${id}`);
    if (g.status !== 'finished') return;
    const res = g.prize > 0 ? t('won', money(g.prize)) : t('lost');
    const p = $('#played-text');
    p.textContent = t('played', g.id, res);
    p.className = g.prize > 0 ? 'won' : '';
    const box = $('#played');
    box.dataset.game = String(g.id);
    box.hidden = false;
    announce(p.textContent);
    $('#played-replay').focus();
  }
  // onLogout shows the page logged out, with what to tell the player (a function, so that it
  // can be told again in the other language).
  function onLogout(said) {
    S.demo = false;
    renderDemo();
    S.known = true;
    S.user = null;
    S.limits = null;
    sess = null;
    S.unfinished = null;
    $$('dialog[open]').forEach(d => d.close());
    S.said = said || null;
    sayOut();
    S.game = null;
    S.hold = 0;
    S.mode = 'idle';
    S.replay = null;
    S.history = [];
    body.classList.remove('in');
    resetStage();
    drawSleeping();
    renderBalance();
    controls();
    route();
    if (said) $('#auth-msg').focus();
  }
  function sayOut() {
    const m = $('#auth-msg');
    m.hidden = !S.said;
    m.textContent = S.said ? S.said() : '';
  }
  function authForm(form, signUp) {
    form.addEventListener('submit', async e => {
      e.preventDefault();
      const err = form.querySelector('.err');
      err.textContent = '';
      const cred = { username: form.username.value.trim(), password: form.password.value };
      if (!cred.username || !cred.password) {
        err.textContent = errText({ code: 'invalid_input' });
        return;
      }
      form.querySelector('button[type=submit]').disabled = true;
      try {
        if (signUp) {
          const who = { last_name: form.last_name.value.trim(), first_names: form.first_names.value.trim(), birth_date: form.birth_date.value };
          if (!who.last_name || !who.first_names || !who.birth_date) {
            err.textContent = errText({ code: 'invalid_identity' });
            return;
          }
          await api('POST', '/players', Object.assign({}, cred, who));
        }
        await api('POST', '/session', cred);
        await onLogin(await api('GET', '/me'), true);
        form.reset();
      } catch (e2) {
        err.textContent = errText(e2);
      } finally {
        form.querySelector('button[type=submit]').disabled = false;
      }
    });
  }

  // ---- dialogs ----
  // openDialog shows a modal dialog with the focus in it (on `focus`, or its first control);
  // when it closes, the focus goes back to what had it (or to `back`), if still on screen.
  function openDialog(d, focus, back) {
    if (!d.open) {
      d.ret = back || document.activeElement;
      d.showModal();
    }
    if (focus) focus.focus();
  }
  $$('dialog').forEach(d =>
    d.addEventListener('close', () => {
      const r = d.ret;
      d.ret = null;
      if (r && r.isConnected && r.offsetParent !== null && !$('dialog[open]')) r.focus();
    }));
  $$('dialog [data-close]').forEach(b => b.addEventListener('click', () => b.closest('dialog').close()));

  // ---- money typed in euros ----
  // cents reads "12", "12,5" or "12.50" as whole cents, by splitting on the separator: no
  // floating point on the way. It returns null for anything else, or above 1 000 000 €.
  function cents(s) {
    const m = /^(\d{1,7})(?:[.,](\d{1,2}))?$/.exec(s.replace(/[\s\u00a0\u202f€]/g, ''));
    if (!m) return null;
    const c = Number(m[1]) * 100 + Number((m[2] || '').padEnd(2, '0'));
    return c <= 100000000 ? c : null;
  }
  const euroInput = c => {
    if (c === null || c === undefined) return '';
    const f = c % 100 ? (lang() === 'en' ? '.' : ',') + String(c % 100).padStart(2, '0') : '';
    return Math.floor(c / 100) + f;
  };

  // ---- the session: its time and its result, for the reality checks ----
  // The play session is the server's (GET /api/v1/me, `session`): it began when the player's
  // earliest session still live was opened, on whatever device, and its figures count every game
  // sold since. So every tab and every device shows the same time and the same result, and a
  // check answered « Continuer » anywhere is kept by the server (POST /api/v1/me/reality-check)
  // and not asked again elsewhere; tabs of this browser are also told at once (BroadcastChannel).
  // ?speed=N runs the session's clock N times faster too (never slower), so that a test sees a
  // reality check of 15 minutes after 15 × 60 / N seconds: 1.5 s at speed=600.
  const clockSpeed = Math.max(1, Number(params.get('speed')) || 1);
  let sess = null; // {start (ms), staked, won, net, checked (minutes)}
  function setSession(v) {
    if (!v) return;
    const start = Date.parse(v.started_at);
    // A check answered in this tab may be ahead of an answer of the server read just before.
    const checked = Math.max(v.checked_minutes, sess && sess.start === start ? sess.checked : 0);
    sess = { start, staked: v.staked, won: v.won, net: v.net, checked };
  }
  // refreshMe reads the player, the balance and the play session again. An answer a sale of this
  // tab overtook does not change the balance shown.
  async function refreshMe() {
    const buys = S.buys;
    const me = await api('GET', '/me');
    if (me.demo) me.username = DEMO_USER; // a demo session has no name
    if (!S.user || me.username !== S.user) return;
    setSession(me.session);
    if (buys === S.buys && S.mode !== 'buying') {
      S.balance = me.balance;
      renderBalance();
    }
  }
  const minutes = () => (sess ? ((Date.now() - sess.start) * clockSpeed) / 60000 : 0);
  function duration(min) {
    const m = Math.floor(min);
    return m < 60 ? `${m} min` : `${Math.floor(m / 60)} h ${String(m % 60).padStart(2, '0')}`;
  }
  const signed = c => (c > 0 ? '+' : c < 0 ? '−' : '') + money(Math.abs(c));
  // dueCheck is the mark, in minutes from the session's start, of the reality check due now and
  // not yet answered, or 0.
  function dueCheck() {
    const rc = S.limits && S.limits.reality_check_minutes;
    if (!rc || !sess) return 0;
    const mark = Math.floor(minutes() / rc) * rc;
    return mark > sess.checked ? mark : 0;
  }
  // tick shows the time played, and when a reality check is due, shows it: between games only
  // (never in the middle of a reveal), and never over another dialog. The server is asked first
  // whether another tab or device answered it, and for the figures of now.
  let asking = false;
  function tick() {
    if (!S.user || !sess) return;
    $('#session-time').textContent = duration(minutes());
    if (!dueCheck() || S.mode !== 'idle' || $('dialog[open]') || asking) return;
    asking = true;
    refreshMe()
      .catch(() => {})
      .then(() => {
        const mark = dueCheck();
        if (!mark || S.mode !== 'idle' || $('dialog[open]')) return;
        const box = $('#reality-check');
        box.dataset.minutes = String(mark);
        box.dataset.net = String(sess.net);
        renderReality();
        box.chosen = false;
        openDialog(box, $('#reality-continue'));
        announce($('#reality-text').textContent);
      })
      .finally(() => (asking = false));
  }
  setInterval(tick, Math.max(200, Math.min(15000, 60000 / clockSpeed)));
  function renderReality() {
    const box = $('#reality-check');
    $('#reality-text').textContent = t('realityText', duration(minutes()), signed(Number(box.dataset.net)));
  }
  // closeReality closes the check once a choice is made (here, or in another tab or device).
  function closeReality() {
    const box = $('#reality-check');
    box.chosen = true;
    if (box.open) box.close();
  }
  // answered is a check answered « Continuer » elsewhere: an open check it covers closes.
  function answered(mark) {
    if (!sess) return;
    sess.checked = Math.max(sess.checked, mark);
    const box = $('#reality-check');
    if (box.open && Number(box.dataset.minutes) <= sess.checked) closeReality();
  }
  async function answerReality() {
    const mark = Number($('#reality-check').dataset.minutes);
    answered(mark);
    closeReality();
    tell({ type: 'checked', minutes: mark });
    await api('POST', '/me/reality-check', { minutes: mark })
      .then(r => setSession(r.session))
      .catch(() => {}); // kept in this tab all the same; another device may ask it again
  }
  // The check is not dismissed without a choice: Escape does nothing (closedby="none" in the
  // page, and the cancel refused where a browser lacks it), and a close that no choice made
  // (a browser letting a second Escape through) shows it again.
  $('#reality-check').addEventListener('cancel', e => e.preventDefault());
  $('#reality-check').addEventListener('close', () => {
    const box = $('#reality-check');
    if (!box.chosen && S.user) openDialog(box, $('#reality-continue'));
  });
  $('#reality-continue').addEventListener('click', answerReality);
  $('#reality-stop').addEventListener('click', async () => {
    const m = minutes(), net = sess ? sess.net : 0;
    closeReality();
    await api('DELETE', '/session').catch(() => {});
    // The session's cookie is the browser's: every tab is logged out, and says why.
    tell({ type: 'logout', stopped: [m, net] });
    onLogout(() => t('stopped', duration(m), signed(net)));
  });

  // ---- other tabs and devices follow the game ----
  // Tabs of this browser tell each other every game's new state at once (BroadcastChannel); other
  // devices are read with a poll of the player's latest games: every 4 s while the page is
  // visible and not animating, and when it comes back to view. Its cost: one indexed read of 5
  // games a poll (GET /api/v1/games?limit=5), and GET /me only when something changed.
  const chan = 'BroadcastChannel' in window ? new BroadcastChannel('starcolor') : null;
  function tell(msg) {
    if (chan && S.user) chan.postMessage(Object.assign({ user: S.user }, msg));
  }
  if (chan) {
    chan.addEventListener('message', e => {
      const m = e.data;
      if (!m || !S.user || m.user !== S.user) return;
      if (m.type === 'game') follow(m.game);
      else if (m.type === 'checked') answered(m.minutes);
      else if (m.type === 'logout') onLogout(m.stopped ? () => t('stopped', duration(m.stopped[0]), signed(m.stopped[1])) : undefined);
    });
  }
  // ahead tells a game that stands further than the one shown.
  const ahead = (g, cur) =>
    g.status !== cur.status || g.color !== cur.color || g.events.length !== cur.events.length || g.boards.length !== cur.boards.length;
  // follow takes a game as it now stands elsewhere: the game this tab shows is brought to it;
  // otherwise the history, the game offered and the figures are read again.
  function follow(g) {
    if (S.game && S.game.id === g.id && S.showing === g.id && (S.mode === 'choose' || S.mode === 'play')) {
      if (S.pending > 0) return; // this tab's own move is under way: its answer says the rest
      if (ahead(g, S.game)) adopt(g);
      return;
    }
    changed();
  }
  // adopt shows the game this tab shows as another tab or device left it: its board as it is,
  // or its end and result. No error of a move it overtook stays on screen.
  function adopt(g) {
    $('#play-err').textContent = '';
    S.game = g;
    if (g.status === 'choose_color') return;
    if (g.status === 'finished') {
      drawBoard(g, g.boards.length, false);
      finishShow(g);
      changed();
      return;
    }
    playOn(g, t('click', colorName(g.color)));
  }
  // resync reads a game this tab's move was refused for (409: another tab moved first) and
  // shows it as it stands; false if it could not be read.
  async function resync(id) {
    try {
      const g = await api('GET', `/games/${id}`);
      if (S.game && S.game.id === id) adopt(g);
      return true;
    } catch (e) {
      return false;
    }
  }
  // changed reads again what a game played elsewhere changes here: the history on screen, the
  // unfinished game offered, the balance and the session's figures.
  let changing = null;
  function changed(games) {
    if (!S.user) return;
    if (!$('#view-historique').hidden) loadHistory().catch(() => {});
    refreshMe().catch(() => {});
    if (games) setUnfinished(games);
    else if (!changing) {
      changing = api('GET', '/games?limit=5')
        .then(l => setUnfinished(l.games))
        .catch(() => {})
        .finally(() => (changing = null));
    }
  }
  function setUnfinished(games) {
    S.unfinished = games.find(g => g.status !== 'finished' && g.id !== S.showing) || null;
    renderUnfinished();
  }
  // renderUnfinished offers, on an idle game screen, the unfinished game this tab does not show.
  function renderUnfinished() {
    const box = $('#unfinished');
    const g = S.unfinished;
    const show = !!(S.user && g && S.mode === 'idle' && g.id !== S.showing);
    box.hidden = !show;
    if (!show) return;
    box.dataset.game = String(g.id);
    $('#unfinished-text').textContent = t('unfinished', g.id);
  }
  $('#unfinished-resume').addEventListener('click', () => {
    const id = Number($('#unfinished').dataset.game);
    S.unfinished = null;
    resumeGame(id).catch(showErr);
  });
  let polled = '';
  async function poll() {
    if (!S.user || document.visibilityState !== 'visible' || S.pending > 0 || !['idle', 'choose', 'play'].includes(S.mode)) return;
    let list;
    try {
      list = await api('GET', '/games?limit=5');
    } catch (e) {
      if (e.status === 401 && S.user) onLogout(); // ended elsewhere: a logout, an exclusion
      return;
    }
    const sig = list.games.map(g => `${g.id}:${g.status}:${g.color}:${g.events.length}`).join(',');
    const box = $('#reality-check');
    if (box.open) refreshMe().then(() => answered(sess ? sess.checked : 0)).catch(() => {});
    if (sig === polled) return;
    polled = sig;
    const cur = S.game && list.games.find(g => g.id === S.game.id);
    if (cur && S.showing === cur.id && (S.mode === 'choose' || S.mode === 'play') && S.pending === 0 && ahead(cur, S.game)) adopt(cur);
    else changed(list.games);
  }
  setInterval(() => poll().catch(() => {}), 4000);
  document.addEventListener('visibilitychange', () => poll().catch(() => {}));
  addEventListener('focus', () => poll().catch(() => {}));

  // ---- limits ----
  const kindOf = k => t(k === 'deposit_weekly' ? 'deposits' : 'stakes');
  async function loadLimits() {
    S.limits = await api('GET', '/me/limits');
    renderLimits();
    return S.limits;
  }
  function renderLimits() {
    const L = S.limits;
    if (!L) return;
    const row = (id, lim, sum) => {
      $('#lim-' + id).textContent = lim === null ? t('notSet') : money(lim);
      $('#lim-' + id + '-left').textContent = lim === null ? '—' : money(Math.max(0, lim - sum));
    };
    row('deposit', L.deposit_weekly, L.deposited_7d);
    row('stake', L.stake_weekly, L.staked_7d);
    $('#lim-deposited').textContent = money(L.deposited_7d);
    $('#lim-staked').textContent = money(L.staked_7d);
    const ul = $('#limits-pending');
    ul.textContent = '';
    for (const p of L.pending) {
      const li = document.createElement('li');
      li.dataset.limit = p.limit;
      li.dataset.effectiveAt = p.effective_at;
      li.textContent = t('pendingRaise', kindOf(p.limit), money(p.amount), when(p.effective_at));
      ul.appendChild(li);
    }
    const rc = L.reality_check_minutes;
    $('#lim-reality').textContent = t('realityIs', rc ? t('every', rc) : t('never'));
    $('#limit-reality option[value=""]').textContent = t('never');
  }
  // fillLimits puts the limits in force in the form: a field left as it is changes nothing.
  function fillLimits() {
    const L = S.limits;
    $('#limit-deposit').value = euroInput(L.deposit_weekly);
    $('#limit-stake').value = euroInput(L.stake_weekly);
    $('#limit-reality').value = String(L.reality_check_minutes || '');
  }
  // openLimits shows the limits screen; why ('whyDeposit', 'whyStake') says why it opened by
  // itself, and back is where the focus goes when it closes (the button pressed was disabled).
  async function openLimits(why, back) {
    const w = $('#limits-why');
    w.hidden = !why;
    w.dataset.why = why || '';
    w.textContent = why ? t(why) : '';
    limitsSay('', false);
    openDialog($('#limits'), null, back);
    try {
      await loadLimits();
      fillLimits();
    } catch (e) {
      limitsSay(errText(e), true);
    }
    $(why === 'whyStake' ? '#limit-stake' : '#limit-deposit').focus();
    if (why) announce(w.textContent);
  }
  // In wallet mode the page has no limits screen: the operator keeps the limits.
  if (!wallet) {
    $('#limits-open').addEventListener('click', () => openLimits());
    $('#limits-form').addEventListener('submit', saveLimits);
  }
  async function saveLimits(e) {
    e.preventDefault();
    const msg = $('#limits-msg');
    msg.textContent = '';
    const L = S.limits;
    if (!L) return;
    // Only what the player changed is sent: the same amount again would cancel a pending raise.
    const change = {};
    for (const [sel, key] of [['#limit-deposit', 'deposit_weekly'], ['#limit-stake', 'stake_weekly']]) {
      const v = $(sel).value.trim();
      if (!v && L[key] === null) continue;
      const c = cents(v);
      if (c === null) {
        limitsSay(t('badAmount'), true);
        $(sel).focus();
        return;
      }
      if (c !== L[key]) change[key] = c;
    }
    const rc = Number($('#limit-reality').value) || null;
    if (rc !== L.reality_check_minutes) change.reality_check_minutes = rc;
    if (!Object.keys(change).length) {
      limitsSay(t('nothing'), false);
      return;
    }
    const btn = $('#limits-form button[type=submit]');
    btn.disabled = true;
    try {
      S.limits = await api('PUT', '/me/limits', change);
      renderLimits();
      fillLimits();
      const said = [];
      for (const key of ['deposit_weekly', 'stake_weekly']) {
        if (!(key in change)) continue;
        const p = S.limits.pending.find(x => x.limit === key && x.amount === change[key]);
        said.push(p ? t('savedLater', kindOf(key), money(p.amount), when(p.effective_at)) : t('savedNow', kindOf(key), money(S.limits[key])));
      }
      if ('reality_check_minutes' in change) said.push($('#lim-reality').textContent);
      limitsSay(said.join(' '), false);
      $('#limits-why').hidden = true;
    } catch (e2) {
      limitsSay(errText(e2), true);
    } finally {
      btn.disabled = false;
    }
  }
  // refused tells a deposit or a sale the server refused for a limit: before one is set, the
  // limits screen opens and says why; past one, the words say what is left this week (in wallet
  // mode the operator's wallet refused it, and its figures are the operator's).
  async function refused(e, kind) {
    if (wallet) return errText(e);
    if (e.code === 'limits_required') {
      const dep = kind === 'deposit_weekly';
      openLimits(dep ? 'whyDeposit' : 'whyStake', $(dep ? '#deposit' : '#play'));
      return errText(e);
    }
    if (e.code !== 'limit_reached') return errText(e);
    try {
      const L = await loadLimits();
      const lim = L[kind], sum = kind === 'deposit_weekly' ? L.deposited_7d : L.staked_7d;
      return t('reached', kindOf(kind), money(lim), money(sum), money(Math.max(0, lim - sum)));
    } catch (e2) {
      return errText(e);
    }
  }

  // ---- self-exclusion and closing the account ----
  function exclusionText() {
    const n = Number($('#exclusion-days').value);
    const ok = Number.isInteger(n) && n >= 1 && n <= 365;
    $('#exclusion-text').textContent = ok ? t('exclText', n, when(Date.now() + n * 86400000)) : t('badDays');
    return ok ? n : 0;
  }
  // Each opens in place of the limits screen; closed, the focus goes back to « Mes limites ».
  function fromLimits(d, focus) {
    const back = $('#limits').ret;
    $('#limits').close();
    d.querySelector('.err').textContent = '';
    openDialog(d, focus, back);
  }
  // accountForm runs a confirmed step that ends every session, then shows the page logged out
  // with what run returns it to say.
  function accountForm(form, run) {
    form.addEventListener('submit', async e => {
      e.preventDefault();
      const err = form.querySelector('.err');
      const btn = form.querySelector('button[type=submit]');
      err.textContent = '';
      btn.disabled = true;
      try {
        const said = await run();
        if (!said) return;
        form.closest('dialog').close();
        onLogout(said);
      } catch (e2) {
        err.textContent = errText(e2);
      } finally {
        btn.disabled = false;
      }
    });
  }
  async function exclude() {
    const days = exclusionText();
    if (!days) return null;
    const r = await api('POST', '/me/exclusion', { days });
    $('#auth-msg').dataset.until = r.until;
    // What was paid out (docs/spec/API.md 1.2), said only when there was something.
    return () => t('excludedUntil', when(r.until), r.paid_out > 0 ? money(r.paid_out) : '');
  }
  async function closeAccount() {
    await api('DELETE', '/me');
    return () => t('closed');
  }
  // In wallet mode the page has neither: the operator keeps its players' exclusions and accounts.
  if (!wallet) {
    $('#exclusion-days').addEventListener('input', exclusionText);
    $('#exclusion-open').addEventListener('click', () => {
      exclusionText();
      fromLimits($('#exclusion'), $('#exclusion-days'));
    });
    $('#closure-open').addEventListener('click', () => {
      $('#closure-text').textContent = t('closeText', money(S.balance));
      fromLimits($('#closure'), $('#closure-confirm'));
    });
    accountForm($('#exclusion-form'), exclude);
    accountForm($('#closure-form'), closeAccount);
  }

  // ---- the result card ----
  // At the end of every game, and of its replay, a card over the board says the result: the
  // prize, every amount that makes it board by board, and « Rejouer » at the same stake with the
  // focus on it. It comes once the reveal has ended (finishShow), never before; its motion and
  // sound grow with the win: small, good (10 times the stake), big (100 times), the top prize.
  const motionless = () => matchMedia('(prefers-reduced-motion: reduce)').matches;
  // topOf is the top prize of a stake's table, in cents (0 for a stake the page does not offer).
  function topOf(stake) {
    const r = $(`input[name=stake][value="${stake}"]`);
    return r ? Number(r.dataset.topCents) || 0 : 0;
  }
  const levelSound = { small: 'win', good: 'goodwin', big: 'bigwin', top: 'topwin', lose: 'lose' };
  function showCard(g, replayed) {
    const card = $('#card');
    const level = winTier(g) || 'lose';
    S.card = { game: g, again: replayed || !S.last ? { stake: g.stake, mode: g.mode } : S.last };
    card.className = 'rcard lvl-' + level;
    card.dataset.level = level;
    card.dataset.game = String(g.id);
    card.dataset.motion = motionless() ? 'none' : 'full';
    renderCard();
    card.hidden = false;
    void card.offsetWidth;
    card.classList.add('in');
    Sound.play(levelSound[level]);
    announce(`${$('#card-level').textContent} ${$('#card-title').textContent}. ${$('#card-gains').textContent}`.trim());
    boardIntoView();
    $('#again').focus({ preventScroll: true });
  }
  // renderCard writes the card's words, in the page's language.
  function renderCard() {
    const c = S.card;
    if (!c) return;
    const g = c.game;
    const level = winTier(g);
    $('#card-level').textContent = level ? t({ small: 'level_small', good: 'level_good', big: 'level_big', top: 'level_top' }[level]) : '';
    $('#card-title').textContent = g.prize > 0 ? t('won', money(g.prize)) : t('cardLost');
    $('#card-stake').textContent = t('cardStake', money(c.again.stake));
    const box = $('#card-gains');
    box.textContent = '';
    box.dataset.cents = '';
    if (g.prize <= 0) {
      const p = document.createElement('p');
      p.className = 'rcard-none';
      p.textContent = t('cardLostText');
      box.appendChild(p);
      return;
    }
    const per = g.boards.map(() => []);
    for (const ev of g.events) {
      const cell = g.boards[ev.board - 1].cells[ev.cell];
      if (cell && cell.kind === 'amount') per[ev.board - 1].push(cell.amount);
    }
    let sum = 0;
    const row = (cls, label) => {
      const r = document.createElement('p');
      r.className = 'rrow ' + cls;
      const l = document.createElement('span');
      l.className = 'rlbl';
      l.textContent = label + (lang() === 'fr' ? '\u00a0: ' : ': ');
      r.appendChild(l);
      box.appendChild(r);
      return r;
    };
    const chip = (r, text, cls) => {
      const x = document.createElement('span');
      x.className = cls;
      x.textContent = text;
      r.appendChild(x);
    };
    per.forEach((list, b) => {
      const r = row(b === 0 ? 'b1' : 'b2', b === 0 ? t(g.boards.length > 1 ? 'cardBoard' : 'cardFound') : t('cardExtra'));
      r.dataset.board = String(b + 1);
      if (!list.length) chip(r, money(0), 'g none');
      list.forEach((a, i) => {
        if (i > 0) chip(r, '+', 'sep');
        chip(r, money(a), 'g');
        sum += a;
      });
    });
    chip(row('sum', t('cardTotal')), money(sum), 'eq');
    box.dataset.cents = String(sum);
  }
  function hideCard() {
    const card = $('#card');
    card.hidden = true;
    card.classList.remove('in');
    card.dataset.level = 'none';
    S.card = null;
  }
  // closeCard puts the card away; the focus goes where the player goes on from.
  function closeCard() {
    hideCard();
    const next = S.mode === 'replay' ? $('#replay-close') : $('#play');
    if (next) next.focus({ preventScroll: true });
  }
  // playAgain buys a game at the stake and in the mode of the one on the card (a replay closes
  // first).
  function playAgain() {
    const again = (S.card && S.card.again) || S.last;
    if (!again) return;
    if (S.mode === 'replay') closeReplay();
    buy(again.mode, again.stake);
  }
  $('#card-close').addEventListener('click', closeCard);
  $('#card').addEventListener('keydown', e => {
    if (e.key === 'Escape') {
      e.preventDefault();
      closeCard();
    }
  });
  // boardIntoView scrolls the board whole into view below the sticky header (a replay opened
  // from a scrolled history would leave its top, and its result, under the header).
  function boardIntoView() {
    const wrap = $('.skywrap');
    if (!wrap || wrap.offsetParent === null) return;
    const b = wrap.getBoundingClientRect();
    const top = $('header.top').getBoundingClientRect().bottom + 4;
    let dy = 0;
    if (b.top < top || b.height > innerHeight - top) dy = b.top - top;
    else if (b.bottom > innerHeight) dy = b.bottom - innerHeight + 4;
    if (Math.abs(dy) >= 1) scrollBy({ top: dy, behavior: 'instant' });
  }

  // lockReason says why the history's buttons wait during a game: on each (its title, and its
  // description for screen readers) and above the list.
  function lockReason(locked) {
    $('#locked-why').textContent = t('lockedWhy');
    let any = false;
    $$('#history .hact button.replay, #history .hact button.resume').forEach(b => {
      if (b.disabled) {
        any = true;
        b.title = t('lockedWhy');
        b.setAttribute('aria-describedby', 'locked-why');
      } else {
        b.removeAttribute('title');
        b.removeAttribute('aria-describedby');
      }
    });
    $('#history-locked').hidden = !(locked && any);
  }

  // ---- the limits screen's messages ----
  // limitsSay tells what a save did, or an error as an error: red, and announced at once.
  function limitsSay(text, error) {
    const m = $('#limits-msg');
    m.setAttribute('role', error ? 'alert' : 'status');
    m.className = error ? 'err' : 'msg';
    m.textContent = text;
  }

  // ---- withdrawal and password ----
  // A withdrawal is never more than the balance shown: during a game that balance holds the
  // prize back, and a withdrawal refused or allowed must not tell it.
  async function withdraw(e) {
    e.preventDefault();
    const msg = $('#withdraw-msg'), err = $('#withdraw-err'), input = $('#withdraw-amount');
    msg.textContent = '';
    err.textContent = '';
    const c = cents(input.value.trim());
    const shown = S.balance - S.hold;
    if (c === null || c <= 0) {
      err.textContent = t('badWithdraw');
      input.focus();
      return;
    }
    if (c > shown) {
      err.textContent = t('overBalance', money(shown));
      input.focus();
      return;
    }
    const btn = $('#withdraw');
    btn.disabled = true;
    try {
      const r = await apiMoney('POST', '/withdrawals', { amount: c });
      S.balance = r.balance;
      renderBalance();
      input.value = '';
      msg.textContent = t('withdrawn', money(c), money(S.balance - S.hold));
    } catch (e2) {
      err.textContent = errText(e2);
      if (e2.code === 'insufficient_funds') refreshBalance(); // moved elsewhere: read it again
    } finally {
      btn.disabled = false;
    }
  }
  // changePassword changes the password; the server ends every other session of the player and
  // gives this tab a fresh one.
  async function changePassword(e) {
    e.preventDefault();
    const form = $('#password-form'), err = form.querySelector('.err'), msg = $('#password-msg');
    const current = $('#password-current').value, next = $('#password-new').value;
    err.textContent = '';
    msg.textContent = '';
    if (!current || !next) {
      err.textContent = t('pwMissing');
      return;
    }
    if (next !== $('#password-again').value) {
      err.textContent = t('pwMismatch');
      $('#password-again').focus();
      return;
    }
    const btn = $('#password-save');
    btn.disabled = true;
    try {
      await api('PUT', '/me/password', { current, new: next });
      form.reset();
      msg.textContent = t('pwChanged');
    } catch (e2) {
      err.textContent = errText(e2);
    } finally {
      btn.disabled = false;
    }
  }
  // In wallet mode the page has neither: the operator keeps its players' money and access.
  if (!wallet) {
    $('#withdraw-form').addEventListener('submit', withdraw);
    $('#password-form').addEventListener('submit', changePassword);
    $('#password-open').addEventListener('click', () => {
      $('#password-user').value = S.user || '';
      $('#password-msg').textContent = '';
      fromLimits($('#password'), $('#password-current'));
    });
  }
  // ---- demo play (docs/spec/API.md 1.2) ----
  // A visitor plays with play money and without an account: the same page, animations, rules and
  // tables; the header says so on every screen; what needs an account (deposits, limits, proofs)
  // is hidden and explained; each game's result, and the header, offer to open an account, which
  // ends the demo (its games are forgotten) and opens the sign-up.
  const DEMO_USER = 'demo'; // S.user of a demo session, never shown: it has no username
  function renderDemo() {
    body.classList.toggle('demo', !!S.demo);
    $$('[data-demo]').forEach(el => (el.textContent = t(el.dataset.demo)));
    $('#demo-mark').hidden = !S.demo;
    $('#demo-signup').hidden = !S.demo;
    if ($('#demo-info')) $('#demo-info').hidden = !S.demo;
    demoEnd();
  }
  // demoEnd shows the offer to open an account on the result of a demo game.
  function demoEnd() {
    $('#demo-end').hidden = !(S.demo && S.mode === 'idle' && S.result && $('#result').dataset.state === 'done');
  }
  async function onDemo(me, fresh) {
    S.demo = true;
    renderDemo();
    await onLogin(Object.assign({}, me, { username: DEMO_USER }), fresh);
    $('#user').textContent = '';
    if (S.mode === 'idle') status(t('demoWelcome', money(me.balance)));
  }
  async function startDemo() {
    const b = $('#demo-start');
    $('#demo-err').textContent = '';
    b.disabled = true;
    try {
      await onDemo(await api('POST', '/demo'), true);
    } catch (e) {
      $('#demo-err').textContent = errText(e);
    } finally {
      b.disabled = false;
    }
  }
  async function openAccount() {
    await api('DELETE', '/session').catch(() => {});
    onLogout(() => t('demoOver'));
    const f = $('#signup-user');
    if (f) {
      f.scrollIntoView({ block: 'center' });
      f.focus();
    }
  }
  if ($('#demo-start')) $('#demo-start').addEventListener('click', startDemo);
  $$('#demo-signup, [data-open-account]').forEach(b => b.addEventListener('click', openAccount));

  // ---- navigation ----
  function route() {
    let v = location.hash.replace('#', '') || 'jeu';
    if (!['jeu', 'historique', 'regles'].includes(v)) v = 'jeu';
    if (!S.user && v !== 'regles') v = 'auth';
    for (const s of $$('main > .view')) s.hidden = s.id !== 'view-' + v;
    for (const a of $$('.nav a')) {
      if (a.dataset.view === v) a.setAttribute('aria-current', 'page');
      else a.removeAttribute('aria-current');
    }
    if (v === 'historique') loadHistory().catch(showErr);
  }

  function setLang(l) {
    html.lang = l;
    document.cookie = `starcolor_lang=${l}; path=/; max-age=31536000; SameSite=Lax`;
    renderBalance();
    renderTotal();
    renderResult();
    relabel();
    if (S.history.length) renderHistory();
    renderCard();
    renderLimits();
    sayOut();
    if ($('#reality-check').open) renderReality();
    renderDemo();
    if (!wallet) {
      if ($('#exclusion').open) exclusionText();
      if ($('#closure').open) $('#closure-text').textContent = t('closeText', money(S.balance));
      if (!$('#limits-why').hidden) $('#limits-why').textContent = t($('#limits-why').dataset.why);
    }
    if (S.mode === 'choose') status(t('choose'));
    else if (S.mode === 'play' && S.game) status(t('click', colorName(S.game.color)));
    else if (S.mode === 'idle') status(S.user ? t('ready') : '');
  }

  // ---- wiring ----
  sky.addEventListener('click', e => {
    const b = e.target.closest('.star');
    if (b) clickStar(Number(b.dataset.cell));
  });
  // Arrow keys move between the stars that can be clicked.
  sky.addEventListener('keydown', e => {
    const dirs = { ArrowRight: 1, ArrowLeft: -1, ArrowDown: 7, ArrowUp: -7 };
    if (!(e.key in dirs)) return;
    const from = Number(e.target.dataset.cell);
    const open = cells.filter(c => c.classList.contains('playable')).map(c => Number(c.dataset.cell));
    if (!open.length) return;
    e.preventDefault();
    const d = dirs[e.key];
    const ordered = open.sort((a, b) => (d > 0 ? a - b : b - a));
    const next = ordered.find(c => (d > 0 ? c > from : c < from));
    cells[next === undefined ? ordered[0] : next].focus();
  });
  $('#colors').addEventListener('click', e => {
    const b = e.target.closest('.swatch');
    if (b) chooseColor(Number(b.dataset.color));
  });
  $('#play-form').addEventListener('submit', e => {
    e.preventDefault();
    const mode = e.submitter && e.submitter.value === 'auto' ? 'auto' : 'manual';
    buy(mode);
  });
  $('#again').addEventListener('click', playAgain);
  $('#played-replay').addEventListener('click', () => openReplay(Number($('#played').dataset.game)).catch(showErr));
  $('#played-close').addEventListener('click', () => ($('#played').hidden = true));
  $('#sound').addEventListener('click', () => Sound.set(!Sound.on));
  // The top prize at the stake chosen, from the game definition the page was made with.
  function showTop() {
    const r = $('input[name=stake]:checked');
    $('#top-amount').textContent = r.dataset.top + '\u00a0€';
  }
  $$('input[name=stake]').forEach(r => r.addEventListener('change', showTop));
  $('#faster').addEventListener('click', () => setSpeed(S.speed * 3));
  $('#skip').addEventListener('click', () => setSpeed(S.speed, true));
  $('#step').addEventListener('click', () => replayStep(false));
  $('#replay-all').addEventListener('click', () => replayStep(true));
  $('#replay-close').addEventListener('click', closeReplay);
  $('#more').addEventListener('click', () => loadHistory(true).catch(showErr));
  $('#logout').addEventListener('click', async () => {
    await api('DELETE', '/session').catch(() => {});
    tell({ type: 'logout' });
    // In wallet mode the session ends here; only the operator's site opens another.
    onLogout(wallet ? () => t('walletEnded') : undefined);
  });
  $('#lang').addEventListener('click', () => setLang(lang() === 'fr' ? 'en' : 'fr'));
  // The operator's players neither sign up, log in nor deposit here: the page has no such forms.
  if (!wallet) {
    $$('#deposit-form .quick button').forEach(b =>
      b.addEventListener('click', () => ($('#deposit-amount').value = String(Number(b.dataset.amount) / 100))));
    $('#deposit-form').addEventListener('submit', async e => {
      e.preventDefault();
      const msg = $('#deposit-msg');
      const euros = Number($('#deposit-amount').value);
      if (!(euros >= 1 && euros <= 1000 && Number.isInteger(euros))) {
        msg.textContent = errText({ code: 'invalid_input' });
        return;
      }
      $('#deposit').disabled = true;
      try {
        const r = await apiMoney('POST', '/deposits', { amount: euros * 100 });
        S.balance = r.balance;
        renderBalance();
        msg.textContent = t('deposited', money(euros * 100));
      } catch (e2) {
        msg.textContent = await refused(e2, 'deposit_weekly');
      } finally {
        $('#deposit').disabled = false;
      }
    });
    authForm($('#login-form'), false);
    authForm($('#signup-form'), true);
  }
  addEventListener('hashchange', route);
  // In wallet mode the balance moves at the operator too (a deposit on its site): an idle page
  // the player comes back to reads it again.
  if (wallet) {
    document.addEventListener('visibilitychange', () => {
      if (document.visibilityState === 'visible') refreshBalance();
    });
  }

  // The proof check, for people who want to run it by hand from the console; the sounds played;
  // the messages (the tests compare the languages').
  window.starcolor = { rootFromPath, sounds, T };

  drawSleeping();
  relabel();
  renderDemo();
  controls();
  api('GET', '/me')
    .then(me => (me.demo ? onDemo(me) : onLogin(me)))
    .catch(e => {
      if (e.status !== 401) announce(errText(e));
      onLogout();
    });
})();
