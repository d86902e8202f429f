#!/usr/bin/env python3
"""The libraries' side of `cargo xtask peers-usd` (docs/peers-usd.md): does a URDF or MJCF robot
converted to USD keep its motion in Newton, converted by NVIDIA's converters or by mbconv?

`cargo xtask peers-usd` writes a manifest (JSON: a list of {"name", "source" (absolute path),
"kind" ("urdf" or "mjcf"), "mbconv" (mbconv's .usda or null), "mbconv_error", "mbconv_seconds",
"peer" (the converter's root .usda or null), "peer_error", "peer_seconds"}); the conversions run
in the xtask (mbconv's library; the peers, `urdf-usd-converter` 0.3.4 and
`mujoco-usd-converter` 0.8.0, in a venv of their own: they ship their own `pxr`). For each
entry this script (in child processes that go on after a crash or a hang of one entry):

* the ground truth: for a URDF, Pinocchio 4.1 (`buildModelFromUrdf`, the root welded, mimic
  joints free), for an MJCF, MuJoCo 4.0 (`MjModel.from_xml_path`, contact, joint limits and
  equalities, actuators, joint damping, stiffness and friction loss disabled, fluid forces
  (density, viscosity, wind) off, gravity on even where the model disables it; armature
  kept); both from the file's own initial state (every joint at 0, MuJoCo's qpos0) under a gravity tilted off the vertical (GRAVITY: a robot hanging at rest in its zero
  pose moves), 1 s of semi-implicit Euler at dt 1e-3 (Pinocchio's `aba`; MuJoCo's `Euler`), the
  world position of every body frame (URDF link) every 0.1 s;
* each USD loaded in Newton 1.8 (`ModelBuilder.add_usd`; for a URDF the root welded,
  `floating=False`; for an MJCF the root as the stage says), its joint limits and drives
  removed (limits ±1e10; drive gains, joint stiffness, damping and friction 0: Pinocchio's `aba`
  has none, MuJoCo's are off; armature kept), `SolverFeatherstone` on the CPU, semi-implicit Euler at dt 1e-3, no contact; where
  Newton refuses joints outside an articulation (mbconv's writer applies no
  `PhysicsArticulationRootAPI`), loaded again with the API applied to the default prim
  (`articulation_root_added`).

The script reports, for the truth and each USD, every body's world position every 0.1 s; the
xtask (xtask/src/peers_usd.rs, `judge`) matches the bodies and judges: a body the source names
is matched by name (the name the stage gives the body: mbconv's `mbconv:name`, the peer's
`displayName`, else the prim's name, made a valid prim name, against the truth's link or body
name made one too); a body the source leaves unnamed (MuJoCo allows it: the truth has only its
body id, and each converter names it as it likes, mbconv's MJCF reader `bodyN`, the peer `Body`,
`Body_1`, ...) is matched to the USD body, among those not yet matched, whose positions stay
closest to its own over the run. A USD keeps the motion when every body at a moving joint of
the truth (a URDF link whose parent joint moves, an MJCF body with joints) has a match and every
matched body stays within TOLERANCE of the truth every 0.1 s.

Usage:

    python peers_usd.py --manifest MANIFEST.json --out RESULTS.json
"""

import argparse
import json
import math
import os
import re
import subprocess
import sys
import time

sys.dont_write_bytecode = True

DURATION = 1.0
DT = 1e-3
EVERY = 100
TOLERANCE = 1e-4
TIMEOUT = 600
# Gravity tilted off the vertical, the same in every run: a robot hanging at rest in its zero
# pose (USD has no joint coordinates, so every run starts there) then moves.
GRAVITY = (2.0, 1.0, -9.81)


def prim_name(name):
    name = re.sub(r"[^A-Za-z0-9_]", "_", name)
    return "_" + name if not name or name[0].isdigit() else name


def bodies_out(names, moving, samples, ids=None):
    """The bodies of a run in order, each with its name (None: the source does not name it),
    whether it is at a moving joint, its source id where it has one, and its position at every
    sample (None for a coordinate that is not finite)."""
    out = []
    for b, name in enumerate(names):
        positions = [[x if math.isfinite(x) else None for x in s[b]] for s in samples]  # JSON has no NaN
        body = {"name": name, "moving": moving[b], "positions": positions}
        if ids is not None:
            body["id"] = ids[b]
        out.append(body)
    return out


def truth_urdf(path):
    import numpy as np
    import pinocchio as pin

    model = pin.buildModelFromUrdf(path)
    model.gravity.linear = np.array(GRAVITY)
    data = model.createData()
    q = pin.neutral(model)
    v = np.zeros(model.nv)
    frames = [i for i, f in enumerate(model.frames) if f.type == pin.FrameType.BODY]
    names = [prim_name(model.frames[i].name) for i in frames]
    # the links at the moving joints (a link on a fixed joint may be fused by a converter)
    moving = [
        model.frames[i].parentJoint > 0 and model.frames[model.frames[i].parentFrame].type == pin.FrameType.JOINT
        for i in frames
    ]
    samples = []
    steps = round(DURATION / DT)
    for k in range(steps + 1):
        if k % EVERY == 0:
            pin.framesForwardKinematics(model, data, q)
            samples.append([data.oMf[i].translation.tolist() for i in frames])
        if k == steps:
            break
        a = pin.aba(model, data, q, v, np.zeros(model.nv))
        v = v + DT * a
        q = pin.integrate(model, q, v * DT)
    return {"nv": int(model.nv), "bodies": bodies_out(names, moving, samples)}


def truth_mjcf(path):
    import mujoco

    m = mujoco.MjModel.from_xml_path(path)
    m.opt.integrator = mujoco.mjtIntegrator.mjINT_EULER
    m.opt.timestep = DT
    m.opt.gravity[:] = GRAVITY
    # GRAVITY in every run, also where the model switches gravity off (`<flag gravity="disable"/>`:
    # the USD runs have it, as `model.set_gravity` sets it whatever the stage's scene says)
    m.opt.disableflags &= ~int(mujoco.mjtDisableBit.mjDSBL_GRAVITY)
    # no fluid forces (`<option density viscosity wind>`: UsdPhysics has none)
    m.opt.density, m.opt.viscosity = 0.0, 0.0
    m.opt.wind[:] = 0.0
    m.opt.disableflags |= mujoco.mjtDisableBit.mjDSBL_ACTUATION
    m.dof_damping[:] = 0
    m.jnt_stiffness[:] = 0
    m.dof_frictionloss[:] = 0
    m.opt.disableflags |= (
        mujoco.mjtDisableBit.mjDSBL_CONTACT | mujoco.mjtDisableBit.mjDSBL_LIMIT | mujoco.mjtDisableBit.mjDSBL_EQUALITY
    )
    d = mujoco.MjData(m)
    mujoco.mj_forward(m, d)
    ids = list(range(1, m.nbody))
    # an unnamed body has only its id: the xtask matches it by its motion (see the module's text)
    names = [prim_name(m.body(i).name) if m.body(i).name else None for i in ids]
    moving = [bool(m.body_jntnum[i] > 0) for i in ids]
    samples = []
    steps = round(DURATION / DT)
    for k in range(steps + 1):
        if k % EVERY == 0:
            mujoco.mj_kinematics(m, d)
            samples.append([d.xpos[i].tolist() for i in ids])
        if k < steps:
            mujoco.mj_step(m, d)
    return {"nv": int(m.nv), "bodies": bodies_out(names, moving, samples, ids)}


def body_name(prim, label):
    """The name the stage gives a body: mbconv's `mbconv:name`, else the `displayName` (where
    NVIDIA's converters keep the source's name when the prim's had to change), else the prim's
    name."""
    if prim and prim.IsValid():
        attribute = prim.GetAttribute("mbconv:name")
        if attribute and attribute.HasAuthoredValue():
            return prim_name(str(attribute.Get()))
        shown = prim.GetMetadata("displayName")
        if shown:
            return prim_name(str(shown))
    return label.rsplit("/", 1)[-1]


def newton_run(path, kind):
    import numpy as np
    import newton
    import warp as wp
    from pxr import Usd, UsdPhysics

    wp.config.quiet = True
    floating = False if kind == "urdf" else None
    added = False

    def build(root):
        stage = Usd.Stage.Open(path)
        if root:
            UsdPhysics.ArticulationRootAPI.Apply(stage.GetDefaultPrim())
        builder = newton.ModelBuilder()
        builder.add_usd(stage, floating=floating)
        n = len(builder.joint_limit_lower)
        builder.joint_limit_lower = [-1e10] * n
        builder.joint_limit_upper = [1e10] * n
        for attribute in ("joint_target_ke", "joint_target_kd", "joint_stiffness", "joint_damping", "joint_friction"):
            setattr(builder, attribute, [0.0] * len(getattr(builder, attribute)))
        model = builder.finalize(device="cpu")
        model.set_gravity(GRAVITY)
        return stage, builder, model

    try:
        stage, builder, model = build(False)
        if any(a < 0 for a in builder.joint_articulation):
            added = True  # accepted, but Featherstone does not move joints outside one
            stage, builder, model = build(True)
    except ValueError as e:
        if "not belonging to any articulation" not in str(e):
            raise
        added = True
        stage, builder, model = build(True)
    # the bodies in the stage's prim order (Newton's own order follows its articulations)
    rank = {p.GetPath().pathString: k for k, p in enumerate(Usd.PrimRange.Stage(stage, Usd.TraverseInstanceProxies()))}
    order = sorted(range(len(builder.body_label)), key=lambda b: (rank.get(builder.body_label[b], len(rank)), b))
    names = [body_name(stage.GetPrimAtPath(builder.body_label[b]), builder.body_label[b]) for b in order]
    solver = newton.solvers.SolverFeatherstone(model)
    state, next_state, control = model.state(), model.state(), model.control()
    newton.eval_fk(model, model.joint_q, model.joint_qd, state)
    samples = []
    steps = round(DURATION / DT)
    for k in range(steps + 1):
        if k % EVERY == 0:
            q = state.body_q.numpy().astype(np.float64)
            samples.append([q[b, :3].tolist() for b in order])
        if k < steps:
            solver.step(state, next_state, control, None, DT)
            state, next_state = next_state, state
    bodies = bodies_out(names, [None] * len(order), samples)
    for body, b in zip(bodies, order):
        body["path"] = builder.body_label[b]
        del body["moving"]
    return {"loads": True, "articulation_root_added": added, "nv": int(builder.joint_dof_count), "bodies": bodies}


def one(entry):
    """Everything for one robot, in the child process."""
    out = {"name": entry["name"], "kind": entry["kind"]}
    started = time.time()
    try:
        truth = truth_urdf(entry["source"]) if entry["kind"] == "urdf" else truth_mjcf(entry["source"])
        moving = sum(1 for body in truth["bodies"] if body["moving"])
        out["truth"] = {"loads": True, "nv": truth["nv"], "moving": moving, "bodies": truth["bodies"]}
    except Exception as e:
        out["truth"] = {"loads": False, "error": f"{type(e).__name__}: {e}"}
        return out
    out["truth_seconds"] = time.time() - started
    for key in ("mbconv", "peer"):
        path = entry.get(key)
        if not path:
            out[key] = {"loads": False, "converted": False, "error": entry.get(f"{key}_error") or "not converted"}
            continue
        started = time.time()
        try:
            out[key] = newton_run(path, entry["kind"])
        except Exception as e:
            out[key] = {"loads": False, "converted": True, "error": f"{type(e).__name__}: {str(e).strip()}"[:400]}
        out[key]["newton_seconds"] = time.time() - started
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--manifest")
    parser.add_argument("--out")
    parser.add_argument("--one", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--result", help=argparse.SUPPRESS)
    parser.add_argument("entries", nargs="?", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:  # a child process: the entries in order, one JSON line each
        with open(args.entries) as f:
            entries = json.load(f)
        with open(args.result, "a") as out:
            for entry in entries:
                out.write(json.dumps(one(entry)) + "\n")
                out.flush()
        return
    with open(args.manifest) as f:
        manifest = json.load(f)
    scratch = os.path.dirname(os.path.abspath(args.manifest))
    results = []
    # One child process runs the entries in order (Newton's kernels load once); a crash or a
    # hang costs the entry it was on, and a new child goes on after it.
    while len(results) < len(manifest):
        rest = manifest[len(results):]
        listing = os.path.join(scratch, "rest.json")
        lines = os.path.join(scratch, f"lines{len(results)}.jsonl")
        with open(listing, "w") as f:
            json.dump(rest, f)
        command = [sys.executable, os.path.abspath(__file__), "--one", "--result", lines, listing]
        try:
            code = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=TIMEOUT * len(rest)).returncode
        except subprocess.TimeoutExpired:
            code = "timeout"
        done = []
        if os.path.exists(lines):
            with open(lines) as f:
                done = [json.loads(line) for line in f if line.strip()]
        results.extend(done)
        if len(results) < len(manifest):
            entry = manifest[len(results)]
            error = f"the process died (exit status {code})"
            results.append({"name": entry["name"], "kind": entry["kind"], "truth": {"loads": False, "error": error}})
        for result in results[-len(done) - 1:]:
            cells = " ".join(f"{p}={'loads' if result.get(p, {}).get('loads') else 'no'}" for p in ("mbconv", "peer"))
            print(f"{result['name']}: {cells}", file=sys.stderr)
    for result, entry in zip(results, manifest):
        for key in ("mbconv_seconds", "peer_seconds"):
            result[key] = entry.get(key)
    with open(args.out, "w") as f:
        json.dump({"tolerance": TOLERANCE, "dt": DT, "every": DT * EVERY, "results": results}, f, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
