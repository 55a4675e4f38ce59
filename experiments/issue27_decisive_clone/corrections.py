"""Did a clone learn the look-ahead's corrections? (issue 27)

Over the turn decisions of the decisive teacher's logs (a parsed data set: policy
``search``), the reference network's greedy choice says where the teacher corrected it
(the recorded choice differs) and where it kept it. For each model given, prints JSON:
its top-1 agreement with the teacher on the corrected decisions (did it learn the
correction?) and on the kept ones (did it keep the network's own play?).

    python experiments/issue27_decisive_clone/corrections.py runs/decisive_clone/heldout_logs/dataset \\
        league/agents/regc.pt runs/decisive_clone/clone/bc.pt ...

``SPLITS=heldout``: only the data set's held-out chunks (a clone's own data set).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import torch

from league.bc.dataset import chunk_path, read_manifest
from league.bc.train import _batch, _trajectories
from league.checkpoint import load_policy_net, safe_load


def choices(net, trajs) -> list[torch.Tensor]:
    """The network's greedy (legal arg-max) action at each step of each trajectory."""
    out = []
    with torch.no_grad():
        for i in range(0, len(trajs), 32):
            part = trajs[i : i + 32]
            b = _batch(part, ("search",), "cpu")
            logits, _, _ = net(b["obs"], b["mask"], b["is_preview"], net.initial_state(b["obs"].shape[1]))
            top = logits.float().masked_fill(~b["mask"], float("-inf")).argmax(-1)  # [T, B]
            out += [top[: len(t["actions"]), k] for k, t in enumerate(part)]
    return out


def main(argv: list[str]) -> None:
    data, ref, *models = argv
    man = read_manifest(Path(data))
    trajs = []
    for split in os.environ.get("SPLITS", "train,heldout").split(","):  # SPLITS=heldout: the data set's held-out part
        for c in man["chunks"][split]:
            trajs += [
                t
                for t in _trajectories(safe_load(chunk_path(Path(data), c["file"]), "BC chunk"))
                if t["policy"] == "search"
            ]
    ref_top = choices(load_policy_net(ref), trajs)
    turn = torch.cat([~t["is_preview"] for t in trajs])
    label = torch.cat([t["actions"] for t in trajs])
    corrected = turn & (torch.cat(ref_top) != label)
    kept = turn & ~corrected
    out = {"turn_decisions": int(turn.sum()), "corrected": int(corrected.sum()), "models": {}}
    for m in [ref, *models]:
        top = torch.cat(choices(load_policy_net(m), trajs))
        agree = top == label
        out["models"][m] = {
            "agrees_on_corrected": round(float(agree[corrected].float().mean()), 4),
            "agrees_on_kept": round(float(agree[kept].float().mean()), 4),
            "same_as_reference_on_turns": round(float((top == torch.cat(ref_top))[turn].float().mean()), 4),
        }
    print(json.dumps(out))


if __name__ == "__main__":
    main(sys.argv[1:])
