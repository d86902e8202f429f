"""Shared helpers of the Python package's tests: the repository's folders and the `mbconv`
command the package installs (the same CLI, run from the extension's entry point)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any, List

import pytest

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "fixtures"
# The fixture folders of the formats, and the files in them a format reads by extension.
FORMAT_DIRS = ["ir", "chrono", "skel", "body", "shift", "urdf", "mjcf", "sdf", "usd", "xacro"]
EXTENSIONS = (".mbir.json", ".yaml", ".skel", ".body", ".cnoid", ".json", ".urdf", ".xml", ".mjcf", ".sdf", ".usda", ".urdf.xacro")


def fixture_files() -> List[Path]:
    """Every fixture model at the top of each format's folder."""
    files = []
    for d in FORMAT_DIRS:
        for p in sorted((FIXTURES / d).iterdir()):
            if p.is_file() and p.name.endswith(EXTENSIONS):
                files.append(p)
    return files


def mbconv_command() -> str:
    """The `mbconv` console script of the environment the tests run in."""
    here = Path(sys.executable).parent / "mbconv"
    if here.exists():
        return str(here)
    found = shutil.which("mbconv")
    if found is None:
        pytest.skip("no mbconv command on PATH")
    return found


def cli(*args: str, check: bool = True) -> "subprocess.CompletedProcess[str]":
    """Runs the `mbconv` command in the repository's root."""
    env = dict(os.environ, NO_COLOR="1")
    done = subprocess.run(
        [mbconv_command(), *args], cwd=ROOT, capture_output=True, text=True, env=env
    )
    if check and done.returncode != 0:
        raise AssertionError(f"mbconv {' '.join(args)} exited {done.returncode}: {done.stderr}")
    return done


def cli_json(*args: str) -> Any:
    """The JSON the `mbconv` command prints."""
    return json.loads(cli(*args, check=False).stdout)


@pytest.fixture(autouse=True)
def _in_root(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test runs in the repository's root, as the command in `cli` does, so that the
    names reports give files are the same."""
    monkeypatch.chdir(ROOT)
