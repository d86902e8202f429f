"""The package's types: mypy checks the package against its stubs (`mbconv/_native.pyi`,
`py.typed`) and a typed use of the API, and stubtest compares the stubs with the module."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).parent

pytest.importorskip("mypy")


def mypy(*args: str) -> "subprocess.CompletedProcess[str]":
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--no-incremental", "--cache-dir", os.devnull, *args],
        capture_output=True,
        text=True,
        cwd=HERE,
    )


def test_mypy_checks_the_package_and_a_typed_use() -> None:
    done = mypy("--strict", "-p", "mbconv")
    assert done.returncode == 0, done.stdout + done.stderr
    done = mypy("--strict", str(HERE / "typed_use.py"))
    assert done.returncode == 0, done.stdout + done.stderr


def test_mypy_refuses_a_wrong_use() -> None:
    done = mypy("--strict", "-c", "import mbconv\nm: mbconv.Model = mbconv.read(1.5)\nx: int = m.name\n")
    assert done.returncode == 1
    assert 'Argument 1 to "read"' in done.stdout and "Found 2 errors" in done.stdout


def test_the_stubs_match_the_extension_module() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "mypy.stubtest", "mbconv._native"], capture_output=True, text=True, cwd=HERE
    )
    assert done.returncode == 0, done.stdout + done.stderr
