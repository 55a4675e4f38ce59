"""What item 3 of issue 31 (steps written straight into shared memory) could save: the
CPU a finished trajectory costs today, building it step by step (lists of the steps'
arrays) and writing it into a shared-memory slot (``SharedExperience.write``: np.stack
and a copy), at the length of a typical Reg C side (16 decisions). Prints JSON.

    python experiments/issue31_trajectories/bench_write.py [--steps 16] [--reps 400]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from league.battle.actions import JOINT_ACTIONS  # noqa: E402
from league.battle.obs import OBS_DIM  # noqa: E402
from league.transport.data import Trajectory  # noqa: E402
from league.transport.experience import SharedExperience  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=16)
    ap.add_argument("--reps", type=int, default=400)
    a = ap.parse_args()
    torch.set_num_threads(1)
    rng = np.random.default_rng(0)
    obs = [rng.random(OBS_DIM, dtype=np.float32) for _ in range(a.steps)]
    masks = [rng.random(JOINT_ACTIONS) < 0.05 for _ in range(a.steps)]
    ex = SharedExperience(8, 64)

    def build() -> Trajectory:
        t = Trajectory("main", 1)
        for i in range(a.steps):  # what NeuralPlayer._decide appends per decision
            t.order.append(i)
            t.obs.append(obs[i])
            t.mask.append(masks[i])
            t.is_preview.append(i == 0)
            t.actions.append(3)
            t.logp.append(-1.0)
        return t

    t0 = time.process_time()
    trajs = [build() for _ in range(a.reps)]
    t_build = (time.process_time() - t0) / a.reps
    t0 = time.process_time()
    for i, t in enumerate(trajs):
        ex.write(i % 8, t)
    t_write = (time.process_time() - t0) / a.reps
    print(
        json.dumps(
            {
                "steps": a.steps,
                "obs_dim": OBS_DIM,
                "joint_actions": JOINT_ACTIONS,
                "build_ms_per_trajectory": round(t_build * 1e3, 4),
                "write_ms_per_trajectory": round(t_write * 1e3, 4),
                "ms_per_training_battle": round(2 * (t_build + t_write) * 1e3, 4),
            }
        )
    )


if __name__ == "__main__":
    main()
