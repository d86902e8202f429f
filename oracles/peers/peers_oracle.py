#!/usr/bin/env python3
"""The libraries' side of `cargo xtask peers` (docs/peers.md): does a URDF converted to MJCF
or to SDFormat keep its motion, converted by the simulators' own converters or by mbconv?

`cargo xtask peers` converts every URDF of example-robot-data to MJCF and to SDFormat with
mbconv and writes a manifest (JSON: a list of {"name", "urdf" (the source's absolute path),
"mjcf" (mbconv's MJCF, or null with "mjcf_error"), "sdf" (mbconv's SDFormat, or null with
"sdf_error")}). For each entry this script simulates, each in a child process of its own
(`oracles/isolated.py`; a crash or a hang costs that run only):

* the ground truth: Pinocchio 4.1 (`buildModelFromUrdf(path, mimic=True)`, the root welded),
  1 s of `aba` under gravity, Lie-group RK4 at dt 1e-4, no damping, friction, limits or
  contact (Pinocchio's ABA has none);
* MuJoCo 4.0's URDF import as the file is (`MjModel.from_xml_path` on the URDF);
* MuJoCo's URDF import of the file without its `<visual>` and `<collision>` elements (the best
  a user gets when MuJoCo cannot open the meshes: `package://` URIs are not resolved by it);
* MuJoCo loading mbconv's MJCF;
* Drake 1.51.1 loading libsdformat's own URDF -> SDFormat conversion of the URDF (the one
  behind `gz sdf -p FILE.urdf`: `urdf2sdf.cpp` beside this script, built against the system's
  libsdformat with g++ and pkg-config at the start of the run; Debian: `libsdformat-dev`);
* Drake loading libsdformat's conversion of the URDF without its `<gazebo>` elements (what
  Gazebo's extensions carry into the SDFormat, e.g. an IMU's `<noise>` or a joint's `<stopKd>`
  in Gazebo classic's spelling, is refused by Drake's newer libsdformat: the best a Drake user
  gets from this converter);
* Drake loading mbconv's SDFormat.

Every Drake run: a continuous `MultibodyPlant(time_step=0)` with no SceneGraph (no geometry, so
no contact; joint limits are not enforced by a continuous plant and are widened to infinity
besides), every joint's damping set to 0, the actuation input fixed at zero, the model's root
links (bodies no joint moves) welded to the world at the identity, as Pinocchio's root is;
the plant's time derivatives integrated by classical RK4 at dt 1e-4, as Pinocchio and MuJoCo
are (Drake's own integrators are error-controlled: on a motion sensitive to its start they
drift from the truth by what the integrators differ by). Drake's continuous plant has no mimic
couplings (it warns and ignores them).

Every MuJoCo run: RK4, dt 1e-4, contact, joint limits, friction loss and actuation disabled,
joint damping and stiffness set to 0 (what Pinocchio's ABA leaves out), equalities kept (a mimic
joint is an equality in MuJoCo). All runs start at rest from the same bent pose: every joint
of Pinocchio's model at 0.5 rad (0.05 m when prismatic), moved inside its limits (to their
middle when the bent value is outside), the mimic joints at multiplier * q + offset.

Per run the world position of every URDF link frame that is a body of the run (MuJoCo fuses
links on fixed joints into their parent) is recorded every 0.1 s; the error of a run is the
largest distance from Pinocchio's over those links and times. A run keeps the motion when its
error is at most TOLERANCE and every link that moves in Pinocchio (a child of a moving joint)
is one of its bodies.

Pinocchio's `aba` refuses a model with mimic joints (read with mimic=True): for those robots
the truth is the model read without its mimic couplings (every mimic joint free,
`mimic_dropped`), and every MuJoCo run of them has its equality constraints disabled too.

Usage:

    python peers_oracle.py --manifest MANIFEST.json --out RESULTS.json [--jobs N]
"""

import argparse
import concurrent.futures
import json
import math
import os
import sys
import xml.etree.ElementTree as ET

sys.dont_write_bytecode = True  # no __pycache__ beside the shared module
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import isolated  # noqa: E402  (oracles/isolated.py: one load per child process)

DURATION = 1.0
DT = 1e-4
EVERY = 1000
TOLERANCE = 1e-4
TIMEOUT = 600
BENT_ANGLE = 0.5
BENT_SLIDE = 0.05
PEERS = [
    "mujoco_import",
    "mujoco_import_no_meshes",
    "mbconv_mjcf",
    "sdformat_import",
    "sdformat_import_no_gazebo",
    "mbconv_sdf",
]
# The peers whose file is an SDFormat simulated in Drake.
DRAKE_PEERS = ("sdformat_import", "sdformat_import_no_gazebo", "mbconv_sdf")
URDF2SDF = os.path.join(os.path.dirname(os.path.abspath(__file__)), "urdf2sdf.cpp")
CONVERT_TIMEOUT = 120


def bent_pose(model):
    """The starting position of every 1-dof joint of a Pinocchio model, by name."""
    pose = {}
    for j in range(1, model.njoints):
        joint = model.joints[j]
        if joint.nv != 1:
            continue
        prismatic = "Prismatic" in joint.shortname()
        value = BENT_SLIDE if prismatic else BENT_ANGLE
        if joint.nq == 1:
            lower = float(model.lowerPositionLimit[joint.idx_q])
            upper = float(model.upperPositionLimit[joint.idx_q])
            if math.isfinite(lower) and math.isfinite(upper) and upper > lower:
                if not lower < value < upper:
                    value = 0.5 * (lower + upper)
        pose[model.names[j]] = value
    return pose


def mimics(path):
    """(joint, mimicked joint, multiplier, offset) of every URDF mimic element."""
    out = []
    for joint in ET.parse(path).getroot().findall("joint"):
        mimic = joint.find("mimic")
        if mimic is not None:
            out.append(
                (
                    joint.get("name"),
                    mimic.get("joint"),
                    float(mimic.get("multiplier", "1")),
                    float(mimic.get("offset", "0")),
                )
            )
    return out


def moving_links(model):
    """The links whose frames are the body frames of Pinocchio's moving joints."""
    import pinocchio as pin

    return sorted(
        f.name
        for f in model.frames
        if f.type == pin.FrameType.BODY
        and f.parentJoint > 0
        and model.frames[f.parentFrame].type == pin.FrameType.JOINT
    )


def sampled(sample, step):
    """`sample()` at the start and after every EVERY calls of `step()` (one DT each), over
    DURATION."""
    samples = [sample()]
    for _ in range(int(round(DURATION / DT / EVERY))):
        for _ in range(EVERY):
            step()
        samples.append(sample())
    return samples


def run_pinocchio(urdf):
    """The truth; where Pinocchio's `aba` refuses the mimic joints of the model read with
    mimic=True, the model read without them (each mimic joint free), `mimic_dropped`."""
    import pinocchio as pin

    try:
        model = pin.buildModelFromUrdf(urdf, mimic=True)
        return simulate_pinocchio(model, urdf, mimic=True)
    except Exception as e:
        if "Mimic" not in str(e) and "mimic" not in str(e):
            raise
    out = simulate_pinocchio(pin.buildModelFromUrdf(urdf), urdf, mimic=False)
    out["mimic_dropped"] = True
    return out


def simulate_pinocchio(model, urdf, mimic):
    import numpy as np
    import pinocchio as pin

    data = model.createData()
    pose = bent_pose(model)
    q = pin.neutral(model)
    for name, value in pose.items():
        joint = model.joints[model.getJointId(name)]
        if joint.nq == 1:
            q[joint.idx_q] = value
        else:  # continuous: (cos, sin)
            q[joint.idx_q], q[joint.idx_q + 1] = math.cos(value), math.sin(value)
    for joint, mimicked, multiplier, offset in mimics(urdf) if mimic else []:
        if mimicked in pose and joint not in pose:
            pose[joint] = multiplier * pose[mimicked] + offset
    v = np.zeros(model.nv)
    tau = np.zeros(model.nv)
    links = [f.name for f in model.frames if f.type == pin.FrameType.BODY]
    frame_ids = [model.getFrameId(n, pin.FrameType.BODY) for n in links]

    def sample():
        pin.forwardKinematics(model, data, q)
        pin.updateFramePlacements(model, data)
        return [[float(x) for x in data.oMf[i].translation] for i in frame_ids]

    def acc(qq, vv):
        return pin.aba(model, data, qq, vv, tau)

    def step():
        nonlocal q, v
        k1v, k1q = acc(q, v), v
        q2, v2 = pin.integrate(model, q, k1q * DT / 2), v + k1v * DT / 2
        k2v, k2q = acc(q2, v2), v2
        q3, v3 = pin.integrate(model, q, k2q * DT / 2), v + k2v * DT / 2
        k3v, k3q = acc(q3, v3), v3
        q4, v4 = pin.integrate(model, q, k3q * DT), v + k3v * DT
        k4v, k4q = acc(q4, v4), v4
        q = pin.integrate(model, q, (k1q + 2 * k2q + 2 * k3q + k4q) * DT / 6)
        v = v + (k1v + 2 * k2v + 2 * k3v + k4v) * DT / 6

    samples = sampled(sample, step)
    by_child = {}
    for f in model.frames:
        if f.type == pin.FrameType.BODY and model.names[f.parentJoint] in pose:
            if model.frames[f.parentFrame].type == pin.FrameType.JOINT:
                by_child[f.name] = pose[model.names[f.parentJoint]]
    return {
        "links": links,
        "moving": moving_links(model),
        "pose": pose,
        "pose_by_child": by_child,
        "samples": samples,
        "nv": int(model.nv),
    }


def without_gazebo(urdf):
    """The URDF text without its <gazebo> elements."""
    tree = ET.parse(urdf)
    for child in list(tree.getroot()):
        if child.tag == "gazebo":
            tree.getroot().remove(child)
    return ET.tostring(tree.getroot(), encoding="unicode")


def without_geometry(urdf):
    """The URDF text without its <visual> and <collision> elements."""
    tree = ET.parse(urdf)
    for link in tree.getroot().findall("link"):
        for child in list(link):
            if child.tag in ("visual", "collision"):
                link.remove(child)
    return ET.tostring(tree.getroot(), encoding="unicode")


def run_mujoco(path, pose, text=None, equality=True):
    import mujoco

    m = mujoco.MjModel.from_xml_string(text) if text is not None else mujoco.MjModel.from_xml_path(path)
    m.opt.timestep = DT
    m.opt.integrator = mujoco.mjtIntegrator.mjINT_RK4
    m.opt.disableflags |= (
        mujoco.mjtDisableBit.mjDSBL_CONTACT
        | mujoco.mjtDisableBit.mjDSBL_LIMIT
        | mujoco.mjtDisableBit.mjDSBL_FRICTIONLOSS
        | mujoco.mjtDisableBit.mjDSBL_ACTUATION
    )
    if not equality:  # the truth dropped the mimic couplings: so does MuJoCo
        m.opt.disableflags |= mujoco.mjtDisableBit.mjDSBL_EQUALITY
    m.dof_damping[:] = 0.0
    m.jnt_stiffness[:] = 0.0
    d = mujoco.MjData(m)
    set_joints = 0
    for j in range(m.njnt):
        name = mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_JOINT, j)
        one_dof = (int(mujoco.mjtJoint.mjJNT_HINGE), int(mujoco.mjtJoint.mjJNT_SLIDE))
        if name in pose and int(m.jnt_type[j]) in one_dof:
            d.qpos[m.jnt_qposadr[j]] = pose[name]
            set_joints += 1
    mujoco.mj_forward(m, d)
    bodies = [mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_BODY, i) or f"body{i}" for i in range(m.nbody)]
    samples = []
    steps = int(round(DURATION / DT))
    for step in range(steps + 1):
        if step % EVERY == 0:
            samples.append([[float(x) for x in d.xpos[i]] for i in range(m.nbody)])
        if step == steps:
            break
        mujoco.mj_step(m, d)
    return {"links": bodies, "samples": samples, "nv": int(m.nv), "set_joints": set_joints}


def run_drake(path, pose):
    """Drake's plant of an SDFormat file, root welded, simulated from `pose`: the world
    position of every body frame every 0.1 s, by body name."""
    import numpy as np
    from pydrake.math import RigidTransform
    from pydrake.multibody.parsing import Parser
    from pydrake.multibody.plant import MultibodyPlant
    from pydrake.multibody.tree import BodyIndex, JointIndex

    plant = MultibodyPlant(0.0)
    Parser(plant).AddModels(path)
    children = set()
    for i in range(plant.num_joints()):
        joint = plant.get_joint(JointIndex(i))
        children.add(int(joint.child_body().index()))
        if joint.num_velocities() > 0:
            joint.set_default_damping_vector(np.zeros(joint.num_velocities()))
            inf = np.full(joint.num_positions(), np.inf)
            if joint.num_positions() == joint.num_velocities():
                joint.set_position_limits(-inf, inf)
    for i in range(1, plant.num_bodies()):
        if i not in children:
            body = plant.get_body(BodyIndex(i))
            plant.WeldFrames(plant.world_frame(), body.body_frame(), RigidTransform())
    plant.Finalize()
    context = plant.CreateDefaultContext()
    if plant.num_actuated_dofs() > 0:
        plant.get_actuation_input_port().FixValue(context, np.zeros(plant.num_actuated_dofs()))
    q = plant.GetPositions(context)
    set_joints = 0
    by_child = pose.get("__by_child__", {})
    for i in range(plant.num_joints()):
        joint = plant.get_joint(JointIndex(i))
        if joint.num_positions() != 1 or joint.num_velocities() != 1:
            continue
        # By name; else by the link it moves (a writer may rename a joint whose name a link
        # or frame of the SDFormat model also has: SDFormat's frame names are one namespace).
        value = pose.get(joint.name(), by_child.get(joint.child_body().name()))
        if value is not None:
            q[joint.position_start()] = value
            set_joints += 1
    x = np.concatenate([q, np.zeros(plant.num_velocities())])
    bodies = [plant.get_body(BodyIndex(i)) for i in range(plant.num_bodies())]

    def derivatives(state):
        plant.SetPositionsAndVelocities(context, state)
        return plant.EvalTimeDerivatives(context).CopyToVector()

    def sample():
        plant.SetPositionsAndVelocities(context, x)
        return [[float(c) for c in plant.EvalBodyPoseInWorld(context, b).translation()] for b in bodies]

    # Classical RK4 at DT, as Pinocchio's truth and MuJoCo's runs are integrated: a motion
    # that is sensitive to its start (some robots' bent poses are) then differs by what the
    # models differ by, not by what two integrators differ by.
    def step():
        nonlocal x
        k1 = derivatives(x)
        k2 = derivatives(x + k1 * DT / 2)
        k3 = derivatives(x + k2 * DT / 2)
        k4 = derivatives(x + k3 * DT)
        x = x + (k1 + 2 * k2 + 2 * k3 + k4) * DT / 6

    samples = sampled(sample, step)
    return {
        "links": [b.name() for b in bodies],
        "samples": samples,
        "nv": int(plant.num_velocities()),
        "set_joints": set_joints,
    }


def build_urdf2sdf(scratch):
    """Builds `urdf2sdf.cpp` against the system's libsdformat; (program, None) or (None, why)."""
    import subprocess

    program = os.path.join(scratch, "urdf2sdf")
    try:
        flags = subprocess.run(
            ["pkg-config", "--cflags", "--libs", "sdformat12"], capture_output=True, text=True, check=True
        ).stdout.split()
        version = subprocess.run(
            ["pkg-config", "--modversion", "sdformat12"], capture_output=True, text=True, check=True
        ).stdout.strip()
        subprocess.run(
            ["g++", "-std=c++17", "-O1", URDF2SDF, "-o", program] + flags,
            capture_output=True,
            text=True,
            check=True,
        )
    except (OSError, subprocess.CalledProcessError) as e:
        detail = getattr(e, "stderr", "") or str(e)
        return None, None, "libsdformat's converter could not be built: " + detail.strip()[:300]
    return program, version, None


def convert_urdf2sdf(program, urdf, out):
    """libsdformat's conversion of `urdf` written to `out`; None, or why it gave no model."""
    import subprocess

    try:
        proc = subprocess.run([program, urdf], capture_output=True, text=True, timeout=CONVERT_TIMEOUT)
    except subprocess.TimeoutExpired:
        return f"libsdformat: no answer in {CONVERT_TIMEOUT} s"
    if not proc.stdout.strip():
        return "libsdformat: " + (" / ".join(proc.stderr.strip().splitlines()) or f"exit {proc.returncode}")
    with open(out, "w") as f:
        f.write(proc.stdout)
    return None


def one(args):
    with open(args.pose) as f:
        pose = json.load(f) if args.variant != "pinocchio" else None
    equality = not args.no_equality
    try:
        if args.variant == "pinocchio":
            out = run_pinocchio(args.file)
        elif args.variant in DRAKE_PEERS:
            out = run_drake(args.file, pose)
        elif args.variant == "mujoco_import_no_meshes":
            out = run_mujoco(args.file, pose, without_geometry(args.file), equality)
        else:
            out = run_mujoco(args.file, pose, equality=equality)
        out["loads"] = True
    except Exception as e:  # the library's refusal
        out = {"loads": False, "load_error": f"{type(e).__name__}: {str(e).strip()}"}
    with open(args.result, "w") as f:
        json.dump(out, f)


def simulate(variant, path, pose_file, roots, equality=True):
    args = ["--variant", variant, "--file", path, "--pose", pose_file]
    if not equality:
        args.append("--no-equality")
    result = isolated.run_one(os.path.abspath(__file__), args, roots, TIMEOUT)
    result.setdefault("loads", False)
    return result


def compare(truth, run):
    """Largest link-frame distance from the truth, the link and time, and the moving links
    the run lacks."""
    index = {name: i for i, name in enumerate(run["links"])}
    worst, where = 0.0, None
    for k, name in enumerate(truth["links"]):
        if name not in index:
            continue
        i = index[name]
        for s, (a, b) in enumerate(zip(truth["samples"], run["samples"])):
            dist = math.dist(a[k], b[i])
            if dist > worst:
                worst, where = dist, f"{name} at t = {s * DT * EVERY:.1f} s"
    missing = [n for n in truth["moving"] if n not in index]
    return worst, where, missing


def judge(entry, roots, scratch, urdf2sdf):
    pose_file = os.path.join(scratch, entry["name"].replace("/", "__") + ".pose.json")
    with open(pose_file, "w") as f:
        json.dump({}, f)
    truth = simulate("pinocchio", entry["urdf"], pose_file, roots)
    result = {"name": entry["name"], "truth": {"loads": truth["loads"]}}
    if not truth["loads"]:
        result["truth"]["error"] = truth.get("load_error", "")
        return result
    result["truth"]["nv"] = truth["nv"]
    equality = not truth.get("mimic_dropped", False)
    if not equality:
        result["truth"]["mimic_dropped"] = True
    with open(pose_file, "w") as f:
        json.dump(dict(truth["pose"], __by_child__=truth["pose_by_child"]), f)
    for peer in PEERS:
        if peer in ("sdformat_import", "sdformat_import_no_gazebo"):
            stem = os.path.join(scratch, entry["name"].replace("/", "__") + "." + peer)
            source = entry["urdf"]
            if peer == "sdformat_import_no_gazebo":
                source = stem + ".urdf"
                with open(source, "w") as f:
                    f.write(without_gazebo(entry["urdf"]))
            path = stem + ".sdf"
            why = urdf2sdf[1] if urdf2sdf[0] is None else convert_urdf2sdf(urdf2sdf[0], source, path)
            if why is not None:
                result[peer] = {"loads": False, "error": why}
                continue
        elif peer in ("mbconv_mjcf", "mbconv_sdf"):
            key = "mjcf" if peer == "mbconv_mjcf" else "sdf"
            path = entry.get(key)
            if path is None:
                result[peer] = {"loads": False, "error": "mbconv: " + (entry.get(key + "_error") or "")}
                continue
        else:
            path = entry["urdf"]
        run = simulate(peer, path, pose_file, roots, equality)
        if not run["loads"]:
            result[peer] = {"loads": False, "error": run.get("load_error", "")}
            continue
        worst, where, missing = compare(truth, run)
        result[peer] = {
            "loads": True,
            "error": worst,
            "where": where,
            "missing": missing,
            "keeps": worst <= TOLERANCE and not missing,
            "nv": run["nv"],
        }
    print(
        entry["name"] + ": " + ", ".join(f"{p} {result[p].get('keeps', False)}" for p in PEERS),
        file=sys.stderr,
    )
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--manifest")
    parser.add_argument("--out")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--one", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--result", help=argparse.SUPPRESS)
    parser.add_argument("--variant", help=argparse.SUPPRESS)
    parser.add_argument("--file", help=argparse.SUPPRESS)
    parser.add_argument("--pose", help=argparse.SUPPRESS)
    parser.add_argument("--no-equality", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        one(args)
        return
    with open(args.manifest) as f:
        entries = json.load(f)
    scratch = os.path.dirname(os.path.abspath(args.out))
    roots = sorted(
        {os.path.dirname(e["urdf"]) for e in entries} | {scratch}, key=len, reverse=True
    )
    program, version, why = build_urdf2sdf(scratch)
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        results = list(pool.map(lambda e: judge(e, roots, scratch, (program, why)), entries))
    with open(args.out, "w") as f:
        summary = {"tolerance": TOLERANCE, "peers": PEERS, "sdformat_version": version, "results": results}
        json.dump(summary, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
