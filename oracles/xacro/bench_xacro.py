#!/usr/bin/env python3
"""Times the reference, xacro 2.1.1, expanding one file: `xacro.process_file` and
`toprettyxml` (what the `xacro` command does) N times in one interpreter (its start-up left
out), `$(find PKG)` answered from the package map given as in `xacro_golden.py`. Prints the
median in milliseconds. Used by `cargo xtask bench xacro`.

Usage: python bench_xacro.py FILE ROUNDS [NAME=DIR;...] [ARG:=VALUE ...]
"""

import os
import statistics
import sys
import time

import xacro
import xacro.substitution_args as sa


def main():
    file, rounds = sys.argv[1], int(sys.argv[2])
    packages = dict(p.split("=", 1) for p in (sys.argv[3] if len(sys.argv) > 3 else "").split(";") if p)

    def find(pkg):
        if pkg not in packages:
            raise sa.SubstitutionException("package '%s' not found" % pkg)
        return os.path.normpath(packages[pkg])

    sa._eval_find = find
    sa._eval_dict["find"] = find
    mappings = dict(a.split(":=", 1) for a in sys.argv[4:])
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        doc = xacro.process_file(file, mappings=dict(mappings))
        doc.toprettyxml(indent="  ")
        times.append((time.perf_counter() - start) * 1e3)
    print("%.3f" % statistics.median(times))


if __name__ == "__main__":
    main()
