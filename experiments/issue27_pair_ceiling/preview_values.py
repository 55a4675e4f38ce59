"""Could a choice between members at team preview, by each member's own value estimate,
pick the member that wins the pair? (issue 27)

Plays `random` (observations encoded) against maxdamage on the matchup study's two sides
of 6 teams; at every team preview each MEMBER network's value of the preview
observation is recorded with the pair. Then, per pair, the member with the highest
value is "chosen" and its measured win rate on that pair (pairs.json of each member, from
experiments/issue27_matchups/run.py) is read back.

    python experiments/issue27_pair_ceiling/preview_values.py OUT.json --members CK0 CK1 CK2 \
        --pairs P0.json P1.json P2.json [-n 400] [--seed S]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "issue27_matchups"))

from run import norm, species_of_team  # noqa: E402

from league.checkpoint import load_policy_net  # noqa: E402
from league.match import play_matches  # noqa: E402
from league.players.maxdamage import MaxDamagePlayer  # noqa: E402
from league.players.random_player import RandomPlayer  # noqa: E402
from league.showdown import locate_showdown, make_fleet  # noqa: E402
from league.sim.policy import pad_preview_mask  # noqa: E402
from tools import cli  # noqa: E402
from tools.cli import FORMAT  # noqa: E402

NETS: list = []
RECORDS: list = []


class RecordValues(RandomPlayer):
    encode_observations = True

    def choose_preview(self, battle, decision):
        obs = torch.from_numpy(decision.obs)[None, None]
        mask = torch.from_numpy(pad_preview_mask(decision.mask))[None, None]
        prev = torch.ones(1, 1, dtype=torch.bool)
        with torch.no_grad():
            vals = [float(net(obs, mask, prev, net.initial_state(1))[1][0, 0]) for net in NETS]
        own = frozenset(norm(m.species) for m in battle.team.values())
        foe = frozenset(norm(m.species) for m in battle.opponent_team.values())
        RECORDS.append((own, foe, vals))
        return super().choose_preview(battle, decision)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--members", nargs="+", required=True)
    ap.add_argument("--pairs", nargs="+", required=True, help="each member's pairs.json, in the same order")
    ap.add_argument("-n", type=int, default=400)
    ap.add_argument("--teams", default="../shared/teams/gen9vgc2023regc")
    ap.add_argument("--seed", type=int, default=0, help="run.py's --seed: which 12 teams")
    args = ap.parse_args()
    NETS.extend(load_policy_net(m) for m in args.members)
    pool = sorted(Path(args.teams).resolve().glob("*.txt"))
    chosen = random.Random(args.seed).sample(pool, 12)  # run.py's draw (k 6; seed 0: the matchup study's)
    sides = {"p1": chosen[:6], "p2": chosen[6:]}
    keys = {s: {species_of_team(t): t.name for t in ts} for s, ts in sides.items()}
    with tempfile.TemporaryDirectory() as d:
        d1, d2 = Path(d, "p1"), Path(d, "p2")
        for dd, ts in ((d1, sides["p1"]), (d2, sides["p2"])):
            dd.mkdir()
            for t in ts:
                (dd / t.name).symlink_to(t)
        t1, t2 = cli.format_pool(FORMAT, str(d1)), cli.format_pool(FORMAT, str(d2))
        with make_fleet("stream", 2, d, install=locate_showdown()) as fleet:
            asyncio.run(
                play_matches(fleet, RecordValues, MaxDamagePlayer, args.n, t1, t2, battle_format=FORMAT, seed=0)
            )
    by_pair: dict = defaultdict(list)
    for own, foe, vals in RECORDS:
        a = next((v for k, v in keys["p1"].items() if own <= k or k <= own), None)
        b = next((v for k, v in keys["p2"].items() if foe <= k or k <= foe), None)
        if a and b:
            by_pair[(a, b)].append(vals)
    rates = []
    for f in args.pairs:
        rows = json.loads(Path(f).read_text())["rows"]
        rates.append({(r["p1_team"], r["p2_team"]): r["p1_wins"] / r["battles"] for r in rows})
    out = []
    for pair, vs in sorted(by_pair.items()):
        v = np.mean(vs, 0)
        rs = [r[pair] for r in rates]
        out.append({"pair": pair, "values": [round(x, 3) for x in v], "rates": rs, "chosen": int(np.argmax(v))})
    n = len(out)
    summary = {
        "pairs": n,
        "each_member_mean": [round(sum(o["rates"][i] for o in out) / n, 3) for i in range(len(NETS))],
        "chosen_by_value_mean": round(sum(o["rates"][o["chosen"]] for o in out) / n, 3),
        "best_member_per_pair_mean": round(sum(max(o["rates"]) for o in out) / n, 3),
        "value_rate_corr": round(
            float(np.corrcoef([x for o in out for x in o["values"]], [x for o in out for x in o["rates"]])[0, 1]), 3
        ),
        "rows": out,
    }
    Path(args.out).write_text(json.dumps(summary, indent=1))
    print(json.dumps({k: v for k, v in summary.items() if k != "rows"}))


if __name__ == "__main__":
    main()
