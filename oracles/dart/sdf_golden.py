#!/usr/bin/env python3
"""DART golden data for mbconv's SDFormat reader: a second opinion on SDFormat 1.4 to 1.6
(`formats/mbconv-sdf/tests/golden/dart`).

DART 6.20's `SdfParser` (dartpy 6.20.0) has its own SDFormat reader (TinyXML2, not
libsdformat) and reads only files whose `<sdf version>` is 1.4, 1.5 or 1.6; this script judges
exactly those and skips the others (Drake judges every version). A file with a `<world>` is
read by `SdfParser.readWorld` (one skeleton per `<model>` of the world), any other by
`SdfParser.readSkeleton` (the file's first `<model>`). DART builds each skeleton with its
positions at the joints' initial values, which it moves off zero when zero lies outside a
joint's limits; this script sets every position to zero (DART's zero configuration: every
body at the pose the file gives it) and writes one JSON file per input with:

- `reader`: the function that returned the model; `gravity` (a world's);
- `skeletons`: per skeleton its `name`, `dofs` and `mobile` (false for a static model);
- `bodies`: per body its `skeleton`, `body` (the link's name), `name` (`<skeleton>::<body>`,
  as the Drake golden data names bodies), `mass`, world centre of mass (`com`), inertia
  about the centre of mass in world axes (`inertia`, row-major), world pose of its frame
  (`pos`; `rotation`, the 3x3 matrix row-major), and `joint`/`joint_type` of its parent
  joint (a root body gets DART's `FreeJoint`);
- `joints`: per revolute, prismatic, screw and universal joint its `name`
  (`<skeleton>::<joint>`), `type`, `child` and the world direction of each of its axes at
  the zero configuration (`axes`; `pitch` for a screw joint).

A file DART does not load gives {"load_error": ...}: both functions returning None (the log
says why) or DART's exception. Each file is loaded in its own process
(`oracles/isolated.py`: a crash or a hang is recorded, the other files go on) and DART's
messages are kept as `log` (timestamps and absolute roots left out). Infinite or NaN numbers
are written as the strings "inf", "-inf", "nan".

Usage:

    python sdf_golden.py --root ROOT --prefix PREFIX --out OUTDIR FILE ...

FILE is relative to ROOT; each output is OUTDIR/PREFIX__<FILE with '/' replaced by '__'>.json
(files of other versions are named on standard error and left out). Output is deterministic:
keys sorted, floats written by Python's shortest repr (round-trip exact).
"""

import argparse
import json
import math
import os
import re
import sys

sys.dont_write_bytecode = True  # no __pycache__ beside the shared module
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import isolated  # noqa: E402  (oracles/isolated.py: one load per child process)

VERSIONS = ("1.4", "1.5", "1.6")
TIMEOUT = 120
COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
SDF_VERSION = re.compile(r"<sdf\b[^>]*?\bversion\s*=\s*[\"']([^\"']*)[\"']")
HAS_WORLD = re.compile(r"<world\b")
# spdlog's prefix, "[2026-01-01 12:00:00.000] ": left out so that logs are deterministic.
TIMESTAMP = re.compile(r"^\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(\.\d+)?\] ")
AXIS_JOINTS = ("RevoluteJoint", "PrismaticJoint", "ScrewJoint", "UniversalJoint")


def text_without_comments(path):
    with open(path, errors="replace") as f:
        return COMMENT.sub("", f.read())


def sdf_version(path):
    """The `version` of the file's `<sdf>` element (comments left out), or None."""
    match = SDF_VERSION.search(text_without_comments(path))
    return match.group(1).strip() if match else None


def number(x):
    x = float(x)
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return x


def numbers(values):
    return [number(x) for x in values]


def matrix(m):
    return [number(m[i][j]) for i in range(3) for j in range(3)]


def body_record(skeleton, body):
    import numpy as np

    transform = body.getWorldTransform().matrix()
    rotation = np.asarray(transform)[:3, :3]
    moment = np.asarray(body.getInertia().getMoment())
    joint = body.getParentJoint()
    return {
        "skeleton": skeleton.getName(),
        "body": body.getName(),
        "name": f"{skeleton.getName()}::{body.getName()}",
        "mass": number(body.getMass()),
        "com": numbers(body.getCOM()),
        "inertia": matrix(rotation @ moment @ rotation.T),
        "pos": numbers(np.asarray(transform)[:3, 3]),
        "rotation": matrix(rotation),
        "joint": joint.getName(),
        "joint_type": joint.getType(),
    }


def joint_record(skeleton, joint):
    """World directions of the axes of a revolute, prismatic, screw or universal joint: DART
    expresses them in the joint frame, the child's frame moved by `T_ChildBodyToJoint`."""
    import numpy as np

    kind = joint.getType()
    child = joint.getChildBodyNode()
    frame = np.asarray(child.getWorldTransform().matrix())[:3, :3] @ np.asarray(
        joint.getTransformFromChildBodyNode().matrix()
    )[:3, :3]
    if kind == "UniversalJoint":
        local = [joint.getAxis1(), joint.getAxis2()]
    else:
        local = [joint.getAxis()]
    record = {
        "name": f"{skeleton.getName()}::{joint.getName()}",
        "type": kind,
        "child": child.getName(),
        "axes": [numbers(frame @ np.asarray(a)) for a in local],
    }
    if kind == "ScrewJoint":
        record["pitch"] = number(joint.getPitch())
    return record


def golden(path):
    import dartpy as dart
    import numpy as np

    uri = dart.common.Uri.createFromPath(path)
    world = None
    try:
        if HAS_WORLD.search(text_without_comments(path)):
            reader = "readWorld"
            world = dart.utils.SdfParser.readWorld(uri)
            skeletons = (
                None
                if world is None
                else [world.getSkeleton(i) for i in range(world.getNumSkeletons())]
            )
        else:
            reader = "readSkeleton"
            skeleton = dart.utils.SdfParser.readSkeleton(uri)
            skeletons = None if skeleton is None else [skeleton]
    except Exception as e:  # DART's refusal
        return {"load_error": f"{type(e).__name__}: {str(e).strip()}"}
    if skeletons is None:
        return {"load_error": f"SdfParser.{reader} returned None (see the log)"}
    out = {"reader": reader, "skeletons": [], "bodies": [], "joints": []}
    if world is not None:
        out["gravity"] = numbers(world.getGravity())
    for skeleton in skeletons:
        skeleton.setPositions(np.zeros(skeleton.getNumDofs()))
        out["skeletons"].append(
            {
                "name": skeleton.getName(),
                "dofs": int(skeleton.getNumDofs()),
                "mobile": bool(skeleton.isMobile()),
            }
        )
        for body in skeleton.getBodyNodes():
            out["bodies"].append(body_record(skeleton, body))
        for joint in skeleton.getJoints():
            if joint.getType() in AXIS_JOINTS:
                out["joints"].append(joint_record(skeleton, joint))
    return out


def without_timestamp(line):
    return TIMESTAMP.sub("", line)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root")
    parser.add_argument("--prefix")
    parser.add_argument("--out")
    parser.add_argument("--one", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--result", help=argparse.SUPPRESS)
    parser.add_argument("files", nargs="+")
    args = parser.parse_args()
    if args.one:
        result = golden(args.files[0])
        with open(args.result, "w") as f:
            json.dump(result, f)
        return
    root = os.path.abspath(args.root)
    roots = isolated.roots_of(root)
    os.makedirs(args.out, exist_ok=True)
    script = os.path.abspath(__file__)
    for rel in args.files:
        path = os.path.join(root, rel)
        version = sdf_version(path)
        if version not in VERSIONS:
            print(f"{rel}: SDFormat {version}, not judged by DART", file=sys.stderr)
            continue
        data = isolated.run_one(script, [path], roots, TIMEOUT, without_timestamp)
        data["file"] = rel
        data["version"] = version
        name = f"{args.prefix}__{rel.replace('/', '__')}.json"
        with open(os.path.join(args.out, name), "w") as f:
            json.dump(data, f, sort_keys=True, indent=1)
            f.write("\n")
        print(f"{name}: {data.get('load_error', 'ok')}", file=sys.stderr)


if __name__ == "__main__":
    main()
