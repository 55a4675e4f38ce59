"""Are speed-control moves worth anything against maxdamage? A scripted probe (issue 27).

The trained policies drop status moves (Tailwind, Trick Room, ...) to probabilities of
~1e-6 within a few hundred updates. ``speedmd`` plays maxdamage's orders, except that a
slot sets up speed control when its side lacks it:

- ``tailwind``: a slot with Tailwind uses it while Tailwind is not up on our side;
- ``trickroom``: a slot with Trick Room uses it while Trick Room is not up and our
  actives are slower than the foe's (mean effective speed, league/battle/fighter.py);
- ``speed``: both (Tailwind first); ``never``: plain maxdamage (the control, ~0.5).

One slot a turn sets it up; the other attacks as maxdamage would. Played against plain
maxdamage on teams neither side trained on.

    python experiments/issue27_behaviour/speed_probe.py [-n 400] [--teams DIR] [--seed 0]
        [--rule speed|tailwind|trickroom|never]

Prints JSON (last line): speedmd's win rate with its Wilson interval, and how often it
set up speed control (of its move turns, and the battles where it did at least once).
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
from poke_env.battle import Field, SideCondition

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from league.battle.analysis import TurnAnalysis  # noqa: E402
from league.battle.fighter import effective_speed  # noqa: E402
from league.match import play_matches, wilson_interval  # noqa: E402
from league.players.maxdamage import MaxDamagePlayer, slot_scores  # noqa: E402
from league.showdown import locate_showdown, make_fleet  # noqa: E402
from tools import cli  # noqa: E402
from tools.cli import FORMAT  # noqa: E402

STATS: Counter = Counter()
BATTLES_WITH: set = set()
NO_TARGET = 2  # the codec's target index for a move that takes none


def _mean_speed(fighters, env) -> float | None:
    speeds = [effective_speed(f, env) for f in fighters if f is not None]
    return sum(speeds) / len(speeds) if speeds else None


def wanted_moves(battle, rule: str) -> list[str]:
    """The speed-control moves worth setting up now, in order of preference."""
    out = []
    if rule in ("tailwind", "speed") and SideCondition.TAILWIND not in battle.side_conditions:
        out.append("tailwind")
    if rule in ("trickroom", "speed") and Field.TRICK_ROOM not in battle.fields:
        ta = TurnAnalysis(battle)
        ours, theirs = _mean_speed(ta.own, ta.env), _mean_speed(ta.foes, ta.env)
        if ours is not None and theirs is not None and ours < theirs:
            out.append("trickroom")
    return out


class SpeedMaxDamage(MaxDamagePlayer):
    rule = "speed"

    def choose_turn(self, battle, decision) -> int:
        s0, s1 = slot_scores(battle, decision)
        view = decision.view
        if view.kind == "move":
            STATS["turns"] += 1
            for want in wanted_moves(battle, self.rule):
                done = False
                for s, sc in enumerate((s0, s1)):
                    if s >= len(view.active) or not view.active[s]:
                        continue
                    for j, m in enumerate(view.active[s].get("moves", [])[:4]):
                        if m.get("id") == want and not m.get("disabled"):
                            sc[10 * j + 2 * NO_TARGET] = 10.0  # above any damage score
                            STATS[want] += 1
                            BATTLES_WITH.add(battle.battle_tag)
                            done = True
                            break
                    if done:
                        break
                if done:
                    break  # one slot a turn
        total = (s0[:, None] + s1[None, :]).reshape(-1)
        total[~decision.mask] = -np.inf
        return int(np.argmax(total))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("-n", type=int, default=400)
    ap.add_argument("--teams", default="../shared/teams/gen9vgc2023regc")
    ap.add_argument("--format", default=FORMAT)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--rule", default="speed", choices=("speed", "tailwind", "trickroom", "never"))
    args = ap.parse_args()
    SpeedMaxDamage.rule = args.rule
    teams = cli.format_pool(args.format, args.teams)
    with tempfile.TemporaryDirectory() as d, make_fleet("stream", 2, d, install=locate_showdown()) as fleet:
        r = asyncio.run(
            play_matches(
                fleet,
                SpeedMaxDamage,
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
                "tailwind_share_of_turns": round(STATS["tailwind"] / max(STATS["turns"], 1), 3),
                "trickroom_share_of_turns": round(STATS["trickroom"] / max(STATS["turns"], 1), 3),
                "battles_with_speed_control": len(BATTLES_WITH),
                "showdown_errors": r.showdown_errors,
                "unfinished": r.unfinished,
            }
        )
    )


if __name__ == "__main__":
    main()
