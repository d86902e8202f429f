"""Reading every fixture format, round trips through strings, dictionaries and files."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

import mbconv
from conftest import FIXTURES, ROOT, cli, cli_json, fixture_files

FILES = fixture_files()
WRITERS = ["mbir", "chrono", "skel", "body", "shift", "urdf", "mjcf", "sdf"]


def rel(p: Path) -> str:
    return str(p.relative_to(ROOT))


def test_every_format_has_fixtures() -> None:
    formats = {f.name for f in mbconv.formats()}
    assert formats >= set(WRITERS)
    assert len(FILES) > 40


@pytest.mark.parametrize("path", FILES, ids=rel)
def test_read_matches_the_cli_info(path: Path) -> None:
    """Python reads what `mbconv info` reads, and `info()` is its `--json`."""
    done = cli("info", "--json", rel(path), check=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", mbconv.FindingWarning)
        if done.returncode != 0:
            with pytest.raises(mbconv.Error):
                mbconv.read(rel(path))
            return
        model = mbconv.read(rel(path))
    import json

    info = json.loads(done.stdout)
    # `info --json` of a xacro file also lists the file's arguments and the files it was
    # expanded from: a property of the input, not of the model `info()` describes.
    info.pop("xacro", None)
    assert model.info() == info
    assert model.name == info["name"]
    assert [b.name for b in model.bodies] == [b["name"] for b in info["bodies"]]
    assert [(j.name, j.type, j.parent, j.child, j.dof) for j in model.joints] == [
        (j["name"], j["type"], j["parent"], j["child"], j["dof"]) for j in info["joints"]
    ]
    assert model.gravity == (None if info["gravity"] is None else tuple(info["gravity"]))
    assert model.time_step == info["time_step"]


def test_read_string_reads_as_read_does() -> None:
    path = FIXTURES / "skel" / "joint_free.skel"
    from_file = mbconv.read(path)
    from_text = mbconv.read_string(path.read_text(), "skel")
    assert from_text.to_dict() == from_file.to_dict()


def test_dict_round_trip_is_exact() -> None:
    model = mbconv.read(FIXTURES / "ir" / "double_pendulum.mbir.json")
    data = model.to_dict()
    again = mbconv.Model.from_dict(data)
    assert again.to_dict() == data
    assert data["model"]["name"] == model.name
    assert mbconv.read_string(model.to_json(), "mbir").to_dict() == data


@pytest.mark.parametrize("target", WRITERS)
def test_string_round_trip(target: str) -> None:
    """Written to text in every format and read back: the same bodies."""
    model = mbconv.read(FIXTURES / "ir" / "double_pendulum.mbir.json")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", mbconv.FindingWarning)
        text = model.to_string(target)
        back = mbconv.read_string(text, target)
    # Chrono and Body add a ground or root body, SDFormat scopes names by the model; every
    # body is there.
    names = {b.name.split("::")[-1] for b in back.bodies}
    assert {b.name for b in model.bodies} <= names
    if target == "mbir":
        assert back.to_dict() == model.to_dict()


def test_file_round_trip(tmp_path: Path) -> None:
    model = mbconv.read(FIXTURES / "urdf" / "floating_base.urdf")
    out = tmp_path / "robot.skel"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", mbconv.FindingWarning)
        found = model.write(out)
        back = mbconv.read(out)
    assert out.exists()
    assert all(isinstance(f, mbconv.Finding) for f in found)
    assert [b.name for b in back.bodies] == [b.name for b in model.bodies]


@pytest.mark.filterwarnings("ignore::mbconv.FindingWarning")
def test_write_settings_are_keywords(tmp_path: Path) -> None:
    """`angles=...` is the writer's setting, as `--write-option angles=...`."""
    model = mbconv.read(FIXTURES / "ir" / "double_pendulum.mbir.json")
    radians = model.to_string("chrono", angles="radians")
    degrees = model.to_string("chrono", angles="degrees")
    assert radians != degrees


@pytest.mark.filterwarnings("ignore::mbconv.FindingWarning")
def test_convert_writes_and_checks(tmp_path: Path) -> None:
    out = tmp_path / "pendulum.xml"
    conversion = mbconv.convert(FIXTURES / "skel" / "joint_free.skel", out, to="mjcf")
    assert [Path(f) for f in conversion.files][0] == out
    assert conversion.check is not None
    assert conversion.check.verdict in ("exact", "explained", "skipped")
    assert conversion.model.name


def test_convert_findings_equal_the_cli(tmp_path: Path) -> None:
    src = "fixtures/urdf/floating_base.urdf"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", mbconv.FindingWarning)
        conversion = mbconv.convert(src, tmp_path / "a.skel", check=False)
    done = cli("convert", src, "-o", str(tmp_path / "b.skel"), "--no-check", "-v")
    for f in conversion.findings:
        if f.severity != "info":
            assert f.code in done.stderr, f.code


def test_formats_list_settings() -> None:
    chrono = next(f for f in mbconv.formats() if f.name == "chrono")
    assert "yaml" in chrono.extensions
    assert any(s.name == "angles" for s in chrono.write_settings)
