#!/usr/bin/env python3
"""Golden data for mbconv's URDF writer (`formats/mbconv-urdf/tests/golden/written`).

`cargo xtask golden urdf-written` converts every model of the other formats (fixtures and
corpus) to URDF with mbconv, writes the URDF files into a scratch directory and a manifest
(JSON: a list of {"name", "source", "urdf", "hash"}), and runs this script on it. For each
entry this script loads the written URDF file with three libraries, as each loads URDF by
default, and writes OUTDIR/<name>.json with the entry's source and hash (the hash of the URDF
text judged, so that a test sees when the writer has changed since) and, per library, whether
it loaded the file (else its error, the scratch directory's absolute path left out):

* MuJoCo 4.0 (`MjModel.from_xml_path`: the root link welded to the world unless a `floating`
  joint holds it, fixed links fused into their parent, `fusestatic`): the number of degrees of
  freedom and the bodies, and a 1 s trajectory with contact disabled (RK4, dt 1e-4, gravity as
  loaded): the world centre of mass of every body every 0.1 s. When the trajectory as loaded
  uses one of MuJoCo's soft constraints (a joint limit reached, joint friction loss, an
  equality), those constraints are switched off for the trajectory recorded (`disabled` names
  them): mbconv's solver has no soft constraints to compare them with.
* Pinocchio 4.1 (`buildModelFromUrdf`: the root welded): nq and nv.
* Drake 1.51.1 (`Parser(plant).AddModels` then `Finalize`: the root link floating unless the
  file welds it to `world`): nv.

Each library loads the files in a process of its own; a file that kills the process or
hangs it is recorded as an error and a new process goes on with the next file.

Usage:

    python urdf_written_golden.py --manifest MANIFEST.json --out OUTDIR

Output is deterministic: keys sorted, floats written by Python's shortest repr (round-trip
exact).
"""

import argparse
import concurrent.futures
import json
import os
import re
import subprocess
import sys
import tempfile

DURATION = 1.0
DT = 1e-4
EVERY = 1000
TIMEOUT = 300
LIBRARIES = ["mujoco", "pinocchio", "drake"]


def floats(v):
    return [float(x) for x in v]


def constraint_kind(t):
    """A constraint row's kind as MuJoCo names it, without `mjCNSTR_`, lower case
    (`limit_joint`, `equality`, `friction_dof`, ...)."""
    import mujoco

    return mujoco.mjtConstraint(int(t)).name.removeprefix("mjCNSTR_").lower()


def mujoco_run(m, disable, key=None):
    """MuJoCo's 1 s trajectory (contact and `disable` off, RK4, dt 1e-4) from qpos0, or from
    keyframe `key` when given: the world COM of every body every 0.1 s, and the kinds of the
    constraints that acted at any step (`constraint_kind`)."""
    import mujoco

    m.opt.timestep = DT
    m.opt.integrator = mujoco.mjtIntegrator.mjINT_RK4
    m.opt.disableflags |= mujoco.mjtDisableBit.mjDSBL_CONTACT
    for flag in disable:
        m.opt.disableflags |= int(getattr(mujoco.mjtDisableBit, f"mjDSBL_{flag.upper()}"))
    d = mujoco.MjData(m)
    if key is not None:
        mujoco.mj_resetDataKeyframe(m, d, key)
    mujoco.mj_forward(m, d)
    steps = int(round(DURATION / DT))
    samples = []
    active = set()
    for step in range(steps + 1):
        if step % EVERY == 0:
            samples.append(
                {"t": step * DT, "com": [floats(d.xipos[i]) for i in range(1, m.nbody)]}
            )
        if step == steps:
            break
        mujoco.mj_step(m, d)
        active.update(constraint_kind(t) for t in d.efc_type[: d.nefc])
    return samples, active


def load_mujoco(path):
    import mujoco

    m = mujoco.MjModel.from_xml_path(path)
    bodies = [m.body(i).name for i in range(1, m.nbody)]
    masses = [float(m.body_mass[i]) for i in range(1, m.nbody)]
    disable = []
    if any(float(x) != 0.0 for x in m.dof_frictionloss):
        disable.append("frictionloss")
    if m.neq:
        disable.append("equality")
    samples, active = mujoco_run(m, disable)
    if "limit_joint" in active:
        disable.append("limit")
        m = mujoco.MjModel.from_xml_path(path)
        samples, _ = mujoco_run(m, disable)
    return {
        "nv": int(m.nv),
        "bodies": bodies,
        "mass": masses,
        "trajectory": {
            "duration": DURATION,
            "dt": DT,
            "integrator": "rk4",
            "contact": False,
            "gravity": floats(m.opt.gravity),
            "disabled": sorted(disable),
            "samples": samples,
        },
    }


def load_pinocchio(path):
    import pinocchio as pin

    model = pin.buildModelFromUrdf(path)
    return {"nq": int(model.nq), "nv": int(model.nv)}


def load_drake(path):
    from pydrake.multibody.parsing import Parser
    from pydrake.multibody.plant import MultibodyPlant

    plant = MultibodyPlant(0.0)
    Parser(plant).AddModels(path)
    plant.Finalize()
    return {"nv": int(plant.num_velocities())}


LOADERS = {"mujoco": load_mujoco, "pinocchio": load_pinocchio, "drake": load_drake}

ANSI = re.compile(r"\x1b\[[0-9;]*m")


def clean(text, roots):
    """One line per line of `text`, without ANSI colours and the given absolute roots."""
    text = ANSI.sub("", text)
    for root in roots:
        text = text.replace(root + os.sep, "").replace(root, "<root>")
    return "\n".join(line.rstrip() for line in text.splitlines() if line.strip())


def worker(library, paths, out, loaders=None):
    """Child process: load each of `paths` with one library (`loaders[library]`, LOADERS by
    default), one JSON line per file into `out`."""
    loaders = loaders or LOADERS
    with open(out, "a") as f:
        for path in paths:
            try:
                result = {"loads": True, **loaders[library](path)}
            except Exception as e:  # the library's refusal
                result = {"loads": False, "error": f"{type(e).__name__}: {str(e).strip()}"}
            f.write(json.dumps(result) + "\n")
            f.flush()


def judge_all(library, paths, roots, script=__file__):
    """Every file of `paths` loaded by `library`, in one child process at a time (`script
    --one LIBRARY --result OUT LISTING`, this script by default): a file that kills the process
    (or hangs it) is recorded as such and the next process goes on after it."""
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        while len(results) < len(paths):
            out = os.path.join(tmp, f"results{len(results)}.jsonl")
            rest = paths[len(results):]
            listing = os.path.join(tmp, "paths.json")
            with open(listing, "w") as f:
                json.dump(rest, f)
            args = [sys.executable, os.path.abspath(script), "--one", library, "--result", out, listing]
            try:
                proc = subprocess.run(
                    args,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                    timeout=TIMEOUT * len(rest),
                    cwd=tmp,
                )
                code = proc.returncode
            except subprocess.TimeoutExpired:
                code = "timeout"
            done = []
            if os.path.exists(out):
                with open(out) as f:
                    done = [json.loads(line) for line in f if line.strip()]
            results.extend(done)
            if len(results) < len(paths):
                results.append({"loads": False, "error": f"the process died (exit status {code})"})
            print(f"{library}: {len(results)}/{len(paths)}", file=sys.stderr)
    for result in results:
        if "error" in result:
            result["error"] = clean(result["error"], roots)
    return results


def arguments(description, libraries, loaders):
    """The command line: `--manifest MANIFEST --out OUTDIR`; in a child process (`judge_all`)
    `--one LIBRARY --result OUT LISTING`, which this function runs (with `loaders`) and exits."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--manifest")
    parser.add_argument("--out")
    parser.add_argument("--one", choices=libraries, help=argparse.SUPPRESS)
    parser.add_argument("--result", help=argparse.SUPPRESS)
    parser.add_argument("file", nargs="?", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        with open(args.file) as f:
            worker(args.one, json.load(f), args.result, loaders)
        sys.exit(0)
    return args


def main():
    args = arguments(__doc__.splitlines()[0], LIBRARIES, LOADERS)
    with open(args.manifest) as f:
        manifest = json.load(f)
    scratch = os.path.dirname(os.path.abspath(args.manifest))
    roots = sorted({scratch, os.path.realpath(scratch)}, key=len, reverse=True)
    os.makedirs(args.out, exist_ok=True)
    paths = [item["urdf"] for item in manifest]
    with concurrent.futures.ThreadPoolExecutor(max_workers=len(LIBRARIES)) as pool:
        running = {lib: pool.submit(judge_all, lib, paths, roots) for lib in LIBRARIES}
        judged = {lib: future.result() for lib, future in running.items()}
    for k, item in enumerate(manifest):
        data = {"source": item["source"], "hash": item["hash"]}
        for library in LIBRARIES:
            data[library] = judged[library][k]
        with open(os.path.join(args.out, f"{item['name']}.json"), "w") as f:
            json.dump(data, f, sort_keys=True, indent=1)
            f.write("\n")
        outcome = ", ".join(f"{lib} {'ok' if data[lib]['loads'] else 'refused'}" for lib in LIBRARIES)
        print(f"{item['name']}: {outcome}", file=sys.stderr)

if __name__ == "__main__":
    main()
