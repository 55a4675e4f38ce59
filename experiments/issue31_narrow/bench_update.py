"""CPU ms a learner update at the wider sizes (ModelConfig's 96 / 256 / 256) and narrower
ones, alternated in one process: 3 rounds of 8 updates each, tools.bench's synthetic
batches (16 trajectories), one thread, reg_c's learner otherwise. The issue31_narrow table.

    python experiments/issue31_narrow/bench_update.py
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import torch
from omegaconf import OmegaConf

from league.config import Config, to_object
from league.learn.learner import Learner
from tools.bench import _synthetic_batch

torch.set_num_threads(1)
root = Path(__file__).resolve().parents[2]
exp = OmegaConf.load(root / "league" / "conf" / "experiment" / "reg_c.yaml")
rng = np.random.default_rng(0)
batches = [_synthetic_batch(rng, 16)[0] for _ in range(8)]
variants = {
    "m96t256 (wide)": {"mon_dim": 96, "torso_dim": 256, "core_dim": 256},
    "m64t192 (reg_c)": {"mon_dim": 64, "torso_dim": 192, "core_dim": 192},
    "m64t256": {"mon_dim": 64, "torso_dim": 256, "core_dim": 256},
    "m96t192": {"mon_dim": 96, "torso_dim": 192, "core_dim": 192},
    "m64t128": {"mon_dim": 64, "torso_dim": 128, "core_dim": 128},
}
learners = {}
for name, sizes in variants.items():
    cfg = to_object(OmegaConf.merge(OmegaConf.structured(Config), exp, OmegaConf.create({"model": sizes})))
    learners[name] = Learner(cfg.learner, cfg.model, device="cpu")
    learners[name].warm_up(batches[0])
    print(name, "parameters", sum(p.numel() for p in learners[name].net.parameters()))
ms: dict[str, list[float]] = {name: [] for name in learners}
for _ in range(3):
    for name, learner in learners.items():
        start = time.process_time()
        for b in batches:
            learner.step(b)
        ms[name].append((time.process_time() - start) / len(batches) * 1e3)
for name, v in ms.items():
    print(name, [round(x, 1) for x in v], "median", round(sorted(v)[1], 1))
