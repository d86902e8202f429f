#!/usr/bin/env python3
"""DART golden data for mbconv's SKEL reader and writer.

Loads SKEL files with dartpy (DART's own SkelParser) and writes one JSON file per input with
what DART built: per skeleton its bodies (world transform at the initial state, mass, local
centre of mass, moment of inertia about the COM, gravity flag, spatial velocity in world
coordinates) and joints (type, name, parent and child body, positions, velocities, DOF names,
joint frames). A file DART cannot load gives {"load_error": "..."}.

Usage (paths may be files or directories; directories are searched for *.skel recursively):

    python dart_golden.py --root ROOT --prefix PREFIX --out OUTDIR [PATH ...]

Each output is OUTDIR/PREFIX__<path relative to ROOT with '/' replaced by '__'>.json.
With no PATH, ROOT itself is searched. Needs dartpy 6.20 (pip install dartpy==6.20.0).
Output is deterministic: keys sorted, floats written by Python's shortest repr.
"""

import argparse
import json
import os
import subprocess
import sys


def matrix(m):
    return [[float(x) for x in row] for row in m]


def vector(v):
    return [float(x) for x in v]


def number(x):
    """A float, or the strings "inf"/"-inf"/"nan" (JSON has no infinities)."""
    x = float(x)
    if x != x:
        return "nan"
    if x in (float("inf"), float("-inf")):
        return "inf" if x > 0 else "-inf"
    return x


def dof_record(joint, i):
    return {
        "name": joint.getDofName(i),
        "actuator": str(joint.getActuatorTypeForDof(i)).split(".")[-1],
        "damping": number(joint.getDampingCoefficient(i)),
        "friction": number(joint.getCoulombFriction(i)),
        "spring_stiffness": number(joint.getSpringStiffness(i)),
        "rest_position": number(joint.getRestPosition(i)),
        "position_limits": [number(joint.getPositionLowerLimit(i)), number(joint.getPositionUpperLimit(i))],
        "velocity_limits": [number(joint.getVelocityLowerLimit(i)), number(joint.getVelocityUpperLimit(i))],
        "acceleration_limits": [number(joint.getAccelerationLowerLimit(i)), number(joint.getAccelerationUpperLimit(i))],
        "force_limits": [number(joint.getForceLowerLimit(i)), number(joint.getForceUpperLimit(i))],
    }


def body_record(body):
    parent_joint = body.getParentJoint()
    return {
        "name": body.getName(),
        "world_transform": matrix(body.getWorldTransform().matrix()),
        "mass": float(body.getMass()),
        "local_com": vector(body.getLocalCOM()),
        "moment_of_inertia": matrix(body.getInertia().getMoment()),
        "gravity_mode": bool(body.getGravityMode()),
        "parent_joint": parent_joint.getName() if parent_joint is not None else None,
        "linear_velocity_world": vector(body.getLinearVelocity()),
        "angular_velocity_world": vector(body.getAngularVelocity()),
        "num_shape_nodes": int(body.getNumShapeNodes()),
    }


def joint_record(joint):
    parent = joint.getParentBodyNode()
    child = joint.getChildBodyNode()
    ndofs = joint.getNumDofs()
    return {
        "name": joint.getName(),
        "type": joint.getType(),
        "dofs": int(ndofs),
        "dof_properties": [dof_record(joint, i) for i in range(ndofs)],
        "actuator": str(joint.getActuatorType()).split(".")[-1],
        "parent": parent.getName() if parent is not None else None,
        "child": child.getName() if child is not None else None,
        "positions": vector(joint.getPositions()),
        "velocities": vector(joint.getVelocities()),
        "transform_from_parent": matrix(joint.getTransformFromParentBodyNode().matrix()),
        "transform_from_child": matrix(joint.getTransformFromChildBodyNode().matrix()),
    }


def world_record(path):
    import dartpy as dart

    try:
        world = dart.utils.SkelParser.readWorld(os.path.abspath(path))
    except Exception as error:  # dartpy raises for some malformed inputs
        return {"load_error": f"{type(error).__name__}: {error}"}
    if world is None:
        if not has_skeleton_without_world(path):
            return {"load_error": "SkelParser.readWorld returned None"}
        # A <skel> with a <skeleton> but no <world>: DART's other entry point reads it.
        skel = dart.utils.SkelParser.readSkeleton(os.path.abspath(path))
        if skel is None:
            return {"load_error": "SkelParser.readWorld and readSkeleton returned None"}
        return {
            "dartpy": getattr(dart, "__version__", "unknown"),
            "entry": "readSkeleton",
            "skeletons": [skeleton_record(skel)],
        }
    return {
        "dartpy": getattr(dart, "__version__", "unknown"),
        "entry": "readWorld",
        "gravity": vector(world.getGravity()),
        "time_step": float(world.getTimeStep()),
        "skeletons": [skeleton_record(world.getSkeleton(s)) for s in range(world.getNumSkeletons())],
    }


def has_skeleton_without_world(path):
    import xml.etree.ElementTree as ElementTree

    try:
        root = ElementTree.parse(path).getroot()
    except ElementTree.ParseError:
        return False
    return root.tag == "skel" and root.find("world") is None and root.find("skeleton") is not None


def skeleton_record(skel):
    return {
        "name": skel.getName(),
        "mobile": bool(skel.isMobile()),
        "bodies": [body_record(skel.getBodyNode(i)) for i in range(skel.getNumBodyNodes())],
        "joints": [joint_record(skel.getJoint(i)) for i in range(skel.getNumJoints())],
    }


def skel_files(paths):
    for path in paths:
        if os.path.isdir(path):
            for directory, subdirs, files in os.walk(path):
                subdirs.sort()
                for name in sorted(files):
                    if name.endswith(".skel"):
                        yield os.path.join(directory, name)
        else:
            yield path


def golden_name(prefix, root, path):
    relative = os.path.relpath(os.path.abspath(path), os.path.abspath(root))
    return f"{prefix}__{relative.replace(os.sep, '__')}.json"


def isolated_record(path):
    """Loads `path` in a child process: DART crashes on some inputs (missing meshes)."""
    run = subprocess.run(
        [sys.executable, os.path.abspath(__file__), "--single", path],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    sys.stderr.write(run.stderr)
    if run.returncode != 0:
        return {"load_error": f"DART crashed loading the file (exit status {run.returncode})"}
    try:
        return json.loads(run.stdout)
    except json.JSONDecodeError:
        return {"load_error": "no result from the loader process"}


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--single":
        json.dump(world_record(sys.argv[2]), sys.stdout)
        return
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--root", required=True, help="directory golden names are relative to")
    parser.add_argument("--prefix", required=True, help="prefix of the golden file names (corpus, fixtures, written)")
    parser.add_argument("--out", required=True, help="output directory")
    parser.add_argument("paths", nargs="*", help="SKEL files or directories (default: ROOT)")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    count = 0
    for path in skel_files(args.paths or [args.root]):
        record = isolated_record(path)
        record["file"] = os.path.relpath(os.path.abspath(path), os.path.abspath(args.root))
        out = os.path.join(args.out, golden_name(args.prefix, args.root, path))
        with open(out, "w") as f:
            json.dump(record, f, indent=1, sort_keys=True)
            f.write("\n")
        count += 1
        status = "load_error" if "load_error" in record else f"{len(record['skeletons'])} skeletons"
        print(f"{record['file']}: {status}", file=sys.stderr)
    print(f"wrote {count} golden files to {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
