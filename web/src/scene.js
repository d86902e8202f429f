// The 3D view: renderer, camera, controls, lights, the world overlays, the original and the ghost.
import {
  AmbientLight, ArrowHelper, AxesHelper, Box3, Color, DirectionalLight, GridHelper, HemisphereLight,
  PerspectiveCamera, Quaternion, Scene, Sphere, Vector3, WebGLRenderer,
} from 'three';
import { OrbitControls } from 'three/examples/jsm/controls/OrbitControls.js';
import { Model } from './model.js';
import { highlighted, setDetail } from './shapes.js';

const tmpBox = new Box3();

export class Viewer {
  constructor(container, data) {
    this.container = container;
    this.data = data;
    this.toggles = { frames: false, axes: false, com: false, world: true, collision: false, visual: true };
    this.renderer = new WebGLRenderer({ antialias: true, alpha: false });
    this.renderer.setPixelRatio(Math.min(window.devicePixelRatio || 1, 2));
    this.renderer.setClearColor(new Color(0xe9eaec), 1);
    container.appendChild(this.renderer.domElement);

    this.scene = new Scene();
    this.camera = new PerspectiveCamera(40, 1, 0.01, 1000);
    // Up is the world axis most opposite to gravity (z when there is none): a y-up DART
    // world stands upright as a z-up URDF robot does.
    this.up = upAxis((data.original && data.original.gravity) || [0, 0, 0]);
    this.camera.up.copy(this.up);
    this.controls = new OrbitControls(this.camera, this.renderer.domElement);
    this.controls.enableDamping = false;
    this.dirty = true;
    this.controls.addEventListener('change', () => { this.dirty = true; });

    this.scene.add(new HemisphereLight(0xffffff, 0x8a8a80, 1.6));
    this.scene.add(new AmbientLight(0xffffff, 0.35));
    const sun = new DirectionalLight(0xffffff, 1.6);
    sun.position.set(0.6, -0.8, 1.5);
    this.scene.add(sun);
    this.camLight = new DirectionalLight(0xffffff, 0.7);
    this.camera.add(this.camLight);
    this.scene.add(this.camera);

    setDetail(((data.original && data.original.bodies) || []).length);
    this.original = new Model(data, data.original || { bodies: [], joints: [], groups: [] }, false);
    this.scene.add(this.original.root);
    this.ghost = null;
    this.time = 0;
    this.selection = null; // {path, which, meshes}

    this.original.setTime(data.times, 0);
    this.scene.updateMatrixWorld(true);
    this.measure();
    this.buildWorld();
    this.original.sizeOverlays(this.s, this.comScale, this.planeSize);
    this.original.setToggles(this.toggles);
    this.home();
    this.resize();
    if (typeof ResizeObserver !== 'undefined') new ResizeObserver(() => this.resize()).observe(container);
    else window.addEventListener('resize', () => this.resize());
  }

  // The model's size: its bounding box at t = 0 (planes left out), a typical body length s and
  // the radius of the centre-of-mass sphere of a unit mass.
  measure() {
    const box = new Box3();
    const o = this.original;
    for (const b of o.bodies) {
      box.expandByPoint(b.obj.position);
      for (const m of b.meshes) {
        if (m.userData.plane || !m.geometry.boundingBox) continue;
        m.updateWorldMatrix(true, false);
        tmpBox.copy(m.geometry.boundingBox).applyMatrix4(m.matrixWorld);
        if (tmpBox.max.x - tmpBox.min.x < 1e6) box.union(tmpBox);
      }
    }
    if (box.isEmpty()) box.set(new Vector3(-0.5, -0.5, -0.5), new Vector3(0.5, 0.5, 0.5));
    const sphere = box.getBoundingSphere(new Sphere());
    if (!(sphere.radius > 1e-6)) sphere.radius = 0.5;
    this.box = box;
    this.sphere = sphere;
    const L = sphere.radius * 2;
    this.L = L;
    this.planeSize = Math.max(3 * L, 1);
    // typical body length: the median distance between jointed bodies at t = 0
    const d = [];
    for (const j of (this.data.original && this.data.original.joints) || []) {
      const p = o.bodies[j.parent];
      const c = o.bodies[j.child];
      if (p && c) d.push(p.obj.position.distanceTo(c.obj.position));
    }
    d.sort((a, b) => a - b);
    const med = d.length ? d[d.length >> 1] : 0.15 * L;
    this.s = Math.min(Math.max(med, 0.03 * L), 0.15 * L);
    let mmax = 0;
    for (const b of (this.data.original && this.data.original.bodies) || []) mmax = Math.max(mmax, +b.mass || 0);
    this.comScale = mmax > 0 ? (0.2 * this.s) / Math.cbrt(mmax) : 0;
    this.camera.near = L / 1000;
    this.camera.far = L * 100;
    this.camera.updateProjectionMatrix();
    this.controls.maxDistance = L * 40;
    this.camLight.position.set(0, 0, 1);
  }

  buildWorld() {
    const L = this.L;
    const world = new AxesHelper(0.3 * L);
    world.renderOrder = 1;
    this.world = [world];
    const step = Math.pow(10, Math.floor(Math.log10(L / 2)));
    const half = Math.ceil((L * 1.2) / step) * step;
    const grid = new GridHelper(2 * half, Math.round((2 * half) / step), 0xb0b0b0, 0xd2d2d2);
    grid.quaternion.setFromUnitVectors(new Vector3(0, 1, 0), this.up);
    grid.position.copy(this.up).multiplyScalar(Math.min(0, lowest(this.box, this.up)));
    this.world.push(grid);
    const g = new Vector3(...((this.data.original && this.data.original.gravity) || [0, 0, 0]));
    if (g.lengthSq() > 0) {
      const len = 0.3 * L;
      const from = new Vector3(this.box.max.x, this.box.max.y, this.box.max.z).addScaledVector(g.clone().normalize(), -0.1 * L);
      const arrow = new ArrowHelper(g.clone().normalize(), from, len, 0x6a1b9a, 0.2 * len, 0.1 * len);
      this.world.push(arrow);
    }
    for (const w of this.world) this.scene.add(w);
  }

  home() {
    const c = this.sphere.center;
    const r = this.sphere.radius;
    const dir = new Vector3(1.1, -1.6, 0.8)
      .normalize()
      .applyQuaternion(new Quaternion().setFromUnitVectors(new Vector3(0, 0, 1), this.up));
    this.controls.target.copy(c);
    this.camera.position.copy(c).addScaledVector(dir, this.fitDistance(r));
    this.controls.update();
    this.dirty = true;
  }

  // Blocks until the GPU has drawn what was submitted (one pixel read back).
  finishDrawing() {
    const gl = this.renderer.getContext();
    gl.readPixels(0, 0, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, new Uint8Array(4));
  }

  fitDistance(r) {
    const fov = (this.camera.fov * Math.PI) / 180;
    const fit = Math.min(fov, fov * Math.max(this.camera.aspect, 0.2));
    return (r * 1.15) / Math.sin(fit / 2);
  }

  resize() {
    this.dirty = true;
    const w = Math.max(1, this.container.clientWidth);
    const h = Math.max(1, this.container.clientHeight);
    this.renderer.setSize(w, h, false);
    this.camera.aspect = w / h;
    this.camera.updateProjectionMatrix();
  }

  setConversion(conv) {
    this.dirty = true;
    if (this.ghost) this.ghost.dispose();
    this.ghost = null;
    this.clearHighlight();
    if (conv && conv.scene) {
      this.ghost = new Model(this.data, conv.scene, true);
      this.ghost.sizeOverlays(this.s, this.comScale, this.planeSize);
      this.ghost.setToggles(this.toggles);
      this.ghost.setTime(this.data.times, this.time);
      this.scene.add(this.ghost.root);
    }
    if (this.selection) this.highlight(this.selection.path, this.selection.which);
  }

  setToggle(name, on) {
    this.dirty = true;
    this.toggles[name] = on;
    this.original.setToggles(this.toggles);
    if (this.ghost) this.ghost.setToggles(this.toggles);
    for (const w of this.world) w.visible = this.toggles.world;
  }

  setTime(t) {
    this.dirty = true;
    this.time = t;
    this.original.setTime(this.data.times, t);
    if (this.ghost) this.ghost.setTime(this.data.times, t);
  }

  modelOf(which) {
    return which === 'conversion' ? this.ghost : this.original;
  }

  clearHighlight() {
    if (!this.selection) return;
    for (const m of this.selection.meshes) m.material = m.userData.base;
    for (const mdl of [this.original, this.ghost]) {
      if (mdl && mdl.forcedJoint != null) { mdl.forcedJoint = null; mdl.setToggles(this.toggles); }
    }
    this.selection.meshes = [];
  }

  // Highlights the item at path in the original or the ghost; false when it is not there.
  highlight(path, which) {
    this.dirty = true;
    this.clearHighlight();
    this.selection = null;
    if (path == null) return true;
    const mdl = this.modelOf(which);
    const meshes = mdl && mdl.itemMeshes(path);
    this.selection = { path, which, meshes: meshes || [] };
    if (!meshes) return false;
    for (const m of meshes) m.material = highlighted(m.userData.base);
    const it = mdl.byPath.get(path);
    if (it.kind === 'joint') { mdl.forcedJoint = it.index; mdl.setToggles(this.toggles); }
    return true;
  }

  // Moves the camera to the item's bounding sphere, keeping the view direction.
  frame(path, which) {
    const mdl = this.modelOf(which);
    if (!mdl) return;
    const it = mdl.byPath.get(path);
    if (!it) return;
    this.scene.updateMatrixWorld(true);
    const box = new Box3();
    const meshes = mdl.itemMeshes(path) || [];
    for (const m of meshes) {
      if (m.userData.plane || !m.geometry.boundingBox) continue;
      tmpBox.copy(m.geometry.boundingBox).applyMatrix4(m.matrixWorld);
      box.union(tmpBox);
    }
    if (it.kind === 'body') {
      const b = mdl.bodies[it.index];
      box.expandByPoint(b.obj.position);
      if (b.com) box.expandByPoint(b.com.getWorldPosition(new Vector3()));
    } else if (it.kind === 'joint') {
      const j = mdl.joints[it.index];
      if (j.marks) box.expandByPoint(j.marks.getWorldPosition(new Vector3()));
    } else {
      for (const b of mdl.groupBodies(it.index)) if (mdl.bodies[b]) box.expandByPoint(mdl.bodies[b].obj.position);
    }
    if (box.isEmpty()) return;
    const s = box.getBoundingSphere(new Sphere());
    const r = Math.max(s.radius, this.s * 0.5, this.L * 0.01);
    const dir = this.camera.position.clone().sub(this.controls.target);
    if (dir.lengthSq() === 0) dir.set(1, -1, 1);
    dir.normalize();
    this.controls.target.copy(s.center);
    this.camera.position.copy(s.center).addScaledVector(dir, this.fitDistance(r));
    this.controls.update();
    this.dirty = true;
  }

  // The original's body under the pointer (client coordinates), or null.
  pick(x, y, raycaster, ndc) {
    const rect = this.renderer.domElement.getBoundingClientRect();
    ndc.set(((x - rect.left) / rect.width) * 2 - 1, -((y - rect.top) / rect.height) * 2 + 1);
    raycaster.setFromCamera(ndc, this.camera);
    const targets = [];
    for (const b of this.original.bodies) if (b.obj.visible) targets.push(b.visual.visible ? b.visual : null, b.collision.visible ? b.collision : null);
    const hits = raycaster.intersectObjects(targets.filter(Boolean), true);
    for (const h of hits) if (h.object.isMesh && !h.object.userData.plane && h.object.userData.body != null) return h.object.userData.body;
    return null;
  }

  render() {
    this.renderer.render(this.scene, this.camera);
    this.dirty = false;
  }
}

// The unit world axis most opposite to `gravity`, or +z when gravity is zero.
function upAxis(gravity) {
  const g = new Vector3(...gravity);
  if (g.lengthSq() === 0) return new Vector3(0, 0, 1);
  const magnitudes = [Math.abs(g.x), Math.abs(g.y), Math.abs(g.z)];
  const axis = magnitudes.indexOf(Math.max(...magnitudes));
  const up = new Vector3(0, 0, 0);
  up.setComponent(axis, -Math.sign(g.getComponent(axis)));
  return up;
}

// The lowest height of `box` along the unit axis `up`.
function lowest(box, up) {
  let low = Infinity;
  for (const x of [box.min.x, box.max.x])
    for (const y of [box.min.y, box.max.y])
      for (const z of [box.min.z, box.max.z]) low = Math.min(low, x * up.x + y * up.y + z * up.z);
  return Number.isFinite(low) ? low : 0;
}
