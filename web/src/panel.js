// The side panel: title, the conversion (selector, verdict, message), toggles, the model tree,
// the selected item's numbers, the findings, the notes.
import { fmt } from './data.js';
import { el } from './timeline.js';

const SEVERITY_ORDER = { error: 0, warning: 1, info: 2 };
const TOGGLES = [
  ['visual', 'visual shapes'],
  ['collision', 'collision shapes'],
  ['frames', 'body frames'],
  ['axes', 'joint axes'],
  ['com', 'centres of mass'],
  ['world', 'world axes, gravity'],
];

const vec = (a) => (a ? '[' + a.map((x) => fmt(x)).join(', ') + ']' : '—');

export class Panel {
  // app: { toggles, select(path, which, frame), setToggle(name, on), setConversion(i) }
  constructor(container, data, app) {
    this.data = data;
    this.app = app;
    this.el = container;
    const o = data.original || {};
    const nb = (o.bodies || []).length;
    const nj = (o.joints || []).length;
    this.head = el('section', {},
      el('h1', { text: data.title || o.name || 'model' }),
      el('div', { class: 'mbconv-sub', text: `${data.source ? data.source + ' · ' : ''}${o.name ? o.name + ' · ' : ''}${nb} bodies, ${nj} joints` }));
    this.conv = el('section', { class: 'mbconv-conversion' });
    this.toggles = el('section', { class: 'mbconv-toggles' }, el('h2', { text: 'Show' }));
    for (const [name, label] of TOGGLES) {
      const box = el('input', { type: 'checkbox', 'data-toggle': name });
      box.checked = !!app.toggles[name];
      box.addEventListener('change', () => app.setToggle(name, box.checked));
      this.toggles.append(el('label', {}, box, label));
    }
    this.treeBox = el('div', { class: 'mbconv-tree' });
    this.tree = el('section', {}, el('h2', { text: 'Model' }), this.treeBox);
    this.details = el('section', { class: 'mbconv-details' }, el('h2', { text: 'Selected' }), el('div', { class: 'mbconv-empty', text: 'nothing selected: click an item of the model or a finding' }));
    this.findings = el('section', { class: 'mbconv-findings' });
    this.notes = el('section', { class: 'mbconv-notes' });
    container.append(this.head, this.conv, this.toggles, this.tree, this.details, this.findings, this.notes);
    this.buildTree();
    this.convIndex = -1;
    this.renderConversion(null, -1);
    this.renderFindings(null);
    this.renderNotes();
  }

  // ---- conversion ----
  renderConversion(c, index) {
    const convs = this.data.conversions;
    this.convIndex = index;
    this.conv.textContent = '';
    this.conv.hidden = !convs.length;
    if (!convs.length) return;
    this.conv.append(el('h2', { text: convs.length > 1 ? `Conversions (${convs.length})` : 'Conversion' }));
    if (convs.length > 1) {
      const sel = el('select', { id: 'mbconv-conversion' });
      convs.forEach((cv, i) => {
        const opt = el('option', { value: String(i), text: `${cv.label || cv.format || 'conversion ' + i}${cv.verdict ? ' — ' + cv.verdict : ''}` });
        if (i === index) opt.selected = true;
        sel.append(opt);
      });
      sel.addEventListener('change', () => this.app.setConversion(+sel.value));
      this.conv.append(el('div', {}, sel));
    }
    if (!c) return;
    const v = c.verdict;
    this.conv.append(el('div', { style: 'margin-top:4px' },
      el('span', { class: `mbconv-verdict ${v || ''}`, id: 'mbconv-verdict', text: v || 'compared' }), ' ',
      el('b', { text: c.label || '' }), c.format ? el('span', { class: 'mbconv-sub', text: ` (${c.format})` }) : ''));
    if (c.message) this.conv.append(el('div', { class: 'mbconv-message', id: 'mbconv-message', text: c.message }));
    if (c.worst && c.worst.time != null) {
      const body = c.worst.body != null && this.data.original.bodies[c.worst.body];
      this.conv.append(el('div', { class: 'mbconv-sub', text: `worst: t = ${fmt(c.worst.time)} s${body ? ', ' + body.name : ''}, centre of mass off by ${fmt(c.worst.com)} m` }));
    }
    const ghostNote = el('div', { class: 'mbconv-sub', text: 'the conversion is the translucent blue ghost' });
    this.conv.append(ghostNote);
    if (c.explainedBy && c.explainedBy.length) {
      this.conv.append(el('h3', { text: 'explained by' }), el('ul', {}, ...c.explainedBy.map((e) =>
        el('li', { text: `${e.code || e.pass}${e.path ? ' at ' + e.path : ''}${e.com != null ? ': ' + fmt(e.com) + ' m' : ''}` }))));
    }
    if (c.notCompared && c.notCompared.length) {
      this.conv.append(el('h3', { text: 'not compared' }), el('ul', {}, ...c.notCompared.map((t) => el('li', { text: t }))));
    }
  }

  // ---- tree ----
  buildTree() {
    const o = this.data.original || {};
    const groups = o.groups || [];
    const bodies = o.bodies || [];
    const joints = o.joints || [];
    const depth = groups.map((g, i) => {
      let d = 0;
      let p = g.parent;
      const seen = new Set([i]);
      while (p != null && groups[p] && !seen.has(p)) { seen.add(p); d++; p = groups[p].parent; }
      return d;
    });
    const jointGroup = new Array(joints.length).fill(null);
    groups.forEach((g, gi) => {
      for (const j of g.joints || []) if (j < joints.length && (jointGroup[j] == null || depth[gi] > depth[jointGroup[j]])) jointGroup[j] = gi;
    });
    const frag = document.createDocumentFragment();
    const boxes = groups.map(() => null);
    this.items = new Map();
    const item = (path, kind, name, extra) => {
      const d = el('div', { class: 'mbconv-tree-item', 'data-path': path || '', title: path || '' }, el('span', { class: 'k', text: kind }), name, extra || '');
      if (path) this.items.set(path, d);
      return d;
    };
    const containerOf = (gi) => {
      if (gi == null || !groups[gi]) return frag;
      if (boxes[gi]) return boxes[gi];
      const g = groups[gi];
      const kids = el('div', { class: 'mbconv-tree-children' });
      const wrap = el('div', { class: 'mbconv-tree-group' }, item(g.path, g.type || 'group', g.name), kids);
      boxes[gi] = kids;
      const parent = g.parent != null && g.parent !== gi ? g.parent : null;
      containerOf(parent).append(wrap);
      return kids;
    };
    groups.forEach((g, gi) => containerOf(gi));
    bodies.forEach((b) => containerOf(b.group).append(item(b.path, 'body', b.name, b.fixed ? ' (fixed)' : '')));
    joints.forEach((j, ji) => containerOf(jointGroup[ji]).append(item(j.path, j.type || 'joint', j.name)));
    this.treeBox.append(frag);
    this.treeBox.addEventListener('click', (e) => {
      const t = e.target.closest('.mbconv-tree-item');
      if (t && t.dataset.path) this.app.select(t.dataset.path, 'original', false);
    });
    this.treeBox.addEventListener('dblclick', (e) => {
      const t = e.target.closest('.mbconv-tree-item');
      if (t && t.dataset.path) this.app.select(t.dataset.path, 'original', true);
    });
  }

  // ---- selection ----
  setSelected(path, which, conv) {
    if (this.selectedItem) this.selectedItem.classList.remove('selected');
    this.selectedItem = which === 'original' && path ? this.items.get(path) : null;
    if (this.selectedItem) {
      this.selectedItem.classList.add('selected');
      const box = this.treeBox.getBoundingClientRect();
      const r = this.selectedItem.getBoundingClientRect();
      if (r.top < box.top || r.bottom > box.bottom) this.selectedItem.scrollIntoView({ block: 'nearest' });
    }
    this.renderDetails(path, which, conv);
  }

  renderDetails(path, which, conv) {
    const d = this.details;
    d.textContent = '';
    d.append(el('h2', { text: which === 'conversion' ? 'Selected (in the conversion)' : 'Selected' }));
    const sc = which === 'conversion' ? conv && conv.scene : this.data.original;
    const found = sc && findItem(sc, path);
    if (!found) {
      d.append(el('div', { class: 'mbconv-empty', text: path ? `${path} is not in this scene` : 'nothing selected: click an item of the model or a finding' }));
      return;
    }
    const rows = [];
    const row = (k, v, num) => rows.push(el('tr', {}, el('td', { text: k }), el('td', { class: num ? 'num' : '', text: v })));
    const bodyName = (i) => (i == null || i < 0 ? 'world' : sc.bodies[i] ? sc.bodies[i].name : `#${i}`);
    const it = found.item;
    row('name', it.name);
    row('path', it.path);
    if (found.kind === 'body') {
      row('group', it.group != null && sc.groups && sc.groups[it.group] ? sc.groups[it.group].name : '—');
      row('fixed', it.fixed ? 'yes' : 'no');
      row('mass', `${fmt(it.mass)} kg`);
      row('com', vec(it.com) + ' m', true);
      row('inertia', it.inertia ? it.inertia.map((r) => r.map((x) => fmt(x).padStart(10)).join(' ')).join('\n') : '—', true);
      const shapes = it.shapes || [];
      row('shapes', shapes.length ? shapes.map((s) => `${s.name || '·'}: ${s.geometry ? s.geometry.type : '?'} (${s.role})`).join('\n') : 'none');
      for (const s of shapes) if (s.geometry && s.geometry.type === 'bounds' && s.geometry.note) row('note', `${s.name || 'bounds'}: ${s.geometry.note}`);
      if (which === 'original' && conv && conv.match) {
        const m = conv.match[found.index];
        row('in the conversion', m == null ? 'gone' : conv.scene.bodies[m] ? conv.scene.bodies[m].name : `#${m}`);
      }
    } else if (found.kind === 'joint') {
      row('type', it.type);
      row('parent', bodyName(it.parent));
      row('child', bodyName(it.child));
      row('axes', it.axes && it.axes.length ? it.axes.map(vec).join('\n') : 'none', true);
      row('angular', it.angular ? it.angular.map((a) => (a ? 'rad' : 'm')).join(', ') : '—');
      row('limits', it.limits ? it.limits.map((l) => (l ? `[${fmt(l[0])}, ${fmt(l[1])}]` : 'none')).join(', ') : 'none', true);
      row('q0', vec(it.q0), true);
      row('v0', vec(it.v0), true);
      row('frame in parent', vec(it.frameInParent), true);
      row('frame in child', vec(it.frameInChild), true);
    } else {
      row('type', it.type || 'group');
      row('parent', it.parent != null && sc.groups[it.parent] ? sc.groups[it.parent].name : '—');
      row('bodies', String((it.bodies || []).length));
      row('joints', String((it.joints || []).length));
    }
    d.append(el('table', {}, el('tbody', {}, ...rows)));
  }

  // ---- findings ----
  renderFindings(conv) {
    const f = this.findings;
    f.textContent = '';
    f.append(el('h2', { text: 'Findings' }));
    const lists = [['original', 'reading the model', this.data.findings]];
    if (conv) lists.push(['conversion', `the conversion${conv.label ? ' (' + conv.label + ')' : ''}`, conv.findings || []]);
    let any = false;
    for (const [list, title, items] of lists) {
      if (!items.length) continue;
      any = true;
      f.append(el('h3', { text: `${title}: ${items.length}` }));
      const byCat = new Map();
      items.forEach((x, i) => {
        const c = x.category || 'other';
        if (!byCat.has(c)) byCat.set(c, []);
        byCat.get(c).push([x, i]);
      });
      for (const [cat, xs] of byCat) {
        xs.sort((a, b) => (SEVERITY_ORDER[a[0].severity] ?? 3) - (SEVERITY_ORDER[b[0].severity] ?? 3) || a[1] - b[1]);
        const box = el('div', { class: 'mbconv-finding-group' }, el('div', { class: 'mbconv-sub', text: cat }));
        for (const [x, i] of xs) {
          const where = x.file ? `${x.file}${x.line != null ? ':' + x.line : ''}${x.column != null ? ':' + x.column : ''}` : '';
          const e = el('div', { class: 'mbconv-finding', 'data-index': String(i), 'data-list': list, title: x.path || '' },
            el('span', { class: `sev ${x.severity || ''}`, text: x.severity || '' }), ' ',
            el('span', { class: 'code', text: x.code || '' }), ' ',
            el('span', { text: x.message || '' }),
            where || x.path ? el('div', { class: 'where', text: [x.path, where].filter(Boolean).join(' · ') }) : '');
          box.append(e);
        }
        f.append(box);
      }
    }
    if (!any) f.append(el('div', { class: 'mbconv-empty', text: 'none' }));
    f.onclick = (e) => {
      const t = e.target.closest('.mbconv-finding');
      if (!t) return;
      this.app.finding(t.dataset.list, +t.dataset.index);
    };
  }

  setFinding(list, index) {
    if (this.selectedFinding) this.selectedFinding.classList.remove('selected');
    this.selectedFinding = list == null ? null : this.findings.querySelector(`.mbconv-finding[data-list="${list}"][data-index="${index}"]`);
    if (this.selectedFinding) this.selectedFinding.classList.add('selected');
  }

  renderNotes() {
    const notes = [...this.data.notes];
    const o = this.data.original || {};
    for (const b of o.bodies || []) {
      for (const s of b.shapes || []) {
        if (s.geometry && s.geometry.type === 'bounds') notes.push(`${b.name} / ${s.name || 'shape'}: drawn as its bounding box${s.geometry.note ? ' — ' + s.geometry.note : ''}`);
      }
    }
    this.notes.hidden = !notes.length && !this.extraNotes;
    this.notes.textContent = '';
    this.notes.append(el('h2', { text: 'Notes' }), el('ul', {}, ...notes.map((n) => el('li', { text: n }))));
  }
}

// {kind, index, item} of the body, joint or group at path in scene sc, or null.
export function findItem(sc, path) {
  if (!sc || path == null) return null;
  for (const [kind, list] of [['body', sc.bodies], ['joint', sc.joints], ['group', sc.groups]]) {
    const i = (list || []).findIndex((x) => x.path === path);
    if (i >= 0) return { kind, index: i, item: list[i] };
  }
  return null;
}
