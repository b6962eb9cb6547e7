// Short effects made in the page (Web Audio), off until the player turns them on; the choice
// is remembered. Every effect played is logged in window.starcolor.sounds (the tests read it).
import { $ } from './page.js';
import { S } from './state.js';

// sounds logs every effect played.
export const sounds = [];
// Sound plays the effects, once the player has turned them on.
export const Sound = {
  on: localStorage.getItem('starcolor_sound') === 'on',
  ctx: null,
  last: {},
  audio() {
    if (!this.ctx) {
      const AC = window.AudioContext || window.webkitAudioContext;
      if (!AC) return null;
      this.ctx = new AC();
    }
    if (this.ctx.state === 'suspended') this.ctx.resume().catch(() => {});
    return this.ctx;
  },
  set(on) {
    this.on = on;
    localStorage.setItem('starcolor_sound', on ? 'on' : 'off');
    $('#sound').setAttribute('aria-pressed', on ? 'true' : 'false');
    if (on) this.audio();
  },
  // tone plays an oscillator: its type, frequencies from f0 to f1, from `at` seconds for `len`.
  tone(ac, type, f0, f1, at, len, vol) {
    const o = ac.createOscillator();
    const g = ac.createGain();
    const t0 = ac.currentTime + at;
    o.type = type;
    o.frequency.setValueAtTime(f0, t0);
    o.frequency.exponentialRampToValueAtTime(f1, t0 + len);
    g.gain.setValueAtTime(0.0001, t0);
    g.gain.exponentialRampToValueAtTime(vol, t0 + 0.01);
    g.gain.exponentialRampToValueAtTime(0.0001, t0 + len);
    o.connect(g).connect(ac.destination);
    o.start(t0);
    o.stop(t0 + len + 0.02);
  },
  noise(ac, at, len, vol, freq) {
    const n = Math.floor(ac.sampleRate * len);
    const buf = ac.createBuffer(1, n, ac.sampleRate);
    const d = buf.getChannelData(0);
    for (let i = 0; i < n; i++) d[i] = (Math.random() * 2 - 1) * (1 - i / n);
    const src = ac.createBufferSource();
    const f = ac.createBiquadFilter();
    const g = ac.createGain();
    f.type = 'bandpass';
    f.frequency.value = freq;
    g.gain.value = vol;
    src.buffer = buf;
    src.connect(f).connect(g).connect(ac.destination);
    src.start(ac.currentTime + at);
  },
  play(name) {
    if (!this.on || S.skip) return;
    // A chain of explosions is one crackle, not a hundred.
    const now = performance.now();
    if (now - (this.last[name] || 0) < 45) return;
    this.last[name] = now;
    const ac = this.audio();
    if (!ac) return;
    sounds.push(name);
    switch (name) {
      case 'click': this.tone(ac, 'triangle', 880, 660, 0, 0.07, 0.18); break;
      case 'explode': this.noise(ac, 0, 0.12, 0.5, 1800); break;
      case 'milky_way': this.tone(ac, 'sine', 300, 900, 0, 0.35, 0.15); this.noise(ac, 0.05, 0.3, 0.25, 3000); break;
      case 'supernova': this.tone(ac, 'sawtooth', 140, 50, 0, 0.45, 0.2); this.noise(ac, 0, 0.4, 0.5, 600); break;
      case 'shooting_star': this.tone(ac, 'sine', 1800, 400, 0, 0.4, 0.12); break;
      case 'extra': [523, 659, 784].forEach((f, i) => this.tone(ac, 'square', f, f, i * 0.09, 0.12, 0.08)); break;
      case 'gain': this.tone(ac, 'sine', 1320, 1320, 0, 0.09, 0.15); this.tone(ac, 'sine', 1760, 1760, 0.07, 0.16, 0.15); break;
      case 'lose': this.tone(ac, 'sine', 330, 220, 0, 0.4, 0.12); break;
      case 'win': [523, 659, 784, 1047].forEach((f, i) => this.tone(ac, 'triangle', f, f, i * 0.08, 0.2, 0.14)); break;
      case 'bigwin': [523, 659, 784, 1047, 1319, 1568].forEach((f, i) => this.tone(ac, 'square', f, f * 1.01, i * 0.11, 0.35, 0.09)); break;
      case 'goodwin': [523, 659, 784, 1047, 1319].forEach((f, i) => this.tone(ac, 'triangle', f, f, i * 0.09, 0.26, 0.14)); break;
      case 'topwin':
        [523, 659, 784, 1047, 1319, 1568, 2093].forEach((f, i) => this.tone(ac, 'square', f, f * 1.01, i * 0.12, 0.4, 0.09));
        [1047, 1319, 1568, 2093].forEach((f, i) => this.tone(ac, 'sine', f, f, 0.9 + i * 0.06, 0.9, 0.08));
        this.noise(ac, 0.85, 0.6, 0.2, 5000);
        break;
    }
  },
};

// wireSound shows the choice remembered, and lets the player turn the sound on and off.
export function wireSound() {
  $('#sound').setAttribute('aria-pressed', Sound.on ? 'true' : 'false');
  $('#sound').addEventListener('click', () => Sound.set(!Sound.on));
}
