"""Time Pinocchio's `aba` and MuJoCo's `mj_step` on the serial revolute chains of
`chain_models.py` (7, 30, 100 links), for the side-by-side table of docs/performance.md.

Usage (Python 3.11; pin==4.1.0 and mujoco==4.0.0 from PyPI):
    /tmp/solvervenv/bin/python oracles/solver/bench_oracles.py [path/to/shared/oracles]

Prints one line per measurement: `<name>/<n> <median µs per call>`. Pinocchio is timed
through its Python binding (about 0.3–1 µs of call overhead per call, see
shared/reference/oracles.md); MuJoCo is timed both per `mj_step` call from Python and per
step inside `mujoco.rollout` (a C loop, no Python overhead).
"""
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ORACLES = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "..", "..", "shared", "oracles")
sys.path.insert(0, ORACLES)
import chain_models  # noqa: E402
import mujoco  # noqa: E402
import pinocchio as pin  # noqa: E402
from mujoco import rollout  # noqa: E402


def median_per_call(fn, calls, repeats=7):
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn(calls)
        times.append((time.perf_counter() - t0) / calls)
    return float(np.median(times)) * 1e6


def main():
    rng = np.random.default_rng(7)
    for n in (7, 30, 100):
        q = rng.uniform(-1, 1, n)
        v = rng.uniform(-1, 1, n)
        tau = np.zeros(n)
        model = chain_models.pin_model(n)
        data = model.createData()

        def run_aba(k):
            for _ in range(k):
                pin.aba(model, data, q, v, tau)

        print(f"pinocchio_aba/{n} {median_per_call(run_aba, 20000 if n < 100 else 5000):.3f}", flush=True)
        m = mujoco.MjModel.from_xml_string(chain_models.mjcf_xml(n))
        d = mujoco.MjData(m)
        d.qpos[:] = q
        d.qvel[:] = v

        # 200 steps from the same state per repeat: the chains are stable that long.
        def run_step(k):
            d.qpos[:] = q
            d.qvel[:] = v
            for _ in range(k):
                mujoco.mj_step(m, d)

        print(f"mujoco_mj_step/{n} {median_per_call(run_step, 200, repeats=21):.3f}", flush=True)
        spec = mujoco.mjtState.mjSTATE_FULLPHYSICS
        d.qpos[:] = q
        d.qvel[:] = v
        s0 = np.empty(mujoco.mj_stateSize(m, spec))
        mujoco.mj_getState(m, d, s0, spec)

        def run_rollout(k):
            rollout.rollout(m, d, s0[None, :], nstep=k)

        print(f"mujoco_rollout_step/{n} {median_per_call(run_rollout, 200, repeats=21):.3f}", flush=True)


if __name__ == "__main__":
    main()
