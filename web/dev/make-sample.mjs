// Writes test data for the page (docs/view-data.md):
//   node dev/make-sample.mjs dev/sample.json         a 3-body pendulum with one conversion
//   node dev/make-sample.mjs --chain 1000 OUT.json   an N-body chain (performance)
import { writeFileSync } from 'node:fs';

const args = process.argv.slice(2);
const chainAt = args.indexOf('--chain');
const chain = chainAt >= 0 ? +args.splice(chainAt, 2)[1] : 0;
const out = args[0] || 'dev/sample.json';

const f32b64 = (a) => Buffer.from(new Float32Array(a).buffer).toString('base64');
const u32b64 = (a) => Buffer.from(new Uint32Array(a).buffer).toString('base64');
const r6 = (x) => Math.round(x * 1e6) / 1e6;
const qy = (a) => [0, Math.sin(a / 2), 0, Math.cos(a / 2)];
const rotY = (a, v) => [Math.cos(a) * v[0] + Math.sin(a) * v[2], v[1], -Math.sin(a) * v[0] + Math.cos(a) * v[2]];
const add = (a, b) => a.map((x, i) => x + b[i]);
const I = [0, 0, 0, 0, 0, 0, 1];
const times = Array.from({ length: 121 }, (_, k) => r6(k / 40));

function pendulum(n, len, q) {
  // world poses of n bodies hanging from (0,0,top) by revolute joints about y; q(t, i): angle
  const top = n * len + 0.2;
  const poses = [];
  for (const t of times) {
    let p = [0, 0, top];
    let a = 0;
    for (let i = 0; i < n; i++) {
      if (i > 0) p = add(p, rotY(a, [0, 0, -len]));
      a += q(t, i);
      poses.push(...p, ...qy(a));
    }
  }
  return poses;
}

function chainData(n) {
  const len = 0.1;
  const bodies = [];
  const joints = [];
  for (let i = 0; i < n; i++) {
    bodies.push({
      name: `link${i}`, path: `bodies["link${i}"]`, group: 0, fixed: false, mass: 0.2,
      com: [0, 0, -len / 2], inertia: [[1e-4, 0, 0], [0, 1e-4, 0], [0, 0, 1e-5]],
      shapes: [
        { name: 'rod', role: 'both', pose: [0, 0, -len / 2, 0, 0, 0, 1], color: [0.3 + 0.5 * (i % 2), 0.5, 0.7], opacity: 1, geometry: { type: 'cylinder', radius: 0.01, length: len } },
        { name: 'knob', role: 'visual', pose: I, color: null, opacity: 1, geometry: { type: 'sphere', radius: 0.015 } },
      ],
    });
    joints.push({
      name: `j${i}`, path: `joints["j${i}"]`, type: 'revolute', parent: i - 1, child: i,
      frameInParent: i ? [0, 0, -len, 0, 0, 0, 1] : [0, 0, n * len + 0.2, 0, 0, 0, 1], frameInChild: I,
      axes: [[0, 1, 0]], angular: [true], limits: [[-0.5, 0.5]], q0: [0], v0: [0],
    });
  }
  const q = (t, i) => 0.02 * Math.sin(2 * t + i * 0.05);
  const poses = pendulum(n, len, q);
  const ghostPoses = pendulum(n, len, (t, i) => q(t, i) * (1 + 0.02 * t));
  const err = [];
  for (let k = 0; k < times.length; k++) for (let i = 0; i < n; i++) err.push(1e-6 + 1e-4 * times[k] * (i / n));
  const sceneOf = (p) => ({ name: 'chain', gravity: [0, 0, -9.81], bodies, joints, groups: [{ name: 'chain', path: 'groups["chain"]', type: 'model', parent: null, bodies: bodies.map((_, i) => i), joints: joints.map((_, i) => i) }], frames: times.length, poses: f32b64(p) });
  return {
    format: 1, title: `chain of ${n}`, source: 'dev', times, original: sceneOf(poses),
    conversions: [{ label: 'via test', format: 'test', verdict: 'explained', message: 'a slowly growing swing', scene: sceneOf(ghostPoses), match: bodies.map((_, i) => i), error: { com: f32b64(err), rotation: f32b64(err) }, worst: { frame: times.length - 1, time: times.at(-1), body: n - 1, com: err.at(-1) }, findings: [], explainedBy: [], notCompared: [] }],
    findings: [], meshes: {}, notes: [],
  };
}

function sampleData() {
  const len = 0.5;
  const stl = `solid tet
facet normal 0 0 -1
outer loop
vertex 0 0 0
vertex 0.1 0 0
vertex 0 0.1 0
endloop
endfacet
facet normal 0 -1 0
outer loop
vertex 0 0 0
vertex 0 0 0.1
vertex 0.1 0 0
endloop
endfacet
facet normal -1 0 0
outer loop
vertex 0 0 0
vertex 0 0.1 0
vertex 0 0 0.1
endloop
endfacet
facet normal 0.577 0.577 0.577
outer loop
vertex 0.1 0 0
vertex 0 0 0.1
vertex 0 0.1 0
endloop
endfacet
endsolid tet
`;
  const obj = `# a small square pyramid
v -0.06 -0.06 0
v 0.06 -0.06 0
v 0.06 0.06 0
v -0.06 0.06 0
v 0 0 0.1
f 1 3 2
f 1 4 3
f 1 2 5
f 2 3 5
f 3 4 5
f 4 1 5
`;
  const dae = `<?xml version="1.0" encoding="utf-8"?>
<COLLADA xmlns="http://www.collada.org/2005/11/COLLADASchema" version="1.4.1">
  <asset><unit name="meter" meter="1"/><up_axis>Z_UP</up_axis></asset>
  <library_geometries>
    <geometry id="wedge" name="wedge"><mesh>
      <source id="wedge-pos"><float_array id="wedge-pos-array" count="18">0 0 0 0.12 0 0 0 0.06 0 0 0 0.08 0.12 0 0.08 0 0.06 0.08</float_array>
        <technique_common><accessor source="#wedge-pos-array" count="6" stride="3"><param name="X" type="float"/><param name="Y" type="float"/><param name="Z" type="float"/></accessor></technique_common></source>
      <vertices id="wedge-vtx"><input semantic="POSITION" source="#wedge-pos"/></vertices>
      <triangles count="8"><input semantic="VERTEX" source="#wedge-vtx" offset="0"/>
        <p>0 2 1 3 4 5 0 1 4 0 4 3 1 2 5 1 5 4 2 0 3 2 3 5</p></triangles>
    </mesh></geometry>
  </library_geometries>
  <library_visual_scenes><visual_scene id="Scene" name="Scene">
    <node id="wedge-node" name="wedge"><instance_geometry url="#wedge"/></node>
  </visual_scene></library_visual_scenes>
  <scene><instance_visual_scene url="#Scene"/></scene>
</COLLADA>
`;
  const bodies = [
    {
      name: 'base', path: 'bodies["base"]', group: 0, fixed: true, mass: 5,
      com: [0, 0, 0], inertia: [[0.05, 0, 0], [0, 0.05, 0], [0, 0, 0.08]],
      shapes: [
        { name: 'block', role: 'both', pose: I, color: [0.35, 0.38, 0.42], opacity: 1, geometry: { type: 'box', size: [0.4, 0.3, 0.1] } },
        { name: 'bolt', role: 'visual', pose: [0.15, 0.1, 0.05, 0, 0, 0, 1], color: [0.8, 0.7, 0.2], opacity: 1, geometry: { type: 'mesh', mesh: 'm0', scale: [1, 1, 1] } },
        { name: 'wedge', role: 'visual', pose: [0.1, -0.1, 0.05, 0, 0, 0, 1], color: [0.5, 0.3, 0.7], opacity: 1, geometry: { type: 'mesh', mesh: 'm2', scale: [1, 1, 1] } },
        { name: 'cap', role: 'visual', pose: [-0.15, 0.1, 0.05, 0, 0, 0, 1], color: null, opacity: 1, geometry: { type: 'mesh', mesh: 'm1', scale: [1, 1, 1] } },
      ],
    },
    {
      name: 'upper', path: 'bodies["upper"]', group: 1, fixed: false, mass: 1.2,
      com: [0, 0, -len / 2], inertia: [[0.025, 0, 0], [0, 0.025, 0], [0, 0, 0.001]],
      shapes: [
        { name: 'rod', role: 'visual', pose: [0, 0, -len / 2, 0, 0, 0, 1], color: [0.2, 0.45, 0.75], opacity: 1, geometry: { type: 'cylinder', radius: 0.03, length: len } },
        { name: 'rod', role: 'collision', pose: [0, 0, -len / 2, 0, 0, 0, 1], color: null, opacity: 1, geometry: { type: 'capsule', radius: 0.035, length: len } },
        { name: 'hub', role: 'visual', pose: [0, 0, 0, Math.SQRT1_2, 0, 0, Math.SQRT1_2], color: [0.6, 0.6, 0.62], opacity: 1, geometry: { type: 'cone', radius: 0.05, length: 0.08 } },
      ],
    },
    {
      name: 'lower', path: 'bodies["lower"]', group: 1, fixed: false, mass: 2.0,
      com: [0, 0, -0.4], inertia: [[0.01, 0, 0], [0, 0.01, 0], [0, 0, 0.008]],
      shapes: [
        { name: 'bob', role: 'both', pose: [0, 0, -0.4, 0, 0, 0, 1], color: [0.8, 0.25, 0.2], opacity: 1, geometry: { type: 'sphere', radius: 0.1 } },
        { name: 'arm', role: 'visual', pose: [0, 0, -0.15, 0, 0, 0, 1], color: [0.25, 0.6, 0.35], opacity: 1, geometry: { type: 'ellipsoid', radii: [0.03, 0.03, 0.15] } },
        { name: 'fin', role: 'visual', pose: [0, 0, -0.4, 0, 0, 0, 1], color: [0.9, 0.8, 0.3], opacity: 0.9, geometry: { type: 'triangles', vertices: f32b64([0.1, 0, 0, 0.25, 0, 0.05, 0.25, 0, -0.1, 0.1, 0.02, 0]), indices: u32b64([0, 1, 2, 0, 3, 1]) } },
        { name: 'scan', role: 'visual', pose: [0, 0, -0.4, 0, 0, 0, 1], color: null, opacity: 1, geometry: { type: 'bounds', min: [-0.12, -0.08, -0.12], max: [0.12, 0.08, 0.1], note: 'lower.wrl: VRML is not drawn' } },
      ],
    },
  ];
  const joints = [
    { name: 'mount', path: 'joints["mount"]', type: 'fixed', parent: -1, child: 0, frameInParent: [0, 0, 1.2, 0, 0, 0, 1], frameInChild: I, axes: [], angular: [], limits: null, q0: [], v0: [] },
    { name: 'shoulder', path: 'joints["shoulder"]', type: 'revolute', parent: 0, child: 1, frameInParent: [0, 0, -0.05, 0, 0, 0, 1], frameInChild: I, axes: [[0, 1, 0]], angular: [true], limits: [[-1.0, 1.0]], q0: [0.6], v0: [0] },
    { name: 'elbow', path: 'joints["elbow"]', type: 'revolute', parent: 1, child: 2, frameInParent: [0, 0, -len, 0, 0, 0, 1], frameInChild: I, axes: [[0, 1, 0]], angular: [true], limits: [[-1.5, 0.5]], q0: [-0.3], v0: [0] },
  ];
  const groups = [
    { name: 'pendulum', path: 'groups["pendulum"]', type: 'model', parent: null, bodies: [0], joints: [0] },
    { name: 'arm', path: 'groups["pendulum"].groups["arm"]', type: 'skeleton', parent: 0, bodies: [1, 2], joints: [1, 2] },
  ];
  const q = (t, i) => (i === 0 ? 0.6 * Math.cos(2.2 * t) : -0.3 * Math.cos(3.1 * t));
  // body 0 is fixed at (0,0,1.2); bodies 1, 2 hang below it
  const world = (qq) => {
    const poses = [];
    for (const t of times) {
      poses.push(0, 0, 1.2, 0, 0, 0, 1);
      const a1 = qq(t, 0);
      const p1 = [0, 0, 1.15];
      poses.push(...p1, ...qy(a1));
      const a2 = a1 + qq(t, 1);
      const p2 = add(p1, rotY(a1, [0, 0, -len]));
      poses.push(...p2, ...qy(a2));
    }
    return poses;
  };
  const poses = world(q);
  const gq = (t, i) => q(t, i) * (1 + 0.08 * t * t);
  const ghostPoses = world(gq);
  // centre-of-mass distances
  const err = [];
  const com = (P, k, b, c) => {
    const o = (k * 3 + b) * 7;
    const a = 2 * Math.atan2(P[o + 4], P[o + 6]);
    return add(P.slice(o, o + 3), rotY(a, c));
  };
  let worst = { frame: 0, time: 0, body: null, com: 0 };
  for (let k = 0; k < times.length; k++) {
    for (let b = 0; b < 3; b++) {
      const c = bodies[b].com;
      const d = Math.hypot(...com(poses, k, b, c).map((x, i) => x - com(ghostPoses, k, b, c)[i]));
      err.push(d);
      if (d > worst.com) worst = { frame: k, time: times[k], body: b, com: r6(d) };
    }
  }
  const sceneOf = (name, p, frames = times.length) => ({
    name, gravity: [0, 0, -9.81], bodies, joints, groups, frames, poses: f32b64(p.slice(0, frames * 3 * 7)),
  });
  return {
    format: 1,
    title: 'web/dev/sample.json',
    source: 'dev',
    times,
    original: sceneOf('pendulum', poses),
    conversions: [
      {
        label: 'via test', format: 'test', verdict: 'explained',
        message: `centre of mass of "${bodies[worst.body].name}" off by ${worst.com.toExponential(1)} m at t = ${worst.time} s; the joint damping was dropped`,
        scene: sceneOf('pendulum', ghostPoses), match: [0, 1, 2],
        error: { com: f32b64(err), rotation: f32b64(err.map((x) => x * 2)) },
        worst,
        findings: [
          { severity: 'warning', category: 'dropped', code: 'test.damping_dropped', message: 'the damping of "elbow" was dropped', path: 'joints["elbow"].dofs[0].damping', item: 'joints["elbow"]', scene: 'original', file: null, line: null, column: null },
          { severity: 'info', category: 'read-back', code: 'test.renamed', message: 'body "lower" reads back with a new inertia', path: 'bodies["lower"].inertia', item: 'bodies["lower"]', scene: 'conversion', file: 'out.test', line: 3, column: 1 },
        ],
        explainedBy: [{ pass: 'joints', code: 'test.damping_dropped', path: 'joints["elbow"]', com: worst.com }],
        notCompared: ['contact: the model has no contacts'],
      },
      {
        label: 'stops early', format: 'test2', verdict: 'failed', message: 'the simulation stopped at t = 1.5 s',
        scene: sceneOf('pendulum', poses, 61), match: [0, 1, null],
        error: { com: f32b64(err.map((x, i) => (i % 3 === 2 ? NaN : x * 0.01))), rotation: f32b64(err.map(() => 0)) },
        worst: { frame: 60, time: times[60], body: 1, com: 1e-5 }, findings: [], explainedBy: [], notCompared: [],
      },
    ],
    findings: [
      { severity: 'warning', category: 'limits', code: 'read.limit_swapped', message: 'the limits of "shoulder" were given upper first', path: 'joints["shoulder"].dofs[0].limits', item: 'joints["shoulder"]', scene: 'original', file: 'pendulum.test', line: 12, column: 5 },
      { severity: 'info', category: 'meshes', code: 'read.mesh_bounds', message: 'the mesh of "lower" is drawn as its bounding box', path: 'bodies["lower"].shapes[3]', item: 'bodies["lower"]', scene: 'original', file: null, line: null, column: null },
      { severity: 'error', category: 'limits', code: 'read.no_item', message: 'a finding that names no item', path: 'settings.dt', item: null, scene: 'original', file: null, line: null, column: null },
      { severity: 'info', category: 'groups', code: 'read.group', message: 'the arm is a skeleton', path: 'groups["pendulum"].groups["arm"]', item: 'groups["pendulum"].groups["arm"]', scene: 'original' },
    ],
    meshes: {
      m0: { format: 'stl', data: Buffer.from(stl).toString('base64') },
      m1: { format: 'obj', data: Buffer.from(obj).toString('base64') },
      m2: { format: 'dae', data: Buffer.from(dae).toString('base64') },
    },
    notes: ['1 VRML mesh is drawn as its bounding box'],
  };
}

const data = chain ? chainData(chain) : sampleData();
writeFileSync(out, JSON.stringify(data, null, chain ? 0 : 1) + '\n');
console.log(`${out}: ${chain ? chain + '-body chain' : 'sample'}`);
