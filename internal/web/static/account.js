// The player's account: logging in and out, signing up, deposits and withdrawals, the password,
// self-exclusion and closing the account, and demo play with play money. In wallet mode the
// operator keeps all of it but the logout: the page has none of their forms.
import { $, $$, announce, body, openDialog, status, wallet } from './page.js';
import { DEMO_USER, S, setShowing, tell } from './state.js';
import { api, apiMoney } from './api.js';
import { cents, errText, money, signed, t, when } from './i18n.js';
import { drawSleeping, renderBalance } from './board.js';
import { route } from './history.js';
import { closeReality, duration, endSession, loadLimits, minutes, refused, sessionNet, setSession, tick } from './limits.js';
import { controls, demoEnd, refreshBalance, resetStage } from './game.js';

// onLogin shows the player's page; fresh: a login here, which starts a new session.
export async function onLogin(me, fresh) {
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
  status(wallet ? t('ready') : t('welcome', { user: me.username }));
  renderBalance();
  route();
  // The page was revealing a game when it reloaded: it says the game was played, its result
  // and a way to watch it [4.1].
  if (was) await showPlayed(was).catch(() => {});
}
async function showPlayed(id) {
  const g = await api('GET', `/games/${id}`);
  if (g.status !== 'finished') return;
  const res = g.prize > 0 ? t('won', { amount: money(g.prize) }) : t('lost');
  const p = $('#played-text');
  p.textContent = t('played', { game: g.id, result: res });
  p.className = g.prize > 0 ? 'won' : '';
  const box = $('#played');
  box.dataset.game = String(g.id);
  box.hidden = false;
  announce(p.textContent);
  $('#played-replay').focus();
}
// onLogout shows the page logged out, with what to tell the player (a function, so that it
// can be told again in the other language).
export function onLogout(said) {
  S.demo = false;
  renderDemo();
  S.known = true;
  S.user = null;
  S.limits = null;
  endSession();
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
// sayOut tells, on the logged-out page, why the session ended.
export function sayOut() {
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

// ---- self-exclusion and closing the account ----
// exclusionText says what a self-exclusion of the days typed does; 0 if they are not a number
// of days it allows.
export function exclusionText() {
  const n = Number($('#exclusion-days').value);
  const ok = Number.isInteger(n) && n >= 1 && n <= 365;
  $('#exclusion-text').textContent = ok ? t(n > 1 ? 'exclText.other' : 'exclText.one', { n, until: when(Date.now() + n * 86400000) }) : t('badDays');
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
  return () =>
    r.paid_out > 0 ? t('excludedUntilPaid', { until: when(r.until), paid: money(r.paid_out) }) : t('excludedUntil', { until: when(r.until) });
}
async function closeAccount() {
  await api('DELETE', '/me');
  return () => t('closed');
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
    err.textContent = t('overBalance', { balance: money(shown) });
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
    msg.textContent = t('withdrawn', { amount: money(c), balance: money(S.balance - S.hold) });
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

// ---- demo play (docs/spec/API.md 1.2) ----
// A visitor plays with play money and without an account: the same page, animations, rules and
// tables; the header says so on every screen; what needs an account (deposits, limits, proofs)
// is hidden and explained; each game's result, and the header, offer to open an account, which
// ends the demo (its games are forgotten) and opens the sign-up.

// renderDemo marks the page in demo play, or not, and writes the demo's words.
export function renderDemo() {
  body.classList.toggle('demo', !!S.demo);
  $$('[data-demo]').forEach(el => (el.textContent = t(el.dataset.demo)));
  $('#demo-mark').hidden = !S.demo;
  $('#demo-signup').hidden = !S.demo;
  if ($('#demo-info')) $('#demo-info').hidden = !S.demo;
  demoEnd();
}

// onDemo shows the page of a demo session.
export async function onDemo(me, fresh) {
  S.demo = true;
  renderDemo();
  await onLogin(Object.assign({}, me, { username: DEMO_USER }), fresh);
  $('#user').textContent = '';
  if (S.mode === 'idle') status(t('demoWelcome', { amount: money(me.balance) }));
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

// wireAccount wires the forms of the account: log in, sign up, deposit, withdraw, password,
// exclusion, closure, demo, log out, and the end of a session at a reality check.
export function wireAccount() {
  $('#reality-stop').addEventListener('click', async () => {
    const m = minutes(), net = sessionNet();
    closeReality();
    await api('DELETE', '/session').catch(() => {});
    // The session's cookie is the browser's: every tab is logged out, and says why.
    tell({ type: 'logout', stopped: [m, net] });
    onLogout(() => t('stopped', { time: duration(m), result: signed(net) }));
  });
  // In wallet mode the page has neither: the operator keeps its players' exclusions and accounts.
  if (!wallet) {
    $('#exclusion-days').addEventListener('input', exclusionText);
    $('#exclusion-open').addEventListener('click', () => {
      exclusionText();
      fromLimits($('#exclusion'), $('#exclusion-days'));
    });
    $('#closure-open').addEventListener('click', () => {
      $('#closure-text').textContent = t('closeText', { balance: money(S.balance) });
      fromLimits($('#closure'), $('#closure-confirm'));
    });
    accountForm($('#exclusion-form'), exclude);
    accountForm($('#closure-form'), closeAccount);
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
  if ($('#demo-start')) $('#demo-start').addEventListener('click', startDemo);
  $$('#demo-signup, [data-open-account]').forEach(b => b.addEventListener('click', openAccount));
  $('#logout').addEventListener('click', async () => {
    await api('DELETE', '/session').catch(() => {});
    tell({ type: 'logout' });
    // In wallet mode the session ends here; only the operator's site opens another.
    onLogout(wallet ? () => t('walletEnded') : undefined);
  });
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
        msg.textContent = t('deposited', { amount: money(euros * 100) });
      } catch (e2) {
        msg.textContent = await refused(e2, 'deposit_weekly');
      } finally {
        $('#deposit').disabled = false;
      }
    });
    authForm($('#login-form'), false);
    authForm($('#signup-form'), true);
  }
}
