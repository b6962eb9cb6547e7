// The history: the player's games, each with its replay and its proof (proof.js checks it in
// the page); and the page's views (the game, the history, the rules), the history read again
// when it is shown.
import { $, $$ } from './page.js';
import { S } from './state.js';
import { api } from './api.js';
import { lang, money, showErr, t } from './i18n.js';
import { showProof } from './proof.js';

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
