"""Which of maxdamage's turn decisions a cloned network misses: near-ties or not.

    python experiments/bc_maxdamage_v2/ties.py MODEL DATA_DIR

maxdamage's score of each order is rebuilt from the observation (act_target's
exp_foes - exp_ally, the tera penalty, switches -1, pass 0): the same numbers it
computed (tests/unit/test_dex.py checks maxdamage against the observation). A turn
decision is a *tie* when another legal joint order scores within 1e-4 of the chosen
one before the vocabulary tie-break, i.e. only the move ids' order decides it. Prints
JSON: turn decisions, ties, top-1 on ties and on the rest.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import torch

from league.battle.actions import MOVE_ACTIONS, PASS, SLOT_ACTIONS, SWITCH_OFFSET
from league.battle.analysis import EXP_ALLY, EXP_FOES
from league.battle.obs import split
from league.bc.train import _batch, _trajectories, legal_top1
from league.checkpoint import load_policy_net


def scores(obs: np.ndarray) -> np.ndarray:
    at = split(obs)["act_target"]  # [..., 2, 4, 5, 2, F]
    v = at[..., EXP_FOES].astype(np.float64) - at[..., EXP_ALLY]
    v[..., 1] = v[..., 0] - 1e-3
    s = np.zeros((*obs.shape[:-1], 2, SLOT_ACTIONS))
    s[..., :MOVE_ACTIONS] = v.reshape(*obs.shape[:-1], 2, MOVE_ACTIONS)
    s[..., SWITCH_OFFSET:PASS] = -1.0
    return (s[..., 0, :, None] + s[..., 1, None, :]).reshape(*obs.shape[:-1], -1)


def main(model: str, data: str) -> dict:
    net = load_policy_net(model).eval()
    manifest = json.loads((Path(data) / "manifest.json").read_text())
    hit = {"tie": 0, "clear": 0}
    n = {"tie": 0, "clear": 0}
    with torch.no_grad():
        for split in ("train", "heldout"):
            for c in manifest["chunks"][split]:
                trajs = [t for t in _trajectories(torch.load(Path(data) / c["file"], weights_only=False))
                         if t["policy"] == "maxdamage"]
                for i in range(0, len(trajs), 32):
                    bt = _batch(trajs[i:i + 32], ("maxdamage",), "cpu")
                    logits, _, _ = net(bt["obs"], bt["mask"], bt["is_preview"], net.initial_state(bt["obs"].shape[1]))
                    top1 = legal_top1(logits, bt["mask"], bt["actions"]).numpy()
                    total = scores(bt["obs"].numpy())
                    total[~bt["mask"].numpy()] = -np.inf
                    chosen = np.take_along_axis(total, bt["actions"].numpy()[..., None], -1)[..., 0]
                    close = ((total > chosen[..., None] - 1e-4) & bt["mask"].numpy()).sum(-1) > 1
                    turn = bt["imitate"].numpy() & ~bt["is_preview"].numpy()
                    for k, sel in (("tie", turn & close), ("clear", turn & ~close)):
                        hit[k] += float(top1[sel].sum())
                        n[k] += int(sel.sum())
    return {"turn_decisions": n["tie"] + n["clear"], "ties": n["tie"],
            "top1_ties": round(hit["tie"] / max(n["tie"], 1), 4), "top1_clear": round(hit["clear"] / max(n["clear"], 1), 4)}


if __name__ == "__main__":
    print(json.dumps(main(sys.argv[1], sys.argv[2])))
