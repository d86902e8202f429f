#!/usr/bin/env python3
"""Newton's and OpenUSD's judgement of mbconv's USD writer (`formats/mbconv-usd/tests/golden/newton`).

`cargo xtask golden usd-newton` converts every fixture of the other formats and the URDF and
MJCF robots of the corpus to USD with mbconv, writes the `.usda` files into a scratch directory
and a manifest (JSON: a list of {"name", "source", "usd", "hash"}), and runs this script on
it. For each entry this script opens the stage with OpenUSD (`pxr`, usd-core) and loads it in
Newton 1.8 (`ModelBuilder.add_usd`, `finalize(device="cpu")`), and writes
OUTDIR/<name>.json with the entry's source and hash and, under "newton":

* `loads`, else `error` (Newton's refusal);
* `articulation_root_added`: mbconv's writer declares its articulations
  (`PhysicsArticulationRootAPI` on each tree's anchor joint or floating root body); where Newton
  still refuses joints between bodies that belong to no articulation ("Found N joint(s) not
  belonging to any articulation") or builds joints to the world outside any articulation
  (which `SolverFeatherstone` does not move), the stage is loaded again with the API applied to
  its default prim (in memory, the file unchanged) and what happened as written kept as
  `error_as_written`;
* `nv`, the bodies (`name`: the prim's `mbconv:name` when authored, else its name; `path`;
  `anchor` for the world anchors the writer adds, `mbconv:world`), each body's mass and local
  centre of mass as Newton holds them;
* a 1 s trajectory: `SolverFeatherstone` on the CPU (Warp, 32-bit floats), semi-implicit Euler
  at dt 1e-3 (the step of `mbconv check`), no contact (no collision pipeline runs), gravity as
  the stage's scene says, from the stage's own poses and velocities (the root as the stage
  says: a body with no joint floats, a joint to the world holds it); every 0.1 s the world
  pose (`[x, y, z, qw, qx, qy, qz]`) and world centre of mass of every body; `limits`: the
  joints whose coordinate (or a generic joint's axis) went past a limit at some step (Newton's
  limits are springs,
  `limit_ke` 1e4, `limit_kd` 10, where mbconv's are exact), `finite`: whether every sample is
  finite (when not: no samples, and `not_finite_at`, the first sample time that is not).
  A stage Newton builds no rigid body from is refused ("Newton built no rigid body").

and under "openusd", OpenUSD's own judgement of the stage (usd-core's `pxr`, `load_openusd`):
`loads` (else `error`, what OpenUSD raised), the errors and warnings OpenUSD posts opening the
stage (`open`) and parsing its physics (`parse_diagnostics`), each `{"code", "text"}` as a
`UsdUtils.CoalescingDiagnosticDelegate` collects them, and `parse`: what
`UsdPhysics.LoadUsdPhysicsFromRange(stage, ["/"])` found (`oracles/usd/usd_golden.py`'s
`describe`: units, scenes, rigid bodies with world pose and authored mass, joints with type,
bodies, local poses, axis and limit; and `openusd_parse`'s additions: the `mbconv:world`
marks, a generic joint's limit instances, `exclude_from_articulation`, the articulations and
the collision shapes by type). `formats/mbconv-usd/tests/openusd.rs` compares it with mbconv's
reading of the same text.

`cargo xtask golden usd` (and `golden usd-newton-read`) runs the same judgement on the reader's
side: a manifest of every USD fixture and every stage of the USD corpus (the `newton` wheel's
example and test stages), each `usd` the stage itself and `hash` its root layer's, written to
`formats/mbconv-usd/tests/golden/newton_read/` (`formats/mbconv-usd/tests/newton_read.rs`
compares the reader with it).

Each file is loaded in a child process (`oracles/urdf/urdf_written_golden.py`'s `judge_all`): a
file that kills the process or hangs it is recorded as an error and a new process goes on.
Newton's first run compiles its CPU kernels (about 90 s), later runs take them from Warp's
cache.

Usage (the venv is made by `cargo xtask golden usd-newton` from oracles/newton/requirements.txt):

    target/oracles/newton/bin/python oracles/newton/usd_newton_golden.py --manifest M --out OUTDIR

Output is deterministic: keys sorted, floats written by Python's shortest repr.
"""

import json
import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "urdf"))

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "usd"))

from urdf_written_golden import arguments, clean, judge_all  # noqa: E402

REPOSITORY = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

DURATION = 1.0
DT = 1e-3
EVERY = 100
ORPHAN = "not belonging to any articulation"


def floats(values):
    return [float(v) for v in values]


def body_names(stage, labels):
    """(name, path) of every Newton body: the prim's `mbconv:name` when authored; `anchor` for
    the rigid bodies mbconv's writer adds as the world's stand-in (`mbconv:world`)."""
    out = []
    for label in labels:
        prim = stage.GetPrimAtPath(label)
        name = label.rsplit("/", 1)[-1]
        entry = {"name": name, "path": label}
        if prim and prim.IsValid():
            attribute = prim.GetAttribute("mbconv:name")
            if attribute and attribute.HasAuthoredValue():
                entry["name"] = str(attribute.Get())
            world = prim.GetAttribute("mbconv:world")
            if world and world.HasAuthoredValue() and bool(world.Get()):
                entry["anchor"] = True
        out.append(entry)
    return out


def excluded(stage, label):
    """True for a joint the stage leaves out of the articulations (it closes a loop)."""
    prim = stage.GetPrimAtPath(label)
    if not prim or not prim.IsValid():
        return False
    attribute = prim.GetAttribute("physics:excludeFromArticulation")
    return bool(attribute and attribute.HasAuthoredValue() and attribute.Get())


def build(path, articulation_root):
    import newton
    from pxr import Usd, UsdPhysics

    stage = Usd.Stage.Open(path)
    if articulation_root:
        UsdPhysics.ArticulationRootAPI.Apply(stage.GetDefaultPrim())
    builder = newton.ModelBuilder()
    builder.add_usd(stage)
    model = builder.finalize(device="cpu")
    return stage, builder, model


def simulate(builder, model):
    import newton
    import numpy as np
    import warp as wp

    solver = newton.solvers.SolverFeatherstone(model)
    state, next_state = model.state(), model.state()
    control = model.control()
    newton.eval_fk(model, model.joint_q, model.joint_qd, state)
    com_local = model.body_com.numpy().astype(np.float64)
    lower = np.array(builder.joint_limit_lower, dtype=np.float64)
    upper = np.array(builder.joint_limit_upper, dtype=np.float64)
    # (joint, q index, dof index) of every axis with a finite limit: one-coordinate joints, and
    # the axes of generic (D6) joints, one coordinate per axis (a free D6 axis has Newton's
    # default range, about +-1.7e8 rad or +-1e10 m)
    limited = []
    q_end = list(builder.joint_q_start[1:]) + [builder.joint_coord_count]
    qd_end = list(builder.joint_qd_start[1:]) + [builder.joint_dof_count]
    for j, kind in enumerate(builder.joint_type):
        name = getattr(kind, "name", str(kind))
        d, qi = builder.joint_qd_start[j], builder.joint_q_start[j]
        if name in ("REVOLUTE", "PRISMATIC"):
            if lower[d] > -1e9 or upper[d] < 1e9:
                limited.append((j, qi, d))
        elif name == "D6" and q_end[j] - qi == qd_end[j] - d:
            for k in range(qd_end[j] - d):
                if lower[d + k] > -1e6 or upper[d + k] < 1e6:
                    limited.append((j, qi + k, d + k))
    hit = set()
    samples = []
    steps = round(DURATION / DT)

    def sample(k):
        q = state.body_q.numpy().astype(np.float64)
        poses, coms = [], []
        for b in range(q.shape[0]):
            p, x = q[b, :3], q[b, 3:7]  # quaternion x, y, z, w
            w, v = x[3], x[:3]
            c = com_local[b]
            rotated = c + 2.0 * np.cross(v, np.cross(v, c) + w * c)
            poses.append(floats([p[0], p[1], p[2], w, v[0], v[1], v[2]]))
            coms.append(floats(p + rotated))
        samples.append({"t": round(k * DT, 12), "pose": poses, "com": coms})

    sample(0)
    for k in range(1, steps + 1):
        solver.step(state, next_state, control, None, DT)
        state, next_state = next_state, state
        if limited:
            q = state.joint_q.numpy() if state.joint_q is not None else None
            if q is not None:
                for j, qi, d in limited:
                    if q[qi] < lower[d] - 1e-9 or q[qi] > upper[d] + 1e-9:
                        hit.add(builder.joint_label[j])
        if k % EVERY == 0:
            sample(k)
    finite = [all(math.isfinite(x) for c in s["com"] + s["pose"] for x in c) for s in samples]
    if all(finite):
        return samples, sorted(hit), True, None
    return [], sorted(hit), False, samples[finite.index(False)]["t"]


def load_newton(path):
    import warp as wp

    wp.config.quiet = True
    result = {}
    try:
        stage, builder, model = build(path, False)
        outside = sum(
            1
            for label, a in zip(builder.joint_label, builder.joint_articulation)
            if a < 0 and not excluded(stage, label)
        )
        result["articulation_root_added"] = outside > 0
        if outside:
            # accepted, but Featherstone does not move joints outside an articulation
            result["error_as_written"] = f"{outside} joint(s) outside any articulation"
            stage, builder, model = build(path, True)
    except ValueError as e:
        if ORPHAN not in str(e):
            raise
        result["error_as_written"] = f"{type(e).__name__}: {str(e).strip()}"
        result["articulation_root_added"] = True
        stage, builder, model = build(path, True)
    if builder.body_count == 0:
        raise ValueError("Newton built no rigid body")
    samples, limits, finite, nan_at = simulate(builder, model)
    result.update(
        {
            "nv": int(builder.joint_dof_count),
            "bodies": body_names(stage, builder.body_label),
            "mass": floats(builder.body_mass),
            "com": [floats(c) for c in builder.body_com],
            "joints": [getattr(t, "name", str(t)) for t in builder.joint_type],
            "trajectory": {
                "duration": DURATION,
                "dt": DT,
                "integrator": "semi_implicit_euler",
                "solver": "featherstone",
                "contact": False,
                "gravity": floats(model.gravity.numpy()[0]),
                "limits": limits,
                "finite": finite,
                "not_finite_at": nan_at,
                "samples": samples,
            },
        }
    )
    return result


def diagnostics(delegate, roots):
    """The diagnostics OpenUSD posted since the last call, as (errors, warnings): each
    `{"code", "text"}`, the text as OpenUSD prints it (its commentary), absolute roots left
    out. Status messages are not kept."""
    errors, warnings = [], []
    for d in delegate.TakeUncoalescedDiagnostics():
        code = str(d.diagnosticCodeString)
        entry = {"code": code, "text": clean(str(d.commentary), roots)}
        if "WARNING" in code:
            warnings.append(entry)
        elif "STATUS" not in code:
            errors.append(entry)
    return errors, warnings


def openusd_parse(stage, parsed):
    """What `UsdPhysics.LoadUsdPhysicsFromRange` parsed (`oracles/usd/usd_golden.py`'s
    `describe`: bodies with their authored mass, joints with their type, bodies, local poses,
    axis and limit), and beside it: per body and joint whether mbconv's writer marked it
    `mbconv:world` (the anchors standing for the world and their welds); per generic (D6)
    joint its limit instances (`dof_limits`: `[axis, lower, upper]`, lower > upper locks the
    axis); per joint `exclude_from_articulation`; the articulations (`root`: the root prims,
    `bodies`, `joints`, sorted); `shapes`: the number of collision shapes by type."""
    from usd_golden import describe

    out = describe(stage, parsed)

    def marked(path):
        prim = stage.GetPrimAtPath(path)
        attribute = prim.GetAttribute("mbconv:world") if prim and prim.IsValid() else None
        return bool(attribute and attribute.HasAuthoredValue() and attribute.Get())

    for body in out["bodies"]:
        body["mbconv_world"] = marked(body["path"])
    extra = {}
    articulations, shapes = [], {}
    for kind, (paths, descs) in parsed.items():
        name = str(kind)
        if name.endswith("Shape"):
            shapes[name] = shapes.get(name, 0) + len(paths)
        for p, d in zip(paths, descs):
            if name.endswith("Joint"):
                limits = [
                    [str(pair.first), float(pair.second.lower), float(pair.second.upper)]
                    for pair in getattr(d, "jointLimits", [])
                    if pair.second.enabled
                ]
                extra[str(p)] = {
                    "mbconv_world": marked(str(p)),
                    "exclude_from_articulation": bool(d.excludeFromArticulation),
                    "dof_limits": sorted(limits) if name == "D6Joint" else None,
                }
            elif name == "Articulation":
                articulations.append(
                    {
                        "path": str(p),
                        "roots": sorted(str(r) for r in d.rootPrims),
                        "bodies": sorted(str(b) for b in d.articulatedBodies),
                        "joints": sorted(str(j) for j in d.articulatedJoints),
                    }
                )
    for joint in out["joints"]:
        joint.update(extra[joint["path"]])
    out["articulations"] = sorted(articulations, key=lambda a: a["path"])
    out["shapes"] = shapes
    return out


def load_openusd(path):
    """OpenUSD's own judgement of a written stage (usd-core, `pxr`): the errors and warnings it
    posts opening the stage (`open`) and parsing its physics (`parse_diagnostics`), collected
    by a `UsdUtils.CoalescingDiagnosticDelegate`, and what `LoadUsdPhysicsFromRange` parsed
    (`parse`, see `openusd_parse`). An error OpenUSD raises is recorded as the stage's refusal
    (`loads` false)."""
    from pxr import Usd, UsdUtils
    from usd_golden import parse

    folder = os.path.dirname(os.path.abspath(path))
    roots = sorted({folder, os.path.realpath(folder), REPOSITORY}, key=len, reverse=True)
    delegate = UsdUtils.CoalescingDiagnosticDelegate()
    stage = Usd.Stage.Open(path)
    errors, warnings = diagnostics(delegate, roots)
    composition = stage.GetCompositionErrors() if hasattr(stage, "GetCompositionErrors") else []
    errors += [{"code": "composition", "text": clean(str(e), roots)} for e in composition]
    result = {"open": {"errors": errors, "warnings": warnings}}
    parsed = parse(stage)
    errors, warnings = diagnostics(delegate, roots)
    result["parse_diagnostics"] = {"errors": errors, "warnings": warnings}
    result["parse"] = openusd_parse(stage, parsed)
    return result


LOADERS = {"newton": load_newton, "openusd": load_openusd}


def main():
    args = arguments(__doc__.splitlines()[0], list(LOADERS), LOADERS)
    with open(args.manifest) as f:
        manifest = json.load(f)
    scratch = os.path.dirname(os.path.abspath(args.manifest))
    # paths in Newton's errors are shown from the scratch folder, else from the repository
    roots = sorted({scratch, os.path.realpath(scratch), REPOSITORY}, key=len, reverse=True)
    os.makedirs(args.out, exist_ok=True)
    paths = [item["usd"] for item in manifest]
    judged = {library: judge_all(library, paths, roots, __file__) for library in LOADERS}
    for k, item in enumerate(manifest):
        data = {"source": item["source"], "hash": item["hash"]}
        for library in LOADERS:
            data[library] = judged[library][k]
        with open(os.path.join(args.out, f"{item['name']}.json"), "w") as f:
            json.dump(data, f, sort_keys=True, indent=1)
            f.write("\n")
        outcome = ", ".join(f"{lib} {'ok' if data[lib]['loads'] else 'refused'}" for lib in LOADERS)
        print(f"{item['name']}: {outcome}", file=sys.stderr)


if __name__ == "__main__":
    main()
