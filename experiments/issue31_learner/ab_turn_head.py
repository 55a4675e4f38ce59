"""The turn head on the legal orders only against every order, on real decisions (issue 31).

    python -m tools.bench encode --battles 40 --repeat 1 --save /tmp/rec.json   # 40 random battles, both sides
    python experiments/issue31_learner/ab_turn_head.py /tmp/rec.json > experiments/issue31_learner/ab_turn_head.json

In one process, alternating five rounds: ``Learner.step`` on 10 batches of 16 recorded
trajectories (the reg_c learner, alpha < 1: four forwards), and acting forwards (T = 1)
of B recorded decisions for B in 1, 8, 16, 32, 64; each arm the same code but for
``PolicyValueNet.turn_logits`` getting the legal slot orders or none. Prints JSON: per
arm and round the CPU ms, and the medians."""

from __future__ import annotations

import json
import statistics
import sys
import time

import numpy as np
import torch
from omegaconf import OmegaConf

from league.battle.actions import JOINT_ACTIONS
from league.battle.replay import replay_decisions
from league.config import Config, to_object
from league.learn.learner import Learner
from league.model import net as netmod
from league.transport.data import Batch

ROUNDS = 5


def sides_of(path: str) -> list[list[tuple[np.ndarray, np.ndarray, bool]]]:
    return [replay_decisions(lines, username) for username, lines in json.load(open(path))]


def batch_of(sides, rng: np.random.Generator, B: int = 16) -> Batch:
    """B recorded sides as right-padded trajectories; each step's action a legal one, one terminal reward."""
    pick = [sides[i] for i in rng.choice(len(sides), B, replace=False)]
    T = max(len(s) for s in pick)
    obs = torch.zeros(T, B, pick[0][0][0].shape[0])
    mask = torch.zeros(T, B, JOINT_ACTIONS, dtype=torch.bool)
    prev = torch.zeros(T, B, dtype=torch.bool)
    valid = torch.zeros(T, B, dtype=torch.bool)
    act = torch.zeros(T, B, dtype=torch.long)
    for b, side in enumerate(pick):
        for t, (o, m, p) in enumerate(side):
            obs[t, b], mask[t, b], prev[t, b], valid[t, b] = torch.from_numpy(o), torch.from_numpy(m), p, True
            act[t, b] = int(rng.choice(np.flatnonzero(m)))
    reward = torch.zeros(T, B)
    reward[valid.sum(0) - 1, torch.arange(B)] = torch.from_numpy(rng.choice([-1.0, 1.0], B)).float()
    return Batch(obs, mask, prev, act, torch.full((T, B), -3.0), reward, valid)


def main(path: str) -> None:
    torch.set_num_threads(1)
    exp = OmegaConf.load("league/conf/experiment/reg_c.yaml")
    cfg = to_object(OmegaConf.merge(OmegaConf.structured(Config), exp))
    sides = sides_of(path)
    rng = np.random.default_rng(0)
    batches = [batch_of(sides, rng) for _ in range(10)]
    flat = [d for s in sides for d in s]
    acting = {}
    for B in (1, 8, 16, 32, 64):
        chunks = [flat[i : i + B] for i in range(0, len(flat) - B, B)][:40]
        acting[B] = [
            (
                torch.from_numpy(np.stack([d[0] for d in c]))[None],
                torch.from_numpy(np.stack([d[1] for d in c]))[None],
                torch.tensor([d[2] for d in c])[None],
            )
            for c in chunks
        ]
    legal_form = netmod.PolicyValueNet.turn_logits

    def every_order(self, obs, e, x, slot_legal=None):
        return legal_form(self, obs, e, x, None)

    arms = {"every_order": every_order, "legal_orders": legal_form}
    learners = {k: Learner(cfg.learner, cfg.model) for k in arms}
    net = netmod.PolicyValueNet().eval()
    out: dict = {
        "decisions_per_update": float(np.mean([int(b.valid.sum()) for b in batches])),
        "rounds": {k: {"learner_step_ms": [], **{f"acting_ms_B{B}": [] for B in acting}} for k in arms},
    }
    for _ in range(ROUNDS):
        for k, form in arms.items():
            netmod.PolicyValueNet.turn_logits = form  # type: ignore[method-assign]
            rec = out["rounds"][k]
            c = time.process_time()
            for b in batches:
                learners[k].step(b)
            rec["learner_step_ms"].append(round((time.process_time() - c) / len(batches) * 1000, 1))
            for B, items in acting.items():
                # in the shipped code a forward of fewer than LEGAL_ORDERS_MIN_STEPS steps takes
                # every order whichever arm; here the legal arm is forced at every B to measure it
                c = time.process_time()
                with torch.no_grad():
                    for o, m, p in items:
                        e = net.pokemon(o)
                        x = torch.cat([net.torso_of(o, e)] * 2, -1)
                        form(net, o, e, x, netmod.legal_slot_orders(m, p))
                rec[f"acting_ms_B{B}"].append(round((time.process_time() - c) / len(items) * 1000, 3))
    netmod.PolicyValueNet.turn_logits = legal_form  # type: ignore[method-assign]
    out["medians"] = {k: {n: statistics.median(v) for n, v in rec.items()} for k, rec in out["rounds"].items()}
    print(json.dumps(out))


if __name__ == "__main__":
    main(sys.argv[1])
