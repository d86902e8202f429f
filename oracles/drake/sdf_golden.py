#!/usr/bin/env python3
"""Drake golden data for mbconv's SDFormat reader (`formats/mbconv-sdf/tests/golden`).

Loads SDFormat files with Drake 1.51.1 as Drake loads them (`Parser(plant).AddModels` on a
continuous `MultibodyPlant(time_step=0)` with no SceneGraph, so no geometry is registered and
nothing touches; then `Finalize`) and writes one JSON file per input with what Drake built at
the default configuration (`CreateDefaultContext`: joints at their default positions, floating
bodies at the pose the file gives them): for every body but the world, its model instance, its
name, its scoped name (`<model instance>::<body>`; Drake names a nested model's instance
`outer::inner`), its mass, its world centre of mass (`com`), its inertia about the centre of
mass in world axes (`inertia`, row-major), the world pose of its frame (`pos`, `quat` as w, x,
y, z) and whether Drake made it a floating base. Also `nv`, the plant's gravity
and the model instances. A file Drake refuses gives {"load_error": "<Drake's message>"}.

With --trajectory, also a 1 s trajectory from the default configuration with every revolute,
prismatic, screw and universal joint moved to 0.3 and started at 0.5 per second (a universal
joint's second coordinate at -0.3 and -0.5; `trajectory.start`: `q` and `v` by
`<instance>::<joint>`), so that pendulums hanging at rest swing and bodies on a vertical axis,
which gravity does not turn, turn all the same: the world centre of mass of every body every
0.1 s, integrated by Drake's error-controlled RK3 (`RungeKutta3Integrator`) at target accuracy
1e-12 and steps of at most 1e-3 s (`trajectory.samples`). The same run at accuracy 1e-9 and
steps of at most 1e-2 s is compared with it, and the largest difference of any COM coordinate
at any sample is kept as `trajectory.convergence` (the two settings the issue asks for).

Each file is loaded in its own process (a crash or a hang is recorded as an error, the other
files go on) and Drake's warnings are kept as `log` (absolute roots left out).

Usage:

    python sdf_golden.py --root ROOT --prefix PREFIX --out OUTDIR [--trajectory]
                         [--package NAME=DIR ...] FILE ...

FILE is relative to ROOT; each output is OUTDIR/PREFIX__<FILE with '/' replaced by '__'>.json.
`--package NAME=DIR` (DIR relative to ROOT) lets Drake resolve `model://NAME` and
`package://NAME` URIs. Output is deterministic: keys sorted, floats written by Python's
shortest repr (round-trip exact).
"""

import argparse
import json
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ beside the shared module
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import isolated  # noqa: E402  (oracles/isolated.py: one load per child process)

DURATION = 1.0
EVERY = 0.1
ACCURACY = 1e-12
COARSE_ACCURACY = 1e-9
TIMEOUT = 300
MAX_STEP = 1e-3
COARSE_MAX_STEP = 1e-2
START = 0.3
START_VELOCITY = 0.5
MOVED_JOINTS = ("revolute", "prismatic", "screw", "universal")


def floats(v):
    return [float(x) for x in v]


def load(path, packages):
    from pydrake.multibody.parsing import Parser
    from pydrake.multibody.plant import MultibodyPlant

    plant = MultibodyPlant(0.0)
    parser = Parser(plant)
    for name, directory in packages:
        if parser.package_map().Contains(name):
            parser.package_map().Remove(name)
        parser.package_map().Add(name, directory)
    parser.AddModels(path)
    plant.Finalize()
    return plant


def coms(plant, context):
    from pydrake.multibody.tree import BodyIndex

    out = []
    for i in range(1, plant.num_bodies()):
        body = plant.get_body(BodyIndex(i))
        pose = plant.EvalBodyPoseInWorld(context, body)
        out.append(floats(pose.multiply(body.CalcCenterOfMassInBodyFrame(context))))
    return out


def scoped_names(plant):
    from pydrake.multibody.tree import BodyIndex

    names = []
    for i in range(1, plant.num_bodies()):
        body = plant.get_body(BodyIndex(i))
        names.append(f"{plant.GetModelInstanceName(body.model_instance())}::{body.name()}")
    return names


def state(plant):
    from pydrake.multibody.tree import BodyIndex

    context = plant.CreateDefaultContext()
    bodies = []
    for i in range(1, plant.num_bodies()):
        body = plant.get_body(BodyIndex(i))
        pose = plant.EvalBodyPoseInWorld(context, body)
        com = pose.multiply(body.CalcCenterOfMassInBodyFrame(context))
        # Unit inertia times mass, about the COM, re-expressed in world axes.
        spatial = body.CalcSpatialInertiaInBodyFrame(context)
        about_com = spatial.Shift(spatial.get_com())
        inertia = about_com.CalcRotationalInertia().ReExpress(pose.rotation())
        instance = plant.GetModelInstanceName(body.model_instance())
        bodies.append(
            {
                "instance": instance,
                "body": body.name(),
                "name": f"{instance}::{body.name()}",
                "mass": float(body.default_mass()),
                "com": floats(com),
                "inertia": floats(inertia.CopyToFullMatrix3().flatten()),
                "pos": floats(pose.translation()),
                "quat": floats(pose.rotation().ToQuaternion().wxyz()),
                "floating": bool(body.is_floating_base_body()),
            }
        )
    return bodies


def run_trajectory(plant, start, accuracy, max_step):
    from pydrake.systems.analysis import ResetIntegratorFromFlags, Simulator

    simulator = Simulator(plant)
    context = simulator.get_mutable_context()
    integrator = ResetIntegratorFromFlags(simulator, "runge_kutta3", max_step)
    integrator.set_target_accuracy(accuracy)
    velocities = plant.GetVelocities(context)
    for joint in start.values():
        for k, v in enumerate(joint["v"]):
            velocities[joint["velocity_start"] + k] = v
    plant.SetVelocities(context, velocities)
    simulator.Initialize()
    samples = [{"t": 0.0, "com": coms(plant, context)}]
    steps = int(round(DURATION / EVERY))
    for k in range(1, steps + 1):
        t = k * EVERY
        simulator.AdvanceTo(t)
        samples.append({"t": t, "com": coms(plant, context)})
    return samples


def set_start(plant):
    """Moves every revolute, prismatic, screw and universal joint off zero (`START` per
    coordinate, alternating in sign) and gives it `START_VELOCITY` (likewise), so that models
    hanging at rest swing; returns the positions and velocities, by `<instance>::<joint>`."""
    from pydrake.multibody.tree import JointIndex

    start = {}
    for i in range(plant.num_joints()):
        joint = plant.get_joint(JointIndex(i))
        if joint.type_name() not in MOVED_JOINTS:
            continue
        q = [START * (-1) ** k for k in range(joint.num_positions())]
        v = [START_VELOCITY * (-1) ** k for k in range(joint.num_velocities())]
        joint.set_default_positions(q)
        name = f"{plant.GetModelInstanceName(joint.model_instance())}::{joint.name()}"
        start[name] = {"q": q, "v": v, "velocity_start": int(joint.velocity_start())}
    return start


def trajectory(plant):
    start = set_start(plant)
    samples = run_trajectory(plant, start, ACCURACY, MAX_STEP)
    coarse = run_trajectory(plant, start, COARSE_ACCURACY, COARSE_MAX_STEP)
    for joint in start.values():
        del joint["velocity_start"]
    convergence = 0.0
    for fine, rough in zip(samples, coarse):
        for a, b in zip(fine["com"], rough["com"]):
            convergence = max(convergence, max(abs(x - y) for x, y in zip(a, b)))
    return {
        "duration": DURATION,
        "every": EVERY,
        "integrator": "drake RungeKutta3Integrator, error-controlled",
        "accuracy": ACCURACY,
        "max_step": MAX_STEP,
        "coarse_accuracy": COARSE_ACCURACY,
        "coarse_max_step": COARSE_MAX_STEP,
        "convergence": convergence,
        "contact": False,
        "start": start,
        "bodies": scoped_names(plant),
        "samples": samples,
    }


def golden(path, packages, with_trajectory):
    try:
        plant = load(path, packages)
    except Exception as e:  # Drake's refusal
        return {"load_error": f"{type(e).__name__}: {str(e).strip()}"}
    return describe(plant, with_trajectory)


def describe(plant, with_trajectory):
    """What Drake built (`nbody`, `nv`, `gravity`, `instances`, `bodies`) and, when asked, its
    trajectory (`trajectory`)."""
    from pydrake.multibody.tree import ModelInstanceIndex

    out = {
        "nbody": int(plant.num_bodies() - 1),
        "nv": int(plant.num_velocities()),
        "gravity": floats(plant.gravity_field().gravity_vector()),
        "instances": [
            plant.GetModelInstanceName(ModelInstanceIndex(i))
            for i in range(plant.num_model_instances())
        ],
        "bodies": state(plant),
    }
    if with_trajectory:
        out["trajectory"] = trajectory(plant)
    return out


def judge(path, packages, with_trajectory, roots):
    """Runs one file in a child process (`oracles/isolated.py`); returns its result with
    Drake's log."""
    args = ["--trajectory"] if with_trajectory else []
    for name, directory in packages:
        args += ["--package", f"{name}={directory}"]
    args.append(path)
    return isolated.run_one(os.path.abspath(__file__), args, roots, TIMEOUT)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root")
    parser.add_argument("--prefix")
    parser.add_argument("--out")
    parser.add_argument("--trajectory", action="store_true")
    parser.add_argument("--package", action="append", default=[], metavar="NAME=DIR")
    parser.add_argument("--one", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--result", help=argparse.SUPPRESS)
    parser.add_argument("files", nargs="+")
    args = parser.parse_args()
    if args.one:
        packages = [tuple(p.split("=", 1)) for p in args.package]
        result = golden(args.files[0], packages, args.trajectory)
        with open(args.result, "w") as f:
            json.dump(result, f)
        return
    root = os.path.abspath(args.root)
    relative = [p.split("=", 1) for p in args.package]
    packages = [(name, os.path.join(root, directory)) for name, directory in relative]
    roots = isolated.roots_of(root)
    os.makedirs(args.out, exist_ok=True)
    for rel in args.files:
        data = judge(os.path.join(root, rel), packages, args.trajectory, roots)
        data["file"] = rel
        data["packages"] = sorted(f"{name}={directory}" for name, directory in relative)
        name = f"{args.prefix}__{rel.replace('/', '__')}.json"
        with open(os.path.join(args.out, name), "w") as f:
            json.dump(data, f, sort_keys=True, indent=1)
            f.write("\n")
        print(f"{name}: {data.get('load_error', 'ok')}", file=sys.stderr)


if __name__ == "__main__":
    main()
