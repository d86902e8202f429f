// Reads the page's data (docs/view-data.md) and decodes its base64 arrays.

export function readData() {
  const el = document.getElementById('mbconv-view-data');
  if (!el) throw new Error('no #mbconv-view-data element in the page');
  const data = JSON.parse(el.textContent);
  if (data.format !== 1) console.warn(`mbconv view: data format ${data.format}, this page reads 1`);
  data.times = data.times || [];
  data.conversions = data.conversions || [];
  data.findings = data.findings || [];
  data.meshes = data.meshes || {};
  data.notes = data.notes || [];
  return data;
}

export function bytes(b64) {
  const bin = atob(b64);
  const n = bin.length;
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) out[i] = bin.charCodeAt(i);
  return out;
}

// `f32b64` (or a plain array, for hand-written data) as a Float32Array.
export function f32(v) {
  if (v == null) return new Float32Array(0);
  if (Array.isArray(v)) return Float32Array.from(v, (x) => (x == null ? NaN : x));
  const b = bytes(v);
  return new Float32Array(b.buffer, 0, b.length >> 2);
}

export function u32(v) {
  if (v == null) return new Uint32Array(0);
  if (Array.isArray(v)) return Uint32Array.from(v);
  const b = bytes(v);
  return new Uint32Array(b.buffer, 0, b.length >> 2);
}

// Index of the last frame at or before t (0 when t is before the first).
export function frameAt(times, t) {
  let lo = 0;
  let hi = times.length - 1;
  if (hi < 0 || t <= times[0]) return 0;
  if (t >= times[hi]) return hi;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (times[mid] <= t) lo = mid;
    else hi = mid;
  }
  return lo;
}

export function fmt(x, digits = 4) {
  if (x == null) return '—';
  if (typeof x !== 'number') return String(x);
  if (Number.isNaN(x)) return 'NaN';
  if (x === 0) return '0';
  const a = Math.abs(x);
  if (a >= 1e-3 && a < 1e5) return String(+x.toPrecision(digits));
  return x.toExponential(digits - 1);
}
