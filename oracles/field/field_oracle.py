#!/usr/bin/env python3
"""The libraries' side of `cargo xtask field` (docs/field.md).

`cargo xtask field` reads every robot of the swept collections with mbconv (`mbconv info
--json`: every body's mass and world centre of mass at the initial pose), converts it with
`mbconv convert` and writes a manifest (JSON: a list of entries, each {"name", "kind" (the
source's format: "urdf" or "mjcf"), "source" (its absolute path), "packages" ([name, dir]
pairs for `package://` URIs), "info" (the path of mbconv's `info --json` output, or null when
mbconv refused the file) and "written" ({format: path} of the MJCF, URDF and SDFormat files
mbconv wrote)}). This script adds what the reference libraries say and writes the manifest's
entries back, each with two more keys:

* "reference": the source loaded by its reference library, as that library loads it by
  default: Pinocchio 4.1 for URDF (`buildModelFromUrdf(path, mimic=True)`, falling back to the
  plain reading where mimic=True refuses the file; the root welded; at `neutral`), MuJoCo 4.0
  for MJCF (`MjModel.from_xml_path`, at qpos0). Per reference body, its mass and world centre
  of mass against mbconv's: a Pinocchio body holds the URDF links welded to it, so mbconv's
  links of that group are summed; a MuJoCo body is matched by name (`body<i>` when unnamed, as
  mbconv names it). The worst deviations are relative to the quantity (at least 1): kg and m
  on unit-sized robots. Bodies of either side that the other lacks are listed (`unmatched`).
* "loads": the source (key "source") and every written file (key: its format) loaded by the
  libraries that read its format, each as it loads it by default: MJCF by MuJoCo; URDF by Pinocchio, MuJoCo and Drake 1.51 (a MultibodyPlant
  with a SceneGraph, so that mesh files are opened; the packages mapped); SDFormat by Drake.
  Per load: whether it loaded (else the library's message), and the deviation of its total
  mass and world centre of mass (relative, as above) from the reference's reading of the
  source.

Every load runs in a child process of its own (`oracles/isolated.py`): a crash or a hang costs
that load only.

Usage:

    python field_oracle.py --manifest MANIFEST.json --out RESULTS.json [--jobs N]
                           [--timeout S]
"""

import argparse
import concurrent.futures
import json
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ beside the shared modules
ORACLES = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ORACLES)
sys.path.insert(0, os.path.join(ORACLES, "drake"))
import isolated  # noqa: E402  (oracles/isolated.py: one load per child process)
import sdf_golden as drake_sdf_golden  # noqa: E402  (oracles/drake: Drake's world COMs)

LOADERS_OF = {"mjcf": ["mujoco"], "urdf": ["pinocchio", "mujoco", "drake"], "sdf": ["drake"]}
# The source is loaded by every library of the table that reads its format.
SOURCE_LOADERS_OF = {"urdf": ["pinocchio", "mujoco", "drake"], "mjcf": ["mujoco", "pinocchio", "drake"]}
REFERENCE_OF = {"urdf": "pinocchio", "mjcf": "mujoco"}


def floats(v):
    return [float(x) for x in v]


def totals(bodies):
    """Total mass and mass-weighted world centre of mass of `bodies` (None when massless)."""
    mass = sum(b["mass"] for b in bodies)
    if mass <= 0.0:
        return mass, None
    com = [sum(b["mass"] * b["com"][k] for b in bodies) / mass for k in range(3)]
    return mass, com


def pinocchio_reader(path):
    """The Pinocchio reader for the file at `path`: "urdf" for a `.urdf` of any case (robot
    collections name some `.URDF`), else "mjcf"."""
    return "urdf" if path.lower().endswith(".urdf") else "mjcf"


def load_pinocchio(path, packages):
    import numpy as np
    import pinocchio as pin

    out = {}
    if pinocchio_reader(path) == "mjcf":
        model = pin.buildModelFromMJCF(path)
    else:
        try:
            model = pin.buildModelFromUrdf(path, mimic=True)
        except Exception as e:  # mimic=True refuses some mimic joints the plain reading takes
            out["mimic_error"] = f"{type(e).__name__}: {str(e).strip()}"
            model = pin.buildModelFromUrdf(path)
    data = model.createData()
    pin.forwardKinematics(model, data, pin.neutral(model))
    body_frames = [f for f in model.frames if f.type == pin.FrameType.BODY]
    bodies = []
    for j in range(model.njoints):
        inertia = model.inertias[j]
        com = data.oMi[j].act(np.array(inertia.lever))
        bodies.append(
            {
                "name": model.names[j],
                "links": sorted(f.name for f in body_frames if f.parentJoint == j),
                "mass": float(inertia.mass),
                "com": floats(com),
            }
        )
    out["bodies"] = bodies
    return out


def load_mujoco(path, packages):
    import mujoco

    m = mujoco.MjModel.from_xml_path(path)
    d = mujoco.MjData(m)
    mujoco.mj_forward(m, d)
    bodies = []
    for i in range(1, m.nbody):
        name = mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_BODY, i) or f"body{i}"
        bodies.append({"name": name, "mass": float(m.body_mass[i]), "com": floats(d.xipos[i])})
    return {"bodies": bodies}


def load_drake(path, packages):
    """Drake with a SceneGraph (the meshes opened); where that refuses the file, the plant
    alone (no geometry), with the SceneGraph's refusal kept as `scene_graph_error`."""
    from pydrake.multibody.plant import AddMultibodyPlantSceneGraph, MultibodyPlant
    from pydrake.systems.framework import DiagramBuilder

    try:
        plant, _ = AddMultibodyPlantSceneGraph(DiagramBuilder(), 0.0)
        return drake_bodies(plant, path, packages)
    except Exception as e:
        scene_graph_error = f"{type(e).__name__}: {str(e).strip()}"
    out = drake_bodies(MultibodyPlant(0.0), path, packages)
    out["scene_graph_error"] = scene_graph_error
    return out


def drake_bodies(plant, path, packages):
    """Every body of the plant once `path` is added (with `packages` mapped) and finalized:
    name, mass and world centre of mass at the default context."""
    from pydrake.multibody.parsing import Parser
    from pydrake.multibody.tree import BodyIndex

    parser = Parser(plant)
    for name, directory in packages:  # none of Drake's own package names
        parser.package_map().Add(name, directory)
    parser.AddModels(path)
    plant.Finalize()
    context = plant.CreateDefaultContext()
    named = [plant.get_body(BodyIndex(i)) for i in range(1, plant.num_bodies())]
    return {
        "bodies": [
            {"name": body.name(), "mass": float(body.default_mass()), "com": com}
            for body, com in zip(named, drake_sdf_golden.coms(plant, context))
        ]
    }


LOADERS = {"pinocchio": load_pinocchio, "mujoco": load_mujoco, "drake": load_drake}


def one(library, path, packages, result):
    """Child process: load `path` with `library` and write what it built to `result`."""
    try:
        out = {"loads": True, **LOADERS[library](path, packages)}
    except Exception as e:  # the library's refusal
        out = {"loads": False, "load_error": f"{type(e).__name__}: {str(e).strip()}"}
    with open(result, "w") as f:
        json.dump(out, f)


def load(library, path, packages, roots, timeout):
    args = ["--library", library, "--file", path]
    for name, directory in packages:
        args += ["--package", f"{name}={directory}"]
    result = isolated.run_one(os.path.abspath(__file__), args, roots, timeout)
    result.setdefault("loads", False)
    return result


def deviation(ours, theirs):
    """Largest difference between two vectors, relative to the larger of 1 and theirs."""
    scale = max([1.0] + [abs(x) for x in theirs])
    return max(abs(a - b) for a, b in zip(ours, theirs)) / scale


def compare_reference(kind, reference, info):
    """mbconv's bodies (from `info --json`) against the reference library's."""
    ours = {b["name"]: b for b in info["bodies"]}
    used = set()
    worst = {"mass": 0.0, "com": 0.0, "mass_body": None, "com_body": None}
    unmatched = []
    for body in reference["bodies"]:
        names = body["links"] if kind == "urdf" else [body["name"]]
        group = [ours[n] for n in names if n in ours]
        unmatched += [f"{n} (not in mbconv's reading)" for n in names if n not in ours]
        used.update(names)
        if kind == "urdf" and not names:
            continue
        mass, com = totals([{"mass": b["mass"], "com": b["com_position"]} for b in group])
        dm = deviation([mass], [body["mass"]])
        if dm > worst["mass"]:
            worst["mass"], worst["mass_body"] = dm, body["name"]
        if com is not None and body["mass"] > 0.0:
            dc = deviation(com, body["com"])
            if dc > worst["com"]:
                worst["com"], worst["com_body"] = dc, body["name"]
    # A massless body of mbconv's alone (the world body holding static geoms) weighs nothing.
    unmatched += [
        f"{n} (not in the reference's)" for n, b in ours.items() if n not in used and b["mass"] != 0.0
    ]
    # A URDF link named `world` is the world itself for mbconv (Pinocchio keeps it a frame).
    unmatched = [u for u in unmatched if u != "world (not in mbconv's reading)"]
    return {"bodies": len(reference["bodies"]), "worst": worst, "unmatched": unmatched}


def judge(entry, roots, timeout):
    kind, packages = entry["kind"], [tuple(p) for p in entry.get("packages", [])]
    library = REFERENCE_OF[kind]
    reference = load(library, entry["source"], packages, roots, timeout)
    summary = {"library": library, "loads": reference["loads"]}
    if reference["loads"]:
        mass, com = totals(reference["bodies"])
        summary.update({"mass": mass, "com": com})
        if "mimic_error" in reference:
            summary["mimic_error"] = reference["mimic_error"]
        if entry.get("info"):
            with open(entry["info"]) as f:
                info = json.load(f)
            summary["compared"] = compare_reference(kind, reference, info)
    else:
        summary["error"] = reference.get("load_error", "")
        summary["log"] = reference.get("log", [])
    entry["reference"] = summary
    loads = {}
    files = [("source", SOURCE_LOADERS_OF[kind], entry["source"])]
    files += [(fmt, LOADERS_OF.get(fmt, []), path) for fmt, path in sorted(entry.get("written", {}).items())]
    for key, libraries, path in files:
        for lib in libraries:
            if key == "source" and lib == library:
                got = reference
            else:
                got = load(lib, path, packages, roots, timeout)
            row = {"loads": got["loads"]}
            if got["loads"]:
                if "scene_graph_error" in got:
                    row["scene_graph_error"] = got["scene_graph_error"]
                mass, com = totals(got["bodies"])
                if summary.get("loads"):
                    row["mass_deviation"] = deviation([mass], [summary["mass"]])
                    if com is not None and summary.get("com") is not None:
                        row["com_deviation"] = deviation(com, summary["com"])
            else:
                row["error"] = got.get("load_error", "")
                row["log"] = got.get("log", [])[:5]
            loads.setdefault(key, {})[lib] = row
    entry["loads"] = loads
    print(f"{entry['name']}: {library} {'loads' if reference['loads'] else 'refuses'}", file=sys.stderr)
    return entry


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--manifest")
    parser.add_argument("--out")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=120.0)
    parser.add_argument("--one", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--result", help=argparse.SUPPRESS)
    parser.add_argument("--library", help=argparse.SUPPRESS)
    parser.add_argument("--file", help=argparse.SUPPRESS)
    parser.add_argument("--package", action="append", default=[], help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        packages = [tuple(p.split("=", 1)) for p in args.package]
        one(args.library, args.file, packages, args.result)
        return
    with open(args.manifest) as f:
        entries = json.load(f)
    roots = []
    for entry in entries:
        roots.append(os.path.dirname(entry["source"]))
        roots += [os.path.dirname(p) for p in entry.get("written", {}).values()]
    roots = sorted(set(roots), key=len, reverse=True)
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        results = list(pool.map(lambda e: judge(e, roots, args.timeout), entries))
    with open(args.out, "w") as f:
        json.dump(results, f, sort_keys=True, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
