"""mbconv.ray: a corpus folder converted by Ray tasks on a local Ray instance with two
workers, the items equal to the local batch's."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Iterator, List

import pytest

import mbconv
from conftest import ROOT

CORPUS_URDF = ROOT.parent / "shared" / "corpus" / "urdf"


@pytest.fixture(scope="module")
def ray_two_workers() -> Iterator[object]:
    ray = pytest.importorskip("ray")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    try:
        yield ray
    finally:
        ray.shutdown()


def _compare(local: List[mbconv.BatchItem], remote: List[mbconv.BatchItem]) -> None:
    assert [(i.input, os.path.basename(i.output), i.ok) for i in remote] == [
        (i.input, os.path.basename(i.output), i.ok) for i in local
    ]
    for a, b in zip(local, remote):
        if a.conversion is not None and b.conversion is not None:
            assert [f.code for f in a.conversion.findings] == [f.code for f in b.conversion.findings]
            assert a.conversion.model.to_json() == b.conversion.model.to_json()
            assert Path(a.output).read_bytes() == Path(b.output).read_bytes()
        if a.error is not None and b.error is not None:
            assert type(a.error) is type(b.error) and a.error.code == b.error.code


def test_ray_converts_a_folder_of_fixtures(ray_two_workers: object, tmp_path: Path) -> None:
    import mbconv.ray

    folders = ["fixtures/skel", "fixtures/urdf", "fixtures/bad"]
    seen: List[int] = []
    remote = mbconv.ray.convert_many(folders, to="mjcf", out_dir=tmp_path / "ray",
                                     progress=lambda done, total, item: seen.append(done))
    local = mbconv.convert_many(folders, to="mjcf", out_dir=tmp_path / "local", progress=False)
    assert len(remote) >= 20 and sorted(seen) == list(range(1, len(remote) + 1))
    assert any(not i.ok for i in remote), "fixtures/bad holds models that fail"
    _compare(local, remote)


def test_ray_converts_the_shared_urdf_corpus(ray_two_workers: object, tmp_path: Path) -> None:
    import mbconv.ray

    if not CORPUS_URDF.is_dir():
        print(f"notice: {CORPUS_URDF} is absent: the Ray batch over the URDF corpus is skipped", file=sys.stderr)
        pytest.skip(f"{CORPUS_URDF} is absent")
    remote = mbconv.ray.convert_many([CORPUS_URDF], to="sdf", out_dir=tmp_path / "ray", recursive=True)
    local = mbconv.convert_many([CORPUS_URDF], to="sdf", out_dir=tmp_path / "local", recursive=True, progress=False)
    assert len(remote) >= 10
    _compare(local, remote)


def test_mbconv_imports_without_ray() -> None:
    """Ray is imported only when mbconv.ray.convert_many runs."""
    import subprocess

    code = "import sys, mbconv, mbconv.ray; assert 'ray' not in sys.modules, 'ray imported'"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_ray_items_hold_each_files_exception(ray_two_workers: object, tmp_path: Path) -> None:
    """A file that cannot be read or written is an item with the exception the local batch
    gives, class, code and file alike (a write failure is a WriteError naming the output)."""
    import mbconv.ray

    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    inputs = ["fixtures/skel/joint_free.skel", "no/such.skel"]
    # The output folder cannot be made; a companion file (Chrono's simulation file) cannot be
    # written, and an input is missing.
    expected = {blocker: [mbconv.WriteError, mbconv.WriteError], tmp_path / "out": [mbconv.WriteError, mbconv.ReadError]}
    for out_dir, classes in expected.items():
        remote = mbconv.ray.convert_many(inputs, to="chrono", out_dir=out_dir, sim_out=str(blocker / "sim.yaml"))
        local = mbconv.convert_many(inputs, to="chrono", out_dir=out_dir, sim_out=str(blocker / "sim.yaml"))
        for a, b in zip(local, remote):
            assert a.error is not None and b.error is not None
            assert (type(b.error), b.error.code, b.error.file) == (type(a.error), a.error.code, a.error.file)
            assert b.error.message
        assert [type(i.error) for i in remote] == classes
    assert remote[0].error is not None and remote[0].error.file == str(blocker / "sim.yaml")
    assert remote[1].error is not None and remote[1].error.file == "no/such.skel"
