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
  equalities, actuators, joint damping, stiffness and friction loss disabled; armature
  kept); both from the file's own initial state (every joint at 0, MuJoCo's
  qpos0) under a gravity tilted off the vertical (GRAVITY: a robot hanging at rest in its zero
  pose moves), 1 s of semi-implicit Euler at dt 1e-3 (Pinocchio's `aba`; MuJoCo's `Euler`), the
  world position of every body frame (URDF link) every 0.1 s;
* each USD loaded in Newton 1.8 (`ModelBuilder.add_usd`; for a URDF the root welded,
  `floating=False`; for an MJCF the root as the stage says), its joint limits and drives
  removed (limits ±1e10; drive gains, joint stiffness, damping and friction 0: Pinocchio's `aba`
  has none, MuJoCo's are off; armature kept), `SolverFeatherstone` on the CPU, semi-implicit Euler at dt 1e-3, no contact; where
  Newton refuses joints outside an articulation (mbconv's writer applies no
  `PhysicsArticulationRootAPI`), loaded again with the API applied to the default prim
  (`articulation_root_added`).

Bodies are matched by name (Newton's prim name, or the prim's `mbconv:name`, against the
truth's link or body name made a valid prim name). A USD keeps the motion when every body at a
moving joint of the truth (a URDF link whose parent joint moves, an MJCF body with joints) is
one of its bodies and every matched body frame stays within TOLERANCE of the
truth's every 0.1 s.

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


def truth_urdf(path):
    import numpy as np
    import pinocchio as pin

    model = pin.buildModelFromUrdf(path)
    model.gravity.linear = np.array(GRAVITY)
    data = model.createData()
    q = pin.neutral(model)
    v = np.zeros(model.nv)
    frames = [f for f in model.frames if f.type == pin.FrameType.BODY]
    # the links at the moving joints (a link on a fixed joint may be fused by a converter)
    moving = sorted(
        {
            prim_name(f.name)
            for f in frames
            if f.parentJoint > 0 and model.frames[f.parentFrame].type == pin.FrameType.JOINT
        }
    )
    samples = []
    steps = round(DURATION / DT)
    for k in range(steps + 1):
        if k % EVERY == 0:
            pin.framesForwardKinematics(model, data, q)
            samples.append(
                {prim_name(f.name): data.oMf[i].translation.tolist() for i, f in enumerate(model.frames) if f.type == pin.FrameType.BODY}
            )
        if k == steps:
            break
        a = pin.aba(model, data, q, v, np.zeros(model.nv))
        v = v + DT * a
        q = pin.integrate(model, q, v * DT)
    return {"nv": int(model.nv), "moving": moving, "samples": samples}


def truth_mjcf(path):
    import mujoco

    m = mujoco.MjModel.from_xml_path(path)
    m.opt.integrator = mujoco.mjtIntegrator.mjINT_EULER
    m.opt.timestep = DT
    m.opt.gravity[:] = GRAVITY
    m.opt.disableflags |= mujoco.mjtDisableBit.mjDSBL_ACTUATION
    m.dof_damping[:] = 0
    m.jnt_stiffness[:] = 0
    m.dof_frictionloss[:] = 0
    m.opt.disableflags |= (
        mujoco.mjtDisableBit.mjDSBL_CONTACT | mujoco.mjtDisableBit.mjDSBL_LIMIT | mujoco.mjtDisableBit.mjDSBL_EQUALITY
    )
    d = mujoco.MjData(m)
    mujoco.mj_forward(m, d)
    names = [prim_name(m.body(i).name or f"body_{i}") for i in range(1, m.nbody)]
    moving = sorted(names[i - 1] for i in range(1, m.nbody) if m.body_jntnum[i] > 0)
    samples = []
    steps = round(DURATION / DT)
    for k in range(steps + 1):
        if k % EVERY == 0:
            mujoco.mj_kinematics(m, d)
            samples.append({names[i - 1]: d.xpos[i].tolist() for i in range(1, m.nbody)})
        if k < steps:
            mujoco.mj_step(m, d)
    return {"nv": int(m.nv), "moving": moving, "samples": samples}


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
    names = []
    for label in builder.body_label:
        prim = stage.GetPrimAtPath(label)
        name = label.rsplit("/", 1)[-1]
        if prim and prim.IsValid():
            attribute = prim.GetAttribute("mbconv:name")
            if attribute and attribute.HasAuthoredValue():
                name = prim_name(str(attribute.Get()))
        names.append(name)
    solver = newton.solvers.SolverFeatherstone(model)
    state, next_state, control = model.state(), model.state(), model.control()
    newton.eval_fk(model, model.joint_q, model.joint_qd, state)
    samples = []
    steps = round(DURATION / DT)
    for k in range(steps + 1):
        if k % EVERY == 0:
            q = state.body_q.numpy().astype(np.float64)
            samples.append({n: q[b, :3].tolist() for b, n in enumerate(names)})
        if k < steps:
            solver.step(state, next_state, control, None, DT)
            state, next_state = next_state, state
    return {"articulation_root_added": added, "nv": int(builder.joint_dof_count), "samples": samples}


def compare(truth, run):
    missing = [n for n in truth["moving"] if n not in run["samples"][0]]
    error, where = 0.0, None
    for t, (a, b) in enumerate(zip(truth["samples"], run["samples"])):
        for name, p in a.items():
            if name not in b:
                continue
            d = math.dist(p, b[name]) if all(map(math.isfinite, b[name])) else math.inf
            if d > error or (math.isnan(d) and where is None):
                error, where = d, f"{name} at t = {t * EVERY * DT:.1f} s"
    return {
        "loads": True,
        "error": error if math.isfinite(error) else None,
        "finite": math.isfinite(error),
        "where": where,
        "missing": missing,
        "keeps": math.isfinite(error) and error <= TOLERANCE and not missing,
        "articulation_root_added": run["articulation_root_added"],
    }


def one(entry):
    """Everything for one robot, in the child process."""
    out = {"name": entry["name"], "kind": entry["kind"]}
    started = time.time()
    try:
        truth = truth_urdf(entry["source"]) if entry["kind"] == "urdf" else truth_mjcf(entry["source"])
        out["truth"] = {"loads": True, "nv": truth["nv"], "moving": len(truth["moving"])}
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
            out[key] = compare(truth, newton_run(path, entry["kind"]))
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
            cells = " ".join(f"{p}={'keeps' if result.get(p, {}).get('keeps') else 'no'}" for p in ("mbconv", "peer"))
            print(f"{result['name']}: {cells}", file=sys.stderr)
    for result, entry in zip(results, manifest):
        for key in ("mbconv_seconds", "peer_seconds"):
            result[key] = entry.get(key)
    with open(args.out, "w") as f:
        json.dump({"tolerance": TOLERANCE, "dt": DT, "results": results}, f, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
