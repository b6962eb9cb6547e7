// Player protection: the weekly limits of deposits and stakes (their screen, and what a refusal
// says of them), and the play session's clock with its reality checks.
import { $, announce, openDialog, params, wallet } from './page.js';
import { DEMO_USER, S, tell } from './state.js';
import { api } from './api.js';
import { cents, errText, euroInput, money, signed, t, when } from './i18n.js';
import { renderBalance } from './board.js';

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
// setSession takes the play session as the server tells it.
export function setSession(v) {
  if (!v) return;
  const start = Date.parse(v.started_at);
  // A check answered in this tab may be ahead of an answer of the server read just before.
  const checked = Math.max(v.checked_minutes, sess && sess.start === start ? sess.checked : 0);
  sess = { start, staked: v.staked, won: v.won, net: v.net, checked };
}
// refreshMe reads the player, the balance and the play session again. An answer a sale of this
// tab overtook does not change the balance shown.
export async function refreshMe() {
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
// endSession forgets the play session (a logout).
export function endSession() {
  sess = null;
}
// sessionNet is the session's result so far: prizes less stakes, in cents.
export const sessionNet = () => (sess ? sess.net : 0);
// minutes is the time played this session, at the clock's speed.
export const minutes = () => (sess ? ((Date.now() - sess.start) * clockSpeed) / 60000 : 0);
// duration writes minutes played: "25 min", "1 h 05".
export function duration(min) {
  const m = Math.floor(min);
  return m < 60 ? `${m} min` : `${Math.floor(m / 60)} h ${String(m % 60).padStart(2, '0')}`;
}

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
export function tick() {
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

// renderReality writes the reality check's words.
export function renderReality() {
  const box = $('#reality-check');
  $('#reality-text').textContent = t('realityText', { time: duration(minutes()), result: signed(Number(box.dataset.net)) });
}
// closeReality closes the check once a choice is made (here, or in another tab or device).
export function closeReality() {
  const box = $('#reality-check');
  box.chosen = true;
  if (box.open) box.close();
}
// answered is a check answered « Continuer » elsewhere: an open check it covers closes.
export function answered(mark) {
  if (!sess) return;
  sess.checked = Math.max(sess.checked, mark);
  const box = $('#reality-check');
  if (box.open && Number(box.dataset.minutes) <= sess.checked) closeReality();
}
// recheck reads the session again while a check is open: one answered on another device closes.
export function recheck() {
  return refreshMe().then(() => answered(sess ? sess.checked : 0));
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

// ---- limits ----
const kindOf = k => t(k === 'deposit_weekly' ? 'deposits' : 'stakes');
// loadLimits reads the player's limits and shows them.
export async function loadLimits() {
  S.limits = await api('GET', '/me/limits');
  renderLimits();
  return S.limits;
}
// renderLimits shows the limits read, in the page's language.
export function renderLimits() {
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
    li.textContent = t('pendingRaise', { kind: kindOf(p.limit), amount: money(p.amount), when: when(p.effective_at) });
    ul.appendChild(li);
  }
  const rc = L.reality_check_minutes;
  $('#lim-reality').textContent = t('realityIs', { every: rc ? t('every', { minutes: rc }) : t('never') });
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
  // The form waits for the limits read: filled after, it would overwrite what was typed.
  const fields = ['#limit-deposit', '#limit-stake', '#limit-reality', '#limits-save'].map(sel => $(sel));
  for (const f of fields) f.disabled = true;
  try {
    await loadLimits();
    fillLimits();
  } catch (e) {
    limitsSay(errText(e), true);
  } finally {
    for (const f of fields) f.disabled = false;
  }
  $(why === 'whyStake' ? '#limit-stake' : '#limit-deposit').focus();
  if (why) announce(w.textContent);
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
      said.push(p ? t('savedLater', { kind: kindOf(key), amount: money(p.amount), when: when(p.effective_at) }) : t('savedNow', { kind: kindOf(key), amount: money(S.limits[key]) }));
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
export async function refused(e, kind) {
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
    return t('reached', { kind: kindOf(kind), limit: money(lim), sum: money(sum), left: money(Math.max(0, lim - sum)) });
  } catch (e2) {
    return errText(e);
  }
}

// ---- the limits screen's messages ----
// limitsSay tells what a save did, or an error as an error: red, and announced at once.
function limitsSay(text, error) {
  const m = $('#limits-msg');
  m.setAttribute('role', error ? 'alert' : 'status');
  m.className = error ? 'err' : 'msg';
  m.textContent = text;
}

// wireLimits runs the session clock, and wires the limits screen and the reality check.
export function wireLimits() {
  setInterval(tick, Math.max(200, Math.min(15000, 60000 / clockSpeed)));
  // The check is not dismissed without a choice: Escape does nothing (closedby="none" in the
  // page, and the cancel refused where a browser lacks it), and a close that no choice made
  // (a browser letting a second Escape through) shows it again.
  $('#reality-check').addEventListener('cancel', e => e.preventDefault());
  $('#reality-check').addEventListener('close', () => {
    const box = $('#reality-check');
    if (!box.chosen && S.user) openDialog(box, $('#reality-continue'));
  });
  $('#reality-continue').addEventListener('click', answerReality);
  // In wallet mode the page has no limits screen: the operator keeps the limits.
  if (!wallet) {
    $('#limits-open').addEventListener('click', () => openLimits());
    $('#limits-form').addEventListener('submit', saveLimits);
  }
}
