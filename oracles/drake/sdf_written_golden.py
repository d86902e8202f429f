#!/usr/bin/env python3
"""Golden data for mbconv's SDFormat writer (`formats/mbconv-sdf/tests/golden/written_all`).

`cargo xtask golden sdf-written` converts every model of the other formats (fixtures and
corpus) to SDFormat with mbconv, writes the SDFormat files into a scratch directory and a
manifest (JSON: a list of {"name", "source", "sdf", "hash"}), and runs this script on it. For
each entry this script loads the written file with Drake 1.51.1 as the reader's golden data
does (`oracles/drake/sdf_golden.py`, whose functions it uses: `Parser(plant).AddModels` on a
continuous `MultibodyPlant` without a SceneGraph, then `Finalize`) and writes
OUTDIR/<name>.json with the entry's source and hash (the hash of the SDFormat text judged, so
that a test sees when the writer has changed since) and whether Drake loaded it (else Drake's
error, the scratch directory's absolute path left out: Drake refuses loops in SDFormat). For a
loaded file: what Drake built (`nbody`, `nv`, the plant's gravity, the model instances, every
body's mass, world centre of mass, inertia and pose at the default configuration) and the 1 s
contact-free trajectory of `sdf_golden.py` (every revolute, prismatic, screw and universal
joint started at 0.3 and 0.5 per second; error-controlled RK3 at accuracy 1e-12, steps of at
most 1e-3 s; the world centre of mass of every body every 0.1 s; `convergence`: the largest
difference from the same run at accuracy 1e-9 and steps of at most 1e-2 s).

Drake's warnings while loading are kept as `log` (at most 20 lines, absolute roots left out:
e.g. "Ignoring unsupported SDFormat element in world: gravity"). A trajectory Drake cannot run
(a ball joint's RPY singularity, or more than 90 s of wall time: `trajectory_error`) leaves
the rest of the entry.

Files are loaded in a child process (`judge_all` of `oracles/urdf/urdf_written_golden.py`): a
file that kills the process (or runs more than 240 s of processor time) is recorded as an error
and a new process goes on.

Usage:

    python sdf_written_golden.py --manifest MANIFEST.json --out OUTDIR

Output is deterministic: keys sorted, floats written by Python's shortest repr (round-trip
exact).
"""

import json
import logging
import os
import signal
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "urdf"))
sys.path.insert(0, HERE)

import sdf_golden  # noqa: E402
from urdf_written_golden import arguments, clean, judge_all  # noqa: E402

LOG_LINES = 20
TRAJECTORY_SECONDS = 90
PROCESSOR_SECONDS = 240


class Collect(logging.Handler):
    """Keeps the messages of Drake's log (pydrake's `drake` logger)."""

    def __init__(self):
        super().__init__()
        self.lines = []

    def emit(self, record):
        self.lines.append(record.getMessage())


def out_of_time(signum, frame):
    raise TimeoutError(f"the trajectory took more than {TRAJECTORY_SECONDS} s")


def load_drake(path):
    collect = Collect()
    logger = logging.getLogger("drake")
    logger.addHandler(collect)
    # The process dies past PROCESSOR_SECONDS (judge_all records it and goes on); a trajectory
    # past TRAJECTORY_SECONDS stops at its next sample.
    signal.setitimer(signal.ITIMER_PROF, PROCESSOR_SECONDS)
    try:
        try:
            plant = sdf_golden.load(path, [])
        except Exception as e:  # Drake's refusal
            error = f"{type(e).__name__}: {str(e).strip()}"
            return {"loads": False, "error": error, "log": collect.lines[:LOG_LINES]}
        out = sdf_golden.describe(plant, with_trajectory=False)
        signal.signal(signal.SIGALRM, out_of_time)
        signal.setitimer(signal.ITIMER_REAL, TRAJECTORY_SECONDS)
        try:
            out["trajectory"] = sdf_golden.trajectory(plant)
        except Exception as e:
            out["trajectory_error"] = f"{type(e).__name__}: {str(e).strip()}"
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
        out["log"] = collect.lines[:LOG_LINES]
        return out
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        logger.removeHandler(collect)


LOADERS = {"drake": load_drake}


def main():
    args = arguments(__doc__.splitlines()[0], list(LOADERS), LOADERS)
    with open(args.manifest) as f:
        manifest = json.load(f)
    scratch = os.path.dirname(os.path.abspath(args.manifest))
    roots = sorted({scratch, os.path.realpath(scratch)}, key=len, reverse=True)
    os.makedirs(args.out, exist_ok=True)
    judged = judge_all("drake", [item["sdf"] for item in manifest], roots, __file__)
    for item, result in zip(manifest, judged):
        for key in ("log",):
            if key in result:
                result[key] = clean("\n".join(result[key]), roots).splitlines()
        if "trajectory_error" in result:
            result["trajectory_error"] = clean(result["trajectory_error"], roots)
        data = {"source": item["source"], "hash": item["hash"], "drake": result}
        with open(os.path.join(args.out, f"{item['name']}.json"), "w") as f:
            json.dump(data, f, sort_keys=True, indent=1)
            f.write("\n")
        outcome = "ok" if result["loads"] else f"refused: {result['error'].splitlines()[0]}"
        print(f"{item['name']}: drake {outcome}", file=sys.stderr)


if __name__ == "__main__":
    main()
