#!/usr/bin/env python3
"""DART trajectories for the cross-simulator golden data (`cargo xtask golden chrono`).

Loads one SKEL file with dartpy (DART's own SkelParser), switches collision checking off for
every body node (the Chrono side runs with the sparse direct solver, which has no contact) unless
--collisions is given (then DART checks contact as the file says, `cargo xtask golden
chrono-contact`), sets the time step, and records every body's world centre of mass every N steps
of World.step() (DART's semi-implicit Euler). Gravity is the file's.

Usage: python dart_trajectory.py FILE.skel --dt H --duration T --every N --out OUT.json
       [--collisions]

Output: {"dt": H, "times": [...], "bodies": {NAME: [[x, y, z], ...]}} or, when DART cannot load
the file, {"load_error": "..."}. Keys sorted, floats in Python's shortest repr: deterministic.
"""

import argparse
import json
import sys

import dartpy as dart


def com_samples(world, dt, duration, every, collisions):
    world.setTimeStep(dt)
    bodies = []
    for i in range(world.getNumSkeletons()):
        skeleton = world.getSkeleton(i)
        for j in range(skeleton.getNumBodyNodes()):
            node = skeleton.getBodyNode(j)
            if not collisions:
                node.setCollidable(False)
            bodies.append(node)
    steps = int(round(duration / dt))
    times, track = [], {node.getName(): [] for node in bodies}

    def record():
        times.append(world.getTime())
        for node in bodies:
            track[node.getName()].append([float(x) for x in node.getCOM()])

    record()
    for step in range(1, steps + 1):
        world.step()
        if step % every == 0:
            record()
    return {"dt": dt, "times": times, "bodies": track}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file")
    parser.add_argument("--dt", type=float, required=True)
    parser.add_argument("--duration", type=float, default=1.0)
    parser.add_argument("--every", type=int, required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--collisions", action="store_true")
    args = parser.parse_args()
    try:
        world = dart.utils.SkelParser.readWorld(args.file)
        if world is None:
            raise RuntimeError("SkelParser.readWorld returned nothing")
        result = com_samples(world, args.dt, args.duration, args.every, args.collisions)
    except Exception as error:  # DART raises plain RuntimeErrors; keep the message.
        result = {"load_error": str(error)}
    with open(args.out, "w") as out:
        json.dump(result, out, sort_keys=True, indent=1)
        out.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
