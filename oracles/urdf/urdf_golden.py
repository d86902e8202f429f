#!/usr/bin/env python3
"""Golden data for mbconv's URDF reader (`formats/mbconv-urdf/tests/golden/read`).

Loads every URDF file named on the command line with each of four libraries, as each loads
URDF by default, and writes one JSON file per input with, per library, whether it loaded the
file (else its error, with the roots' absolute paths left out) and the state it built at the
zero configuration:

* MuJoCo 4.0 (`MjModel.from_xml_path`: the root link welded and fused into the world, fixed
  links fused into their parent, `fusestatic`), at qpos0; with --trajectory also a 1 s
  trajectory with contact disabled (RK4, dt 1e-4, gravity as loaded): the world centre of
  mass and body-frame position of every body every 0.1 s, whether a joint limit constraint
  was active at any step and the number of equality constraints (mimic joints become joint
  equalities, which are soft).
* Pinocchio 4.1 (`buildModelFromUrdf(path, mimic=True)`: no free-flyer, so the root is
  welded; fixed links are frames of the body of their moving joint), at `neutral`. Where
  `mimic=True` refuses the file, its error is kept as `mimic_error` and the file is read
  without it.
* Drake 1.51.1 (`Parser(plant).AddModels` + `Finalize`: the root link floating, at the
  identity), at the default context.
* DART 6.20 (`DartLoader().parseSkeleton`: the root on a FreeJoint at the identity), at zero
  positions; the positions DartLoader starts with where they are not zero are kept as
  `initial` (it starts a joint whose limits exclude 0 at the middle of its limits).

Per body (the world left out): its name, the URDF links it holds (`links`: one link, or the
links a library fused into it), its mass, its world centre of mass (`com`) and the world pose
of its frame (`pos`, `quat` as w, x, y, z); the frame is the link frame of the body's first
link. Pinocchio also gives `frames`: the world pose of every link frame (`oMf`). Each load
runs in its own process (a crash or a hang is recorded as an error) and what the library
printed is kept as `log` (timestamps and absolute paths left out).

Usage:

    python urdf_golden.py --root ROOT --prefix PREFIX --out OUTDIR [--trajectory]
                          [--package NAME=DIR ...] FILE ...

FILE is relative to ROOT; each output is OUTDIR/PREFIX__<FILE with '/' replaced by '__'>.json.
`--package` gives Drake and DART a `package://NAME` root (DIR relative to ROOT); MuJoCo has no
package map and Pinocchio's model does not load meshes. Output is deterministic: keys sorted,
floats written by Python's shortest repr (round-trip exact, 17 significant digits at most).
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

DURATION = 1.0
DT = 1e-4
EVERY = 1000
TIMEOUT = 120
LIBRARIES = ["mujoco", "pinocchio", "drake", "dart"]


def floats(v):
    return [float(x) for x in v]


def urdf_tree(path):
    """(links in document order, parent link of each link) from the URDF text."""
    robot = ET.parse(path).getroot()
    links = [link.get("name") for link in robot.findall("link")]
    parent = {}
    for joint in robot.findall("joint"):
        p, c = joint.find("parent"), joint.find("child")
        if p is not None and c is not None:
            parent[c.get("link")] = p.get("link")
    return links, parent


def mujoco_state(path):
    import mujoco

    m = mujoco.MjModel.from_xml_path(path)
    d = mujoco.MjData(m)
    mujoco.mj_forward(m, d)
    names = [m.body(i).name for i in range(m.nbody)]
    # A link that is no MuJoCo body was fused into its nearest ancestor that is one.
    links, parent = urdf_tree(path)
    held = {n: [] for n in names[1:]}
    for link in links:
        owner = link
        while owner is not None and owner not in held:
            owner = parent.get(owner)
        if owner is not None:
            held[owner].append(link)
    bodies = []
    for i in range(1, m.nbody):
        bodies.append(
            {
                "name": names[i],
                "links": sorted(held[names[i]]),
                "mass": float(m.body_mass[i]),
                "com": floats(d.xipos[i]),
                "pos": floats(d.xpos[i]),
                "quat": floats(d.xquat[i]),
            }
        )
    fused_into_world = sorted(l for l in links if l not in {x for b in held.values() for x in b})
    out = {
        "bodies": bodies,
        "fused_into_world": fused_into_world,
        "nv": int(m.nv),
        "gravity": floats(m.opt.gravity),
    }
    return m, out


def mujoco_trajectory(m):
    import mujoco

    m.opt.timestep = DT
    m.opt.integrator = mujoco.mjtIntegrator.mjINT_RK4
    m.opt.disableflags |= mujoco.mjtDisableBit.mjDSBL_CONTACT
    d = mujoco.MjData(m)
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
                    "pos": [floats(d.xpos[i]) for i in range(1, m.nbody)],
                    "com": [floats(d.xipos[i]) for i in range(1, m.nbody)],
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
        "bodies": [m.body(i).name for i in range(1, m.nbody)],
        "samples": samples,
        "limit_reached": limit_reached,
        "equality_constraints": int(m.neq),
        "damping": any(float(x) != 0.0 for x in m.dof_damping),
        "frictionloss": any(float(x) != 0.0 for x in m.dof_frictionloss),
    }


def load_mujoco(path, packages, with_trajectory):
    m, out = mujoco_state(path)
    if with_trajectory:
        out["trajectory"] = mujoco_trajectory(m)
    return out


def load_pinocchio(path, packages, with_trajectory):
    import numpy as np
    import pinocchio as pin

    mimic_error = None
    try:
        model = pin.buildModelFromUrdf(path, mimic=True)
    except Exception as e:  # mimic=True refuses some mimic joints the plain reading takes
        mimic_error = f"{type(e).__name__}: {str(e).strip()}"
        model = pin.buildModelFromUrdf(path)
    data = model.createData()
    q = pin.neutral(model)
    pin.forwardKinematics(model, data, q)
    pin.updateFramePlacements(model, data)
    body_frames = [f for f in model.frames if f.type == pin.FrameType.BODY]
    bodies = []
    for j in range(model.njoints):
        held = sorted(f.name for f in body_frames if f.parentJoint == j)
        inertia = model.inertias[j]
        placement = data.oMi[j]
        com = placement.act(np.array(inertia.lever))
        quat = pin.Quaternion(placement.rotation)
        bodies.append(
            {
                "name": model.names[j],
                "links": held,
                "mass": float(inertia.mass),
                "com": floats(com),
                "pos": floats(placement.translation),
                "quat": [float(quat.w), float(quat.x), float(quat.y), float(quat.z)],
            }
        )
    frames = []
    for i, f in enumerate(model.frames):
        if f.type != pin.FrameType.BODY:
            continue
        placement = data.oMf[i]
        quat = pin.Quaternion(placement.rotation)
        frames.append(
            {
                "name": f.name,
                "pos": floats(placement.translation),
                "quat": [float(quat.w), float(quat.x), float(quat.y), float(quat.z)],
            }
        )
    frames.sort(key=lambda f: f["name"])
    out = {"bodies": bodies, "frames": frames, "nv": int(model.nv), "nq": int(model.nq)}
    if mimic_error is not None:
        out["mimic_error"] = mimic_error
    return out


def load_drake(path, packages, with_trajectory):
    from pydrake.multibody.parsing import Parser
    from pydrake.multibody.plant import MultibodyPlant
    from pydrake.multibody.tree import BodyIndex

    plant = MultibodyPlant(0.0)
    parser = Parser(plant)
    for name, directory in packages:
        # Drake's own `drake` package points at its install: the corpus copy stands for it.
        if parser.package_map().Contains(name):
            parser.package_map().Remove(name)
        parser.package_map().Add(name, directory)
    parser.AddModels(path)
    plant.Finalize()
    context = plant.CreateDefaultContext()
    bodies = []
    for i in range(1, plant.num_bodies()):
        body = plant.get_body(BodyIndex(i))
        pose = plant.EvalBodyPoseInWorld(context, body)
        com = pose.multiply(body.CalcCenterOfMassInBodyFrame(context))
        bodies.append(
            {
                "name": body.name(),
                "links": [body.name()],
                "mass": float(body.default_mass()),
                "com": floats(com),
                "pos": floats(pose.translation()),
                "quat": floats(pose.rotation().ToQuaternion().wxyz()),
                "floating": bool(body.is_floating_base_body()),
            }
        )
    return {"bodies": bodies, "nv": int(plant.num_velocities())}


def load_dart(path, packages, with_trajectory):
    import dartpy as dart
    import numpy as np

    loader = dart.utils.DartLoader()
    for name, directory in packages:
        loader.addPackageDirectory(name, directory)
    skeleton = loader.parseSkeleton(path)
    if skeleton is None:
        raise RuntimeError("DartLoader.parseSkeleton returned None")
    # DartLoader starts a joint whose limits exclude 0 at the middle of its limits: kept as
    # `initial`, then every position is set to 0 (the zero configuration judged here).
    initial = {}
    for j in range(skeleton.getNumJoints()):
        joint = skeleton.getJoint(j)
        for k in range(joint.getNumDofs()):
            if float(joint.getPosition(k)) != 0.0:
                initial[f"{joint.getName()}[{k}]"] = float(joint.getPosition(k))
    skeleton.setPositions(np.zeros(skeleton.getNumDofs()))
    bodies = []
    for node in skeleton.getBodyNodes():
        pose = node.getWorldTransform()
        q = pose.quaternion()
        bodies.append(
            {
                "name": node.getName(),
                "links": [node.getName()],
                "mass": float(node.getMass()),
                "com": floats(node.getCOM()),
                "pos": floats(pose.translation()),
                "quat": [float(q.w()), float(q.x()), float(q.y()), float(q.z())],
                "joint": node.getParentJoint().getType(),
            }
        )
    return {"bodies": bodies, "nv": int(skeleton.getNumDofs()), "initial": initial}


LOADERS = {
    "mujoco": load_mujoco,
    "pinocchio": load_pinocchio,
    "drake": load_drake,
    "dart": load_dart,
}

ANSI = re.compile(r"\x1b\[[0-9;]*m")
STAMP = re.compile(r"^\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+\] ")


def clean(text, roots):
    """Text without ANSI colours, log timestamps and the given absolute roots."""
    text = ANSI.sub("", text)
    for root in roots:
        text = text.replace(root + os.sep, "").replace(root, "<root>")
    lines = [STAMP.sub("", line).rstrip() for line in text.splitlines()]
    return [line for line in lines if line.strip()]


def one(library, path, packages, with_trajectory, out):
    """Child process: load `path` with one library and write its result to `out`."""
    # What the libraries print (urdfdom, spdlog, DART's console) goes to a file the parent
    # reads as the log, so the output stays free of it.
    try:
        result = {"loads": True, **LOADERS[library](path, packages, with_trajectory)}
    except Exception as e:  # the library's refusal
        result = {"loads": False, "error": f"{type(e).__name__}: {str(e).strip()}"}
    with open(out, "w") as f:
        json.dump(result, f)


def judge(library, path, packages, with_trajectory, roots):
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "result.json")
        log = os.path.join(tmp, "log.txt")
        args = [sys.executable, os.path.abspath(__file__), "--one", library, "--result", out]
        if with_trajectory:
            args.append("--trajectory")
        for name, directory in packages:
            args += ["--package", f"{name}={directory}"]
        args.append(path)
        with open(log, "w") as logfile:
            try:
                proc = subprocess.run(
                    args, stdout=logfile, stderr=subprocess.STDOUT, timeout=TIMEOUT, cwd=tmp
                )
                code = proc.returncode
            except subprocess.TimeoutExpired:
                code = None
        with open(log, errors="replace") as f:
            printed = clean(f.read(), roots)
        if code is None:
            result = {"loads": False, "error": f"no answer within {TIMEOUT} s"}
        elif not os.path.exists(out):
            result = {"loads": False, "error": f"the process died (exit status {code})"}
        else:
            with open(out) as f:
                result = json.load(f)
            if "error" in result:
                result["error"] = "\n".join(clean(result["error"], roots))
    result["log"] = printed[:20]
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root")
    parser.add_argument("--prefix")
    parser.add_argument("--out")
    parser.add_argument("--trajectory", action="store_true")
    parser.add_argument("--package", action="append", default=[], metavar="NAME=DIR")
    parser.add_argument("--one", choices=LIBRARIES, help=argparse.SUPPRESS)
    parser.add_argument("--result", help=argparse.SUPPRESS)
    parser.add_argument("files", nargs="+")
    args = parser.parse_args()
    if args.one:
        packages = [tuple(p.split("=", 1)) for p in args.package]
        one(args.one, args.files[0], packages, args.trajectory, args.result)
        return
    root = os.path.abspath(args.root)
    packages = [
        (name, os.path.join(root, directory))
        for name, directory in (p.split("=", 1) for p in args.package)
    ]
    workspace = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    roots = sorted({root, os.path.realpath(root), workspace}, key=len, reverse=True)
    os.makedirs(args.out, exist_ok=True)
    for rel in args.files:
        path = os.path.join(root, rel)
        data = {"file": rel, "packages": sorted(name for name, _ in packages)}
        for library in LIBRARIES:
            data[library] = judge(library, path, packages, args.trajectory, roots)
        name = f"{args.prefix}__{rel.replace('/', '__')}.json"
        with open(os.path.join(args.out, name), "w") as f:
            json.dump(data, f, sort_keys=True, indent=1)
            f.write("\n")
        outcome = ", ".join(f"{lib} {'ok' if data[lib]['loads'] else 'refused'}" for lib in LIBRARIES)
        print(f"{name}: {outcome}", file=sys.stderr)


if __name__ == "__main__":
    main()
