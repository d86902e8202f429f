#!/usr/bin/env python3
"""Golden data for mbconv's MJCF writer (`formats/mbconv-mjcf/tests/golden/written_all`).

`cargo xtask golden mjcf-written` converts every model of the other formats (fixtures and
corpus) to MJCF with mbconv, writes the MJCF files into a scratch directory and a manifest
(JSON: a list of {"name", "source", "mjcf", "hash"}), and runs this script on it. For each
entry this script loads the written file with MuJoCo 4.0 (`MjModel.from_xml_path`) and writes
OUTDIR/<name>.json with the entry's source and hash (the hash of the MJCF text judged, so that
a test sees when the writer has changed since) and whether MuJoCo loaded it (else its error,
the scratch directory's absolute path left out); when it loads: the number of degrees of
freedom, the bodies, the keyframe the trajectory starts from (`initial`, where mbconv's writer
puts the initial velocities, when the file has it; else qpos0) and a 1 s trajectory with
contact disabled (RK4, dt 1e-4, gravity as written): the world centre of mass of every body
every 0.1 s, and `active`: the kinds of MuJoCo's constraints that acted at any step
(`limit_joint`, `equality`, `friction_dof`, ...). Those are soft in MuJoCo and exact (or
absent) in mbconv's solver: the tests compare only trajectories where none acted.

Each file is loaded in a child process (shared with `oracles/urdf/urdf_written_golden.py`): a
file that kills the process or hangs it is recorded as an error and a new process goes on.

Usage:

    python mjcf_written_golden.py --manifest MANIFEST.json --out OUTDIR

Output is deterministic: keys sorted, floats written by Python's shortest repr (round-trip
exact).
"""

import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "urdf"))

from urdf_written_golden import DT, DURATION, arguments, floats, judge_all, mujoco_run  # noqa: E402

KEY = "initial"


def load_mujoco(path):
    import mujoco

    m = mujoco.MjModel.from_xml_path(path)
    key = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_KEY, KEY)
    samples, active = mujoco_run(m, [], key if key >= 0 else None)
    return {
        "nv": int(m.nv),
        "bodies": [m.body(i).name for i in range(1, m.nbody)],
        "mass": [float(m.body_mass[i]) for i in range(1, m.nbody)],
        "trajectory": {
            "duration": DURATION,
            "dt": DT,
            "integrator": "rk4",
            "contact": False,
            "gravity": floats(m.opt.gravity),
            "keyframe": KEY if key >= 0 else None,
            "active": sorted(active),
            "samples": samples,
        },
    }


LOADERS = {"mujoco": load_mujoco}


def main():
    args = arguments(__doc__.splitlines()[0], list(LOADERS), LOADERS)
    with open(args.manifest) as f:
        manifest = json.load(f)
    scratch = os.path.dirname(os.path.abspath(args.manifest))
    roots = sorted({scratch, os.path.realpath(scratch)}, key=len, reverse=True)
    os.makedirs(args.out, exist_ok=True)
    judged = judge_all("mujoco", [item["mjcf"] for item in manifest], roots, __file__)
    for item, result in zip(manifest, judged):
        data = {"source": item["source"], "hash": item["hash"], "mujoco": result}
        with open(os.path.join(args.out, f"{item['name']}.json"), "w") as f:
            json.dump(data, f, sort_keys=True, indent=1)
            f.write("\n")
        outcome = "ok" if result["loads"] else "refused"
        print(f"{item['name']}: mujoco {outcome}", file=sys.stderr)


if __name__ == "__main__":
    main()
