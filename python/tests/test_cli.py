"""The `mbconv` command the package installs is the CLI."""

from __future__ import annotations

from conftest import cli


def test_the_command_runs() -> None:
    done = cli("--version")
    assert done.stdout.startswith("mbconv ")
    formats = cli("formats").stdout
    for name in ["chrono", "skel", "urdf", "mjcf", "sdf"]:
        assert name in formats


def test_the_command_exit_codes() -> None:
    assert cli("no-such-command", check=False).returncode == 2
    assert cli("validate", "fixtures/bad/urdf_zero_axis.urdf", check=False).returncode == 2
