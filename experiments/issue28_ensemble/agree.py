"""Top-1 agreement between the ensemble and its members on the recorded Reg M-B battles
(tests/data: random-vs-random play, 150 decisions), and each one's mean entropy.
Run from the repository root."""

import gzip
import json
import sys

import numpy as np
import torch

sys.path.insert(0, ".")
sys.path.insert(0, "experiments/issue28_ensemble")
from pathlib import Path

from ensemble import EnsembleNet

from league.battle.context import make_decision
from league.battle.replay import replay
from league.checkpoint import load_policy_net
from league.sim.policy import pad_preview_mask

D = Path("tests/data")
mb = json.loads((D / "recorded_regmb.json").read_text())["sides"]
more = json.loads(gzip.decompress((D / "obs_identity_battles.json.gz").read_bytes()))[-8:]
paths = [
    "league/agents/regmb.pt",
    "outputs/issue28_regmb_eta01k_1205/checkpoints/ckpt_000011667.pt",
    "outputs/issue28_regmb_default_1205/checkpoints/ckpt_000012101.pt",
]
nets = [load_policy_net(p, format_id="gen9championsvgc2026regmb") for p in paths]
ens = EnsembleNet(nets)
agree = np.zeros((4, 4))
n = 0
ent = [[] for _ in range(4)]
with torch.no_grad():
    for rec in [*mb, *more]:
        obs, masks, prev = [], [], []
        for battle, ctx in replay(rec["lines"], rec["username"]):
            d = make_decision(battle, ctx)
            pv = d.view.kind == "preview"
            obs.append(d.obs.copy())
            masks.append(pad_preview_mask(d.mask) if pv else d.mask.copy())
            prev.append(pv)
        if not obs:
            continue
        o = torch.tensor(np.stack(obs))[:, None]
        m = torch.tensor(np.stack(masks))[:, None]
        p = torch.tensor(prev)[:, None]
        outs = []
        for net in [*nets, ens]:
            lg, _, _ = net(o, m, p, net.initial_state(1))
            lp = torch.log_softmax(lg[:, 0].float(), -1)
            outs.append(lp)
        a = [x.argmax(-1) for x in outs]
        for i in range(4):
            pr = outs[i].exp()
            ent[i] += (-(pr * outs[i].clamp_min(-1e4)).sum(-1)).tolist()
            for j in range(4):
                agree[i, j] += (a[i] == a[j]).sum().item()
        n += len(obs)
print("decisions", n)
print(np.round(agree / n, 3))
print("entropy", [round(float(np.mean(e)), 3) for e in ent])
