"""Side-by-side solver benchmark: mbconv's criterion bench (`crates/mbconv-solver/benches/chains.rs`)
against Pinocchio's `aba` and MuJoCo's `mj_step` (`bench_oracles.py`) on the 7/30/100-link
chains, alternating the two runs `--rounds` times and keeping each measurement's best median
(the machine is shared; the best run is the least disturbed one). Prints a table with ratios.

Usage (from the repository root; Python with pin==4.1.0 and mujoco==4.0.0):
    /tmp/solvervenv/bin/python oracles/solver/bench_side_by_side.py [--rounds 3] [--oracles ../shared/oracles]
"""
import argparse
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))


def run_mbconv():
    out = subprocess.run(["cargo", "bench", "-q", "-p", "mbconv-solver", "--bench", "chains", "--", "--noplot"],
                         cwd=ROOT, capture_output=True, text=True, check=True).stdout
    result = {}
    units = {"ns": 1e-3, "µs": 1.0, "us": 1.0, "ms": 1e3}
    for m in re.finditer(r"^(\S+)\s+time:\s+\[\S+ \S+ (\S+) (\S+) \S+ \S+\]", out, re.M):
        result[m.group(1)] = float(m.group(2)) * units[m.group(3)]
    return result


def run_oracles(oracles):
    out = subprocess.run([sys.executable, os.path.join(HERE, "bench_oracles.py"), oracles],
                         capture_output=True, text=True, check=True).stdout
    return {k: float(v) for k, v in (line.split() for line in out.splitlines() if line.strip())}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--oracles", default=os.path.join(ROOT, "..", "shared", "oracles"))
    args = ap.parse_args()
    best = {}
    for _ in range(args.rounds):
        for name, value in {**run_mbconv(), **run_oracles(args.oracles)}.items():
            best[name] = min(value, best.get(name, float("inf")))
    print("| n | mbconv ABA | Pinocchio aba (Python) | ratio | mbconv Euler step | MuJoCo mj_step (Python) | MuJoCo rollout step (C loop) | ratio vs mj_step | ratio vs rollout |")
    print("|---|---|---|---|---|---|---|---|---|")
    for n in (7, 30, 100):
        a, p = best[f"aba/{n}"], best[f"pinocchio_aba/{n}"]
        e, s, r = best[f"euler_step/{n}"], best[f"mujoco_mj_step/{n}"], best[f"mujoco_rollout_step/{n}"]
        print(f"| {n} | {a:.2f} µs | {p:.2f} µs | {a / p:.2f} | {e:.2f} µs | {s:.2f} µs | {r:.2f} µs | {e / s:.2f} | {e / r:.2f} |")


if __name__ == "__main__":
    main()
