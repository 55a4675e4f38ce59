"""tools.battle with p1 an ensemble of network checkpoints (an issue-28 probe, not a feature).

    ENSEMBLE=CKPT,CKPT,... python experiments/issue28_ensemble/ensemble.py TOOLS.BATTLE ARGS

p1's SPEC is ignored: p1 plays the mean of the members' log-probabilities (a geometric
mean of their policies), each member with its own recurrent state; `--greedy` takes its
arg-max. Every member must read the same observation blocks (checked).
"""

from __future__ import annotations

import os
import sys

import torch
from torch import nn

from league.checkpoint import load_policy_net
from league.sim.policy import NeuralPlayer, PolicyServer
from tools import battle as bt


class EnsembleNet(nn.Module):
    def __init__(self, nets):
        super().__init__()
        for block in ("threat", "sheets"):
            if len({bool(getattr(n.cfg, block)) for n in nets}) > 1:
                sys.exit(f"ENSEMBLE: the members disagree on model.{block}; they must read the same observation")
        self.nets = nn.ModuleList(nets)
        self.cfg = nets[0].cfg
        self.dims = [n.state_dim for n in nets]

    @property
    def state_dim(self) -> int:
        return sum(self.dims)

    def initial_state(self, batch, device=None):
        return torch.zeros(1, batch, self.state_dim, device=device)

    def forward(self, obs, mask, prev, h):
        lps, vs, hs = [], [], []
        for net, hi in zip(self.nets, torch.split(h, self.dims, dim=-1), strict=True):
            logits, v, hn = net(obs, mask, prev, hi.contiguous())
            lps.append(torch.log_softmax(logits.float(), -1))
            vs.append(v)
            hs.append(hn)
        return torch.stack(lps).mean(0), torch.stack(vs).mean(0), torch.cat(hs, -1)


_factory = bt.player_factory
_calls = [0]


def patched(spec, seed=0, greedy=False, **kw):
    _calls[0] += 1
    if _calls[0] > 1:  # p2
        return _factory(spec, seed, greedy, **kw)
    nets = [load_policy_net(p, format_id=kw.get("format_id")) for p in os.environ["ENSEMBLE"].split(",")]
    server = PolicyServer(EnsembleNet(nets), name="ensemble", greedy=greedy, seed=seed)
    return lambda **k: NeuralPlayer(policy=server, **k)


if __name__ == "__main__":
    bt.player_factory = patched
    bt.main()
