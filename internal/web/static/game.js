// A game, from its sale to its end on screen: the stake bought, the colour chosen, each star
// clicked and what the server revealed played in order, Auto, the replay of a past game, and
// the game brought up to date when another tab or device moved it. The page never decides
// anything: every star shown was revealed by the server, and the prize the server returns with
// the sale is held back until the reveal ends.
import { $, $$, baseSpeed, body, status, wallet } from './page.js';
import { S, busy, setShowing, tell } from './state.js';
import { api, apiMoney } from './api.js';
import { colorName, errText, money, showErr, t } from './i18n.js';
import { Sound } from './sound.js';
import { cells, drawBoard, drawSleeping, label, playable, relabel, renderBalance, renderTotal, setResult, sky } from './board.js';
import { animate, celebrate, clearEffects, setSpeed, wait } from './effects.js';
import { loadHistory, lockReason, route } from './history.js';
import { refreshMe, refused } from './limits.js';
import { boardIntoView, hideCard, showCard } from './card.js';

// controls sets the screen for the mode it is in: the buttons one may press, the state of the
// page (data-state), the history's locks.
export function controls() {
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

// ---- a game ----
// resetStage clears the board's figures and effects for another game.
export function resetStage() {
  S.run++;
  S.flights = [];
  clearEffects();
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
    status(t('click', { color: colorName(g.color) }));
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
        status(t('click', { color: colorName(next.color) }));
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
    status(t('auto', { color: colorName(g.color) }));
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
  playOn(g, t('resumed') + ' ' + t('click', { color: colorName(g.color) }));
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
// openReplay shows a finished game as it was before any reveal, to replay step by step.
export async function openReplay(id) {
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
  status(t('replay', { game: g.id, color: colorName(g.color) }));
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

// resumeGame brings an unfinished game (begun in another tab, on another device) to this tab.
export async function resumeGame(id) {
  if (S.mode !== 'idle') throw Object.assign(new Error('busy'), { code: 'busy' });
  const [g, me] = await Promise.all([api('GET', `/games/${id}`), api('GET', '/me')]);
  location.hash = '#jeu';
  if (g.status === 'finished') return openReplay(g.id);
  S.balance = me.balance; // the game was bought elsewhere: the balance moved there
  resume(g);
}

// refreshBalance reads the wallet's balance again (wallet mode), for an idle page: an answer
// that a sale overtook is not shown.
export function refreshBalance() {
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

// ahead tells a game that stands further than the one shown.
export const ahead = (g, cur) =>
  g.status !== cur.status || g.color !== cur.color || g.events.length !== cur.events.length || g.boards.length !== cur.boards.length;
// follow takes a game as it now stands elsewhere: the game this tab shows is brought to it;
// otherwise the history, the game offered and the figures are read again.
export function follow(g) {
  if (S.game && S.game.id === g.id && S.showing === g.id && (S.mode === 'choose' || S.mode === 'play')) {
    if (S.pending > 0) return; // this tab's own move is under way: its answer says the rest
    if (ahead(g, S.game)) adopt(g);
    return;
  }
  changed();
}
// adopt shows the game this tab shows as another tab or device left it: its board as it is,
// or its end and result. No error of a move it overtook stays on screen.
export function adopt(g) {
  $('#play-err').textContent = '';
  S.game = g;
  if (g.status === 'choose_color') return;
  if (g.status === 'finished') {
    drawBoard(g, g.boards.length, false);
    finishShow(g);
    changed();
    return;
  }
  playOn(g, t('click', { color: colorName(g.color) }));
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
export function changed(games) {
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
  $('#unfinished-text').textContent = t('unfinished', { game: g.id });
}

// playAgain buys a game at the stake and in the mode of the one on the card (a replay closes
// first).
function playAgain() {
  const again = (S.card && S.card.again) || S.last;
  if (!again) return;
  if (S.mode === 'replay') closeReplay();
  buy(again.mode, again.stake);
}

// demoEnd shows the offer to open an account on the result of a demo game.
export function demoEnd() {
  $('#demo-end').hidden = !(S.demo && S.mode === 'idle' && S.result && $('#result').dataset.state === 'done');
}

// The top prize at the stake chosen, from the game definition the page was made with.
function showTop() {
  const r = $('input[name=stake]:checked');
  $('#top-amount').textContent = r.dataset.top + '\u00a0€';
}

// wireGame wires the board, the stakes, the game's controls and the replay's.
export function wireGame() {
  $('#unfinished-resume').addEventListener('click', () => {
    const id = Number($('#unfinished').dataset.game);
    S.unfinished = null;
    resumeGame(id).catch(showErr);
  });
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
  $$('input[name=stake]').forEach(r => r.addEventListener('change', showTop));
  $('#faster').addEventListener('click', () => setSpeed(S.speed * 3));
  $('#skip').addEventListener('click', () => setSpeed(S.speed, true));
  $('#step').addEventListener('click', () => replayStep(false));
  $('#replay-all').addEventListener('click', () => replayStep(true));
  $('#replay-close').addEventListener('click', closeReplay);
}
