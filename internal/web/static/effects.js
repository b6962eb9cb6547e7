// The effects: what the server revealed, played star by star at the page's speed (the pop of a
// star, a symbol's explosion, an amount flying to the total, the Extra stage), and the
// celebration of a win by its size.
import { $, announce, banner, html, status } from './page.js';
import { S } from './state.js';
import { colorName, money, t } from './i18n.js';
import { Sound } from './sound.js';
import { cells, drawBoard, label, paintContent, renderTotal, rowCol } from './board.js';

const fx = $('#fx');
const fly = $('#fly');

// clearEffects takes away every effect still on screen.
export function clearEffects() {
  fx.textContent = '';
  fly.textContent = '';
}

// ---- timing ----
const k = () => (S.skip ? 0 : 1 / S.speed);
// A motion too short to be seen is not played at all.
const dur = ms => (ms * k() < 5 ? 0 : ms * k());
// wait waits ms at the page's speed (not at all once « Passer » skips).
export const wait = ms =>
  new Promise(r => {
    const d = dur(ms);
    if (d <= 0) r();
    else setTimeout(r, d);
  });
// setSpeed sets the speed of the animations, the style sheet's too; skip runs them at once.
export function setSpeed(v, skip) {
  S.speed = v;
  S.skip = !!skip;
  html.style.setProperty('--k', String(k()));
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
    status(t('nova', { color: colorName(cell.color) }));
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
export async function animate(g, from, to) {
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

// winTier is the size of a win against the stake: small, good (10 times the stake), big (100
// times) or the top prize of its table; '' for no win.
export function winTier(g) {
  if (!g || g.prize <= 0) return '';
  if (topOf(g.stake) > 0 && g.prize >= topOf(g.stake)) return 'top';
  return g.prize >= 100 * g.stake ? 'big' : g.prize >= 10 * g.stake ? 'good' : 'small';
}
// celebrate marks a win by its size, each with its own effect and sound.
export function celebrate(g, withBanner) {
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
    banner(tier === 'big' ? t('bigWin') + ' ' + money(g.prize) : tier === 'good' ? t('goodWin') + ' ' + money(g.prize) : t('won', { amount: money(g.prize) }));
  }
}

// motionless tells that the player asked for reduced motion.
export const motionless = () => matchMedia('(prefers-reduced-motion: reduce)').matches;
// topOf is the top prize of a stake's table, in cents (0 for a stake the page does not offer).
function topOf(stake) {
  const r = $(`input[name=stake][value="${stake}"]`);
  return r ? Number(r.dataset.topCents) || 0 : 0;
}
