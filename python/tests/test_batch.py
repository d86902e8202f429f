"""convert_many: a folder converted on every core, as `mbconv convert DIR --to F -o OUT`."""

from __future__ import annotations

import os
from pathlib import Path
from typing import List

import mbconv
from conftest import cli


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


def test_a_failing_file_does_not_stop_the_others(tmp_path: Path) -> None:
    items = mbconv.convert_many(
        ["fixtures/bad/urdf_zero_axis.urdf", "fixtures/urdf/floating_base.urdf"], to="sdf", out_dir=tmp_path, workers=2
    )
    assert [i.ok for i in items] == [False, True]
    assert isinstance(items[0].error, mbconv.InvalidModelError)
    assert items[1].output == str(tmp_path / "floating_base.sdf")
