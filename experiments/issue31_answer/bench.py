"""One batched answer of the policy server (PolicyServer._flush: stacking, the compiled
forward, the NaN check, the draw, the futures) against its forward alone: 26 decisions,
reg_c's network, one thread, thread CPU, median of 50 after 10 warm. Prints JSON.

    python experiments/issue31_answer/bench.py
"""

import asyncio
import json
import time

import numpy as np
import torch

from league.battle.actions import JOINT_ACTIONS
from league.battle.obs import OBS_DIM
from league.model.net import ModelConfig, PolicyValueNet
from league.sim.policy import PolicyServer

B = 26  # decisions a forward in a reg_c training run (one shard, 2 workers x 32 battles)


def median_ms(times: list[float]) -> float:
    return round(1e3 * float(np.median(times[10:])), 3)


async def main() -> dict:
    torch.set_num_threads(1)
    net = PolicyValueNet(ModelConfig(mon_dim=64, torso_dim=192, core_dim=192, embed_std=0.0))
    server = PolicyServer(net, "main", compile=True, min_batch=10**6, max_wait_s=10.0)
    rng = np.random.default_rng(0)
    obs = [rng.random(OBS_DIM).astype(np.float32) * 0.1 for _ in range(B)]
    masks = []
    for _ in range(B):
        m = rng.random(JOINT_ACTIONS) < 0.05
        m[0] = True
        masks.append(m)
    answer, forward = [], []
    for _ in range(60):
        for i in range(B):
            server.act(f"b{i}", obs[i], masks[i], False)
        c0 = time.thread_time()
        server._flush()
        answer.append(time.thread_time() - c0)
    o = torch.from_numpy(np.stack(obs))[None]
    m = torch.from_numpy(np.stack(masks))[None]
    prev = torch.zeros(1, B, dtype=torch.bool)
    h = server._state.index_select(0, server._rows([f"b{i}" for i in range(B)]))[None]
    with torch.no_grad():
        for _ in range(60):
            c0 = time.thread_time()
            server.forward(o, m, prev, h)
            forward.append(time.thread_time() - c0)
    return {"batch": B, "answer_ms": median_ms(answer), "forward_ms": median_ms(forward)}


if __name__ == "__main__":
    print(json.dumps(asyncio.run(main())))
