"""Do the three seeds play better together? Their policies combined at every decision
(the mean of their log-probabilities: a product of experts, each member with its own
recurrent state), against maxdamage on run.py's sides of 6 teams (issue 27).

    python experiments/issue27_pair_ceiling/ensemble.py OUT.json --members CK0 CK1 CK2 [--seed 2] [-n 1080] [--greedy]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import tempfile
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from league.checkpoint import load_policy_net  # noqa: E402
from league.match import play_matches, wilson_interval  # noqa: E402
from league.players.maxdamage import MaxDamagePlayer  # noqa: E402
from league.showdown import locate_showdown, make_fleet  # noqa: E402
from league.sim.policy import NeuralPlayer, PolicyServer  # noqa: E402
from tools import cli  # noqa: E402
from tools.cli import FORMAT  # noqa: E402


class Ensemble(torch.nn.Module):
    """K networks as one: the state is their K states side by side; the logits are the
    mean of their masked log-softmaxes (masked actions stay at the members' -inf)."""

    def __init__(self, nets):
        super().__init__()
        self.nets = torch.nn.ModuleList(nets)
        self.D = nets[0].cfg.core_dim
        self.cfg = type("Cfg", (), {**vars(nets[0].cfg), "core_dim": self.D * len(nets)})()

    def initial_state(self, batch, device=None):
        return torch.zeros(1, batch, self.cfg.core_dim, device=device)

    def forward(self, obs, mask, prev, h):
        outs = [net(obs, mask, prev, h[..., i * self.D : (i + 1) * self.D]) for i, net in enumerate(self.nets)]
        logp = torch.stack([torch.log_softmax(o[0].float(), -1) for o in outs]).mean(0)
        return logp, torch.stack([o[1] for o in outs]).mean(0), torch.cat([o[2] for o in outs], -1)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--members", nargs="+", required=True)
    ap.add_argument("--seed", type=int, default=2)
    ap.add_argument("-n", type=int, default=1080)
    ap.add_argument("--greedy", action="store_true")
    ap.add_argument("--teams", default="../shared/teams/gen9vgc2023regc")
    args = ap.parse_args()
    server = PolicyServer(Ensemble([load_policy_net(m) for m in args.members]).eval(), "ensemble", greedy=args.greedy)
    pool = sorted(Path(args.teams).resolve().glob("*.txt"))
    chosen = random.Random(args.seed).sample(pool, 12)  # run.py's draw (k 6)
    with tempfile.TemporaryDirectory() as d:
        d1, d2 = Path(d, "p1"), Path(d, "p2")
        for dd, ts in ((d1, chosen[:6]), (d2, chosen[6:])):
            dd.mkdir()
            for t in ts:
                (dd / t.name).symlink_to(t)
        t1, t2 = cli.format_pool(FORMAT, str(d1)), cli.format_pool(FORMAT, str(d2))
        with make_fleet("stream", 2, d, install=locate_showdown()) as fleet:
            r = asyncio.run(
                play_matches(
                    fleet,
                    lambda **kw: NeuralPlayer(policy=server, **kw),
                    MaxDamagePlayer,
                    args.n,
                    t1,
                    t2,
                    battle_format=FORMAT,
                    seed=args.seed,
                )
            )
    lo, hi = wilson_interval(r.p1_wins + 0.5 * r.ties, r.battles)
    res = {
        "members": args.members,
        "seed": args.seed,
        "greedy": args.greedy,
        "battles": r.battles,
        "win_rate": round((r.p1_wins + 0.5 * r.ties) / max(r.battles, 1), 4),
        "ci95": [round(lo, 4), round(hi, 4)],
        "unfinished": r.unfinished,
        "showdown_errors": r.showdown_errors,
    }
    Path(args.out).write_text(json.dumps(res))
    print(json.dumps(res))


if __name__ == "__main__":
    main()
