"""The acting forward of reg_c's network (narrow sizes), eager, compiled as sim.compile
compiles it (dynamic shapes, the GRU traced), and compiled with dynamo's guards skipped
(``torch.compiler.set_stance(skip_guard_eval_unsafe=True)``): median thread CPU µs of a
forward at batch 8 and 26 (the default hour's mean acting batch). Prints a dict.

    python experiments/issue31_micro_probes/guard_skip.py
"""

import statistics
import time

import numpy as np
import torch

import league  # noqa: F401  (the compiled modules' finder)
from league.battle.actions import JOINT_ACTIONS
from league.battle.obs import OBS_DIM
from league.model.net import ModelConfig, PolicyValueNet

torch.set_num_threads(1)
torch._dynamo.config.allow_rnn = True
net = PolicyValueNet(ModelConfig(mon_dim=64, torso_dim=192, core_dim=192, embed_std=0.0)).eval()
fwd = torch.compile(net, dynamic=True)
rng = np.random.default_rng(0)


def args(B):
    mask = torch.from_numpy(rng.random((1, B, JOINT_ACTIONS)) < 0.05)
    mask[..., 0] = True
    return torch.zeros(1, B, OBS_DIM), mask, torch.zeros(1, B, dtype=torch.bool), net.initial_state(B, "cpu")


with torch.no_grad():
    for B in (1, 2):
        fwd(*args(B))
    res = {}
    for name, f, skip in (("eager", net, False), ("compiled", fwd, False), ("skip_guards", fwd, True)):
        for B in (8, 26):
            a = args(B)
            ts = []
            stance = torch.compiler.set_stance(skip_guard_eval_unsafe=True) if skip else None
            if stance:
                stance.__enter__()
            for _ in range(200):
                t0 = time.thread_time()
                f(*a)
                ts.append(time.thread_time() - t0)
            if stance:
                stance.__exit__(None, None, None)
            res[f"{name}_b{B}_us"] = round(1e6 * statistics.median(ts[20:]), 1)
    print(res)
