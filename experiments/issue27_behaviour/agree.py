"""What a network agent does on its turns against maxdamage, order by order: how often
its joint order is the one maxdamage would choose in its place, and per active slot how
often it attacks, uses a status move (Protect and the like), switches, terastallizes
(or mega-evolves), and how much of maxdamage's expected damage its order deals.

    python experiments/issue27_behaviour/agree.py SPEC [-n 100] [--teams DIR] [--format ID] [--greedy]

Prints JSON (last line). Issue 27: what the plateau's agent plays like.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))


from league.battle.actions import decode_slot, split_joint  # noqa: E402
from league.battle.dex import mechanics_of  # noqa: E402
from league.battle.moves import move_info  # noqa: E402
from league.match import play_matches  # noqa: E402
from league.players.maxdamage import maxdamage_turn, slot_scores  # noqa: E402
from league.showdown import locate_showdown, make_fleet  # noqa: E402
from league.specs import player_factory  # noqa: E402
from tools import cli  # noqa: E402
from tools.cli import FORMAT  # noqa: E402

STATS: Counter = Counter()
PROTECT = {
    "protect",
    "detect",
    "spikyshield",
    "banefulbunker",
    "silktrap",
    "burningbulwark",
    "kingsshield",
    "obstruct",
    "wideguard",
    "quickguard",
    "maxguard",
}


class Watch:
    """Mixin: after the player chose a turn order, compare it with maxdamage's."""

    async def _decide(self, battle, decision, is_preview: bool) -> int:
        a = await super()._decide(battle, decision, is_preview)  # type: ignore[misc]
        if is_preview or decision.view.kind != "move":
            return a
        md = maxdamage_turn(battle, decision)
        STATS["turns"] += 1
        STATS["same_joint"] += int(a == md)
        s0, s1 = slot_scores(battle, decision)
        for slot, (mine, theirs, sc) in enumerate(zip(split_joint(a), split_joint(md), (s0, s1))):
            kind, move, target, gimmick = decode_slot(mine)
            if kind == "pass":
                continue
            STATS["slots"] += 1
            STATS["same_slot"] += int(mine == theirs)
            STATS[f"kind_{kind}"] += 1
            STATS["gimmick"] += int(bool(gimmick))
            if kind == "move":
                moves = decision.view.active[slot].get("moves", []) if slot < len(decision.view.active) else []
                mid = moves[move].get("id", "") if move < len(moves) else ""
                cat = move_info(mid, mechanics_of(battle.format)).category if mid else 0
                STATS["move_" + ("protect" if mid in PROTECT else "status" if cat == 2 else "damaging")] += 1
                STATS["damage_mine"] += max(float(sc[mine]), 0.0)
                STATS["damage_md"] += max(float(sc[theirs]), 0.0)
        return a


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("spec")
    ap.add_argument("-n", type=int, default=100)
    ap.add_argument("--teams", default="../shared/teams/gen9vgc2023regc")
    ap.add_argument("--format", default=FORMAT)
    ap.add_argument("--greedy", action="store_true")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    teams = cli.format_pool(args.format, args.teams)
    make_p1 = player_factory(args.spec, args.seed, args.greedy, mixin=Watch, format_id=args.format)
    make_p2 = player_factory("maxdamage", args.seed + 1, False, format_id=args.format)
    with tempfile.TemporaryDirectory() as d, make_fleet("stream", 2, d, install=locate_showdown()) as fleet:
        r = asyncio.run(
            play_matches(fleet, make_p1, make_p2, args.n, teams, teams, battle_format=args.format, seed=args.seed)
        )
    s = STATS
    out = {
        "spec": args.spec,
        "greedy": args.greedy,
        "battles": r.battles,
        "win_rate": round(r.p1_wins / max(r.battles, 1), 3),
        "turns": s["turns"],
        "same_joint_as_maxdamage": round(s["same_joint"] / max(s["turns"], 1), 3),
        "same_slot_as_maxdamage": round(s["same_slot"] / max(s["slots"], 1), 3),
        "slot_share": {k[5:]: round(v / max(s["slots"], 1), 3) for k, v in s.items() if k.startswith("kind_")},
        "move_share": {k[5:]: round(v / max(s["slots"], 1), 3) for k, v in s.items() if k.startswith("move_")},
        "gimmick_share_of_slots": round(s["gimmick"] / max(s["slots"], 1), 3),
        "expected_damage_vs_maxdamage_s": round(s["damage_mine"] / max(s["damage_md"], 1e-9), 3),
        "showdown_errors": r.showdown_errors,
    }
    print(json.dumps(out))


if __name__ == "__main__":
    main()
