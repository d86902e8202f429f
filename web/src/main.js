// The `mbconv view` page: reads the data element, builds the scene and the panels into
// #mbconv-view, and runs the render loop. See docs/view-data.md.
import { Raycaster, Vector2 } from 'three';
import { readData } from './data.js';
import { guard, hooks, installHooks, record } from './hooks.js';
import { injectStyle } from './style.js';
import { Viewer } from './scene.js';
import { Timeline, el } from './timeline.js';
import { Plot } from './plot.js';
import { Panel, findItem } from './panel.js';

installHooks();

function start() {
  injectStyle();
  const root = document.getElementById('mbconv-view') || document.body.appendChild(el('div', { id: 'mbconv-view' }));
  const data = readData();
  if (data.title) document.title = `${data.title} — mbconv view`;
  const times = data.times;
  const sceneBox = el('div', { class: 'mbconv-scene' });
  const bar = el('div', { class: 'mbconv-bar' });
  const plotBox = el('div', { class: 'mbconv-plot' });
  plotBox.hidden = true;
  const panelBox = el('aside', { class: 'mbconv-panel' });
  root.append(sceneBox, bar, plotBox, panelBox);

  const app = {
    t0: times.length ? times[0] : 0,
    t1: times.length ? times[times.length - 1] : 0,
    time: 0,
    playing: false,
    speed: 1,
    conv: null,
    convIndex: -1,
    toggles: { frames: false, axes: false, com: false, world: true, collision: false, visual: true },
    selected: null,
    which: 'original',
  };
  app.time = app.t0;
  hooks.time = app.time;

  let viewer = null;
  try {
    viewer = new Viewer(sceneBox, data);
  } catch (e) {
    record(e, 'the 3D view');
    sceneBox.append(el('div', { class: 'mbconv-fallback', text: `The 3D view could not start: ${e && e.message ? e.message : e}` }));
  }
  if (viewer) {
    sceneBox.append(el('div', { class: 'mbconv-legend', text: 'drag: orbit · right-drag: pan · wheel: zoom · click: select · double-click: frame' }));
    hooks.bodyCount = viewer.original.bodies.length;
    window.__mbconvViewer = viewer;
  }

  const timeline = new Timeline(bar, app);
  const plot = new Plot(plotBox, times, (t) => app.seek(t));
  plot.bodyName = (i) => (data.original.bodies[i] ? data.original.bodies[i].name : `body ${i}`);

  app.seek = (t) => {
    t = +t;
    if (!Number.isFinite(t)) return;
    app.time = Math.min(app.t1, Math.max(app.t0, t));
    hooks.time = app.time;
    if (viewer) viewer.setTime(app.time);
  };
  app.play = () => {
    if (app.t1 <= app.t0) return;
    if (app.time >= app.t1) app.time = app.t0;
    app.playing = true;
    hooks.playing = true;
    timeline.setPlaying(true);
  };
  app.pause = () => {
    app.playing = false;
    hooks.playing = false;
    timeline.setPlaying(false);
  };
  app.toggle = () => (app.playing ? app.pause() : app.play());
  app.setSpeed = (s) => { app.speed = s > 0 ? s : 1; };
  app.goWorst = () => {
    const w = app.conv && app.conv.worst;
    if (!w) return;
    app.pause();
    app.seek(w.time != null ? w.time : times[w.frame] ?? app.t0);
    if (w.body != null && data.original.bodies[w.body]) app.select(data.original.bodies[w.body].path, 'original', true);
  };
  app.setToggle = (name, on) => {
    app.toggles[name] = on;
    if (viewer) viewer.setToggle(name, on);
    const box = panelBox.querySelector(`input[data-toggle="${name}"]`);
    if (box && box.checked !== on) box.checked = on;
  };
  // Selects the item at path in the original or the conversion's scene; frame: move the camera to it.
  app.select = (path, which, frame) => {
    which = which === 'conversion' ? 'conversion' : 'original';
    if (path != null && which === 'original' && !findItem(data.original, path) && app.conv && findItem(app.conv.scene, path)) which = 'conversion';
    app.selected = path == null ? null : path;
    app.which = which;
    hooks.selected = app.selected;
    if (viewer) {
      viewer.highlight(app.selected, which);
      if (frame && app.selected != null) viewer.frame(app.selected, which);
    }
    panel.setSelected(app.selected, which, app.conv);
    const it = which === 'original' ? findItem(data.original, path) : null;
    if (it && it.kind === 'body') plot.setBody(it.index);
    else if (app.conv && app.conv.worst && app.conv.worst.body != null) plot.setBody(app.conv.worst.body);
  };
  app.finding = (list, index) => {
    const f = list === 'conversion' ? app.conv && (app.conv.findings || [])[index] : data.findings[index];
    panel.setFinding(list, index);
    if (!f) return;
    if (f.item != null) app.select(f.item, f.scene === 'conversion' ? 'conversion' : 'original', true);
  };
  app.setConversion = (i) => {
    const c = data.conversions[i] || null;
    app.conv = c;
    app.convIndex = c ? i : -1;
    if (viewer) {
      guard('the conversion\'s scene', () => viewer.setConversion(c));
      hooks.ghostBodyCount = viewer.ghost ? viewer.ghost.bodies.length : 0;
    }
    panel.renderConversion(c, app.convIndex);
    panel.renderFindings(c);
    panel.setFinding(null);
    plot.setConversion(c, (data.original.bodies || []).length);
    plot.setBody(c && c.worst && c.worst.body != null ? c.worst.body : null);
    timeline.setWorst(c && c.worst);
    if (app.selected != null) app.select(app.selected, app.which, false);
  };

  const panel = new Panel(panelBox, data, app);
  guard('the conversion', () => app.setConversion(data.conversions.length ? 0 : -1));

  hooks.select = (path, which) => app.select(path, which, true);
  hooks.play = () => app.play();
  hooks.pause = () => app.pause();
  hooks.seek = (t) => { app.pause(); app.seek(t); };
  timeline.range.addEventListener('pointerdown', () => app.pause());

  // keyboard: space plays/pauses, arrows step a frame, when no input has the focus
  window.addEventListener('keydown', (e) => {
    const tag = document.activeElement && document.activeElement.tagName;
    if (tag === 'INPUT' || tag === 'SELECT' || tag === 'TEXTAREA' || tag === 'BUTTON') return;
    if (e.key === ' ') { e.preventDefault(); app.toggle(); }
    if (e.key === 'ArrowRight' || e.key === 'ArrowLeft') {
      app.pause();
      const dt = times.length > 1 ? (app.t1 - app.t0) / (times.length - 1) : 0;
      app.seek(app.time + (e.key === 'ArrowRight' ? dt : -dt));
    }
  });

  // click picks a body of the original; double-click frames it
  if (viewer) {
    const canvas = viewer.renderer.domElement;
    const raycaster = new Raycaster();
    const ndc = new Vector2();
    let downAt = null;
    canvas.addEventListener('pointerdown', (e) => { downAt = [e.clientX, e.clientY]; });
    canvas.addEventListener('click', (e) => {
      if (!downAt || Math.hypot(e.clientX - downAt[0], e.clientY - downAt[1]) > 4) return;
      const b = viewer.pick(e.clientX, e.clientY, raycaster, ndc);
      app.select(b == null ? null : data.original.bodies[b].path, 'original', false);
    });
    canvas.addEventListener('dblclick', () => {
      if (app.selected != null) viewer.frame(app.selected, app.which);
      else viewer.home();
    });
  }

  // the loop: advance the time while playing, place the bodies, draw
  // While paused, a frame that would look like the last one is skipped when frames are slow
  // (a large model in a software renderer), so the page stays responsive.
  let last = performance.now();
  let cost = 0; // smoothed time from a rendered frame to the next callback (ms)
  let rendered = false;
  const frame = (now) => {
    requestAnimationFrame(frame);
    const dt = Math.min(0.5, Math.max(0, (now - last) / 1000));
    if (rendered) cost = cost * 0.7 + (now - last) * 0.3;
    rendered = false;
    last = now;
    if (app.playing) {
      let t = app.time + dt * app.speed;
      if (t > app.t1) t = app.t0 + ((t - app.t0) % Math.max(app.t1 - app.t0, 1e-9));
      app.time = t;
      hooks.time = t;
    }
    timeline.setTime(app.time);
    plot.setTime(app.time);
    if (!viewer) return;
    try {
      if (viewer.time !== app.time) viewer.setTime(app.time);
      if (!app.playing && !viewer.dirty && cost > 50 && hooks.renderedFrames > 0) return;
      viewer.render();
      rendered = true;
    } catch (e) {
      record(e, 'rendering');
      viewer = null;
      return;
    }
    hooks.renderedFrames++;
    if (hooks.firstFrameMs == null) {
      // Wait for the first frame's pixels (reading one back finishes the GPU's work), so that
      // firstFrameMs is when the frame is drawn, not when its commands were issued.
      viewer.finishDrawing();
      hooks.firstFrameMs = performance.now();
      hooks.ready = true;
    }
  };
  // the first frame at once (the page is ready as soon as it is built)
  frame(performance.now());
}

function boot() {
  try {
    start();
  } catch (e) {
    record(e, 'building the page');
    const root = document.getElementById('mbconv-view') || document.body;
    const msg = document.createElement('pre');
    msg.style.cssText = 'color:#a00;padding:1em;white-space:pre-wrap';
    msg.textContent = `mbconv view could not build the page: ${e && e.message ? e.message : e}`;
    root.append(msg);
  }
}

// The page's script comes after the data element: start at once when it is there.
if (document.getElementById('mbconv-view-data') || document.readyState !== 'loading') boot();
else document.addEventListener('DOMContentLoaded', boot);
