"""Which of the one-turn look-ahead's overrides carry its strength (issue 27).

`search:agent:regc` beats `maxdamage` ~0.80 where the network alone wins ~0.63, and it
overrules the network's first choice in ~70 % of move requests: another attacking move in
about half of the changed slots, a Protect where the network attacked in a fifth
(experiments/issue27_search_spread). This runs tools.battle in this process with
league.players.search's ``look_ahead`` restricted to some of those overrides, so the
restricted searches can be played against the full one on the same team draws:

- ``protect``: a candidate may differ from the network's first choice only by a slot that
  Protects (or uses another protect-like move) where the first did not;
- ``moves``: only by a slot's attacking or status move, target or tera (no Protect added
  or dropped, no switch added or dropped);
- ``full``: the look-ahead as it is (all k candidates);
- ``tera``: only by a slot's tera (the same move at the same target, terastallizing or
  not where the first did the other);
- ``moves-same-tera``: as ``moves``, each slot keeping the first's tera choice;
- ``decisive0.1`` / ``decisive0.2``: all k candidates, but the look-ahead's pick is played
  only where it beats the network's first choice by at least 0.1 / 0.2 of one-turn
  material (``look_ahead``'s ``margin``, as ``sim.search_margin`` in training); elsewhere
  the network's first choice: how much of the strength the decisive picks carry;
- ``naive-foe``: the full look-ahead, but the copies' foes choose as Showdown's
  ``default`` does (each its first usable move) instead of the damage-greedy foe model:
  whether predicting the foes' replies matters. Needs ``foe_model.patch`` applied (``git
  apply experiments/issue27_search_parts/foe_model.patch``; not on main);
- ``moves-analysis``: the candidates of ``moves``, ranked not by Showdown's copies but by
  `heuristic`'s joint score (league/players/heuristic.py: our own damage analysis, expected
  HP removed and knock-outs, focus without overkill, tera's cost): whether the analysis
  the network reads holds what the copies find.

The network's first choice is always a candidate. Prints tools.battle's JSON with
``restriction`` and ``candidates`` (how many the look-ahead weighed per search, summed)
and ``changed`` (searches whose pick was not the network's first choice).

    python experiments/issue27_search_parts/parts.py protect --p1 search:agent:regc \
        --p2 maxdamage --teams ../shared/teams/gen9vgc2023regc --open-team-sheets --seed 0 -n 200
"""

from __future__ import annotations

import collections
import functools
import inspect
import json
import sys

import league.players.search as search_mod
from league.battle.actions import decode_slot, split_joint
from league.battle.moves import _PROTECT_LIKE
from league.players.heuristic import _slot_tables, joint_scores

RESTRICTIONS = (
    "full",
    "protect",
    "moves",
    "moves-analysis",
    "tera",
    "moves-same-tera",
    "decisive0.1",
    "decisive0.2",
    "naive-foe",
)
SEEN: dict = {}  # battle tag -> (battle, decision) of its pending search
COUNTS: collections.Counter[str] = collections.Counter()
_look_ahead = search_mod.look_ahead


def _kind(view, slot: int, a: int) -> str:
    """'switch', 'protect', or 'move' (any other move) for slot order ``a``; else its kind."""
    kind, i, _t, _tera = decode_slot(a)
    if kind != "move":
        return kind
    moves = view.active[slot].get("moves", []) if slot < len(view.active) and view.active[slot] else []
    mid = moves[i].get("id", "") if i < len(moves) else ""
    return "protect" if mid in _PROTECT_LIKE else "move"


def allowed(view, first: int, cand: int, restriction: str) -> bool:
    """Whether ``cand`` differs from ``first`` only in the ways ``restriction`` allows."""
    if restriction == "full" or cand == first:
        return True
    for slot, (a, b) in enumerate(zip(split_joint(first), split_joint(cand), strict=True)):
        if a == b:
            continue
        ka, kb = _kind(view, slot, a), _kind(view, slot, b)
        if restriction == "tera":
            (k0, i0, t0, _), (k1, i1, t1, _) = decode_slot(a), decode_slot(b)
            if not (k0 == k1 == "move" and i0 == i1 and t0 == t1):
                return False
        if restriction == "moves-same-tera" and decode_slot(a)[3] != decode_slot(b)[3]:
            return False
        if restriction == "protect" and not (kb == "protect" and ka != "protect"):
            return False
        if restriction.startswith("moves") and not (ka == kb == "move"):
            return False
    return True


def _analysis_pick(tag: str, cands: list[int]) -> int:
    """The index in ``cands`` of the best `heuristic` joint score (the first on a tie)."""
    battle, decision = SEEN.pop(tag)
    opp = battle.opponent_active_pokemon
    hp = [
        m.current_hp_fraction if m is not None and not m.fainted else None
        for m in (opp[f] if f < len(opp) else None for f in range(2))
    ]
    flat = joint_scores(*_slot_tables(battle, decision), hp).reshape(-1)
    return max(range(len(cands)), key=lambda i: (flat[cands[i]], -i))


def restricted(restriction: str):
    async def look(fork, tag, view, actions, logps, *args, **kwargs):
        keep = [i for i, a in enumerate(actions) if allowed(view, actions[0], a, restriction)]
        COUNTS["searches"] += 1
        COUNTS["candidates"] += len(keep)
        if restriction == "moves-analysis":
            best = _analysis_pick(tag, [actions[i] for i in keep])
            COUNTS["changed"] += keep[best] != 0
            return keep[best]
        if restriction == "naive-foe":
            fork = functools.partial(fork, foe_model="default")
        if restriction.startswith("decisive"):
            kwargs["margin"] = float(restriction.removeprefix("decisive"))
        best = await _look_ahead(fork, tag, view, [actions[i] for i in keep], [logps[i] for i in keep], *args, **kwargs)
        if best is None:
            return None
        if best == -1:  # a near-tie: the network's first choice
            COUNTS["near_ties"] += 1
            best = 0
        COUNTS["changed"] += keep[best] != 0
        return keep[best]

    return look


def main(argv: list[str]) -> dict:
    restriction, rest = argv[0], argv[1:]
    if restriction not in RESTRICTIONS:
        raise SystemExit(f"first argument: one of {', '.join(RESTRICTIONS)}, not {restriction!r}")
    if restriction == "naive-foe":
        from league.showdown.stream import StreamClient

        if "foe_model" not in inspect.signature(StreamClient.fork).parameters:
            raise SystemExit("naive-foe: apply experiments/issue27_search_parts/foe_model.patch first")
    search_mod.look_ahead = restricted(restriction)  # SearchPlayer._search reads the module's name
    plain_choose = search_mod.SearchPlayer.choose_turn

    def choose_turn(self, battle, decision):
        SEEN[battle.battle_tag] = (battle, decision)
        return plain_choose(self, battle, decision)

    search_mod.SearchPlayer.choose_turn = choose_turn
    from tools.battle import main as battle

    out = battle(rest)
    out["restriction"] = restriction
    out.update(COUNTS)
    print(json.dumps(out))
    return out


if __name__ == "__main__":
    main(sys.argv[1:])
