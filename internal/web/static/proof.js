// A game's proof, checked in the page with WebCrypto alone, no library:
//   - the unit's audit line against its block's published root (RFC 6962);
//   - the sale in the journal (docs/spec/API.md 1.2): the entry's leaf and its path up to the
//     root of the signed checkpoint, what the entry names (the unit's leaf hash, the game, the
//     stake, the prize), and the checkpoint's Ed25519 signature against the journal's key.
// The dialog says each result, and waits for the next checkpoint while none covers the sale.
import { $, openDialog } from './page.js';
import { api, hex } from './api.js';
import { money, t } from './i18n.js';

const utf8 = s => new TextEncoder().encode(s);

function unhex(s) {
  if (!/^([0-9a-f]{2})*$/i.test(s)) throw new Error('bad hex');
  const out = new Uint8Array(s.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(s.substr(2 * i, 2), 16);
  return out;
}
// unbase64 reads standard base64 with its padding, or gives null.
function unbase64(s) {
  if (s.length % 4 || !/^[A-Za-z0-9+/]*={0,2}$/.test(s)) return null;
  return Uint8Array.from(atob(s), c => c.charCodeAt(0));
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
// leafOf is the RFC 6962 leaf hash of a line, in hex: SHA-256(0x00 ‖ line).
const leafOf = async line => hex(await sha256(Uint8Array.of(0), utf8(line)));

// rootFromPath recomputes a tree's root from a leaf's line and its inclusion proof, as RFC 6962
// (RFC 9162 §2.1.3.2) tells: leaf = SHA-256(0x00 ‖ line), node = SHA-256(0x01 ‖ l ‖ r). The same
// code checks a unit in its block and a sale's entry in the journal. It returns the root in hex,
// or null when the path cannot belong to a tree of that size.
export async function rootFromPath(line, index, size, path) {
  if (!(Number.isSafeInteger(index) && Number.isSafeInteger(size) && index >= 0 && index < size)) return null;
  let r = await sha256(Uint8Array.of(0), utf8(line));
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

// openNote checks a signed note (golang.org/x/mod/sumdb/note) against a verifier key
// (name+id+base64 of 0x01 ‖ the Ed25519 public key). It gives the note's text when a signature
// of the key verifies, null when none does, and 'unsupported' when the browser has no Ed25519
// in WebCrypto (Chromium 137, Firefox 129 and Safari 17 have it): then nothing was checked.
export async function openNote(msg, vkey) {
  // The name and the id end at the first two '+'; base64 may hold more.
  const m = /^([^+\s]+)\+([0-9a-f]{8})\+(\S+)$/.exec(vkey);
  const raw = m && unbase64(m[3]);
  if (!raw || raw.length !== 33 || raw[0] !== 1) return null;
  const [, name, id] = m;
  // The key's id is the first 4 bytes of SHA-256(name ‖ "\n" ‖ 0x01 ‖ key), as note makes it.
  if (hex((await sha256(utf8(name + '\n'), raw)).slice(0, 4)) !== id) return null;
  // The text ends at the last blank line; each line after it is a signature.
  const split = msg.lastIndexOf('\n\n');
  if (split < 0 || !msg.endsWith('\n')) return null;
  const text = msg.slice(0, split + 1);
  let key;
  try {
    key = await crypto.subtle.importKey('raw', raw.slice(1), { name: 'Ed25519' }, false, ['verify']);
  } catch (e) {
    if (e.name === 'NotSupportedError') return 'unsupported';
    return null;
  }
  for (const line of msg.slice(split + 2, -1).split('\n')) {
    const l = /^\u2014 (\S+) (\S+)$/.exec(line);
    const sig = l && l[1] === name ? unbase64(l[2]) : null;
    if (!sig || sig.length !== 68 || hex(sig.slice(0, 4)) !== id) continue;
    if (await crypto.subtle.verify({ name: 'Ed25519' }, key, sig.slice(4), utf8(text))) return text;
  }
  return null;
}

// checkpointOf reads a C2SP tlog-checkpoint's text: its origin, its size and its root hash (hex).
function checkpointOf(text) {
  const lines = text.split('\n');
  const root = lines.length >= 4 ? unbase64(lines[2]) : null;
  if (!root || root.length !== 32 || !/^(0|[1-9][0-9]{0,15})$/.test(lines[1])) return null;
  return { origin: lines[0], size: Number(lines[1]), root: hex(root) };
}

// journalKey is the journal's verifier key, read once: a journal has one key.
let journalKey = null;
async function verifierKey() {
  if (journalKey === null) {
    const r = await fetch('/api/v1/journal/key', { credentials: 'same-origin' });
    if (!r.ok) throw Object.assign(new Error(r.statusText), { status: r.status });
    journalKey = (await r.text()).trim();
  }
  return journalKey;
}

// checkJournal checks a game's sale in the journal: whether its entry's path leads to the root
// the checkpoint signs, whether the entry names this unit, game, stake and prize, and whether
// the checkpoint is signed by the journal's key and names it as its origin (signed is null
// when the browser cannot check Ed25519).
export async function checkJournal(j, p, g, unitLeaf, vkey) {
  let e = null;
  try {
    e = JSON.parse(j.entry);
  } catch (err) {
    e = null;
  }
  const names = !!e && e.kind === 'sale' && e.seq === j.index && e.game === g.id && e.stake === g.stake &&
    e.prize === g.prize && e.emission === p.emission && e.block === p.block && e.index === p.index && e.unit === unitLeaf;
  const opened = await openNote(j.checkpoint, vkey);
  const text = opened === 'unsupported' ? null : opened;
  // Unsigned, the text is still read: the path is checked against the root it states.
  const cp = checkpointOf(text || j.checkpoint.slice(0, j.checkpoint.lastIndexOf('\n\n') + 1));
  const signed = opened === 'unsupported' ? null : !!text && !!cp && cp.origin === vkey.split('+')[0];
  const computed = cp ? await rootFromPath(j.entry, j.index, cp.size, j.path) : null;
  return { names, signed, cp, computed, included: !!cp && computed === cp.root };
}

// pendingTries is how many times the dialog asks again for a proof that no checkpoint covers
// yet, every pendingEvery: a checkpoint is signed every second or so while sales come.
const pendingTries = 15;
const pendingEvery = 2000;
let proofSeq = 0;

// showProof opens the proof of a finished game g (from the history) and checks it.
export async function showProof(g) {
  const seq = ++proofSeq;
  const dlg = $('#proof');
  for (const id of ['#proof-status', '#proof-journal']) {
    const st = $(id);
    st.textContent = t('checking');
    st.dataset.verified = '';
    st.className = 'verdict';
  }
  $('#proof-checks').textContent = '';
  $('#proof-facts').textContent = '';
  openDialog(dlg);
  for (let tries = 1; ; tries++) {
    const [p, em, vkey] = await Promise.all([api('GET', `/games/${g.id}/proof`), api('GET', '/emissions'), verifierKey()]);
    if (seq !== proofSeq) return; // another proof was asked for meanwhile
    const pending = await renderProof(p, em, vkey, g, tries >= pendingTries);
    if (!pending || !dlg.open || seq !== proofSeq) return;
    await new Promise(ok => setTimeout(ok, pendingEvery));
    if (!dlg.open || seq !== proofSeq) return;
  }
}

// renderProof checks a proof and shows it; it says whether the sale waits for a checkpoint.
async function renderProof(p, em, vkey, g, last) {
  const e = em.emissions.find(x => x.id === p.emission);
  const blk = e && e.blocks.find(b => b.block === p.block);
  const st = $('#proof-status');
  const js = $('#proof-journal');
  const checks = $('#proof-checks');
  const facts = $('#proof-facts');
  checks.textContent = '';
  facts.textContent = '';
  const verdict = (el, state, key) => {
    el.dataset.verified = state;
    el.className = 'verdict ' + (state === 'true' ? 'ok' : state === 'false' ? 'ko' : 'wait');
    el.textContent = t(key);
  };
  const check = (key, ok) => {
    const li = document.createElement('li');
    li.className = ok === true ? 'ok' : ok === false ? 'ko' : 'wait';
    li.textContent = t(key);
    checks.appendChild(li);
  };
  if (!(crypto && crypto.subtle)) {
    verdict(st, 'false', 'noCrypto');
    verdict(js, 'false', 'noCrypto');
    return false;
  }
  let computed = null, ok = false, linePrize = null, unitLeaf = null;
  try {
    const rec = JSON.parse(p.line);
    linePrize = rec.prize;
    unitLeaf = await leafOf(p.line);
    computed = blk ? await rootFromPath(p.line, p.index, blk.units, p.path) : null;
    ok = !!blk && computed === blk.root && p.root === blk.root && rec.i === p.index && rec.prize === g.prize;
  } catch (err) {
    ok = false;
  }
  verdict(st, ok ? 'true' : 'false', ok ? 'verified' : 'notVerified');
  check(ok ? 'checkUnit' : 'checkUnitFailed', ok);
  let jr = null;
  if (!p.journal) {
    verdict(js, 'pending', last ? 'journalLate' : 'journalPending');
  } else {
    try {
      jr = await checkJournal(p.journal, p, g, unitLeaf, vkey);
    } catch (err) {
      jr = { names: false, signed: false, included: false, cp: null, computed: null };
    }
    check(jr.included ? 'checkIncluded' : 'checkIncludedFailed', jr.included);
    check(jr.names ? 'checkNames' : 'checkNamesFailed', jr.names);
    check(jr.signed === null ? 'checkNoEd25519' : jr.signed ? 'checkSigned' : 'checkSignedFailed', jr.signed);
    const all = jr.included && jr.names && jr.signed;
    if (jr.signed === null && jr.included && jr.names) verdict(js, 'unsupported', 'journalUnsupported');
    else verdict(js, all ? 'true' : 'false', all ? 'journalVerified' : 'journalFailed');
  }
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
  if (p.journal) {
    add('fJournalIndex', String(p.journal.index));
    add('fJournalEntry', p.journal.entry, 'mono line');
    add('fJournalPath', p.journal.path, 'mono');
    add('fCheckpoint', p.journal.checkpoint, 'mono line pre');
    add('fJournalRoot', jr.cp ? jr.cp.root : '—', 'mono');
    add('fJournalComputed', jr.computed || '—', 'mono ' + (jr.included ? 'ok' : 'ko'));
    add('fJournalKey', vkey, 'mono line');
  }
  return !p.journal;
}
