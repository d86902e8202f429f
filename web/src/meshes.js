// Mesh files embedded in the data (`meshes`), parsed once each from their bytes (never from a URL).
import { BufferGeometry, Group, LoadingManager, Mesh } from 'three';
import { STLLoader } from 'three/examples/jsm/loaders/STLLoader.js';
import { OBJLoader } from 'three/examples/jsm/loaders/OBJLoader.js';
import { ColladaLoader } from 'three/examples/jsm/loaders/ColladaLoader.js';
import { bytes } from './data.js';

// A 1x1 transparent PNG: what texture URLs in mesh files load instead of the network or disk.
const BLANK =
  'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=';
const manager = new LoadingManager();
manager.setURLModifier(() => BLANK);

const parsed = new Map();

// The geometries of mesh `id`, as a list of {geometry, matrix} (matrix: within the file), or
// throws. Cached: every shape that draws this mesh shares the geometries.
export function meshParts(meshes, id) {
  if (parsed.has(id)) return parsed.get(id);
  const entry = meshes[id];
  if (entry == null) throw new Error(`mesh "${id}" is not in the page's meshes`);
  // As docs/view-data.md states: {format: "stl" | "obj" | "dae", data: base64, uri}.
  const { format } = entry;
  const b = bytes(entry.data);
  let root;
  if (format === 'stl') {
    const copy = b.slice().buffer;
    const g = new STLLoader(manager).parse(copy);
    root = new Mesh(g);
  } else if (format === 'obj') {
    root = new OBJLoader(manager).parse(new TextDecoder().decode(b));
  } else if (format === 'dae') {
    const result = new ColladaLoader(manager).parse(new TextDecoder().decode(b), '');
    if (!result || !result.scene) throw new Error(`mesh "${id}": the Collada file could not be read`);
    // The loader turns the file Y-up (rotating Z_UP files by -90° about x); the page is Z-up.
    root = new Group();
    root.rotation.x = Math.PI / 2;
    root.add(result.scene);
  } else {
    throw new Error(`mesh "${id}": format "${format}" is not drawn (STL, OBJ, DAE are)`);
  }
  root.updateMatrixWorld(true);
  const parts = [];
  root.traverse((o) => {
    if (o.isMesh && o.geometry instanceof BufferGeometry) {
      const g = o.geometry;
      if (!g.attributes.normal) g.computeVertexNormals();
      g.computeBoundingBox();
      g.computeBoundingSphere();
      parts.push({ geometry: g, matrix: o.matrixWorld.clone() });
    }
  });
  if (!parts.length) throw new Error(`mesh "${id}" (${format}) has no triangles`);
  parsed.set(id, parts);
  return parts;
}
