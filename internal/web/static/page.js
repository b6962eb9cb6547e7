// What every module of the player's page reads of it: its elements by selector, whether it runs
// in seamless wallet mode, the speed of its animations; the lines it says on screen and to screen
// readers; its dialogs.

export const $ = (s, r = document) => r.querySelector(s);
export const $$ = (s, r = document) => Array.from(r.querySelectorAll(s));
export const html = document.documentElement;
export const body = document.body;
export const params = new URLSearchParams(location.search);
const reduced = matchMedia('(prefers-reduced-motion: reduce)').matches;
// Seamless wallet mode (docs/spec/WALLET.md): the operator keeps the accounts, the money and player
// protection, and opens the game with a launch link. The server leaves their forms out of the
// page, and marks it so.
export const wallet = body.dataset.wallet === 'yes';
// ?speed=N runs every animation N times faster (the browser tests use it).
export const baseSpeed = Math.max(0.25, Number(params.get('speed')) || (reduced ? 4 : 1));

// ---- text on screen ----
// status says what to do now, under the board.
export function status(msg) {
  $('#status').textContent = msg || '';
}
// announce says a line to screen readers at once.
export function announce(msg) {
  $('#announce').textContent = msg;
}
// banner shows a word over the board, briefly.
export function banner(msg) {
  const b = $('#banner');
  b.textContent = msg;
  b.classList.remove('show');
  void b.offsetWidth;
  b.classList.add('show');
}

// ---- dialogs ----
// openDialog shows a modal dialog with the focus in it (on `focus`, or its first control);
// when it closes, the focus goes back to what had it (or to `back`), if still on screen.
export function openDialog(d, focus, back) {
  if (!d.open) {
    d.ret = back || document.activeElement;
    d.showModal();
  }
  if (focus) focus.focus();
}

// wireDialogs gives the focus back when a dialog closes, and closes one from its buttons.
export function wireDialogs() {
  $$('dialog').forEach(d =>
    d.addEventListener('close', () => {
      const r = d.ret;
      d.ret = null;
      if (r && r.isConnected && r.offsetParent !== null && !$('dialog[open]')) r.focus();
    }));
  $$('dialog [data-close]').forEach(b => b.addEventListener('click', () => b.closest('dialog').close()));
}
