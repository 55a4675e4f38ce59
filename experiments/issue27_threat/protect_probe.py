"""Is Protect worth anything against maxdamage? A scripted probe (issue 27).

``protectmd`` plays maxdamage's orders, except that an active slot uses its Protect
(or kin) when a foe threatens to knock it out this turn and moves before it (the
observation's threat block, league/battle/analysis.py ``analyse_threats``: ko_hi and
first), and it did not protect on the turn before. Played against plain maxdamage on
teams neither side trained on (neither trains), both seats' orders otherwise equal.

    python experiments/issue27_threat/protect_probe.py [-n 400] [--teams DIR] [--seed 0]
        [--rule ko_first|ko|never]

Prints JSON (last line): protectmd's win rate with its Wilson interval, and how often it
protected. ``--rule never`` is the control (plain maxdamage against itself: ~0.5).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
from collections import Counter
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from league.battle.analysis import THREAT_F, THREAT_FEATURES, TurnAnalysis, analyse_threats  # noqa: E402
from league.learn.diagnostics import PROTECT_MOVES  # noqa: E402
from league.match import play_matches, wilson_interval  # noqa: E402
from league.players.maxdamage import MaxDamagePlayer, slot_scores  # noqa: E402
from league.showdown import locate_showdown, make_fleet  # noqa: E402
from tools import cli  # noqa: E402
from tools.cli import FORMAT  # noqa: E402

STATS: Counter = Counter()
KO_HI, FIRST = THREAT_FEATURES.index("ko_hi"), THREAT_FEATURES.index("first")
NO_TARGET = 2  # the codec's target index for a move that takes none


class ProtectMaxDamage(MaxDamagePlayer):
    rule = "ko_first"

    def choose_turn(self, battle, decision) -> int:
        s0, s1 = slot_scores(battle, decision)
        view = decision.view
        if view.kind == "move" and self.rule != "never":
            threat = np.zeros((2, 2, THREAT_F), np.float32)
            analyse_threats(battle, threat, TurnAnalysis(battle))
            for s, sc in enumerate((s0, s1)):
                mon = battle.active_pokemon[s] if s < len(battle.active_pokemon) else None
                if mon is None or s >= len(view.active) or not view.active[s] or mon.protect_counter:
                    continue
                danger = threat[s, :, KO_HI] > 0
                if self.rule == "ko_first":
                    danger &= threat[s, :, FIRST] >= 0.5
                if not danger.any():
                    continue
                for j, m in enumerate(view.active[s].get("moves", [])[:4]):
                    if m.get("id") in PROTECT_MOVES and not m.get("disabled"):
                        sc[10 * j + 2 * NO_TARGET] = 10.0  # above any damage score
                        STATS["protect_chosen"] += 1
                        break
            STATS["turns"] += 1
        total = (s0[:, None] + s1[None, :]).reshape(-1)
        total[~decision.mask] = -np.inf
        return int(np.argmax(total))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("-n", type=int, default=400)
    ap.add_argument("--teams", default="../shared/teams/gen9vgc2023regc")
    ap.add_argument("--format", default=FORMAT)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--rule", default="ko_first", choices=("ko_first", "ko", "never"))
    args = ap.parse_args()
    ProtectMaxDamage.rule = args.rule
    teams = cli.format_pool(args.format, args.teams)
    with tempfile.TemporaryDirectory() as d, make_fleet("stream", 2, d, install=locate_showdown()) as fleet:
        r = asyncio.run(
            play_matches(
                fleet,
                ProtectMaxDamage,
                MaxDamagePlayer,
                args.n,
                teams,
                teams,
                battle_format=args.format,
                seed=args.seed,
            )
        )
    lo, hi = wilson_interval(r.p1_wins + 0.5 * r.ties, r.battles)
    print(
        json.dumps(
            {
                "rule": args.rule,
                "battles": r.battles,
                "win_rate": round((r.p1_wins + 0.5 * r.ties) / max(r.battles, 1), 3),
                "ci95": [round(lo, 3), round(hi, 3)],
                "turns": STATS["turns"],
                "protect_share_of_turns": round(STATS["protect_chosen"] / max(STATS["turns"], 1), 3),
                "showdown_errors": r.showdown_errors,
                "unfinished": r.unfinished,
            }
        )
    )


if __name__ == "__main__":
    main()
