#!/usr/bin/env python3
"""MuJoCo golden data for mbconv's MJCF reader (`formats/mbconv-mjcf/tests/golden`).

Loads MJCF files with MuJoCo's own compiler (`mujoco.MjModel.from_xml_path`) and writes one
JSON file per input with what MuJoCo built, at qpos0 (and at each keyframe named on the command
line): for every body but the world, its name, mass, world centre of mass (`xipos`), inertia
about the centre of mass in world axes (`ximat diag(body_inertia) ximat^T`, row-major) and the
world pose of the body frame (`xpos`, `xquat` as w, x, y, z). A file MuJoCo refuses gives
{"load_error": "<MuJoCo's message>"}.

With --trajectory, also a 1 s trajectory: contact disabled, RK4, dt 1e-4, from qpos0 (or the
keyframe), the world body-frame position and world centre of mass of every body every 0.1 s,
plus whether a joint limit constraint was active at any step and the number of equality
constraints that act (none when <flag> switches them off) (the tests leave out models whose trajectories depend on soft constraints).

Usage:

    python mujoco_golden.py --root ROOT --prefix PREFIX --out OUTDIR [--trajectory] [--hash]
                            [--keyframe FILE=KEY ...] FILE ...

--hash records each file's FNV-1a 64 hash (`written_fnv1a64`): the MJCF texts mbconv's writer
wrote, so that the tests see when the writer's output changed and the golden data is stale.

FILE is relative to ROOT; each output is OUTDIR/PREFIX__<FILE with '/' replaced by '__'>.json.
Needs mujoco 4.0 (pip install mujoco==4.0.0). Output is deterministic: keys sorted, floats
written by Python's shortest repr (round-trip exact).
"""

import argparse
import json
import os
import sys

import mujoco
import numpy as np

DURATION = 1.0
DT = 1e-4
EVERY = 1000


def body_names(m):
    return [mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_BODY, i) or f"body{i}" for i in range(m.nbody)]


def state(m, d):
    """Per-body mass, world COM, world inertia about the COM, world body-frame pose."""
    names = body_names(m)
    bodies = []
    for i in range(1, m.nbody):
        r = d.ximat[i].reshape(3, 3)
        inertia = r @ np.diag(m.body_inertia[i]) @ r.T
        bodies.append(
            {
                "name": names[i],
                "mass": float(m.body_mass[i]),
                "com": [float(x) for x in d.xipos[i]],
                "inertia": [float(x) for x in inertia.flatten()],
                "pos": [float(x) for x in d.xpos[i]],
                "quat": [float(x) for x in d.xquat[i]],
            }
        )
    return bodies


def equality_constraints(m):
    """Equality constraints that act: none when <flag equality|constraint="disable"/>."""
    off = mujoco.mjtDisableBit.mjDSBL_EQUALITY | mujoco.mjtDisableBit.mjDSBL_CONSTRAINT
    return 0 if m.opt.disableflags & off else int(m.neq)


def trajectory(m, key):
    m.opt.timestep = DT
    m.opt.integrator = mujoco.mjtIntegrator.mjINT_RK4
    m.opt.disableflags |= mujoco.mjtDisableBit.mjDSBL_CONTACT
    d = mujoco.MjData(m)
    if key is not None:
        mujoco.mj_resetDataKeyframe(m, d, key)
    mujoco.mj_forward(m, d)
    steps = int(round(DURATION / DT))
    samples = []
    limit_reached = False
    limit = int(mujoco.mjtConstraint.mjCNSTR_LIMIT_JOINT)
    for step in range(steps + 1):
        if step % EVERY == 0:
            samples.append(
                {
                    "t": step * DT,
                    "pos": [[float(x) for x in d.xpos[i]] for i in range(1, m.nbody)],
                    "com": [[float(x) for x in d.xipos[i]] for i in range(1, m.nbody)],
                }
            )
        if step == steps:
            break
        mujoco.mj_step(m, d)
        if d.nefc and any(int(t) == limit for t in d.efc_type[: d.nefc]):
            limit_reached = True
    return {
        "duration": DURATION,
        "dt": DT,
        "integrator": "rk4",
        "contact": False,
        "bodies": body_names(m)[1:],
        "samples": samples,
        "limit_reached": limit_reached,
        "equality_constraints": equality_constraints(m),
    }


def golden(root, path, keyframe, with_trajectory):
    try:
        m = mujoco.MjModel.from_xml_path(path)
    except Exception as e:  # MuJoCo's compiler error, with ROOT's absolute path left out
        text = str(e).strip().replace(os.path.abspath(root) + os.sep, "")
        return {"load_error": text}
    d = mujoco.MjData(m)
    mujoco.mj_forward(m, d)
    out = {"nbody": int(m.nbody - 1), "nv": int(m.nv), "qpos0": state(m, d)}
    key = None
    if keyframe is not None:
        key = m.key(keyframe).id
        mujoco.mj_resetDataKeyframe(m, d, key)
        mujoco.mj_forward(m, d)
        out["keyframe"] = {"name": keyframe, "bodies": state(m, d)}
    if with_trajectory:
        out["trajectory"] = trajectory(m, key)
    return out


def fnv1a64(data):
    """FNV-1a, 64 bits, as 16 hex digits (mbconv_test_support::text_hash, which tests/golden.rs
    checks written texts by)."""
    h = 0xCBF29CE484222325
    for b in data:
        h = ((h ^ b) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return f"{h:016x}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", required=True)
    parser.add_argument("--prefix", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--trajectory", action="store_true")
    parser.add_argument("--keyframe", action="append", default=[], metavar="FILE=KEY")
    parser.add_argument("--hash", action="store_true", help="record each file's FNV-1a 64 hash")
    parser.add_argument("files", nargs="+")
    args = parser.parse_args()
    keyframes = dict(k.split("=", 1) for k in args.keyframe)
    os.makedirs(args.out, exist_ok=True)
    for rel in args.files:
        data = golden(args.root, os.path.join(args.root, rel), keyframes.get(rel), args.trajectory)
        data["file"] = rel
        if args.hash:
            with open(os.path.join(args.root, rel), "rb") as f:
                data["written_fnv1a64"] = fnv1a64(f.read())
        name = f"{args.prefix}__{rel.replace('/', '__')}.json"
        with open(os.path.join(args.out, name), "w") as f:
            json.dump(data, f, sort_keys=True, indent=1)
            f.write("\n")
        print(f"{name}: {data.get('load_error', 'ok')}", file=sys.stderr)


if __name__ == "__main__":
    main()
