"""Golden data for mbconv-solver from DART (dartpy 6.20.0) on the corpus SKEL files.

For every `*.skel` under shared/corpus/skel (except the pre-XML `legacy_text_format/`):
  * forward dynamics at the initial state: every body's world pose, velocities and
    accelerations (`BodyNode.getLinearAcceleration()` = classical acceleration of the body
    frame origin, world coordinates);
  * 1 s of `World.step()` at dt = 1e-3 (semi-implicit Euler) with collisions switched off
    (every body node `setCollidable(False)`) and joint position limits not enforced
    (mbconv's solver has neither contacts nor limits by default), recording body world poses
    at t = 0.25, 0.5, 0.75 and 1.0 s.
Files with soft bodies are marked (`soft`), files DART cannot load are listed with the error.

Usage: /tmp/solvervenv/bin/python oracles/solver/dart_skel.py <corpus/skel> <out.json>
"""
import glob
import json
import os
import subprocess
import sys

import dartpy as dart
import numpy as np

CHECK_STEPS = (250, 500, 750, 1000)


def quat_wxyz(r):
    m = np.asarray(r)
    t = np.trace(m)
    if t > 0:
        s = np.sqrt(t + 1.0) * 2
        q = [0.25 * s, (m[2, 1] - m[1, 2]) / s, (m[0, 2] - m[2, 0]) / s, (m[1, 0] - m[0, 1]) / s]
    elif m[0, 0] > m[1, 1] and m[0, 0] > m[2, 2]:
        s = np.sqrt(1.0 + m[0, 0] - m[1, 1] - m[2, 2]) * 2
        q = [(m[2, 1] - m[1, 2]) / s, 0.25 * s, (m[0, 1] + m[1, 0]) / s, (m[0, 2] + m[2, 0]) / s]
    elif m[1, 1] > m[2, 2]:
        s = np.sqrt(1.0 + m[1, 1] - m[0, 0] - m[2, 2]) * 2
        q = [(m[0, 2] - m[2, 0]) / s, (m[0, 1] + m[1, 0]) / s, 0.25 * s, (m[1, 2] + m[2, 1]) / s]
    else:
        s = np.sqrt(1.0 + m[2, 2] - m[0, 0] - m[1, 1]) * 2
        q = [(m[1, 0] - m[0, 1]) / s, (m[0, 2] + m[2, 0]) / s, (m[1, 2] + m[2, 1]) / s, 0.25 * s]
    q = np.array(q)
    if q[0] < 0:
        q = -q
    return [float(x) for x in q / np.linalg.norm(q)]


def v3(x):
    return [float(a) for a in np.asarray(x).reshape(3)]


def bodies(world):
    out = []
    for s in range(world.getNumSkeletons()):
        skel = world.getSkeleton(s)
        for b in range(skel.getNumBodyNodes()):
            bn = skel.getBodyNode(b)
            t = bn.getWorldTransform()
            out.append({"skeleton": skel.getName(), "name": bn.getName(),
                        "position": v3(t.translation()), "orientation_wxyz": quat_wxyz(t.rotation())})
    return out


def case(path, root):
    rel = os.path.relpath(path, root)
    try:
        world = dart.utils.SkelParser.readWorld(os.path.abspath(path))
    except Exception as e:  # noqa: BLE001
        return {"file": rel, "error": str(e)}
    if world is None:
        return {"file": rel, "error": "DART returned no world"}
    soft = any(world.getSkeleton(s).getNumSoftBodyNodes() > 0 for s in range(world.getNumSkeletons()))
    initial = []
    for s in range(world.getNumSkeletons()):
        skel = world.getSkeleton(s)
        skel.computeForwardDynamics()
        for b in range(skel.getNumBodyNodes()):
            bn = skel.getBodyNode(b)
            t = bn.getWorldTransform()
            initial.append({"skeleton": skel.getName(), "name": bn.getName(),
                            "position": v3(t.translation()), "orientation_wxyz": quat_wxyz(t.rotation()),
                            "linear_velocity": v3(bn.getLinearVelocity()),
                            "angular_velocity": v3(bn.getAngularVelocity()),
                            "linear_acceleration": v3(bn.getLinearAcceleration()),
                            "angular_acceleration": v3(bn.getAngularAcceleration())})
    out = {"file": rel, "soft": bool(soft), "gravity": v3(world.getGravity()), "initial": initial}
    if soft:
        return out
    for s in range(world.getNumSkeletons()):
        skel = world.getSkeleton(s)
        for b in range(skel.getNumBodyNodes()):
            skel.getBodyNode(b).setCollidable(False)
        for j in range(skel.getNumJoints()):
            skel.getJoint(j).setLimitEnforcement(False)
    world.setTimeStep(1e-3)
    samples = []
    for k in range(1, CHECK_STEPS[-1] + 1):
        world.step()
        if k in CHECK_STEPS:
            samples.append({"t": k * 1e-3, "bodies": bodies(world)})
    out["trajectory"] = samples
    return out


def main():
    if sys.argv[1] == "--one":
        print(json.dumps(case(sys.argv[2], sys.argv[3])))
        return
    root, target = sys.argv[1], sys.argv[2]
    files = sorted(p for p in glob.glob(os.path.join(root, "**", "*.skel"), recursive=True)
                   if "legacy_text_format" not in p)
    cases = []
    for p in files:
        # One process per file: DART crashes on some inputs (missing meshes).
        run = subprocess.run([sys.executable, __file__, "--one", p, root], capture_output=True, text=True)
        lines = [line for line in run.stdout.splitlines() if line.startswith("{")]
        if run.returncode != 0 or not lines:
            cases.append({"file": os.path.relpath(p, root), "error": f"DART exited with status {run.returncode}"})
        else:
            cases.append(json.loads(lines[-1]))
    with open(target, "w") as f:
        json.dump({"generator": "oracles/solver/dart_skel.py", "dartpy": "6.20.0", "cases": cases}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
