"""Is team preview what the agent loses on unseen teams? (issue 27)

Plays SPEC (a network player) against maxdamage on teams neither trained on, with its
own team preview (``--preview own``, the control) or with maxdamage's preview rule
(``--preview maxdamage``: the four with the best offence + speed, the best two as leads)
and the network's play from turn 1 on.

    python experiments/issue27_matchups/preview_probe.py agent:regc --preview maxdamage -n 400 --greedy

Prints JSON (last line): the win rate with its Wilson interval.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from league.match import play_matches, wilson_interval  # noqa: E402
from league.players.maxdamage import MaxDamagePlayer, maxdamage_preview  # noqa: E402
from league.showdown import locate_showdown, make_fleet  # noqa: E402
from league.specs import player_factory  # noqa: E402
from tools import cli  # noqa: E402
from tools.cli import FORMAT  # noqa: E402


class MaxDamagePreview:
    """Mixin: maxdamage's team preview, the network's play after it."""

    def choose_preview(self, battle, decision):
        return maxdamage_preview(battle, decision)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("spec")
    ap.add_argument("--preview", choices=("own", "maxdamage"), default="maxdamage")
    ap.add_argument("-n", type=int, default=400)
    ap.add_argument("--greedy", action="store_true")
    ap.add_argument("--teams", default="../shared/teams/gen9vgc2023regc")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    teams = cli.format_pool(FORMAT, args.teams)
    mixin = MaxDamagePreview if args.preview == "maxdamage" else None
    make_p1 = player_factory(args.spec, seed=args.seed, greedy=args.greedy, mixin=mixin, format_id=FORMAT)
    with tempfile.TemporaryDirectory() as d, make_fleet("stream", 2, d, install=locate_showdown()) as fleet:
        r = asyncio.run(
            play_matches(fleet, make_p1, MaxDamagePlayer, args.n, teams, teams, battle_format=FORMAT, seed=args.seed)
        )
    lo, hi = wilson_interval(r.p1_wins + 0.5 * r.ties, r.battles)
    print(json.dumps({
        "spec": args.spec, "preview": args.preview, "greedy": args.greedy, "battles": r.battles,
        "win_rate": round((r.p1_wins + 0.5 * r.ties) / max(r.battles, 1), 3), "ci95": [round(lo, 3), round(hi, 3)],
        "showdown_errors": r.showdown_errors, "unfinished": r.unfinished, "seed": args.seed,
    }))


if __name__ == "__main__":
    main()
