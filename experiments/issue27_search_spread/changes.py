"""What the one-turn look-ahead changes in the network's first choice (issue 27).

Runs tools.battle in this process with league.players.search's ``look_ahead`` wrapped:
each searched move request records the network's first joint action and the look-ahead's
pick, and each of the two slots is classed by how the pick's order differs from the
first's. Prints tools.battle's JSON with a ``changes`` table added.

    python experiments/issue27_search_spread/changes.py --p1 search:agent:regc --p2 maxdamage \
        --teams ../shared/teams/gen9vgc2023regc --open-team-sheets --seed 0 -n 200 \
        --search-foe-spread even
"""

from __future__ import annotations

import collections
import json
import sys

import league.players.search as search_mod
from league.battle.actions import decode_slot, split_joint
from league.battle.moves import _PROTECT_LIKE, move_info

COUNTS: collections.Counter[str] = collections.Counter()
_look_ahead = search_mod.look_ahead


def _order(view, slot: int, a: int) -> tuple[str, str, int, bool]:
    """(kind, move id or switch index, target, tera) of slot order ``a``."""
    kind, i, t, tera = decode_slot(a)
    if kind != "move":
        return kind, str(i), t, tera
    moves = view.active[slot].get("moves", []) if slot < len(view.active) and view.active[slot] else []
    return kind, (moves[i].get("id", "") if i < len(moves) else ""), t, tera


def _is_protect(o) -> bool:
    return o[0] == "move" and o[1] in _PROTECT_LIKE


def _is_status(o) -> bool:
    return o[0] == "move" and not _is_protect(o) and move_info(o[1]).category == 2


def classify(view, first: int, pick: int) -> list[str]:
    out = ["request"]
    if first == pick:
        return [*out, "unchanged"]
    out.append("changed")
    for slot, (a, b) in enumerate(zip(split_joint(first), split_joint(pick), strict=True)):
        if a == b:
            continue
        fo, po = _order(view, slot, a), _order(view, slot, b)
        out.append("slot changed")
        if _is_protect(po) != _is_protect(fo):
            out.append("protect added" if _is_protect(po) else "protect dropped")
        elif (po[0] == "switch") != (fo[0] == "switch"):
            out.append("switch added" if po[0] == "switch" else "switch dropped")
        elif _is_status(po) != _is_status(fo):
            out.append("status move added" if _is_status(po) else "status move dropped")
        elif po[1] != fo[1]:
            out.append("another move")
        elif po[2] != fo[2]:
            out.append("another target" + (", tera differs" if po[3] != fo[3] else ""))
        elif po[3] != fo[3]:
            out.append("tera added" if po[3] else "tera dropped")
        else:
            out.append("other")
    return out


async def _recording(fork, tag, view, actions, logps, *args, **kwargs):
    best = await _look_ahead(fork, tag, view, actions, logps, *args, **kwargs)
    if best is not None:
        COUNTS.update(classify(view, actions[0], actions[best]))
    return best


def main(argv: list[str]) -> dict:
    search_mod.look_ahead = _recording  # SearchPlayer._search reads the module's name
    from tools.battle import main as battle

    out = battle(argv)
    out["changes"] = dict(COUNTS.most_common())
    print(json.dumps(out))
    return out


if __name__ == "__main__":
    main(sys.argv[1:])
