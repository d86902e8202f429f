"""Times DART's SKEL reader on one file: `python read_skel_timed.py FILE`.

Prints `seconds skeletons bodies` for one `dart.utils.SkelParser.readWorld` call (the
wall-clock time of the call alone, not of starting Python or importing dartpy).
Used by `cargo xtask bench convert`, beside mbconv's own conversion times.
"""

import os
import sys
import time

import dartpy as dart


def main() -> None:
    path = sys.argv[1]
    start = time.perf_counter()
    world = dart.utils.SkelParser.readWorld(os.path.abspath(path))
    seconds = time.perf_counter() - start
    if world is None:
        sys.exit(f"DART could not read {path}")
    bodies = sum(
        world.getSkeleton(i).getNumBodyNodes() for i in range(world.getNumSkeletons())
    )
    print(f"{seconds:.6f} {world.getNumSkeletons()} {bodies}")


if __name__ == "__main__":
    main()
