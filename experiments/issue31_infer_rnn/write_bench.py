"""CPU µs to take a slot and write one 20-decision trajectory into the shared slots
(SharedExperience.acquire + write, what a simulator does per learning side of a battle).

    python experiments/issue31_infer_rnn/write_bench.py   # one JSON line
"""

import json
import time

import numpy as np

from league.battle.actions import JOINT_ACTIONS
from league.battle.obs import OBS_DIM
from league.transport.data import Trajectory
from league.transport.experience import FREE, SharedExperience

rng = np.random.default_rng(0)
t = Trajectory("main", version=3, reward=1.0, battle=5, group=9)
for i in range(20):
    t.obs.append(rng.random(OBS_DIM, dtype=np.float32))
    t.mask.append(rng.random(JOINT_ACTIONS) < 0.05)
    t.is_preview.append(i == 0)
    t.actions.append(i)
    t.logp.append(-1.5)
    t.order.append(i)
exp = SharedExperience(n_slots=256, t_max=64)
best = []
for _ in range(5):
    c0 = time.thread_time()
    for _ in range(500):
        s = exp.acquire(0, 256)
        exp.write(s, t)
        exp.state[s] = FREE
    best.append((time.thread_time() - c0) / 500 * 1e6)
print(json.dumps({"us_per_trajectory": round(min(best), 1)}))
