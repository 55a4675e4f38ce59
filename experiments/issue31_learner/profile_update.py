"""Where a reg_c learner update's CPU time goes (issue 31 item 5): torch.profiler over 30
Learner.step calls at reg_c sizes on tools.bench's synthetic batches (batch 16, ~12 steps
a trajectory), one thread, alpha < 1 (the first half of an R-NaD iteration).
Prints the top ops by self CPU time and the share of the forward / backward / optimizer.

    python experiments/issue31_learner/profile_update.py > experiments/issue31_learner/profile.txt
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch
from omegaconf import OmegaConf
from torch.profiler import ProfilerActivity, profile, record_function

from league.config import Config, to_object
from league.learn.learner import Learner
from tools.bench import _synthetic_batch

torch.set_num_threads(1)
root = Path(__file__).resolve().parents[2]
exp = OmegaConf.load(root / "league" / "conf" / "experiment" / "reg_c.yaml")
cfg = to_object(OmegaConf.merge(OmegaConf.structured(Config), exp))
rng = np.random.default_rng(0)
batches = [_synthetic_batch(rng, 16)[0] for _ in range(33)]
L = Learner(cfg.learner, cfg.model, device="cpu")
L.warm_up(batches[0])
for b in batches[:3]:
    L.step(b)
with profile(activities=[ProfilerActivity.CPU]) as prof:
    for b in batches[3:]:
        with record_function("learner.step"):
            L.step(b)
print(prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=30))
