"""CPU ms of one acting forward (T = 1) of reg_c's network, torch.compiled as sim.compile
does (dynamic shapes), with dynamo's default (nn.GRU breaks the graph) or allow_rnn.

    python experiments/issue31_infer_rnn/bench.py break|rnn|eager   # one JSON line

Thread CPU per forward, best of 5 rounds of 100, one thread (as a simulator's)."""

import json
import sys
import time

import numpy as np
import torch
import torch._dynamo

from league.battle.actions import JOINT_ACTIONS
from league.battle.obs import OBS_DIM
from league.model.net import ModelConfig, PolicyValueNet

mode = sys.argv[1]
torch.set_num_threads(1)
torch._dynamo.config.allow_rnn = mode == "rnn"
net = PolicyValueNet(ModelConfig(mon_dim=64, torso_dim=192, core_dim=192, embed_std=0.0)).eval()
fwd = net if mode == "eager" else torch.compile(net, dynamic=True)
rng = np.random.default_rng(0)
res: dict = {"mode": mode, "ms_per_forward": {}}
with torch.no_grad():
    for B in (1, 8, 16, 24, 32):
        obs = torch.from_numpy(rng.random((1, B, OBS_DIM), dtype=np.float32))
        mask = torch.from_numpy(rng.random((1, B, JOINT_ACTIONS)) < 0.05)
        mask[..., 0] = True
        prev = torch.zeros(1, B, dtype=torch.bool)
        h = torch.from_numpy(rng.random((1, B, net.initial_state(1, torch.device("cpu")).shape[-1]), dtype=np.float32))
        for _ in range(3):
            fwd(obs, mask, prev, h)
        ts = []
        for _ in range(5):
            c0 = time.thread_time()
            for _ in range(100):
                fwd(obs, mask, prev, h)
            ts.append((time.thread_time() - c0) / 100 * 1000)
        res["ms_per_forward"][B] = round(min(ts), 3)
print(json.dumps(res))
