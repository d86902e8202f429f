"""Every exception class docs/python.md promises is raised where it says, each with its code,
file, line, column (where the source has them) and message: one test per class, for the single
calls and for `convert_many`, whose items hold the exception of the file that failed."""

from __future__ import annotations

from pathlib import Path
from typing import Any, List, Optional

import pytest

import mbconv

SKEL = "fixtures/skel/joint_free.skel"
LOSSY = "fixtures/urdf/floating_base.urdf"


def located(e: mbconv.Error, cls: type, code: str, file: Optional[str], line: Optional[int] = None) -> None:
    """`e` is exactly of class `cls` with the code, file and line given, a message, and the
    text the command prints."""
    assert type(e) is cls, f"{type(e).__name__} raised, {cls.__name__} expected: {e}"
    assert e.code == code, e.code
    assert e.file == file, e.file
    assert e.line == line and (e.column is None) == (line is None), (e.line, e.column)
    assert e.message and e.rendered and str(e)
    if file is not None:
        assert file in str(e)


def raised(call: Any) -> mbconv.Error:
    with pytest.raises(mbconv.Error) as caught:
        call()
    return caught.value


def only_error(items: List[mbconv.BatchItem]) -> mbconv.Error:
    assert len(items) == 1 and not items[0].ok and items[0].conversion is None
    assert items[0].error is not None
    return items[0].error


def test_read_error_missing_file_and_refused_text() -> None:
    located(raised(lambda: mbconv.read("no/such.skel")), mbconv.ReadError, "mbconv::io", "no/such.skel")
    e = raised(lambda: mbconv.read_string("<skel><world>", "skel", name="broken.skel"))
    assert type(e) is mbconv.ReadError and e.file == "broken.skel" and e.line == 1 and e.column is not None


def test_invalid_model_error_lists_its_findings() -> None:
    e = raised(lambda: mbconv.read("fixtures/bad/urdf_zero_axis.urdf"))
    located(e, mbconv.InvalidModelError, "mbconv::invalid", "fixtures/bad/urdf_zero_axis.urdf", 4)
    assert isinstance(e, mbconv.ReadError) and e.findings[0].severity == "error"


def test_write_error_when_the_output_cannot_be_written(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    model = mbconv.read(SKEL)
    out = str(blocker / "x.urdf")
    e = raised(lambda: model.write(out))
    located(e, mbconv.WriteError, "mbconv::io", out)
    assert "cannot write" in e.message and "Not a directory" in e.message
    e = raised(lambda: mbconv.convert(SKEL, blocker / "x.xml", to="mjcf", check=False))
    located(e, mbconv.WriteError, "mbconv::io", str(blocker / "x.xml"))
    # A companion file: Chrono's simulation file.
    sim = str(blocker / "sim.yaml")
    e = raised(lambda: mbconv.convert(SKEL, tmp_path / "x.yaml", check=False, sim_out=sim))
    located(e, mbconv.WriteError, "mbconv::io", sim)
    assert not (tmp_path / "x.yaml").exists()


def test_write_error_when_the_output_exists_or_is_the_input(tmp_path: Path) -> None:
    out = tmp_path / "x.sdf"
    out.write_text("keep")
    located(raised(lambda: mbconv.convert(SKEL, out, check=False)), mbconv.WriteError, "mbconv::output", str(out))
    assert out.read_text() == "keep"
    e = raised(lambda: mbconv.convert(SKEL, SKEL, check=False, force=True))
    located(e, mbconv.WriteError, "mbconv::output", SKEL)


def test_setting_error() -> None:
    model = mbconv.read(SKEL)
    e = raised(lambda: model.to_string("chrono", angles="sideways"))
    located(e, mbconv.SettingError, "format::bad_setting", None)
    assert "degrees | radians" in e.message and isinstance(e, ValueError)
    located(raised(lambda: model.to_string("chrono", no_such=1)), mbconv.SettingError, "format::unknown_setting", None)
    located(raised(lambda: mbconv.read(SKEL, no_such=1)), mbconv.SettingError, "format::unknown_setting", None)
    e = raised(lambda: mbconv.simulate(model, integrator="leapfrog"))
    located(e, mbconv.SettingError, "mbconv::integrator", None)


def test_format_lookup_error() -> None:
    e = raised(lambda: mbconv.read(SKEL).to_string("nope"))
    located(e, mbconv.FormatLookupError, "format::unknown", None)
    assert isinstance(e, ValueError) and "known formats" in e.message
    assert type(raised(lambda: mbconv.check(SKEL, via=["nope"]))) is mbconv.FormatLookupError


def test_strict_error_names_the_input(tmp_path: Path) -> None:
    e = raised(lambda: mbconv.convert(LOSSY, tmp_path / "x.xml", to="mjcf", strict=True, check=False))
    located(e, mbconv.StrictError, "mbconv::strict", LOSSY)
    assert not (tmp_path / "x.xml").exists()


@pytest.mark.parametrize(
    "arguments",
    [{"duration": -1.0}, {"duration": float("inf")}, {"dt": 0.0}, {"dt": float("nan")}, {"tol_pos": -1e-6}],
)
def test_check_error_for_arguments_out_of_range(arguments: Any) -> None:
    e = raised(lambda: mbconv.check("fixtures/ir/double_pendulum.mbir.json", via=["sdf"], **arguments))
    located(e, mbconv.CheckError, "mbconv::check", None)
    assert e.message.startswith("cannot check: ")


@pytest.mark.parametrize("arguments", [{"duration": -1.0}, {"dt": 0.0}, {"every": 0}])
def test_simulation_error(arguments: Any) -> None:
    model = mbconv.read("fixtures/ir/double_pendulum.mbir.json")
    e = raised(lambda: mbconv.simulate(model, **arguments))
    located(e, mbconv.SimulationError, "mbconv::solver::options", None)


def test_the_batch_items_hold_each_files_exception(tmp_path: Path) -> None:
    many = mbconv.convert_many
    # Reading: a missing file, a model the reader refuses, an invalid model.
    located(only_error(many(["no/such.skel"], to="sdf", out_dir=tmp_path)), mbconv.ReadError, "mbconv::io", "no/such.skel")
    e = only_error(many(["fixtures/bad/urdf_zero_axis.urdf"], to="sdf", out_dir=tmp_path))
    located(e, mbconv.InvalidModelError, "mbconv::invalid", "fixtures/bad/urdf_zero_axis.urdf", 4)
    # Writing: the output exists, its folder cannot be made, a companion cannot be written.
    many([SKEL], to="sdf", out_dir=tmp_path)
    e = only_error(many([SKEL], to="sdf", out_dir=tmp_path))
    located(e, mbconv.WriteError, "mbconv::output", str(tmp_path / "joint_free.sdf"))
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    e = only_error(many([SKEL], to="sdf", out_dir=blocker))
    located(e, mbconv.WriteError, "mbconv::batch", str(blocker / "joint_free.sdf"))
    sim = str(blocker / "sim.yaml")
    located(only_error(many([SKEL], to="chrono", out_dir=tmp_path, sim_out=sim)), mbconv.WriteError, "mbconv::io", sim)
    # Strict: the input named.
    e = only_error(many([LOSSY], to="mjcf", out_dir=tmp_path, strict=True))
    located(e, mbconv.StrictError, "mbconv::strict", LOSSY)


def test_the_batch_raises_before_converting_anything(tmp_path: Path) -> None:
    e = raised(lambda: mbconv.convert_many([SKEL], to="nope", out_dir=tmp_path))
    assert type(e) is mbconv.FormatLookupError
    e = raised(lambda: mbconv.convert_many([SKEL], to="chrono", out_dir=tmp_path, angles="sideways"))
    assert type(e) is mbconv.SettingError
    (tmp_path / "empty").mkdir()
    e = raised(lambda: mbconv.convert_many([tmp_path / "empty"], to="sdf", out_dir=tmp_path / "out"))
    located(e, mbconv.ReadError, "mbconv::batch", str(tmp_path / "empty"))
    assert list(tmp_path.iterdir()) == [tmp_path / "empty"]


def test_exceptions_pickle_with_their_places() -> None:
    import pickle

    e = raised(lambda: mbconv.read("fixtures/bad/urdf_zero_axis.urdf"))
    back = pickle.loads(pickle.dumps(e))
    assert type(back) is type(e)
    assert (back.code, back.file, back.line, back.column, back.message) == (e.code, e.file, e.line, e.column, e.message)
    assert [f.code for f in back.findings] == [f.code for f in e.findings]


def test_messages_name_the_keyword_arguments_not_the_commands_flags(tmp_path: Path) -> None:
    """A Python caller reads `force=True`, not `--force`: the message speaks the API's words,
    `rendered` keeps the command's text."""
    out = tmp_path / "x.sdf"
    out.write_text("keep")
    e = raised(lambda: mbconv.convert(SKEL, out, check=False))
    assert "force=True" in e.message and "--" not in e.message, e.message
    assert "--force" in e.rendered
    e = raised(lambda: mbconv.convert(LOSSY, tmp_path / "x.xml", to="mjcf", strict=True, check=False))
    assert e.message.startswith("strict=True: ") and "--" not in e.message, e.message
    e = raised(lambda: mbconv.read(SKEL).write(tmp_path / "no-extension"))
    assert type(e) is mbconv.FormatLookupError and "to=" in e.message and "--" not in e.message, e.message
    (tmp_path / "empty").mkdir()
    e = raised(lambda: mbconv.convert_many([tmp_path / "empty"], to="sdf", out_dir=tmp_path / "out"))
    assert "recursive=True" in e.message and "--" not in e.message, e.message


@pytest.mark.parametrize("check", ["bogus", "auto", "none", 1, None])
def test_a_check_mode_that_means_nothing_is_refused(tmp_path: Path, check: Any) -> None:
    with pytest.raises(ValueError, match="check= takes True, False or 'full'"):
        mbconv.convert(SKEL, tmp_path / "x.sdf", check=check)
    with pytest.raises(ValueError, match="check= takes"):
        mbconv.convert_many([SKEL], to="sdf", out_dir=tmp_path, check=check)
    assert not (tmp_path / "x.sdf").exists()


def test_a_warning_carries_its_finding() -> None:
    import pickle
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error", mbconv.FindingWarning)
        with pytest.raises(mbconv.WarningFinding) as caught:
            mbconv.read(LOSSY).to_string("mjcf")
    w = caught.value
    assert isinstance(w.finding, mbconv.Finding) and w.finding.severity == "warning"
    assert w.code == w.finding.code and w.code in str(w)
    back = pickle.loads(pickle.dumps(w))
    assert type(back) is type(w) and back.finding == w.finding and str(back) == str(w)


def test_xacro_settings_are_listed() -> None:
    settings = {s.name: s for s in mbconv.xacro_settings()}
    assert list(settings) == ["arg:NAME", "package_path"]
    assert "$(find PKG)" in settings["package_path"].help


def test_the_place_is_said_once_and_counts_read_as_english(tmp_path: Path) -> None:
    e = raised(lambda: mbconv.read("fixtures/bad/urdf_zero_axis.urdf"))
    assert str(e).startswith("fixtures/bad/urdf_zero_axis.urdf:4:"), str(e)
    assert str(e).count("urdf_zero_axis.urdf") == 1 and "(1 error)" in str(e), str(e)
    e = raised(lambda: mbconv.convert(SKEL, tmp_path / "no" / "such" / "x.sdf", check=False))
    assert type(e) is mbconv.WriteError and ".tmp" not in e.message, e.message
    assert e.message.startswith(f"cannot write {tmp_path / 'no' / 'such' / 'x.sdf'}: "), e.message


def test_simulated_progress_never_passes_the_whole() -> None:
    seen: List[Any] = []
    mbconv.simulate("fixtures/ir/double_pendulum.mbir.json", duration=0.2, progress=lambda t, d: seen.append((t, d)))
    assert seen and all(t <= d for t, d in seen) and seen[-1][0] == seen[-1][1] == 0.2
