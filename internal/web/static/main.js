// The player's page of « Star Color »: plays on the player API (/api/v1, docs/spec/API.md) and
// animates what the server reveals. This module wires the others, one per concern, each
// importing only what it uses from those below it: page and state, api, i18n, sound, board,
// effects, history, limits, card, game, account, sync. It sets the page's language, and
// starts the page with the session the server knows.
import { $, announce, baseSpeed, html, status, wallet, wireDialogs } from './page.js';
import { S } from './state.js';
import { api } from './api.js';
import { T, colorName, errText, lang, money, t } from './i18n.js';
import { sounds, wireSound } from './sound.js';
import { drawSleeping, relabel, renderBalance, renderResult, renderTotal } from './board.js';
import { setSpeed } from './effects.js';
import { renderHistory, route, wireHistory } from './history.js';
import { openNote, rootFromPath } from './proof.js';
import { renderLimits, renderReality, wireLimits } from './limits.js';
import { renderCard, wireCard } from './card.js';
import { controls, openReplay, resumeGame, wireGame } from './game.js';
import { exclusionText, onDemo, onLogin, onLogout, renderDemo, sayOut, wireAccount } from './account.js';
import { wireSync } from './sync.js';

// setLang shows the page in a language at once, and keeps the choice in the cookie the server
// serves the page by.
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
    if ($('#closure').open) $('#closure-text').textContent = t('closeText', { balance: money(S.balance) });
    if (!$('#limits-why').hidden) $('#limits-why').textContent = t($('#limits-why').dataset.why);
  }
  if (S.mode === 'choose') status(t('choose'));
  else if (S.mode === 'play' && S.game) status(t('click', { color: colorName(S.game.color) }));
  else if (S.mode === 'idle') status(S.user ? t('ready') : '');
}

// The listeners are added in this order: a dialog gives the focus back before the reality
// check's own listener may open it again (wireDialogs, wireLimits); the poll reads the games
// before the wallet's balance is read again when the page comes back to view (wireSync).
setSpeed(baseSpeed);
wireSound();
wireDialogs();
wireLimits();
wireAccount();
wireSync();
wireGame();
wireCard();
wireHistory(openReplay, resumeGame);
$('#lang').addEventListener('click', () => setLang(lang() === 'fr' ? 'en' : 'fr'));
addEventListener('hashchange', route);
// The proof's checks, for people who want to run them by hand from the console; the sounds
// played; the messages (the tests compare the languages').
window.starcolor = { rootFromPath, openNote, sounds, T };

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
