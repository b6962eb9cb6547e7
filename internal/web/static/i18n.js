// The page's words in its two languages, French first: its messages (internal/i18n, served as
// messages.js), the names of the colours, money, dates and errors as the player reads them, and
// amounts typed in euros.
import { $, announce, html, wallet } from './page.js';
import { S } from './state.js';
import messages from './messages.js';

// T is every message by key, in each language: { fr: {…}, en: {…} }.
export const T = messages;

// lang is the page's language.
export const lang = () => (html.lang === 'en' ? 'en' : 'fr');
// t is the message k in the page's language, its {placeholders} filled from values by name (a
// placeholder is a name that starts with a small letter, as internal/i18n reads them).
export const t = (k, values) => {
  const v = T[lang()][k];
  return values && v ? v.replace(/\{([a-z]\w*)\}/g, (m, name) => (name in values ? String(values[name]) : m)) : v;
};
// colorName is the name of a colour (0 to 5).
export const colorName = c => t('color.' + c);
// money writes cents in euros, as the page's language does.
export const money = c =>
  new Intl.NumberFormat(lang() === 'en' ? 'en-IE' : 'fr-FR', {
    style: 'currency', currency: 'EUR', minimumFractionDigits: c % 100 ? 2 : 0, maximumFractionDigits: 2,
  }).format(c / 100);
// A date and time, local, in the page's language.
export const when = iso =>
  new Intl.DateTimeFormat(lang() === 'en' ? 'en-GB' : 'fr-FR', { dateStyle: 'long', timeStyle: 'short' }).format(new Date(iso));
// The end of a self-exclusion, from the server's refusal (the only figure its words carry).
const until = e => ((e.message || '').match(/\d{4}-\d\d-\d\dT[\d:.]+(Z|[+-]\d\d:\d\d)/) || [])[0];
// Every error is told in the player's language, from its code, never in the server's words: in
// wallet mode and in demo play some codes have words of their own.
export const errText = e => {
  const code = e && e.code;
  if (code && code !== 'unknown') {
    if (code === 'excluded' && until(e)) return t('selfExcludedUntil', { until: when(until(e)) });
    const v = (wallet && t('walletErrors.' + code)) || (S.demo && t('demoErrors.' + code)) || t('errors.' + code);
    if (v) return v;
  }
  return t('errors.unknown', { code: (e && (e.code || e.status)) || t('unknownCode') });
};

// ---- money typed in euros ----
// cents reads "12", "12,5" or "12.50" as whole cents, by splitting on the separator: no
// floating point on the way. It returns null for anything else, or above 1 000 000 €.
export function cents(s) {
  const m = /^(\d{1,7})(?:[.,](\d{1,2}))?$/.exec(s.replace(/[\s\u00a0\u202f€]/g, ''));
  if (!m) return null;
  const c = Number(m[1]) * 100 + Number((m[2] || '').padEnd(2, '0'));
  return c <= 100000000 ? c : null;
}
// euroInput writes cents for a field to edit: "12,50" or "12.50".
export const euroInput = c => {
  if (c === null || c === undefined) return '';
  const f = c % 100 ? (lang() === 'en' ? '.' : ',') + String(c % 100).padStart(2, '0') : '';
  return Math.floor(c / 100) + f;
};

// signed writes a result with its sign: "+2 €", "−1 €".
export const signed = c => (c > 0 ? '+' : c < 0 ? '−' : '') + money(Math.abs(c));

// showErr tells an error on the game screen, and to screen readers.
export function showErr(e) {
  announce(errText(e));
  $('#play-err').textContent = errText(e);
}
