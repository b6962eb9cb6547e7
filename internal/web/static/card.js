// The result card. At the end of every game, and of its replay, a card over the board says the
// result: the prize, every amount that makes it board by board, and « Rejouer » at the same
// stake with the focus on it. It comes once the reveal has ended (finishShow), never before; its
// motion and sound grow with the win: small, good (10 times the stake), big (100 times), the top
// prize.
import { $, announce } from './page.js';
import { S } from './state.js';
import { money, t } from './i18n.js';
import { Sound } from './sound.js';
import { motionless, winTier } from './effects.js';

const levelSound = { small: 'win', good: 'goodwin', big: 'bigwin', top: 'topwin', lose: 'lose' };
// showCard shows the card of a game that ended on screen (replayed: its replay).
export function showCard(g, replayed) {
  const card = $('#card');
  const level = winTier(g) || 'lose';
  S.card = { game: g, again: replayed || !S.last ? { stake: g.stake, mode: g.mode } : S.last };
  card.className = 'rcard lvl-' + level;
  card.dataset.level = level;
  card.dataset.game = String(g.id);
  card.dataset.motion = motionless() ? 'none' : 'full';
  renderCard();
  card.hidden = false;
  void card.offsetWidth;
  card.classList.add('in');
  Sound.play(levelSound[level]);
  announce(`${$('#card-level').textContent} ${$('#card-title').textContent}. ${$('#card-gains').textContent}`.trim());
  boardIntoView();
  $('#again').focus({ preventScroll: true });
}
// renderCard writes the card's words, in the page's language.
export function renderCard() {
  const c = S.card;
  if (!c) return;
  const g = c.game;
  const level = winTier(g);
  $('#card-level').textContent = level ? t({ small: 'level_small', good: 'level_good', big: 'level_big', top: 'level_top' }[level]) : '';
  $('#card-title').textContent = g.prize > 0 ? t('won', { amount: money(g.prize) }) : t('cardLost');
  $('#card-stake').textContent = t('cardStake', { stake: money(c.again.stake) });
  const box = $('#card-gains');
  box.textContent = '';
  box.dataset.cents = '';
  if (g.prize <= 0) {
    const p = document.createElement('p');
    p.className = 'rcard-none';
    p.textContent = t('cardLostText');
    box.appendChild(p);
    return;
  }
  const per = g.boards.map(() => []);
  for (const ev of g.events) {
    const cell = g.boards[ev.board - 1].cells[ev.cell];
    if (cell && cell.kind === 'amount') per[ev.board - 1].push(cell.amount);
  }
  let sum = 0;
  const row = (cls, label) => {
    const r = document.createElement('p');
    r.className = 'rrow ' + cls;
    const l = document.createElement('span');
    l.className = 'rlbl';
    l.textContent = t('cardRow', { label });
    r.appendChild(l);
    box.appendChild(r);
    return r;
  };
  const chip = (r, text, cls) => {
    const x = document.createElement('span');
    x.className = cls;
    x.textContent = text;
    r.appendChild(x);
  };
  per.forEach((list, b) => {
    const r = row(b === 0 ? 'b1' : 'b2', b === 0 ? t(g.boards.length > 1 ? 'cardBoard' : 'cardFound') : t('cardExtra'));
    r.dataset.board = String(b + 1);
    if (!list.length) chip(r, money(0), 'g none');
    list.forEach((a, i) => {
      if (i > 0) chip(r, '+', 'sep');
      chip(r, money(a), 'g');
      sum += a;
    });
  });
  chip(row('sum', t('cardTotal')), money(sum), 'eq');
  box.dataset.cents = String(sum);
}
// hideCard takes the card away.
export function hideCard() {
  const card = $('#card');
  card.hidden = true;
  card.classList.remove('in');
  card.dataset.level = 'none';
  S.card = null;
}
// closeCard puts the card away; the focus goes where the player goes on from.
function closeCard() {
  hideCard();
  const next = S.mode === 'replay' ? $('#replay-close') : $('#play');
  if (next) next.focus({ preventScroll: true });
}

// boardIntoView scrolls the board whole into view below the sticky header (a replay opened
// from a scrolled history would leave its top, and its result, under the header).
export function boardIntoView() {
  const wrap = $('.skywrap');
  if (!wrap || wrap.offsetParent === null) return;
  const b = wrap.getBoundingClientRect();
  const top = $('header.top').getBoundingClientRect().bottom + 4;
  let dy = 0;
  if (b.top < top || b.height > innerHeight - top) dy = b.top - top;
  else if (b.bottom > innerHeight) dy = b.bottom - innerHeight + 4;
  if (Math.abs(dy) >= 1) scrollBy({ top: dy, behavior: 'instant' });
}

// wireCard closes the card on its button and on Escape.
export function wireCard() {
  $('#card-close').addEventListener('click', closeCard);
  $('#card').addEventListener('keydown', e => {
    if (e.key === 'Escape') {
      e.preventDefault();
      closeCard();
    }
  });
}
