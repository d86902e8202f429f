"""Check verdicts and trajectories equal the command's."""

from __future__ import annotations

import csv
import io
import json
import threading
import time
import warnings
from typing import Callable, Tuple

import numpy as np
import pytest

import mbconv
from conftest import cli

MODELS = ["fixtures/ir/double_pendulum.mbir.json", "fixtures/urdf/floating_base.urdf", "fixtures/skel/joint_free.skel"]


def _no_trace(data: dict) -> dict:
    return data


@pytest.mark.parametrize("path", MODELS)
def test_check_equals_the_cli_json(path: str) -> None:
    via = ["mjcf", "sdf", "skel"]
    expected = json.loads(cli("check", path, "--via", ",".join(via), "--duration", "0.2", "--json", check=False).stdout)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", mbconv.FindingWarning)
        report = mbconv.check(path, via=via, duration=0.2)
    assert report.data == expected
    assert [t.format for t in report.targets] == via
    for target, want in zip(report.targets, expected["targets"]):
        assert target.verdict == want["verdict"]
        assert target.max_com_error == want["max_com_error"]
        assert [e.code for e in target.explained_by] == [e["code"] for e in want["explained_by"]]


def test_check_traces_are_arrays() -> None:
    model = mbconv.read("fixtures/ir/double_pendulum.mbir.json")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", mbconv.FindingWarning)
        report = model.check(via=["chrono"], duration=0.2)
    assert report.passed
    trace = report["chrono"].trace
    assert trace is not None
    n = trace.t.shape[0]
    assert trace.original.shape == (n, 3) and trace.converted.shape == (n, 3)
    assert trace.error.shape == (n,)
    assert float(trace.error.max()) <= 1e-6 or report["chrono"].verdict != "exact"


def test_check_gives_every_bodys_error_over_time() -> None:
    """`targets[i].errors`: time (n,), position and rotation errors (n, bodies) as numpy
    arrays, whose largest values are the JSON's largest errors."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", mbconv.FindingWarning)
        report = mbconv.check("fixtures/urdf/floating_base.urdf", via=["mjcf", "skel"], duration=0.2)
    for target in report.targets:
        errors = target.errors
        assert errors is not None, target.format
        n, b = errors.position.shape
        assert errors.t.shape == (n,) and errors.rotation.shape == (n, b)
        assert errors.body_names == tuple(b.name for b in mbconv.read("fixtures/urdf/floating_base.urdf").bodies)
        assert b == len(errors.body_names) == 3
        assert errors.position.dtype == np.float64
        assert float(np.nanmax(errors.position)) == target.max_com_error
        assert float(np.nanmax(errors.rotation)) == target.max_rotation_error
        worst = target.max_com_error_body
        if worst is not None:
            position, _ = errors[worst]
            assert float(position.max()) == target.max_com_error


def test_check_and_simulate_report_progress() -> None:
    steps: list = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", mbconv.FindingWarning)
        mbconv.check("fixtures/ir/double_pendulum.mbir.json", via=["mjcf", "sdf"], duration=0.1,
                      progress=lambda done, total, step: steps.append((done, total, step)))
    assert steps == [(1, 3, "original"), (2, 3, "mjcf"), (3, 3, "sdf")]
    times: list = []
    model = mbconv.read("fixtures/ir/double_pendulum.mbir.json")
    mbconv.simulate(model, duration=1.0, progress=lambda t, duration: times.append((t, duration)))
    assert 90 <= len(times) <= 102 and times[0] == (0.0, 1.0)
    assert times == sorted(times) and times[-1][0] >= 0.99


def test_an_exception_in_a_progress_callback_is_raised() -> None:
    def broken(*_: object) -> None:
        raise KeyError("stop")

    model = mbconv.read("fixtures/ir/double_pendulum.mbir.json")
    with pytest.raises(KeyError):
        mbconv.simulate(model, duration=0.1, progress=broken)


def ticks_during(work: "Callable[[], object]") -> "Tuple[float, int]":
    """Runs `work` while another thread ticks every millisecond: how long it took and how many
    ticks fell within it (none if `work` held the GIL)."""
    ticks = []
    done = threading.Event()

    def tick() -> None:
        while not done.is_set():
            ticks.append(time.perf_counter())
            time.sleep(0.001)

    ticker = threading.Thread(target=tick)
    ticker.start()
    started = time.perf_counter()
    work()
    elapsed = time.perf_counter() - started
    done.set()
    ticker.join()
    return elapsed, len([t for t in ticks if started < t < started + elapsed])


def test_a_python_thread_keeps_running_during_a_check() -> None:
    """The GIL is released while Rust checks: a ticking thread keeps ticking."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", mbconv.FindingWarning)
        elapsed, during = ticks_during(
            lambda: mbconv.check("fixtures/urdf/floating_base.urdf", via=["mjcf", "sdf", "chrono"], duration=1.0)
        )
    # A thread that ticks every millisecond gets at least a tick per 20 ms of the check.
    assert elapsed < 0.05 or during >= elapsed / 0.02, (elapsed, during)


@pytest.mark.parametrize("integrator", ["semi-implicit-euler", "rk4", "dopri5"])
def test_trajectory_equals_the_cli_csv(integrator: str) -> None:
    path = "fixtures/ir/double_pendulum.mbir.json"
    text = cli("simulate", path, "--duration", "0.05", "--integrator", integrator).stdout
    rows = list(csv.reader(io.StringIO(text)))
    header, values = rows[0], np.array([[float(v) for v in r] for r in rows[1:]])
    traj = mbconv.simulate(mbconv.read(path), duration=0.05, integrator=integrator)
    b = len(traj.body_names)
    assert header[1::7] == [f"{name}.x" for name in traj.body_names]
    assert traj.t.shape == (len(values),)
    assert traj.position.shape == (len(values), b, 3)
    assert traj.orientation.shape == (len(values), b, 4)
    assert np.array_equal(traj.t, values[:, 0])
    poses = values[:, 1 : 1 + 7 * b].reshape(len(values), b, 7)
    assert np.array_equal(traj.position, poses[:, :, :3])
    assert np.array_equal(traj.orientation, poses[:, :, 3:])


def test_energy_and_every() -> None:
    model = mbconv.read("fixtures/ir/double_pendulum.mbir.json")
    traj = model.simulate(0.1, dt=1e-3, every=10, energy=True)
    assert traj.t.shape == (11,)
    assert traj.kinetic is not None and traj.kinetic.shape == (11,)
    assert traj.steps == 100


def test_the_gil_is_released_while_rust_works() -> None:
    """A Python thread keeps running while a simulation runs in another."""
    model = mbconv.read("fixtures/ir/double_pendulum.mbir.json")
    elapsed, during = ticks_during(lambda: mbconv.simulate(model, duration=20.0, dt=1e-3, integrator="rk4"))
    assert elapsed < 0.05 or during >= 5, (elapsed, during)


def test_a_diverging_simulation_raises() -> None:
    model = mbconv.read("fixtures/ir/double_pendulum.mbir.json")
    with pytest.raises(mbconv.SettingError):
        mbconv.simulate(model, integrator="no-such-integrator")


def test_what_a_newcomer_writes_first_works() -> None:
    """The calls a user wrote from docs/python.md alone (the blind-script test): ``via`` as
    one name, ``simulate`` given a path, an unknown body's errors a ``KeyError``."""
    path = "fixtures/ir/double_pendulum.mbir.json"
    report = mbconv.check(path, via="mjcf", duration=0.1)
    assert [t.format for t in report.targets] == ["mjcf"]
    with pytest.raises(KeyError):
        report["mjcf"].errors["no such body"]
    trajectory = mbconv.simulate(path, duration=0.01)
    assert trajectory.position.shape[1] == len(trajectory.body_names)
