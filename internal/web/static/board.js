// The board: the sky of 42 stars as the game on show stands (each star's colour, its content
// once revealed, and its words for screen readers), and the figures above it: the balance, the
// running total, the result.
import { $ } from './page.js';
import { S } from './state.js';
import { colorName, money, t } from './i18n.js';

// sky holds the stars; cells are its 42 buttons, row by row.
export const sky = $('#sky');
export const cells = [];
for (let i = 0; i < 42; i++) {
  const b = document.createElement('button');
  b.type = 'button';
  b.className = 'star';
  b.dataset.cell = String(i);
  b.innerHTML =
    '<svg class="shape" aria-hidden="true"><use href="#star"/></svg>' +
    '<svg class="mark" aria-hidden="true"><use href=""/></svg>' +
    '<span class="content" aria-hidden="true"></span>';
  b.style.setProperty('--i', String(i));
  sky.appendChild(b);
  cells.push(b);
}
// rowCol is a star's row and column.
export const rowCol = i => [Math.floor(i / 7), i % 7];

function contentLabel(cell) {
  switch (cell.kind) {
    case 'amount': return money(cell.amount);
    case 'supernova': return t('supernova', { color: colorName(cell.color) });
    case 'shooting_star': return t(cell.direction === 'rising' ? 'shooting_star.rising' : 'shooting_star.falling');
    default: return t(cell.kind);
  }
}
// paintContent shows what a star revealed.
export function paintContent(el, cell) {
  const c = el.querySelector('.content');
  el.dataset.kind = cell.kind;
  delete el.dataset.target;
  delete el.dataset.dir;
  switch (cell.kind) {
    case 'amount':
      c.textContent = money(cell.amount);
      break;
    case 'milky_way':
      c.innerHTML = '<svg><use href="#milky"/></svg>';
      break;
    case 'supernova':
      el.dataset.target = String(cell.color);
      c.innerHTML = `<svg class="nv"><use href="#nova"/></svg><svg class="nm"><use href="#m${cell.color}"/></svg>`;
      break;
    case 'shooting_star':
      el.dataset.dir = cell.direction;
      c.innerHTML = '<svg><use href="#shoot"/></svg>';
      break;
    case 'extra':
      c.textContent = 'EXTRA';
      break;
    default:
      c.textContent = '';
  }
}
// paintStar shows one star as the game stands: its colour, and its content once revealed.
function paintStar(i, board, g) {
  const el = cells[i];
  const color = board ? board.colors[i] : null;
  const cell = board ? board.cells[i] : null;
  el.classList.remove('pop', 'vanish', 'appear', 'hit', 'pending');
  if (color === null) {
    delete el.dataset.color;
    el.querySelector('.mark use').setAttribute('href', '');
  } else {
    el.dataset.color = String(color);
    el.querySelector('.mark use').setAttribute('href', '#m' + color);
  }
  if (cell) {
    el.dataset.state = 'revealed';
    paintContent(el, cell);
  } else {
    el.dataset.state = 'hidden';
    delete el.dataset.kind;
    el.querySelector('.content').textContent = '';
  }
  label(i, board, g);
}
// playable tells a star the player may click now.
export function playable(i, g) {
  return (
    S.mode === 'play' && g && g.status === 'playing' && S.shownBoard === 1 &&
    g.boards[0].colors[i] === g.color && !g.boards[0].cells[i] && !cells[i].classList.contains('pending')
  );
}
// label says a star as it stands: its number, its colour and what it shows.
export function label(i, board, g) {
  const el = cells[i];
  const color = board ? board.colors[i] : null;
  const cell = board ? board.cells[i] : null;
  const can = board && playable(i, g);
  el.classList.toggle('playable', !!can);
  el.setAttribute('aria-disabled', can ? 'false' : 'true');
  el.tabIndex = can ? 0 : -1;
  const name = color === null ? t('sleeping') : colorName(color);
  const what = el.dataset.state === 'revealed' && cell ? contentLabel(cell) : can ? t('toClick') : t('hidden');
  el.setAttribute('aria-label', t('star', { n: i + 1, color: name, what }));
}
function board(g) {
  return g && g.boards[S.shownBoard - 1];
}
// relabel says every star again (in the page's language now).
export function relabel() {
  const g = S.replay ? S.replay.view : S.game;
  const b = board(g);
  cells.forEach((_, i) => label(i, b, g));
  sky.setAttribute('aria-label', t('sky'));
}
// drawBoard shows board n of a game, every star hidden if hiddenAll.
export function drawBoard(g, n, hiddenAll) {
  S.shownBoard = n;
  sky.dataset.board = String(n);
  const b = g.boards[n - 1];
  const shown = hiddenAll ? { colors: b.colors, cells: new Array(42).fill(null) } : b;
  cells.forEach((_, i) => paintStar(i, shown, g));
  sky.classList.toggle('chosen', g.color !== null);
  if (g.color !== null) sky.dataset.chosen = String(g.color);
  else delete sky.dataset.chosen;
}
// drawSleeping shows the sky before a colour is chosen: 42 stars, none of a colour.
export function drawSleeping() {
  S.shownBoard = 0;
  delete sky.dataset.chosen;
  sky.dataset.board = '0';
  cells.forEach((_, i) => paintStar(i, null, null));
}

// renderBalance shows the balance, less the prize of the game on show until its end.
export function renderBalance() {
  const el = $('#balance');
  const c = S.balance - S.hold;
  el.dataset.cents = String(c);
  el.textContent = S.user ? money(c) : '—';
}
// renderTotal shows the amounts landed so far.
export function renderTotal(bump) {
  const el = $('#total');
  el.dataset.cents = String(S.total);
  el.textContent = money(S.total);
  if (bump) {
    el.classList.remove('bump');
    void el.offsetWidth;
    el.classList.add('bump');
  }
}
// renderResult shows the result of the last game ended on screen.
export function renderResult() {
  const el = $('#result');
  if (!S.result) {
    el.textContent = '';
    el.className = 'result';
    return;
  }
  el.textContent = S.result.prize > 0 ? t('won', { amount: money(S.result.prize) }) : t('lost');
  el.className = 'result ' + (S.result.prize > 0 ? 'won' : 'lost');
}
// setResult keeps the result shown, and the state of the result line.
export function setResult(r, state) {
  S.result = r;
  $('#result').dataset.state = state;
  renderResult();
}
