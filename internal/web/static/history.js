// The history: the player's games, each with its replay and its proof, the proof checked in the
// page against the block's published root; and the page's views (the game, the history, the
// rules), the history read again when it is shown.
import { $, $$, openDialog } from './page.js';
import { S } from './state.js';
import { api, hex } from './api.js';
import { lang, money, showErr, t } from './i18n.js';

// The history's buttons replay a game or resume it: flows of game.js, which reads the history in
// turn. main.js hands them over (wireHistory) so that no two modules import each other: a
// module's address holds the checksums of those it imports (internal/assets).
let games = { replay: null, resume: null };

// ---- history and proofs ----
let historySeq = 0;
// loadHistory reads the latest games, or more of the older ones, and shows them if they changed.
export async function loadHistory(more) {
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
// renderHistory shows the games read, in the page's language.
export function renderHistory() {
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
    const res = onShow ? t('open') : g.prize > 0 ? t('won', { amount: money(g.prize) }) : t('lost');
    li.dataset.state = onShow ? 'showing' : g.status;
    li.innerHTML =
      `<span class="hid"></span><span class="hdate"></span><span class="hstake"></span><span class="hmode"></span>` +
      `<span class="hres ${cls}"></span><span class="hact"></span>`;
    li.querySelector('.hid').textContent = t('game', { game: g.id });
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
      b.setAttribute('aria-label', `${text} — ${t('game', { game: g.id })}`);
      b.addEventListener('click', fn);
      act.appendChild(b);
    };
    if (onShow) btn('resume', t('resume'), () => (location.hash = '#jeu'));
    else if (g.status !== 'finished') btn('resume', t('resume'), () => games.resume(g.id).catch(showErr), S.mode !== 'idle');
    else {
      btn('replay', t('replayBtn'), () => games.replay(g.id).catch(showErr), S.mode !== 'idle');
      btn('proofbtn', t('proofBtn'), () => showProof(g).catch(showErr));
    }
    ol.appendChild(li);
  }
  lockReason(S.mode !== 'idle');
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
export async function rootFromPath(line, index, size, path) {
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

// lockReason says why the history's buttons wait during a game: on each (its title, and its
// description for screen readers) and above the list.
export function lockReason(locked) {
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

// ---- navigation ----
// route shows the view the address names; a player not logged in sees the rules or the login.
export function route() {
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

// wireHistory loads older games on demand; replay and resume are the game's flows its buttons
// start.
export function wireHistory(replay, resume) {
  games = { replay, resume };
  $('#more').addEventListener('click', () => loadHistory(true).catch(showErr));
}
