"""convert_many: a folder converted on every core by the Rust batch (the facade's
`mbconv::batch`, as `mbconv convert DIR --to F -o OUT`), with progress."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import List

import pytest

import mbconv
from conftest import ROOT, cli


def test_a_folder_converts_as_the_cli_batch_does(tmp_path: Path) -> None:
    calls: List[int] = []
    items = mbconv.convert_many(
        ["fixtures/skel"], to="mjcf", out_dir=tmp_path / "py", progress=lambda done, total, item: calls.append(done)
    )
    assert len(items) >= 10
    assert sorted(calls) == list(range(1, len(items) + 1))
    cli("convert", "fixtures/skel", "--to", "mjcf", "-o", str(tmp_path / "cli"), "--no-check", "-q", check=False)
    assert sorted(os.listdir(tmp_path / "py")) == sorted(os.listdir(tmp_path / "cli"))
    for item in items:
        assert item.ok, item.error
        assert item.conversion is not None and Path(item.output).exists()
        assert item.input.startswith("fixtures/skel/")
        assert (tmp_path / "py" / Path(item.output).name).read_text() == (tmp_path / "cli" / Path(item.output).name).read_text()


def test_a_failing_file_does_not_stop_the_others(tmp_path: Path) -> None:
    items = mbconv.convert_many(
        ["fixtures/bad/urdf_zero_axis.urdf", "fixtures/urdf/floating_base.urdf"], to="sdf", out_dir=tmp_path
    )
    assert [i.ok for i in items] == [False, True]
    assert isinstance(items[0].error, mbconv.InvalidModelError)
    assert items[1].output == str(tmp_path / "floating_base.sdf")


def test_two_inputs_writing_one_file_and_a_folder_without_models(tmp_path: Path) -> None:
    items = mbconv.convert_many(
        ["fixtures/urdf/floating_base.urdf", "fixtures/urdf/floating_base.urdf"], to="sdf", out_dir=tmp_path
    )
    assert [i.ok for i in items] == [True, False]
    assert isinstance(items[1].error, mbconv.WriteError) and "rename one" in str(items[1].error)
    (tmp_path / "empty").mkdir()
    with pytest.raises(mbconv.ReadError, match="no model file"):
        mbconv.convert_many([tmp_path / "empty"], to="sdf", out_dir=tmp_path / "out")


def test_the_batch_checks_when_asked(tmp_path: Path) -> None:
    items = mbconv.convert_many(["fixtures/ir/double_pendulum.mbir.json"], to="chrono", out_dir=tmp_path, check=True)
    check = items[0].conversion.check if items[0].conversion else None
    assert check is not None and check.verdict in ("exact", "explained")


def test_a_tqdm_bar_when_asked(tmp_path: Path) -> None:
    pytest.importorskip("tqdm")
    code = (
        "import mbconv, sys\n"
        f"items = mbconv.convert_many(['fixtures/skel'], to='sdf', out_dir={str(tmp_path)!r}, progress=True)\n"
        "assert all(i.ok for i in items)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "convert to sdf" in done.stderr and "file" in done.stderr
