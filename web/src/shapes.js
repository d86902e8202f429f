// Shapes (docs/view-data.md, "Shape"): geometries and materials shared between identical shapes.
import {
  BoxGeometry, BufferAttribute, BufferGeometry, CapsuleGeometry, Color, ConeGeometry, CylinderGeometry,
  DoubleSide, EdgesGeometry, FrontSide, LineBasicMaterial, LineSegments, Mesh, MeshPhongMaterial, Object3D,
  PlaneGeometry, SphereGeometry, SRGBColorSpace, Vector3,
} from 'three';
import { f32, u32 } from './data.js';
import { meshParts } from './meshes.js';

const GREY = [0.72, 0.72, 0.7];
const ORANGE = [1.0, 0.5, 0.08];
const GHOST = [0.2, 0.5, 1.0];
const GHOST_COLLISION = [0.75, 0.3, 0.9];

// ---- geometries -------------------------------------------------------------------------------

const geoms = new Map();
function cached(key, make) {
  let g = geoms.get(key);
  if (!g) {
    g = make();
    g.computeBoundingBox();
    g.computeBoundingSphere();
    geoms.set(key, g);
  }
  return g;
}
// Tessellation: finer for small models, coarser for large ones (software renderers draw every
// triangle of a 1000-body model and its ghost each frame).
let seg = 28;
export function setDetail(bodies) {
  seg = bodies > 400 ? 10 : bodies > 100 ? 16 : bodies > 30 ? 22 : 28;
}
const unitBox = () => cached('box', () => new BoxGeometry(1, 1, 1));
const unitSphere = () => cached('sphere' + seg, () => new SphereGeometry(1, seg, Math.max(6, Math.round(seg * 0.6))));
const unitCylinder = () => cached('cyl' + seg, () => new CylinderGeometry(1, 1, 1, seg).rotateX(Math.PI / 2));
const unitCone = () => cached('cone' + seg, () => new ConeGeometry(1, 1, seg).rotateX(Math.PI / 2));
const unitPlane = () => cached('plane', () => new PlaneGeometry(1, 1));
const unitEdges = () => cached('edges', () => new EdgesGeometry(new BoxGeometry(1, 1, 1)));
export const sphereGeometry = unitSphere;

// ---- materials --------------------------------------------------------------------------------

const mats = new Map();

// kind: 'visual' | 'collision' | 'ghost' | 'ghostCollision'
export function surfaceMaterial(kind, color, opacity, open) {
  let rgb = color;
  let op = opacity == null ? 1 : opacity;
  if (kind === 'visual') rgb = color || GREY;
  else if (kind === 'collision') { rgb = color || ORANGE; op = 0.45; }
  else if (kind === 'ghost') { rgb = GHOST; op = 0.35; }
  else { rgb = GHOST_COLLISION; op = 0.3; }
  const key = `${kind}|${rgb.join(',')}|${op}|${open ? 2 : 0}`;
  let m = mats.get(key);
  if (!m) {
    const transparent = op < 1;
    m = new MeshPhongMaterial({
      color: new Color().setRGB(rgb[0], rgb[1], rgb[2], SRGBColorSpace),
      specular: 0x222222,
      shininess: 30,
      transparent,
      opacity: op,
      depthWrite: !transparent,
      side: open ? DoubleSide : FrontSide,
      polygonOffset: kind !== 'visual',
      // collision shapes in front of the visuals they coincide with; the ghost behind the
      // original where they coincide, so it shows where the conversion departs
      polygonOffsetFactor: kind === 'visual' ? 0 : kind === 'collision' ? -1 : 1,
      polygonOffsetUnits: kind === 'visual' ? 0 : kind === 'collision' ? -1 : 4,
    });
    mats.set(key, m);
  }
  return m;
}

export function lineMaterial(kind) {
  const key = 'line|' + kind;
  let m = mats.get(key);
  if (!m) {
    const rgb = kind === 'ghost' ? GHOST : kind === 'collision' ? ORANGE : [0.25, 0.25, 0.25];
    m = new LineBasicMaterial({ color: new Color().setRGB(rgb[0], rgb[1], rgb[2], SRGBColorSpace),
      transparent: kind === 'ghost', opacity: kind === 'ghost' ? 0.6 : 1 });
    mats.set(key, m);
  }
  return m;
}

// The highlighted twin of a material (the selection), cached.
const hi = new Map();
export function highlighted(m) {
  let h = hi.get(m);
  if (!h) {
    h = m.clone();
    if (h.emissive) h.emissive.setRGB(0.4, 0.22, 0.0);
    else h.color.setRGB(1, 0.55, 0);
    if (h.transparent) h.opacity = Math.min(1, h.opacity + 0.25);
    hi.set(m, h);
  }
  return h;
}

// ---- shapes -----------------------------------------------------------------------------------

const Z = new Vector3(0, 0, 1);

export function applyPose(o, p) {
  if (!p) return;
  o.position.set(p[0], p[1], p[2]);
  o.quaternion.set(p[3], p[4], p[5], p[6]);
  if (o.quaternion.lengthSq() === 0) o.quaternion.identity();
  else o.quaternion.normalize();
}

// The object drawing `shape` in its body's frame, or throws. kind: see surfaceMaterial.
// Planes are marked userData.plane (sized later to the model).
export function buildShape(shape, data, kind) {
  const g = shape.geometry || {};
  // planes, inline triangles and mesh files may be open surfaces: both sides drawn
  const open = g.type === 'plane' || g.type === 'triangles' || g.type === 'mesh';
  const mat = surfaceMaterial(kind, shape.color, shape.opacity, open);
  const holder = new Object3D();
  applyPose(holder, shape.pose);
  let m;
  switch (g.type) {
    case 'box':
      m = new Mesh(unitBox(), mat);
      m.scale.set(...nz3(g.size));
      break;
    case 'sphere':
      m = new Mesh(unitSphere(), mat);
      m.scale.setScalar(pos(g.radius));
      break;
    case 'ellipsoid':
      m = new Mesh(unitSphere(), mat);
      m.scale.set(...nz3(g.radii));
      break;
    case 'cylinder':
      m = new Mesh(unitCylinder(), mat);
      m.scale.set(pos(g.radius), pos(g.radius), pos(g.length));
      break;
    case 'cone':
      m = new Mesh(unitCone(), mat);
      m.scale.set(pos(g.radius), pos(g.radius), pos(g.length));
      break;
    case 'capsule': {
      const r = pos(g.radius);
      const l = Math.max(0, +g.length || 0);
      m = new Mesh(cached(`capsule|${r}|${l}|${seg}`, () => new CapsuleGeometry(r, l, Math.max(3, seg >> 2), seg).rotateX(Math.PI / 2)), mat);
      break;
    }
    case 'plane': {
      m = new Mesh(unitPlane(), mat);
      const n = new Vector3(...(g.normal || [0, 0, 1]));
      if (n.lengthSq() === 0) n.set(0, 0, 1);
      const len = n.length();
      n.divideScalar(len);
      m.quaternion.setFromUnitVectors(Z, n);
      m.position.copy(n).multiplyScalar((+g.offset || 0) / len);
      m.userData.plane = true;
      break;
    }
    case 'triangles': {
      const key = 'tri|' + g.vertices + '|' + g.indices;
      m = new Mesh(cached(key, () => {
        const geo = new BufferGeometry();
        geo.setAttribute('position', new BufferAttribute(f32(g.vertices), 3));
        geo.setIndex(new BufferAttribute(u32(g.indices), 1));
        geo.computeVertexNormals();
        return geo;
      }), mat);
      break;
    }
    case 'mesh': {
      const parts = meshParts(data.meshes, g.mesh);
      const group = new Object3D();
      for (const part of parts) {
        const pm = new Mesh(part.geometry, mat);
        pm.matrixAutoUpdate = false;
        pm.matrix.copy(part.matrix);
        group.add(pm);
      }
      if (g.scale) group.scale.set(...g.scale.map((s) => (s === 0 ? 1e-9 : s)));
      m = group;
      break;
    }
    case 'bounds': {
      const lo = g.min || [0, 0, 0];
      const up = g.max || [0, 0, 0];
      m = new LineSegments(unitEdges(), lineMaterial(kind.startsWith('ghost') ? 'ghost' : kind));
      m.scale.set(Math.max(up[0] - lo[0], 1e-9), Math.max(up[1] - lo[1], 1e-9), Math.max(up[2] - lo[2], 1e-9));
      m.position.set((lo[0] + up[0]) / 2, (lo[1] + up[1]) / 2, (lo[2] + up[2]) / 2);
      break;
    }
    default:
      throw new Error(`shape "${shape.name}": geometry type "${g.type}" is not drawn`);
  }
  holder.add(m);
  holder.updateMatrix();
  holder.updateMatrixWorld(true);
  return holder;
}

function pos(x) {
  const v = +x;
  return v > 0 ? v : 1e-9;
}
function nz3(a) {
  return (a || [0, 0, 0]).map(pos);
}

