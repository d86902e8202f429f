// The bar under the scene: play/pause, the time slider (with the worst frame marked), speed,
// "go to worst", the time display.
import { fmt } from './data.js';

function el(tag, attrs = {}, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === 'text') e.textContent = v;
    else if (k === 'class') e.className = v;
    else e.setAttribute(k, v);
  }
  e.append(...kids);
  return e;
}
export { el };

export class Timeline {
  // app: { t0, t1, play(), pause(), toggle(), seek(t), setSpeed(x), goWorst() }
  constructor(container, app) {
    this.app = app;
    this.play = el('button', { id: 'mbconv-play', type: 'button', title: 'Play / pause (space)', text: '▶ Play' });
    this.play.addEventListener('click', () => app.toggle());
    this.range = el('input', { id: 'mbconv-timeline', type: 'range', min: String(app.t0), max: String(app.t1), step: 'any', value: String(app.t0) });
    this.range.setAttribute('aria-label', 'time (s)');
    this.range.addEventListener('input', () => app.seek(+this.range.value));
    this.range.addEventListener('change', () => app.seek(+this.range.value));
    this.marks = el('div', { class: 'mbconv-marks' });
    const track = el('div', { class: 'mbconv-track' }, this.range, this.marks);
    this.speed = el('select', { id: 'mbconv-speed', title: 'speed' });
    for (const s of [0.1, 0.25, 0.5, 1, 2]) {
      const o = el('option', { value: String(s), text: `${s}×` });
      if (s === 1) o.selected = true;
      this.speed.append(o);
    }
    this.speed.addEventListener('change', () => app.setSpeed(+this.speed.value));
    this.worst = el('button', { id: 'mbconv-worst', type: 'button', text: 'go to worst', title: 'the frame where the conversion parts most from the original' });
    this.worst.addEventListener('click', () => app.goWorst());
    this.worst.hidden = true;
    this.time = el('span', { id: 'mbconv-time' });
    container.append(this.play, track, this.speed, this.worst, this.time);
    this.lastT = NaN;
  }

  setWorst(worst) {
    this.marks.textContent = '';
    const ok = worst && worst.time != null && this.app.t1 > this.app.t0;
    this.worst.hidden = !ok;
    if (!ok) return;
    const f = Math.min(1, Math.max(0, (worst.time - this.app.t0) / (this.app.t1 - this.app.t0)));
    const m = el('div', { class: 'mbconv-worst-mark', id: 'mbconv-worst-mark', title: `worst: t = ${fmt(worst.time)} s, centre of mass off by ${fmt(worst.com)} m` });
    m.style.left = `${f * 100}%`;
    m.addEventListener('click', () => this.app.goWorst());
    this.marks.append(m);
  }

  setPlaying(p) {
    this.play.textContent = p ? '❚❚ Pause' : '▶ Play';
    this.play.setAttribute('aria-pressed', String(p));
  }

  setTime(t) {
    if (t === this.lastT) return;
    this.lastT = t;
    if (document.activeElement !== this.range || this.app.playing) this.range.value = String(t);
    this.time.textContent = `t = ${t.toFixed(3)} / ${this.app.t1.toFixed(3)} s`;
  }
}
