"""What the package writes loads in the simulators' own Python packages: an MJCF string in
MuJoCo (`mujoco.MjModel.from_xml_string`), a URDF string in Pinocchio
(`pinocchio.buildModelFromXML`). The harness (tests/pytest.rs) installs both from PyPI."""

from __future__ import annotations

import warnings

import pytest

import mbconv

MODELS = [
    "fixtures/ir/double_pendulum.mbir.json",
    "fixtures/urdf/floating_base.urdf",
    "fixtures/skel/joint_free.skel",
    "fixtures/chrono/joints.yaml",
    "fixtures/mjcf/keyframes.xml",
]


def written(path: str, target: str) -> "tuple[mbconv.Model, str]":
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", mbconv.FindingWarning)
        model = mbconv.read(path)
        return model, model.to_string(target)


@pytest.mark.parametrize("path", MODELS)
def test_mujoco_loads_the_mjcf_string(path: str) -> None:
    mujoco = pytest.importorskip("mujoco")
    model, text = written(path, "mjcf")
    loaded = mujoco.MjModel.from_xml_string(text)
    # Every body of the model is a MuJoCo body (MJCF may add massless links for joints).
    names = {mujoco.mj_id2name(loaded, mujoco.mjtObj.mjOBJ_BODY, i) for i in range(loaded.nbody)}
    assert {b.name for b in model.bodies if not b.fixed} <= names
    data = mujoco.MjData(loaded)
    mujoco.mj_step(loaded, data)


@pytest.mark.parametrize("path", MODELS)
def test_pinocchio_loads_the_urdf_string(path: str) -> None:
    pinocchio = pytest.importorskip("pinocchio")
    model, text = written(path, "urdf")
    loaded = pinocchio.buildModelFromXML(text)
    frames = {f.name for f in loaded.frames}
    assert {b.name for b in model.bodies} <= frames | {"world"}
    assert loaded.nv >= sum(j.dof for j in model.joints if not j.closes_loop and j.type != "free")
