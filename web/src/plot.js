// The plot under the scene: each original body's centre-of-mass error (`error.com`) over time,
// drawn once into a base canvas; the current time is a line on an overlay canvas.
import { f32, fmt } from './data.js';

export class Plot {
  constructor(container, times, onSeek) {
    this.el = container;
    this.times = times;
    this.base = document.createElement('canvas');
    this.over = document.createElement('canvas');
    this.el.append(this.base, this.over);
    this.conv = null;
    this.err = null;
    this.nb = 0;
    this.body = null;
    this.lastT = NaN;
    this.over.style.cursor = 'crosshair';
    const seek = (e) => {
      if (!this.x) return;
      const r = this.over.getBoundingClientRect();
      onSeek(this.x.inv(e.clientX - r.left));
    };
    let down = false;
    this.over.addEventListener('pointerdown', (e) => { down = true; this.over.setPointerCapture(e.pointerId); seek(e); });
    this.over.addEventListener('pointermove', (e) => { if (down) seek(e); });
    this.over.addEventListener('pointerup', () => { down = false; });
    if (typeof ResizeObserver !== 'undefined') new ResizeObserver(() => this.draw()).observe(this.el);
  }

  // conv: a Conversion or null (hides the plot); nb: the original's body count.
  setConversion(conv, nb) {
    this.conv = conv;
    this.nb = nb;
    this.err = conv && conv.error && conv.error.com != null ? f32(conv.error.com) : null;
    this.el.hidden = !this.err;
    this.draw();
  }

  setBody(i) {
    if (this.body === i) return;
    this.body = i;
    this.draw();
  }

  draw() {
    if (!this.err || this.el.hidden) return;
    const dpr = Math.min(window.devicePixelRatio || 1, 2);
    const W = this.el.clientWidth;
    const H = this.el.clientHeight;
    if (!W || !H) return;
    for (const c of [this.base, this.over]) {
      c.width = Math.round(W * dpr);
      c.height = Math.round(H * dpr);
    }
    const g = this.base.getContext('2d');
    g.setTransform(dpr, 0, 0, dpr, 0, 0);
    g.clearRect(0, 0, W, H);
    const times = this.times;
    const nb = this.nb;
    const err = this.err;
    const frames = nb ? Math.min(times.length, Math.floor(err.length / nb)) : 0;
    let max = 0;
    let minPos = Infinity;
    for (let i = 0; i < frames * nb; i++) {
      const v = err[i];
      if (v > max) max = v;
      if (v > 0 && v < minPos) minPos = v;
    }
    const log = max > 0 && minPos < Infinity && max / minPos > 100;
    let lo;
    let hi;
    if (log) {
      hi = Math.pow(10, Math.ceil(Math.log10(max)));
      lo = Math.max(minPos, hi * 1e-9);
      lo = Math.pow(10, Math.floor(Math.log10(lo)));
    } else {
      lo = 0;
      hi = max > 0 ? max * 1.1 : 1e-6;
    }
    const left = 58;
    const right = 12;
    const top = 20;
    const bottom = 22;
    const t0 = times.length ? times[0] : 0;
    const t1 = times.length > 1 ? times[times.length - 1] : t0 + 1;
    const pw = W - left - right;
    const ph = H - top - bottom;
    const xs = (t) => left + ((t - t0) / (t1 - t0 || 1)) * pw;
    xs.inv = (px) => t0 + ((px - left) / pw) * (t1 - t0);
    const ys = log
      ? (v) => top + ph - ((Math.log10(Math.max(v, lo)) - Math.log10(lo)) / (Math.log10(hi) - Math.log10(lo))) * ph
      : (v) => top + ph - ((v - lo) / (hi - lo)) * ph;
    this.x = xs;
    this.geom = { top, ph };

    // axes and ticks
    g.font = '11px system-ui, sans-serif';
    g.fillStyle = '#555';
    g.strokeStyle = '#e4e4e0';
    g.lineWidth = 1;
    g.textAlign = 'right';
    g.textBaseline = 'middle';
    const yt = [];
    if (log) {
      const d0 = Math.log10(lo);
      const d1 = Math.log10(hi);
      const every = Math.max(1, Math.ceil((d1 - d0) / 5));
      for (let d = d0; d <= d1 + 1e-9; d += every) yt.push(Math.pow(10, d));
    } else {
      for (let k = 0; k <= 4; k++) yt.push(lo + ((hi - lo) * k) / 4);
    }
    for (const v of yt) {
      const y = Math.round(ys(v)) + 0.5;
      g.beginPath(); g.moveTo(left, y); g.lineTo(left + pw, y); g.stroke();
      g.fillText(log ? v.toExponential(0) : fmt(v, 2), left - 4, y);
    }
    g.textAlign = 'center';
    g.textBaseline = 'top';
    const tstep = niceStep((t1 - t0) / 8);
    for (let t = Math.ceil(t0 / tstep) * tstep; t <= t1 + 1e-9; t += tstep) {
      const x = Math.round(xs(t)) + 0.5;
      g.beginPath(); g.moveTo(x, top); g.lineTo(x, top + ph); g.stroke();
      g.fillText(fmt(t, 3) + ' s', x, top + ph + 4);
    }
    g.strokeStyle = '#999';
    g.strokeRect(left + 0.5, top + 0.5, pw, ph);
    g.textAlign = 'left';
    g.fillStyle = '#333';
    g.fillText(`centre-of-mass error per body (m), ${log ? 'log' : 'linear'} y axis`, left, 4);

    // lines
    g.save();
    g.beginPath();
    g.rect(left, top, pw, ph);
    g.clip();
    const line = (b) => {
      g.beginPath();
      let pen = false;
      for (let k = 0; k < frames; k++) {
        const v = err[k * nb + b];
        if (v !== v) { pen = false; continue; }
        const x = xs(times[k]);
        const y = ys(v);
        if (pen) g.lineTo(x, y); else g.moveTo(x, y);
        pen = true;
      }
      g.stroke();
    };
    g.lineWidth = 1;
    g.strokeStyle = nb > 50 ? 'rgba(60, 100, 170, 0.25)' : 'rgba(60, 100, 170, 0.55)';
    for (let b = 0; b < nb; b++) if (b !== this.body) line(b);
    if (this.body != null && this.body < nb) {
      g.lineWidth = 2.2;
      g.strokeStyle = '#d35400';
      line(this.body);
    }
    const w = this.conv.worst;
    if (w && w.time != null) {
      const x = Math.round(xs(w.time)) + 0.5;
      g.strokeStyle = 'rgba(192, 57, 43, 0.8)';
      g.setLineDash([4, 3]);
      g.lineWidth = 1;
      g.beginPath(); g.moveTo(x, top); g.lineTo(x, top + ph); g.stroke();
      g.setLineDash([]);
    }
    g.restore();
    if (this.body != null && this.body < nb) {
      g.textAlign = 'right';
      g.fillStyle = '#d35400';
      g.fillText(`highlighted: ${this.bodyName ? this.bodyName(this.body) : 'body ' + this.body}`, left + pw, 4);
    }
    this.lastT = NaN;
  }

  // Draws the current time as a vertical line (only when it changed).
  setTime(t) {
    if (!this.err || this.el.hidden || !this.x || t === this.lastT) return;
    this.lastT = t;
    const dpr = this.over.width / Math.max(1, this.el.clientWidth);
    const g = this.over.getContext('2d');
    g.setTransform(dpr, 0, 0, dpr, 0, 0);
    g.clearRect(0, 0, this.over.width, this.over.height);
    const x = Math.round(this.x(t)) + 0.5;
    g.strokeStyle = '#111';
    g.lineWidth = 1;
    g.beginPath(); g.moveTo(x, this.geom.top); g.lineTo(x, this.geom.top + this.geom.ph); g.stroke();
  }
}

function niceStep(raw) {
  if (!(raw > 0)) return 1;
  const p = Math.pow(10, Math.floor(Math.log10(raw)));
  const f = raw / p;
  return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * p;
}
