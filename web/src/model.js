// One scene of the data (the original, or a conversion's as the ghost) as three.js objects:
// a root holding one object per body, moved by the poses.
import {
  ArrowHelper, BufferAttribute, BufferGeometry, Float32BufferAttribute, Line, LineBasicMaterial,
  LineSegments, Mesh, MeshPhongMaterial, Object3D, Quaternion, Vector3,
} from 'three';
import { f32, frameAt } from './data.js';
import { applyPose, buildShape, sphereGeometry } from './shapes.js';
import { guard } from './hooks.js';
import { mergeGeometries } from 'three/examples/jsm/utils/BufferGeometryUtils.js';

// Shared overlay resources.
let triadGeometry = null;
let triadMaterial = null;
function triad() {
  if (!triadGeometry) {
    triadGeometry = new BufferGeometry();
    triadGeometry.setAttribute('position', new Float32BufferAttribute([0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1], 3));
    triadGeometry.setAttribute('color', new Float32BufferAttribute(
      [0.9, 0.15, 0.1, 0.9, 0.15, 0.1, 0.1, 0.7, 0.1, 0.1, 0.7, 0.1, 0.15, 0.3, 0.95, 0.15, 0.3, 0.95], 3));
    triadMaterial = new LineBasicMaterial({ vertexColors: true, depthTest: false, transparent: true });
  }
  const t = new LineSegments(triadGeometry, triadMaterial);
  t.renderOrder = 2;
  return t;
}
const comMaterials = {};
function comMaterial(ghost) {
  const k = ghost ? 'g' : 'o';
  if (!comMaterials[k]) {
    comMaterials[k] = new MeshPhongMaterial({
      color: ghost ? 0x3f7fff : 0x222222, specular: 0x444444, shininess: 40,
      transparent: true, opacity: ghost ? 0.6 : 0.85, depthTest: false,
    });
  }
  return comMaterials[k];
}
const arcMaterials = {};
function arcMaterial(ghost) {
  const k = ghost ? 'g' : 'o';
  if (!arcMaterials[k]) {
    arcMaterials[k] = new LineBasicMaterial({ color: ghost ? 0x3f7fff : 0xc2185b, depthTest: false, transparent: true });
  }
  return arcMaterials[k];
}

// The ghost's shapes of one body share one material: drawn as one merged mesh (one draw call
// instead of one per shape; the ghost of a large model costs half as much). Planes stay apart.
function mergeInto(group) {
  group.updateMatrixWorld(true);
  const parts = [];
  group.traverse((o) => { if (o.isMesh && !o.userData.plane) parts.push(o); });
  if (parts.length < 2 || parts.some((p) => p.material !== parts[0].material)) return;
  const geos = parts.map((p) => {
    let g = p.geometry.index ? p.geometry.toNonIndexed() : p.geometry.clone();
    for (const name of Object.keys(g.attributes)) if (name !== 'position' && name !== 'normal') g.deleteAttribute(name);
    if (!g.attributes.normal) g.computeVertexNormals();
    g.morphAttributes = {};
    g.clearGroups();
    return g.applyMatrix4(p.matrixWorld);
  });
  const merged = mergeGeometries(geos, false);
  for (const g of geos) g.dispose();
  if (!merged) return;
  merged.computeBoundingBox();
  merged.computeBoundingSphere();
  for (const p of parts) {
    let o = p;
    while (o.parent && o.parent !== group && o.parent.children.length === 1) o = o.parent;
    o.removeFromParent();
  }
  const m = new Mesh(merged, parts[0].material);
  m.userData.own = true;
  group.add(m);
}

const X = new Vector3(1, 0, 0);
const Y = new Vector3(0, 1, 0);

export class Model {
  // data: the page data; sc: a Scene; ghost: whether it is drawn as the ghost.
  constructor(data, sc, ghost) {
    this.data = data;
    this.sc = sc;
    this.ghost = ghost;
    this.root = new Object3D();
    this.root.name = ghost ? 'ghost' : 'original';
    this.bodies = [];
    this.joints = [];
    this.byPath = new Map();
    this.nb = (sc.bodies || []).length;
    this.poses = f32(sc.poses);
    this.frames = Math.min(sc.frames ?? Infinity, Math.floor(this.poses.length / Math.max(1, 7 * this.nb)));
    if (!Number.isFinite(this.frames)) this.frames = 0;
    this.q = [0, 0, 0, 1];
    this.world = new Object3D(); // joint marks fixed to the world
    this.root.add(this.world);

    (sc.bodies || []).forEach((b, i) => {
      this.bodies.push(guard(`body ${b.name}`, () => this.buildBody(b, i)) || this.emptyBody(i));
      if (b.path) this.byPath.set(b.path, { kind: 'body', index: i });
    });
    (sc.joints || []).forEach((j, i) => {
      this.joints.push(guard(`joint ${j.name}`, () => this.buildJoint(j)) || { marks: [] });
      if (j.path) this.byPath.set(j.path, { kind: 'joint', index: i });
    });
    (sc.groups || []).forEach((g, i) => {
      if (g.path) this.byPath.set(g.path, { kind: 'group', index: i });
    });
  }

  emptyBody() {
    const obj = new Object3D();
    this.root.add(obj);
    return { obj, visual: new Object3D(), collision: new Object3D(), meshes: [], triad: null, com: null, notes: [] };
  }

  buildBody(b, i) {
    const obj = new Object3D();
    obj.name = b.name;
    obj.userData.body = i;
    obj.userData.ghost = this.ghost;
    const visual = new Object3D();
    const collision = new Object3D();
    collision.visible = false;
    obj.add(visual, collision);
    const meshes = [];
    const notes = [];
    for (const s of b.shapes || []) {
      const role = s.role || 'visual';
      const g = s.geometry || {};
      if (g.type === 'bounds' && g.note) notes.push(`${s.name || g.type}: ${g.note}`);
      if (role === 'visual' || role === 'both') {
        const o = guard(`shape ${s.name} of ${b.name}`, () => buildShape(s, this.data, this.ghost ? 'ghost' : 'visual'));
        if (o) visual.add(o);
      }
      if (role === 'collision' || role === 'both') {
        const s2 = role === 'both' ? { ...s, color: null } : s;
        const o = guard(`shape ${s.name} of ${b.name}`, () =>
          buildShape(s2, this.data, this.ghost ? 'ghostCollision' : 'collision'));
        if (o) collision.add(o);
      }
    }
    if (this.ghost) guard(`merging the ghost shapes of ${b.name}`, () => mergeInto(visual));
    obj.traverse((o) => {
      if (o.isMesh || o.isLineSegments) {
        o.userData.body = i;
        o.userData.ghost = this.ghost;
        o.userData.base = o.material;
        meshes.push(o);
      }
    });
    const t = triad();
    t.visible = false;
    obj.add(t);
    const com = new Mesh(sphereGeometry(), comMaterial(this.ghost));
    com.position.set(...(b.com || [0, 0, 0]));
    com.visible = false;
    com.renderOrder = 3;
    com.userData.mass = +b.mass || 0;
    obj.add(com);
    this.root.add(obj);
    return { obj, visual, collision, meshes, triad: t, com, notes };
  }

  buildJoint(j) {
    const marks = new Object3D();
    marks.visible = false;
    const child = j.child ?? -1;
    const parent = j.parent ?? -1;
    if (child >= 0 && this.bodies[child]) {
      applyPose(marks, j.frameInChild);
      this.bodies[child].obj.add(marks);
    } else {
      applyPose(marks, j.frameInParent);
      this.attach(parent, marks);
    }
    const axes = j.axes || [];
    const arrows = [];
    axes.forEach((a, k) => {
      const d = new Vector3(...a);
      if (d.lengthSq() === 0) return;
      d.normalize();
      const angular = j.angular ? j.angular[k] !== false : true;
      const color = this.ghost ? 0x3f7fff : angular ? 0xc2185b : 0x00838f;
      const arrow = new ArrowHelper(d, new Vector3(), 1, color, 0.25, 0.12);
      arrow.line.material.depthTest = false;
      arrow.cone.material.depthTest = false;
      arrow.renderOrder = 3;
      arrows.push(arrow);
      marks.add(arrow);
    });
    // Revolute-like joints with both limits: an arc in the parent's joint frame from lower to
    // upper, and a needle in the child's showing the current angle.
    let arc = null;
    let needle = null;
    const lim = j.limits && j.limits[0];
    const ang = j.angular ? j.angular[0] !== false : true;
    if (axes.length === 1 && ang && lim && lim[0] != null && lim[1] != null && lim[1] > lim[0] && /revolute|continuous|hinge/i.test(j.type || 'revolute')) {
      const axis = new Vector3(...axes[0]).normalize();
      const ref = new Vector3().crossVectors(axis, Math.abs(axis.x) < 0.9 ? X : Y).normalize();
      const span = Math.min(lim[1] - lim[0], 2 * Math.PI);
      const n = Math.max(8, Math.ceil(span / 0.08));
      const pts = [];
      const q = new Quaternion();
      const v = new Vector3();
      for (let i = 0; i <= n; i++) {
        q.setFromAxisAngle(axis, lim[0] + (span * i) / n);
        v.copy(ref).applyQuaternion(q);
        pts.push(v.x, v.y, v.z);
      }
      // ticks at both ends
      const tick = (angle) => {
        q.setFromAxisAngle(axis, angle);
        v.copy(ref).applyQuaternion(q);
        return [v.x * 0.75, v.y * 0.75, v.z * 0.75, v.x * 1.2, v.y * 1.2, v.z * 1.2];
      };
      const arcGeo = new BufferGeometry();
      arcGeo.setAttribute('position', new BufferAttribute(new Float32Array(pts), 3));
      const tickGeo = new BufferGeometry();
      tickGeo.setAttribute('position', new BufferAttribute(new Float32Array([...tick(lim[0]), ...tick(lim[0] + span)]), 3));
      arc = new Object3D();
      arc.visible = false;
      applyPose(arc, j.frameInParent);
      const line = new Line(arcGeo, arcMaterial(this.ghost));
      const ticks = new LineSegments(tickGeo, arcMaterial(this.ghost));
      line.renderOrder = ticks.renderOrder = 3;
      line.userData.own = ticks.userData.own = true;
      arc.add(line, ticks);
      this.attach(parent, arc);
      const needleGeo = new BufferGeometry();
      needleGeo.setAttribute('position', new BufferAttribute(new Float32Array([0, 0, 0, ref.x, ref.y, ref.z]), 3));
      needle = new LineSegments(needleGeo, arcMaterial(this.ghost));
      needle.renderOrder = 3;
      needle.userData.own = true;
      marks.add(needle);
    }
    return { marks, arrows, arc, needle };
  }

  attach(parent, o) {
    if (parent >= 0 && this.bodies[parent]) this.bodies[parent].obj.add(o);
    else this.world.add(o);
  }

  // Sizes of the overlays: s, a length typical of a body (m); comScale: radius of a unit mass.
  sizeOverlays(s, comScale, planeSize) {
    for (const b of this.bodies) {
      for (const m of b.meshes) if (m.userData.plane) m.scale.set(planeSize, planeSize, 1);
      if (b.triad) b.triad.scale.setScalar(s * 0.6);
      if (b.com) b.com.scale.setScalar(Math.max(comScale * Math.cbrt(b.com.userData.mass), s * 0.03));
    }
    for (const j of this.joints) {
      for (const a of j.arrows || []) a.scale.setScalar(s * 0.9);
      if (j.arc) j.arc.scale.setScalar(s * 0.45);
      if (j.needle) j.needle.scale.setScalar(s * 0.45);
    }
  }

  setToggles(t) {
    for (const b of this.bodies) {
      b.visual.visible = t.visual;
      b.collision.visible = t.collision;
      if (b.triad) b.triad.visible = t.frames;
      if (b.com) b.com.visible = t.com;
    }
    this.joints.forEach((j, i) => {
      const on = t.axes || this.forcedJoint === i;
      if (j.marks) j.marks.visible = on;
      if (j.arc) j.arc.visible = on;
    });
  }

  // Places every body at time t (interpolating between frames; holding the last frame).
  setTime(times, t) {
    const nb = this.nb;
    if (!nb || !this.frames) return;
    let k = frameAt(times, t);
    let a = 0;
    if (k >= this.frames - 1) k = this.frames - 1;
    else if (times[k + 1] > times[k]) a = Math.min(1, Math.max(0, (t - times[k]) / (times[k + 1] - times[k])));
    const P = this.poses;
    const q = this.q;
    const o0 = k * nb * 7;
    const o1 = a > 0 ? (k + 1) * nb * 7 : o0;
    for (let i = 0; i < nb; i++) {
      const obj = this.bodies[i].obj;
      const i0 = o0 + i * 7;
      const i1 = o1 + i * 7;
      const x = P[i0] + (P[i1] - P[i0]) * a;
      const y = P[i0 + 1] + (P[i1 + 1] - P[i0 + 1]) * a;
      const z = P[i0 + 2] + (P[i1 + 2] - P[i0 + 2]) * a;
      if (x !== x || y !== y || z !== z || P[i0 + 6] !== P[i0 + 6]) {
        obj.visible = false;
        continue;
      }
      obj.visible = true;
      if (a > 0) Quaternion.slerpFlat(q, 0, P, i0 + 3, P, i1 + 3, a);
      else { q[0] = P[i0 + 3]; q[1] = P[i0 + 4]; q[2] = P[i0 + 5]; q[3] = P[i0 + 6]; }
      obj.position.set(x, y, z);
      obj.quaternion.set(q[0], q[1], q[2], q[3]);
      if (q[0] === 0 && q[1] === 0 && q[2] === 0 && q[3] === 0) obj.quaternion.identity();
    }
  }

  // Bodies of group gi and of the groups nested in it.
  groupBodies(gi) {
    const groups = this.sc.groups || [];
    const out = new Set();
    const walk = (g) => {
      for (const b of groups[g].bodies || []) out.add(b);
      groups.forEach((h, k) => { if (h.parent === g && k !== g) walk(k); });
    };
    if (groups[gi]) walk(gi);
    return [...out];
  }

  // The meshes of the item at path (for highlighting), and the objects framing it.
  itemMeshes(path) {
    const it = this.byPath.get(path);
    if (!it) return null;
    if (it.kind === 'body') return this.bodies[it.index].meshes;
    if (it.kind === 'joint') {
      const j = this.sc.joints[it.index];
      const c = j.child ?? -1;
      return c >= 0 && this.bodies[c] ? this.bodies[c].meshes : [];
    }
    return this.groupBodies(it.index).flatMap((b) => (this.bodies[b] ? this.bodies[b].meshes : []));
  }

  dispose() {
    this.root.removeFromParent();
    this.root.traverse((o) => {
      if (o.userData.own) o.geometry.dispose();
      if (o.isArrowHelper) { o.line.material.dispose(); o.cone.material.dispose(); }
    });
  }
}
