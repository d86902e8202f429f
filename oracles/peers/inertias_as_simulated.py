#!/usr/bin/env python3
"""Is a URDF's unphysical inertia the whole of what a converted model moves away by?

For the robots docs/peers.md lists under "Causes found": a link whose rotational inertia has a
negative principal moment or breaks the triangle inequality is simulated as written by
Pinocchio (the peers' ground truth), while its targets do not simulate it: MuJoCo refuses it,
Drake's parser replaces it, mbconv's writers repair it. This script takes the URDF and one
converted file (SDFormat, loaded in Drake, or MJCF, loaded in MuJoCo), writes a copy of the
URDF whose unphysical links carry the mass, centre of mass and rotational inertia the target
simulates, and runs `peers_oracle.py`'s simulations (same pose, RK4 at 1e-4 s, 1 s, root
welded): Pinocchio on the file as it is, Pinocchio on the copy, and the target. When the copy
agrees with the target and the original does not, those inertias are the whole difference.

Usage:

    python inertias_as_simulated.py ROBOT.urdf CONVERTED.sdf|CONVERTED.xml COPY.urdf

(`cargo xtask peers` leaves mbconv's conversions in target/peers/NAME/model.sdf and model.xml
and libsdformat's beside them.)
"""

import math
import os
import sys
import xml.etree.ElementTree as ET

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import peers_oracle  # noqa: E402

MOMENTS = {"ixx": (0, 0), "iyy": (1, 1), "izz": (2, 2), "ixy": (0, 1), "ixz": (0, 2), "iyz": (1, 2)}


def unphysical(inertia):
    """Whether a URDF <inertia> has a negative principal moment or breaks the triangle
    inequality (a rotation of its frame changes neither)."""
    import numpy as np

    matrix = np.zeros((3, 3))
    for key, (i, j) in MOMENTS.items():
        matrix[i, j] = matrix[j, i] = float(inertia.get(key, "0"))
    low, mid, high = np.linalg.eigvalsh(matrix)
    return low < 0 or low + mid < high * (1 - 1e-12)


def as_simulated(target):
    """A function giving, by link name, the mass, centre of mass and rotational inertia about it
    (in the link frame) that the target simulates."""
    import numpy as np

    if target.endswith(".xml"):
        import mujoco

        model = mujoco.MjModel.from_xml_path(target)

        def mujoco_body(name):
            b = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_BODY, name)
            if b < 0:
                raise SystemExit(f"{name}: not a body of {target} (fused into its parent?)")
            rotation = np.zeros(9)
            mujoco.mju_quat2Mat(rotation, model.body_iquat[b])
            rotation = rotation.reshape(3, 3)
            inertia = rotation @ np.diag(model.body_inertia[b]) @ rotation.T
            return float(model.body_mass[b]), model.body_ipos[b].copy(), inertia

        return mujoco_body
    from pydrake.multibody.parsing import Parser
    from pydrake.multibody.plant import MultibodyPlant

    plant = MultibodyPlant(0.0)
    Parser(plant).AddModels(target)
    plant.Finalize()

    def drake_body(name):
        spatial = plant.GetBodyByName(name).default_spatial_inertia()
        com = spatial.get_com()
        inertia = spatial.Shift(com).CalcRotationalInertia().CopyToFullMatrix3()
        return float(spatial.get_mass()), com, inertia

    return drake_body


def rewrite(urdf, target, copy):
    """Writes `copy`: the URDF with every unphysical inertia as the target simulates it. The
    names of the links changed."""
    body = as_simulated(target)
    tree = ET.parse(urdf)
    changed = []
    for link in tree.getroot().findall("link"):
        inertial = link.find("inertial")
        if inertial is None or inertial.find("inertia") is None:
            continue
        inertia = inertial.find("inertia")
        if not unphysical(inertia):
            continue
        mass, com, matrix = body(link.get("name"))
        origin = inertial.find("origin")
        if origin is None:
            origin = ET.SubElement(inertial, "origin")
        origin.set("xyz", " ".join(repr(float(x)) for x in com))
        origin.set("rpy", "0 0 0")
        inertial.find("mass").set("value", repr(mass))
        for key, (i, j) in MOMENTS.items():
            inertia.set(key, repr(float(matrix[i, j])))
        changed.append(link.get("name"))
    tree.write(copy)
    return changed


def distance(truth, run):
    """Largest distance of a link frame of `truth` from the same body of `run`, and where."""
    return peers_oracle.compare(truth, run)[:2]


def main():
    if len(sys.argv) != 4:
        raise SystemExit(__doc__)
    urdf, target, copy = sys.argv[1:]
    import pinocchio as pin

    changed = rewrite(urdf, target, copy)
    print("links whose inertia the target simulates otherwise:", ", ".join(changed) or "none")
    original = peers_oracle.simulate_pinocchio(pin.buildModelFromUrdf(urdf), urdf, mimic=False)
    repaired = peers_oracle.simulate_pinocchio(pin.buildModelFromUrdf(copy), copy, mimic=False)
    pose = original["pose"]
    if target.endswith(".xml"):
        simulated = peers_oracle.run_mujoco(target, pose)
    else:
        simulated = peers_oracle.run_drake(target, pose)
    for words, a, b in [
        ("Pinocchio, the file as it is, from the target", original, simulated),
        ("Pinocchio, the copy, from the target", repaired, simulated),
        ("Pinocchio, the file as it is, from the copy", original, repaired),
    ]:
        worst, where = distance(a, b)
        print(f"{words}: {worst:.2e} m" + ("" if math.isnan(worst) else f" ({where})"))


if __name__ == "__main__":
    main()
