// Other tabs and devices follow the game. Tabs of this browser tell each other every game's new
// state at once (BroadcastChannel); other devices are read with a poll of the player's latest
// games: every 4 s while the page is visible and not animating, and when it comes back to view.
// Its cost: one indexed read of 5 games a poll (GET /api/v1/games?limit=5), and GET /me only
// when something changed.
import { $, wallet } from './page.js';
import { S, chan } from './state.js';
import { api } from './api.js';
import { signed, t } from './i18n.js';
import { answered, duration, recheck } from './limits.js';
import { adopt, ahead, changed, follow, refreshBalance } from './game.js';
import { onLogout } from './account.js';

let polled = '';
// poll reads the player's latest games, and follows what changed elsewhere.
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
  if (box.open) recheck().catch(() => {});
  if (sig === polled) return;
  polled = sig;
  const cur = S.game && list.games.find(g => g.id === S.game.id);
  if (cur && S.showing === cur.id && (S.mode === 'choose' || S.mode === 'play') && S.pending === 0 && ahead(cur, S.game)) adopt(cur);
  else changed(list.games);
}

// wireSync follows the other tabs and devices.
export function wireSync() {
  if (chan) {
    chan.addEventListener('message', e => {
      const m = e.data;
      if (!m || !S.user || m.user !== S.user) return;
      if (m.type === 'game') follow(m.game);
      else if (m.type === 'checked') answered(m.minutes);
      else if (m.type === 'logout') onLogout(m.stopped ? () => t('stopped', { time: duration(m.stopped[0]), result: signed(m.stopped[1]) }) : undefined);
    });
  }
  setInterval(() => poll().catch(() => {}), 4000);
  document.addEventListener('visibilitychange', () => poll().catch(() => {}));
  addEventListener('focus', () => poll().catch(() => {}));
  // In wallet mode the balance moves at the operator too (a deposit on its site): an idle page
  // the player comes back to reads it again.
  if (wallet) {
    document.addEventListener('visibilitychange', () => {
      if (document.visibilityState === 'visible') refreshBalance();
    });
  }
}
