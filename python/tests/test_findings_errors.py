"""Findings as objects and as warnings; errors as exceptions with their locations."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

import mbconv
from conftest import FIXTURES, cli

LOSSY = "fixtures/urdf/floating_base.urdf"


def test_findings_are_objects_with_places() -> None:
    model = mbconv.read(LOSSY)
    f = model.findings[0]
    assert isinstance(f, mbconv.Finding)
    assert (f.code, f.severity, f.file) == ("urdf.world_declared", "info", "fixtures/urdf/floating_base.urdf")
    assert f.line is not None and f.column is not None
    assert f.path == "model"


def test_warnings_go_through_the_warnings_module() -> None:
    model = mbconv.read(LOSSY)
    with pytest.warns(mbconv.WarningFinding) as caught:
        model.to_string("mjcf")
    codes = [str(w.message) for w in caught]
    assert any("mjcf.rate_effort_limits_lost" in c for c in codes)
    assert all(issubclass(w.category, mbconv.FindingWarning) for w in caught)
    assert issubclass(mbconv.WarningFinding, UserWarning)


def test_warnings_as_errors() -> None:
    model = mbconv.read(LOSSY)
    with warnings.catch_warnings():
        warnings.simplefilter("error", mbconv.FindingWarning)
        with pytest.raises(mbconv.WarningFinding):
            model.to_string("mjcf")


def test_a_reader_error_has_its_place() -> None:
    text = '<robot name="x">\n  <link name="a"/>\n  <joint name="j" type="bogus"><parent link="a"/><child link="a"/></joint>\n</robot>\n'
    with pytest.raises(mbconv.ReadError) as caught:
        mbconv.read_string(text, "urdf")
    e = caught.value
    assert (e.file, e.line, e.column) == ("<urdf text>", 3, 25)
    assert e.code is not None and e.code.startswith("urdf")
    assert "bogus" in e.message and "bogus" in e.rendered
    assert str(e).startswith("<urdf text>:3:25: ")


@pytest.mark.parametrize(
    "name",
    ["chrono_negative_mass.yaml", "urdf_zero_axis.urdf", "ir_dangling_parent.mbir.json", "body_unknown_joint.body"],
)
def test_bad_fixtures_raise_what_the_cli_refuses(name: str) -> None:
    path = f"fixtures/bad/{name}"
    done = cli("validate", path, check=False)
    assert done.returncode == 2
    with pytest.raises(mbconv.ReadError) as caught:
        mbconv.read(path)
    e = caught.value
    assert e.file is not None and e.file.endswith(name)
    assert e.line is not None and e.column is not None
    # The command prints the same place.
    assert f"{e.line}:{e.column}" in done.stderr or f"{e.line}:{e.column}" in done.stdout


def test_an_invalid_model_lists_its_errors() -> None:
    with pytest.raises(mbconv.InvalidModelError) as caught:
        mbconv.read("fixtures/bad/urdf_zero_axis.urdf")
    e = caught.value
    assert e.code == "mbconv::invalid"
    assert [f.severity for f in e.findings if f.severity == "error"]


def test_missing_file() -> None:
    with pytest.raises(mbconv.ReadError) as caught:
        mbconv.read("no/such/model.urdf")
    assert caught.value.file == "no/such/model.urdf"
    assert caught.value.code == "mbconv::io"


def test_unknown_setting_and_format() -> None:
    model = mbconv.read(LOSSY)
    with pytest.raises(mbconv.SettingError) as caught:
        model.to_string("chrono", no_such_setting=1)
    assert "no_such_setting" in caught.value.message
    with pytest.raises(mbconv.FormatLookupError):
        model.to_string("no-such-format")
    with pytest.raises(ValueError):
        mbconv.read(LOSSY, format="no-such-format")


def test_an_existing_output_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "x.skel"
    out.write_text("keep")
    with pytest.raises(mbconv.WriteError) as caught:
        mbconv.convert(LOSSY, out, check=False)
    assert caught.value.file == str(out)
    assert out.read_text() == "keep"


def test_strict_refuses_a_lossy_conversion(tmp_path: Path) -> None:
    with pytest.raises(mbconv.StrictError):
        mbconv.convert(LOSSY, tmp_path / "x.xml", to="mjcf", strict=True, check=False)
    assert not (tmp_path / "x.xml").exists()
