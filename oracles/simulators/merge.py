#!/usr/bin/env python3
"""Merges two simulators' centre-of-mass tracks of one conversion into one golden file.

The source side is the source simulator running the model lowered for the target and written
back in the source format; the target side is the target simulator running the converted file
(`cargo xtask golden chrono`). One side is DART (the JSON written by
oracles/dart/dart_trajectory.py), the other Chrono (the CSV written by chrono_oracle --csv:
columns t, then per body .x .y .z .qw .qx .qy .qz .cx .cy .cz). Each side runs at dt and at
dt / 2, sampled at the same times. Bodies are matched by name; a body only one side has is
listed under "unmatched" and the gaps are then null: the pair fails (a body the other side
cannot show is never left out of the gap).

Usage: python merge.py --source KIND:FILE --target KIND:FILE --half-source KIND:FILE
       --half-target KIND:FILE --case NAME --dt H [--lowered-losses JSON] --out OUT.json
KIND is dart or chrono. A side that failed is a file holding {"load_error": ...} (DART) or a
text file whose first line starts with "error:" (Chrono); the golden file then records it.
--lowered-losses is a JSON list of the motion-changing findings of writing the lowered model
back in the source format (the comparison is then not clean), recorded as is.
--ignore-static-extra leaves out the target's bodies that the source does not have and that
never move (the fixed ground body a writer adds for the world), listed under "ignored".

Output (keys sorted, floats in Python's shortest repr, deterministic):
{"case": NAME, "dt": H, "times": [...], "bodies": {NAME: {"source": [[x,y,z]...], "target":
 [...], "source_half": [...], "target_half": [...]}}, "unmatched": {"source": [...], "target":
 [...]}, "max_com_difference": G1, "max_com_difference_half_step": G2,
 "max_com_difference_extrapolated": GX, "worst_body": NAME, "lowered_losses": [...]}
or {"case": NAME, "error": "...", "lowered_losses": [...]}.
G1 and G2 are the largest COM distance between the sides at dt and at dt / 2 over every body
and sample; GX is the largest distance between the sides' Richardson extrapolations
2 x(dt / 2) - x(dt) (both integrators are first order, so GX is the gap at dt -> 0 up to
O(dt^2)).
"""

import argparse
import csv
import json
import sys


def read_dart(path):
    with open(path) as f:
        data = json.load(f)
    if "load_error" in data:
        raise RuntimeError("DART: " + data["load_error"])
    return data["times"], data["bodies"]


def read_chrono(path):
    with open(path) as f:
        first = f.readline()
        if first.startswith("error:"):
            raise RuntimeError("Chrono: " + first[len("error:"):].strip())
        f.seek(0)
        rows = list(csv.reader(f))
    header, rows = rows[0], [[float(x) for x in row] for row in rows[1:] if row]
    times = [row[0] for row in rows]
    bodies = {}
    for i, column in enumerate(header):
        if column.endswith(".cx"):
            name = column[: -len(".cx")]
            bodies[name] = [[row[i], row[i + 1], row[i + 2]] for row in rows]
    return times, bodies


def read(side):
    kind, path = side.split(":", 1)
    return {"dart": read_dart, "chrono": read_chrono}[kind](path)


def distance(a, b):
    return sum((x - y) ** 2 for x, y in zip(a, b)) ** 0.5


def extrapolated(full, half):
    """Richardson for a first-order error: 2 x(dt / 2) - x(dt), sample by sample."""
    return [[2.0 * h - f for f, h in zip(p, q)] for p, q in zip(full, half)]


def largest_gap(source, target, names):
    """The largest COM distance over `names` and every sample, and that body."""
    worst, worst_body = 0.0, None
    for name in names:
        for a, b in zip(source[name], target[name]):
            gap = distance(a, b)
            if worst_body is None or gap > worst:
                worst, worst_body = gap, name
    return worst, worst_body


def same_times(name, times, other):
    if len(times) != len(other) or any(abs(a - b) > 1e-9 for a, b in zip(times, other)):
        raise RuntimeError(f"{name}: sample times differ: {times} vs {other}")


def merge(args):
    source_times, source = read(args.source)
    target_times, target = read(args.target)
    half_source_times, half_source = read(args.half_source)
    half_target_times, half_target = read(args.half_target)
    same_times("target", source_times, target_times)
    same_times("source at dt / 2", source_times, half_source_times)
    same_times("target at dt / 2", source_times, half_target_times)
    if set(half_source) != set(source) or set(half_target) != set(target):
        raise RuntimeError("a simulator shows other bodies at dt / 2 than at dt")
    ignored = []
    if args.ignore_static_extra:
        for name in sorted(set(target) - set(source)):
            track = target[name] + half_target[name]
            if all(point == track[0] for point in track):
                ignored.append(name)
                del target[name], half_target[name]
    names = sorted(set(source) & set(target))
    bodies = {
        name: {
            "source": source[name],
            "target": target[name],
            "source_half": half_source[name],
            "target_half": half_target[name],
        }
        for name in names
    }
    unmatched = {
        "source": sorted(set(source) - set(target)),
        "target": sorted(set(target) - set(source)),
    }
    result = {
        "case": args.case,
        "dt": args.dt,
        "times": source_times,
        "bodies": bodies,
        "unmatched": unmatched,
        "max_com_difference": None,
        "max_com_difference_half_step": None,
        "max_com_difference_extrapolated": None,
        "worst_body": None,
    }
    if ignored:
        result["ignored"] = ignored
    if unmatched["source"] or unmatched["target"]:
        return result
    gap, worst_body = largest_gap(source, target, names)
    half_gap, _ = largest_gap(half_source, half_target, names)
    source_x = {n: extrapolated(source[n], half_source[n]) for n in names}
    target_x = {n: extrapolated(target[n], half_target[n]) for n in names}
    extrapolated_gap, _ = largest_gap(source_x, target_x, names)
    result.update(
        {
            "max_com_difference": gap,
            "max_com_difference_half_step": half_gap,
            "max_com_difference_extrapolated": extrapolated_gap,
            "worst_body": worst_body,
        }
    )
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", required=True)
    parser.add_argument("--target", required=True)
    parser.add_argument("--half-source", required=True)
    parser.add_argument("--half-target", required=True)
    parser.add_argument("--case", required=True)
    parser.add_argument("--dt", type=float, required=True)
    parser.add_argument("--lowered-losses", default="[]")
    parser.add_argument("--ignore-static-extra", action="store_true")
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    lowered_losses = json.loads(args.lowered_losses)
    try:
        result = merge(args)
    except (RuntimeError, OSError, ValueError, KeyError, IndexError) as error:
        result = {"case": args.case, "error": str(error)}
    result["lowered_losses"] = lowered_losses
    with open(args.out, "w") as out:
        json.dump(result, out, sort_keys=True, indent=1)
        out.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
