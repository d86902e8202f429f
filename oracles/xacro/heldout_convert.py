#!/usr/bin/env python3
"""Held-out conversion of xacro robots: every `.xacro` file under the folders given (checkouts
of ROS description packages not in this repository) that mbconv expands into a robot with
links is converted to MJCF, SDFormat and USD with `mbconv convert FILE --to T --json`, whose
automatic check (the check's usual proof, within its work budget) converts, reads back and
simulates the conversion beside the original, with `package_path` naming every package found
under the folders (for `$(find)` and `package://` meshes) and the arguments given. The sibling
of `heldout.py`, which compares the expansions with the reference's.

Usage: python heldout_convert.py --mbconv target/release/mbconv [--arg FILE-GLOB:NAME=VALUE]
                                 [--timeout S] [--only DIR ...] [--exclude GLOB ...] DIR ...

Prints one line per robot (the verdict per target, or the failure), then the table of counts
per verdict per target and every case that is not `exact`, in the form docs/xacro.md keeps.
Exits 1 when a check is `unexplained` or `failed`, or mbconv crashed.
"""

import argparse
import collections
import fnmatch
import json
import os
import subprocess
import sys
import tempfile

from heldout import packages, xacro_files  # as the expansion judge finds them

TARGETS = ["mjcf", "sdf", "usd"]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--mbconv", required=True, help="the mbconv command")
    parser.add_argument("--arg", action="append", default=[])
    parser.add_argument("--timeout", type=int, default=600)
    parser.add_argument("--skipped-duration", type=float, default=0.1,
                        help="simulated seconds of the full check of a robot the automatic "
                             "check skips (0: leave it skipped)")
    parser.add_argument("--only", action="append", default=[],
                        help="convert only the files under this folder (repeatable); the "
                             "packages are still found under all the folders")
    parser.add_argument("--exclude", action="append", default=[],
                        help="leave out the files whose path matches this glob (repeatable)")
    parser.add_argument("dirs", nargs="+")
    opts = parser.parse_args()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ROS_", "AMENT_"))}
    pk = {}
    for root in opts.dirs:
        for name, d in packages(root).items():
            pk.setdefault(name, d)
    package_path = ":".join(pk.values())
    counts = {t: collections.Counter() for t in TARGETS}
    cases = []
    work = tempfile.mkdtemp(prefix="mbconv-heldout-")
    refused = collections.Counter()
    bad = False
    converted = [d for d in opts.dirs
                 if not opts.only or os.path.abspath(d) in map(os.path.abspath, opts.only)]
    for root, f, args in xacro_files(converted, opts.arg):
        if any(fnmatch.fnmatch(f, "*" + g) for g in opts.exclude):
            continue
        read = ["--read-option", "package_path=" + package_path]
        for a in args:
            name, value = a.split(":=", 1) if ":=" in a else a.split("=", 1)
            read += ["--read-option", "arg:%s=%s" % (name, value)]
        rel = os.path.join(os.path.basename(os.path.abspath(root)), os.path.relpath(f, root))
        info = subprocess.run([opts.mbconv, "info", "--json", os.path.abspath(f)] + read,
                              capture_output=True, text=True, env=env, timeout=opts.timeout)
        if info.returncode != 0:
            first = (info.stderr.strip().splitlines() or ["?"])[0]
            if "panicked" in info.stderr or info.returncode not in (1, 2, 3):
                bad = True
                print("CRASH info %s: %s" % (rel, info.stderr.strip()[-400:]))
                cases.append((rel, "all", "crash", first))
            else:
                refused[first.split(":")[0] if first.startswith("error") else "refused"] += 1
                print("not read %s: %s" % (rel, first[:200]), flush=True)
            continue
        try:
            summary = json.loads(info.stdout)
        except ValueError:
            summary = {}
        bodies = summary.get("bodies", summary.get("model", {}).get("bodies", 0))
        if isinstance(bodies, list):
            bodies = len(bodies)
        if not bodies or bodies < 2:
            print("no robot %s (%s bodies)" % (rel, bodies), flush=True)
            continue
        line = []
        first_case = len(cases)
        for target in TARGETS:
            out = os.path.join(work, "out." + {"mjcf": "xml", "sdf": "sdf", "usd": "usda"}[target])
            try:
                run = subprocess.run([opts.mbconv, "convert", os.path.abspath(f), "-o", out,
                                      "--to", target, "--force", "--json"] + read,
                                     capture_output=True, text=True, env=env,
                                     timeout=opts.timeout)
            except subprocess.TimeoutExpired:
                counts[target]["timeout"] += 1
                cases.append((rel, target, "timeout", "over %d s" % opts.timeout))
                line.append("%s timeout" % target)
                continue
            if "panicked" in run.stderr or run.returncode not in (0, 1, 3):
                bad = True
                counts[target]["crash"] += 1
                cases.append((rel, target, "crash", run.stderr.strip()[-300:]))
                line.append("%s CRASH" % target)
                continue
            try:
                report = json.loads(run.stdout)
            except ValueError:
                report = {}
            verdict = report.get("verdict") or "failed"
            check = report.get("check") or {}
            if verdict == "skipped" and opts.skipped_duration > 0:
                # Beyond the automatic check's work budget: the full check, over a
                # shorter simulated time.
                try:
                    full = subprocess.run([opts.mbconv, "check", os.path.abspath(f), "--via",
                                           target, "--json", "--duration",
                                           str(opts.skipped_duration)] + read,
                                          capture_output=True, text=True, env=env,
                                          timeout=opts.timeout)
                    check = (json.loads(full.stdout).get("targets") or [{}])[0]
                    verdict = "%s (%g s)" % (check.get("verdict", "failed"), opts.skipped_duration)
                except (subprocess.TimeoutExpired, ValueError):
                    verdict = "skipped"
            counts[target][verdict] += 1
            line.append("%s %s" % (target, verdict))
            if verdict != "exact":
                why = check.get("message") or (run.stderr.strip().splitlines() or ["?"])[0]
                if check.get("explained_by"):
                    why += " (explained by %s)" % ", ".join(
                        str(e.get("code", e)) if isinstance(e, dict) else str(e)
                        for e in check["explained_by"][:4])
                cases.append((rel, target, verdict, why[:300]))
                if verdict.split()[0] in ("unexplained", "failed"):
                    bad = True
        print("%s (%d bodies): %s" % (rel, bodies, ", ".join(line)))
        # Why each target is not exact, at once (a long run cut short keeps its reasons).
        for _, target, verdict, why in cases[first_case:]:
            print("    %s %s: %s" % (target, verdict, why))
        sys.stdout.flush()
    verdicts = sorted({v for c in counts.values() for v in c})
    print()
    print("| target | " + " | ".join(verdicts) + " |")
    print("|---|" + "---|" * len(verdicts))
    for t in TARGETS:
        print("| %s | " % t + " | ".join(str(counts[t][v]) for v in verdicts) + " |")
    print()
    if refused:
        print("not read (refused by mbconv's reader): %s" % dict(refused))
    for rel, target, verdict, why in cases:
        print("* `%s` %s: %s: %s" % (rel, target, verdict, why))
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
