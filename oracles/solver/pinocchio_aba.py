"""Golden data for mbconv-solver: Pinocchio ABA on random trees and chains.

Each case is a random model (revolute, prismatic, spherical and free joints with random
axes, placements, inertias, positions, velocities and joint torques), written as IR JSON
(mbconv's `.mbir.json` layout) together with the world-frame accelerations of every body
frame origin that `pinocchio.aba` gives. The solver test loads the IR, runs
`mbconv_solver::dynamics_report` and compares to 1e-9 (relative to max(1, |a|)).

Usage (Python 3.11, pin==4.1.0 from PyPI):
    python3 -m venv /tmp/solvervenv && /tmp/solvervenv/bin/pip install pin==4.1.0
    /tmp/solvervenv/bin/python oracles/solver/pinocchio_aba.py crates/mbconv-solver/tests/golden/pinocchio_aba.json
"""
import json
import sys

import numpy as np
import pinocchio as pin

SEED = 20261121


def rand_rotation(rng):
    q = rng.normal(size=4)
    q /= np.linalg.norm(q)
    return pin.Quaternion(q[0], q[1], q[2], q[3]).toRotationMatrix()


def rand_inertia(rng):
    mass = rng.uniform(0.2, 3.0)
    com = rng.uniform(-0.3, 0.3, size=3)
    # Principal moments satisfying the triangle inequality, random principal axes.
    m = rng.uniform(0.05, 0.5, size=3)
    m[2] = rng.uniform(abs(m[0] - m[1]) + 0.01, m[0] + m[1] - 0.001) if m[0] + m[1] - 0.001 > abs(m[0] - m[1]) + 0.01 else m[0]
    r = rand_rotation(rng)
    inertia = r @ np.diag(m) @ r.T
    inertia = 0.5 * (inertia + inertia.T)
    return mass, com, inertia


def pose_json(m):
    q = pin.Quaternion(m.rotation)
    q.normalize()
    return {"translation": [float(x) for x in m.translation], "rotation": [float(q.w), float(q.x), float(q.y), float(q.z)]}


def build_case(rng, name, kinds, parents):
    """kinds[i] in {'revolute','prismatic','spherical','free'}; parents[i] = index or -1 (world)."""
    model = pin.Model()
    ir_joints = []
    ir_bodies = []
    axes = []
    for i, (kind, parent) in enumerate(zip(kinds, parents)):
        pj = 0 if parent < 0 else parent + 1
        placement = pin.SE3(rand_rotation(rng), rng.uniform(-0.5, 0.5, size=3))
        axis = rng.normal(size=3)
        axis /= np.linalg.norm(axis)
        if kind == "revolute":
            jm = pin.JointModelRevoluteUnaligned(axis)
        elif kind == "prismatic":
            jm = pin.JointModelPrismaticUnaligned(axis)
        elif kind == "spherical":
            jm = pin.JointModelSpherical()
        else:
            jm = pin.JointModelFreeFlyer()
        jid = model.addJoint(pj, jm, placement, f"j{i}")
        mass, com, inertia = rand_inertia(rng)
        model.appendBodyToJoint(jid, pin.Inertia(mass, com, inertia), pin.SE3.Identity())
        axes.append(axis)
        ir_bodies.append({"name": f"b{i}", "inertial": {"mass": mass, "com": [float(x) for x in com],
                                                           "inertia": [[float(x) for x in row] for row in inertia]}})
        joint = {"name": f"j{i}", "parent": None if parent < 0 else f"b{parent}", "child": f"b{i}",
                 "parent_frame": pose_json(placement)}
        if kind in ("revolute", "prismatic"):
            joint["kind"] = {"type": kind, "axis": [float(x) for x in axis]}
        else:
            joint["kind"] = {"type": kind}
        ir_joints.append(joint)
    data = model.createData()
    # Reference configuration: every joint at zero (identity rotations).
    pin.forwardKinematics(model, data, pin.neutral(model))
    for i in range(len(kinds)):
        ir_bodies[i]["pose"] = pose_json(data.oMi[i + 1])
    q = pin.randomConfiguration(model, -np.ones(model.nq) * 1.5, np.ones(model.nq) * 1.5)
    v = rng.uniform(-2.0, 2.0, size=model.nv)
    tau = np.zeros(model.nv)
    motors = []
    for i, kind in enumerate(kinds):
        jmodel = model.joints[i + 1]
        iq, iv = jmodel.idx_q, jmodel.idx_v
        if kind in ("revolute", "prismatic"):
            ir_joints[i]["q0"] = [float(q[iq])]
            ir_joints[i]["v0"] = [float(v[iv])]
            tau[iv] = rng.uniform(-3.0, 3.0)
            motors.append({"name": f"m{i}", "motor_type": "rotation" if kind == "revolute" else "linear",
                           "actuation": "force", "target": {"on": "joint", "joint": f"j{i}", "dof": 0},
                           "function": {"type": "constant", "value": float(tau[iv])}})
        elif kind == "spherical":
            quat = pin.Quaternion(q[iq + 3], q[iq], q[iq + 1], q[iq + 2])
            ir_joints[i]["q0"] = [float(x) for x in pin.log3(quat.toRotationMatrix())]
            ir_joints[i]["v0"] = [float(x) for x in v[iv:iv + 3]]
        else:
            quat = pin.Quaternion(q[iq + 6], q[iq + 3], q[iq + 4], q[iq + 5])
            r = quat.toRotationMatrix()
            ir_joints[i]["q0"] = [float(x) for x in q[iq:iq + 3]] + [float(x) for x in pin.log3(r)]
            ir_joints[i]["v0"] = [float(x) for x in r @ v[iv:iv + 3]] + [float(x) for x in r @ v[iv + 3:iv + 6]]
    a = pin.aba(model, data, q, v, tau)
    pin.forwardKinematics(model, data, q, v, a)
    expected = []
    for i in range(len(kinds)):
        jid = i + 1
        r = data.oMi[jid].rotation
        vel = data.v[jid]
        acc = data.a[jid]
        lin = r @ (acc.linear + np.cross(vel.angular, vel.linear))
        ang = r @ acc.angular
        expected.append({"name": f"b{i}", "position": [float(x) for x in data.oMi[jid].translation],
                         "linear_acceleration": [float(x) for x in lin],
                         "angular_acceleration": [float(x) for x in ang],
                         "linear_velocity": [float(x) for x in r @ vel.linear],
                         "angular_velocity": [float(x) for x in r @ vel.angular]})
    ir = {"mbir": "1", "model": {"name": name, "bodies": ir_bodies, "joints": ir_joints}}
    if motors:
        ir["model"]["motors"] = motors
    return {"name": name, "ir": ir, "expected": expected,
            "kinetic_energy": float(pin.computeKineticEnergy(model, data, q, v)),
            "potential_energy": float(pin.computePotentialEnergy(model, data, q))}


def main():
    rng = np.random.default_rng(SEED)
    cases = []
    for n in (3, 7, 12):
        cases.append(build_case(rng, f"revolute_chain_{n}", ["revolute"] * n, list(range(-1, n - 1))))
    kinds = ["revolute", "prismatic"] * 4
    cases.append(build_case(rng, "mixed_chain_8", kinds, list(range(-1, 7))))
    for t in range(3):
        n = 10
        kinds = [str(rng.choice(["revolute", "prismatic", "spherical"])) for _ in range(n)]
        parents = [-1] + [int(rng.integers(0, i)) for i in range(1, n)]
        cases.append(build_case(rng, f"random_tree_{t}", kinds, parents))
    for t in range(2):
        n = 8
        kinds = ["free"] + [str(rng.choice(["revolute", "prismatic", "spherical", "free"])) for _ in range(n - 1)]
        parents = [-1] + [int(rng.integers(0, i)) for i in range(1, n)]
        cases.append(build_case(rng, f"floating_tree_{t}", kinds, parents))
    out = {"generator": "oracles/solver/pinocchio_aba.py", "pinocchio": pin.__version__, "seed": SEED, "cases": cases}
    with open(sys.argv[1], "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
