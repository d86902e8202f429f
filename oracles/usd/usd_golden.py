"""OpenUSD's own reading of the USD fixtures, as golden data for mbconv's USD reader.

For every stage of fixtures/usd/ (not the layers under a Payload/ folder, which are parts of
a stage), OpenUSD (`pxr`, PyPI `usd-core`) parses the physics the way engines do
(`UsdPhysics.LoadUsdPhysicsFromRange`) and this writes, per stage, a JSON file to
formats/mbconv-usd/tests/golden/: the stage units, the scene's gravity, per rigid body its
world position and rotation (stage units) and its authored mass, per joint its type, bodies,
local poses, axis and limit. `formats/mbconv-usd/tests/golden.rs` compares the reader with it.

Run it in a venv of its own (do not install usd-core beside usd-exchange):

    python3 -m venv target/oracles/usd
    target/oracles/usd/bin/pip install usd-core==26.11
    target/oracles/usd/bin/python oracles/usd/usd_golden.py

With `--downloads DIR` it parses the USD corpus `cargo xtask download` unpacked in DIR
(target/downloads: the example and test stages of the `newton` wheel) into
formats/mbconv-usd/tests/golden/downloads/.

With `--held-out DIR` it parses the peers' USD that `cargo xtask peers-usd` left in DIR
(target/peers-usd) instead, writing `openusd.json` beside each root layer (`cargo xtask golden
usd` does both when DIR exists).
"""

import json
import pathlib
import sys
import warnings

from pxr import Gf, Usd, UsdGeom, UsdPhysics

ROOT = pathlib.Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "fixtures" / "usd"
GOLDEN = ROOT / "formats" / "mbconv-usd" / "tests" / "golden"


def vec(v):
    return [float(x) for x in v]


def quat(q):
    return [float(q.GetReal())] + vec(q.GetImaginary())


def rigid_pose(stage, path):
    """The world position and rotation (scale and shear left out) of the prim at `path`."""
    matrix = UsdGeom.Xformable(stage.GetPrimAtPath(path)).ComputeLocalToWorldTransform(Usd.TimeCode.Default())
    transform = Gf.Transform(matrix)
    return {"position": vec(transform.GetTranslation()), "rotation": quat(transform.GetRotation().GetQuat())}


def parse(stage):
    """OpenUSD's physics parse of the whole stage (`UsdPhysics.LoadUsdPhysicsFromRange`)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        return UsdPhysics.LoadUsdPhysicsFromRange(stage, ["/"])


def stage_golden(path):
    stage = Usd.Stage.Open(str(path))
    return describe(stage, parse(stage))


def describe(stage, parsed):
    """The golden data of a stage from OpenUSD's parse of it (`parse`): units, scenes, rigid
    bodies and joints (see the module's documentation)."""
    out = {
        "meters_per_unit": UsdGeom.GetStageMetersPerUnit(stage),
        "kilograms_per_unit": UsdPhysics.GetStageKilogramsPerUnit(stage),
        "up_axis": str(UsdGeom.GetStageUpAxis(stage)),
        "scenes": [],
        "bodies": [],
        "joints": [],
    }
    for kind, (paths, descs) in sorted(parsed.items(), key=lambda kv: str(kv[0])):
        name = str(kind)
        for p, d in zip(paths, descs):
            if name == "Scene":
                out["scenes"].append({
                    "path": str(p),
                    "gravity_direction": vec(d.gravityDirection),
                    "gravity_magnitude": float(d.gravityMagnitude),
                })
            elif name == "RigidBody":
                mass = UsdPhysics.MassAPI(stage.GetPrimAtPath(p)).GetMassAttr()
                out["bodies"].append({
                    "path": str(p),
                    "position": vec(d.position),
                    "rotation": quat(d.rotation),
                    "scale": vec(d.scale),
                    "kinematic": bool(d.kinematicBody),
                    "mass": float(mass.Get()) if mass and mass.HasAuthoredValue() else None,
                })
            elif name.endswith("Joint"):
                limit = getattr(d, "limit", None)
                out["joints"].append({
                    "path": str(p),
                    "type": name,
                    "body0": str(d.body0),
                    "body1": str(d.body1),
                    "local_pos0": vec(d.localPose0Position),
                    "local_rot0": quat(d.localPose0Orientation),
                    "local_pos1": vec(d.localPose1Position),
                    "local_rot1": quat(d.localPose1Orientation),
                    "axis": str(d.axis) if hasattr(d, "axis") else None,
                    "limit": [float(limit.lower), float(limit.upper)] if limit is not None and limit.enabled else None,
                })
    # A joint side OpenUSD names that is not a rigid body (a static collider: the topmost prim
    # with PhysicsCollisionAPI above the target when no rigid body is) holds the joint to the
    # world; its world pose places the local pose OpenUSD reports in its frame.
    bodies = {b["path"] for b in out["bodies"]}
    for joint in out["joints"]:
        for side in ("body0", "body1"):
            if joint[side] and joint[side] not in bodies:
                joint[side.replace("body", "static")] = rigid_pose(stage, joint[side])
    for key in ("scenes", "bodies", "joints"):
        out[key].sort(key=lambda item: item["path"])
    return out


def held_out(root):
    """OpenUSD's parse of every peer converter's root layer under `root` (the held-out set
    `cargo xtask peers-usd` leaves in target/peers-usd/<robot>/peer/<name>.usda), written
    beside each as `openusd.json`, for `formats/mbconv-usd/tests/golden.rs`."""
    for path in sorted(pathlib.Path(root).glob("*/peer/*.usda")):
        target = path.parent / "openusd.json"
        try:
            target.write_text(json.dumps(stage_golden(path), indent=1, sort_keys=True) + "\n")
        except Exception as e:  # OpenUSD's refusal: recorded, the test skips the stage
            target.write_text(json.dumps({"error": f"{type(e).__name__}: {e}"}) + "\n")
        print(f"wrote {target}")
    return 0


# The USD corpus: the downloads `cargo xtask download` unpacks (target/downloads), each with the
# folders of its stages (docs/formats/usd.md, "Corpus").
DOWNLOADS = {"newton-1.8.0": ["newton/examples/assets", "newton/tests/assets"]}


def downloads(root):
    """OpenUSD's parse of every stage (`.usda`, `.usd`) of the USD corpus downloaded under
    `root` (target/downloads), written to formats/mbconv-usd/tests/golden/downloads/ as
    `<download>__<path with / as __>.json` (a stage OpenUSD refuses: its error)."""
    out = GOLDEN / "downloads"
    out.mkdir(parents=True, exist_ok=True)
    for old in out.glob("*.json"):
        old.unlink()
    for download, folders in DOWNLOADS.items():
        base = pathlib.Path(root) / download
        if not (base / ".mbconv-download-complete").is_file():
            print(f"{base} is not downloaded (cargo xtask download): skipped")
            continue
        for folder in folders:
            stages = sorted(p for p in (base / folder).rglob("*") if p.suffix in (".usda", ".usd"))
            for path in stages:
                name = download + "__" + str(path.relative_to(base)).replace("/", "__")
                try:
                    golden = stage_golden(path)
                except Exception as e:  # OpenUSD's refusal, recorded
                    golden = {"error": f"{type(e).__name__}: {e}"}
                target = out / f"{name}.json"
                target.write_text(json.dumps(golden, indent=1, sort_keys=True) + "\n")
                print(f"wrote {target.relative_to(ROOT)}")
    return 0


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--held-out":
        return held_out(sys.argv[2])
    if len(sys.argv) == 3 and sys.argv[1] == "--downloads":
        return downloads(sys.argv[2])
    GOLDEN.mkdir(parents=True, exist_ok=True)
    stages = sorted(p for p in FIXTURES.rglob("*.usda") if "Payload" not in p.parts)
    for path in stages:
        name = str(path.relative_to(FIXTURES)).replace("/", "__").removesuffix(".usda")
        target = GOLDEN / f"{name}.json"
        target.write_text(json.dumps(stage_golden(path), indent=1, sort_keys=True) + "\n")
        print(f"wrote {target.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
