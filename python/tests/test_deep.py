"""A model nests as deep as its kinematic tree, and the readers and writers that follow the
nesting recurse once per level: a 10 000-link chain overflowed a Python thread's stack and
killed the interpreter. The extension works on threads with a deep stack (its calls,
`convert_many`'s workers and the `mbconv` command); MJCF refuses a tree deeper than MuJoCo
reads with a WriteError."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

import mbconv
from conftest import cli

LINKS = 10_000


def chain(n: int) -> str:
    """A URDF serial chain of `n` links."""
    inertial = '<inertial><mass value="1"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial>'
    lines = ['<robot name="chain">']
    lines += [f'<link name="l{i}">{inertial}</link>' for i in range(n)]
    lines += [
        f'<joint name="j{i}" type="revolute"><parent link="l{i - 1}"/><child link="l{i}"/>'
        '<origin xyz="0 0 -0.1"/><axis xyz="0 1 0"/><limit lower="-1" upper="1" effort="1" velocity="1"/></joint>'
        for i in range(1, n)
    ]
    lines.append("</robot>")
    return "\n".join(lines)


@pytest.fixture(scope="module")
def deep_chain(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("deep") / "chain.urdf"
    path.write_text(chain(LINKS))
    return path


def test_a_ten_thousand_link_chain_converts_to_the_flat_formats(deep_chain: Path, tmp_path: Path) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", mbconv.FindingWarning)
        model = mbconv.read(deep_chain)
        assert len(model.bodies) == LINKS
        usd = model.to_string("usd")
        assert usd.count("PhysicsRevoluteJoint") >= LINKS - 1
        done = mbconv.convert(deep_chain, tmp_path / "one.sdf", check=False)
    assert Path(done.files[0]).read_text().count("<link ") == LINKS


def test_mjcf_refuses_a_tree_deeper_than_mujoco_reads_with_a_write_error(deep_chain: Path, tmp_path: Path) -> None:
    """The MJCF writer refuses a tree deeper than MuJoCo reads (496 nested bodies): a writer's
    refusal is a WriteError, also for a file of a batch, and nothing is written."""
    model = mbconv.read(deep_chain)
    with pytest.raises(mbconv.WriteError) as caught:
        model.to_string("mjcf")
    assert "496" in caught.value.message
    with pytest.raises(mbconv.WriteError):
        mbconv.convert(deep_chain, tmp_path / "one.xml", to="mjcf", check=False)
    items = mbconv.convert_many([deep_chain], to="mjcf", out_dir=tmp_path / "batch", progress=False)
    error = items[0].error
    assert type(error) is mbconv.WriteError and error.message == caught.value.message
    assert error.file == str(deep_chain)
    assert not (tmp_path / "one.xml").exists() and not Path(items[0].output).exists()


def test_the_batch_and_the_command_convert_it_too(deep_chain: Path, tmp_path: Path) -> None:
    items = mbconv.convert_many([deep_chain], to="sdf", out_dir=tmp_path / "batch", progress=False)
    assert items[0].ok, items[0].error
    cli("convert", str(deep_chain), "--to", "sdf", "-o", str(tmp_path / "cli.sdf"), "--no-check", "-q")
    assert (tmp_path / "cli.sdf").read_text() == Path(items[0].output).read_text()
