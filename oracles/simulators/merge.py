#!/usr/bin/env python3
"""Merges two simulators' centre-of-mass tracks of one conversion into one golden file.

One side is DART (the JSON written by oracles/dart/dart_trajectory.py), the other Chrono (the
CSV written by chrono_oracle --csv: columns t, then per body .x .y .z .qw .qx .qy .qz .cx .cy
.cz). Bodies are matched by name; a body only one side has is listed under "unmatched".

Usage: python merge.py --source KIND:FILE --target KIND:FILE [--half-source KIND:FILE
       --half-target KIND:FILE] --case NAME --dt H --out OUT.json
KIND is dart or chrono. A side that failed is a file holding {"load_error": ...} (DART) or a
text file whose first line starts with "error:" (Chrono); the golden file then records it.

Output (keys sorted, floats in Python's shortest repr, deterministic):
{"case": NAME, "dt": H, "times": [...], "bodies": {NAME: {"source": [[x,y,z]...],
 "target": [...]}}, "unmatched": [...], "max_com_difference": M, "worst_body": NAME,
 "max_com_difference_half_step": M2}
or {"case": NAME, "error": "..."}. M2 is the same gap with both simulators at dt / 2 (the
--half-* runs, sampled at the same times): about M / 2 when the gap is integration error (both
integrators are first order); null when a half-step run failed.
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


def largest_gap(source, target):
    """The largest COM distance over the bodies both sides have, and that body."""
    worst, worst_body = 0.0, None
    for name in sorted(set(source) & set(target)):
        for a, b in zip(source[name], target[name]):
            gap = sum((x - y) ** 2 for x, y in zip(a, b)) ** 0.5
            if worst_body is None or gap > worst:
                worst, worst_body = gap, name
    return worst, worst_body


def half_step_gap(args, times):
    if not args.half_source or not args.half_target:
        return None
    try:
        source_times, source = read(args.half_source)
        target_times, target = read(args.half_target)
    except (RuntimeError, OSError, ValueError, KeyError, IndexError):
        return None
    if len(source_times) != len(times) or len(target_times) != len(times):
        return None
    return largest_gap(source, target)[0]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", required=True)
    parser.add_argument("--target", required=True)
    parser.add_argument("--half-source")
    parser.add_argument("--half-target")
    parser.add_argument("--case", required=True)
    parser.add_argument("--dt", type=float, required=True)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    try:
        source_times, source = read(args.source)
        target_times, target = read(args.target)
        if len(source_times) != len(target_times) or any(
            abs(a - b) > 1e-9 for a, b in zip(source_times, target_times)
        ):
            raise RuntimeError(f"sample times differ: {source_times} vs {target_times}")
        names = sorted(set(source) & set(target))
        worst, worst_body = 0.0, None
        bodies = {}
        for name in names:
            for a, b in zip(source[name], target[name]):
                gap = sum((x - y) ** 2 for x, y in zip(a, b)) ** 0.5
                if worst_body is None or gap > worst:
                    worst, worst_body = gap, name
            bodies[name] = {"source": source[name], "target": target[name]}
        result = {
            "case": args.case,
            "dt": args.dt,
            "times": source_times,
            "bodies": bodies,
            "unmatched": sorted(set(source) ^ set(target)),
            "max_com_difference": worst,
            "worst_body": worst_body,
            "max_com_difference_half_step": half_step_gap(args, source_times),
        }
    except (RuntimeError, OSError, ValueError, KeyError, IndexError) as error:
        result = {"case": args.case, "error": str(error)}
    with open(args.out, "w") as out:
        json.dump(result, out, sort_keys=True, indent=1)
        out.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
