#!/usr/bin/env python3
"""Golden data for mbconv's xacro expander (`crates/mbconv-xacro/tests/golden`).

Expands every xacro file named on the command line with the reference implementation, xacro
2.1 from PyPI (pure Python, no ROS), and writes what it printed: the expanded document as
`xacro` writes it (its banner comment included), or, when it refuses the file, the first line
of its error message. The absolute path of ROOT (which `$(find PKG)` puts in what it
returns) is written `@ROOT@`. `$(find PKG)` needs the ROS package index, which is not installed: the
script answers it from the package map given with `--package NAME=DIR` (DIR relative to
ROOT), and an unknown package is an error naming it, as ament's is.

Usage:

    python xacro_golden.py --root ROOT --out OUTDIR [--package NAME=DIR ...]
                           FILE[:ARG=VALUE,...] ...

FILE is relative to ROOT; the arguments after `:` are passed as `ARG:=VALUE`. Each output is
OUTDIR/<FILE with '/' replaced by '__'>[__ARG=VALUE...].xml (or .error.txt). The files are
expanded one per process with the working directory set to ROOT and the environment emptied
of ROS variables, so `$(optenv ...)` takes its defaults.
"""

import argparse
import os
import subprocess
import sys

WORKER = r'''
import io, os, sys, contextlib
import xacro
import xacro.substitution_args as sa
packages = dict(p.split("=", 1) for p in sys.argv[3].split(";") if p)
root = sys.argv[1]
def find(pkg):
    if pkg not in packages:
        raise sa.SubstitutionException("package '%s' not found" % pkg)
    return os.path.normpath(os.path.join(root, packages[pkg]))
sa._eval_find = find
sa._eval_dict["find"] = find
mappings = dict(a.split("=", 1) for a in sys.argv[4].split(",") if a)
err = io.StringIO()
with contextlib.redirect_stderr(err):
    try:
        doc = xacro.process_file(sys.argv[2], mappings=mappings, verbosity=1)
        sys.stdout.write(doc.toprettyxml(indent="  "))
    except SystemExit:
        raise
    except Exception as e:
        sys.stdout.write("ERROR: " + (str(e) or repr(e)).splitlines()[0] + "\n")
        sys.exit(3)
'''


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--root", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--package", action="append", default=[])
    parser.add_argument("files", nargs="+")
    opts = parser.parse_args()
    os.makedirs(opts.out, exist_ok=True)
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("ROS_", "AMENT_", "HUSKY_", "COLCON_"))}
    root = os.path.abspath(opts.root)
    for spec in opts.files:
        file, _, args = spec.partition(":")
        name = file.replace("/", "__")
        for arg in (a for a in args.split(",") if a):
            name += "__" + arg
        result = subprocess.run(
            [sys.executable, "-c", WORKER, root, file, ";".join(opts.package), args],
            cwd=root, env=env, capture_output=True, text=True, timeout=120)
        if result.returncode == 0:
            path = os.path.join(opts.out, name + ".xml")
            text = result.stdout.replace(root, "@ROOT@")
        else:
            path = os.path.join(opts.out, name + ".error.txt")
            text = result.stdout.replace(root + "/", "") or result.stderr.strip().splitlines()[-1] + "\n"
        with open(path, "w") as f:
            f.write(text)
        print(("ok    " if result.returncode == 0 else "error ") + spec)


if __name__ == "__main__":
    main()
