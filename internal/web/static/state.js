// The page's state, shared on purpose: the one object S that the modules read and write (the
// player, the balance, the game on show and the mode of the screen), and the channel the tabs
// of this browser tell each other on.
import { baseSpeed, body } from './page.js';

export const S = {
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
export function setShowing(id) {
  S.showing = id;
  if (id) sessionStorage.setItem('starcolor_showing', String(id));
  else sessionStorage.removeItem('starcolor_showing');
}

// busy counts the moves under way: the page is busy (data-busy) while one is.
export function busy(delta) {
  S.pending += delta;
  body.dataset.busy = S.pending > 0 ? 'yes' : 'no';
}

export const DEMO_USER = 'demo'; // S.user of a demo session, never shown: it has no username

// chan is how the tabs of this browser tell each other every game's new state at once; sync.js
// listens to it.
export const chan = 'BroadcastChannel' in window ? new BroadcastChannel('starcolor') : null;
// tell tells the other tabs of the same player.
export function tell(msg) {
  if (chan && S.user) chan.postMessage(Object.assign({ user: S.user }, msg));
}
