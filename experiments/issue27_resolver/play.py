"""`search:agent:regc` with the copies replaced by resolver.py's turn (issue 27).

The network names its k likeliest joint actions as in the look-ahead; each is valued by
``resolver.resolve`` (our damage formula, the foes' greedy replies, speed order, Protect,
Fake Out) instead of Showdown's copies; no copy of the battle is made. Variants:

- ``resolver``: the best value among the candidates (the likelier on a tie);
- ``compare``: plays the copies' pick (the look-ahead as it is) and writes, per search,
  both the copies' and the resolver's values of every candidate to
  runs/resolver/compare_trace.jsonl (how well the resolver stands in for the copies);
- ``network``: never overrules (the network alone, greedy, through the same player);
- ``resolver0.1``: the best only where it beats the network's first choice by >= 0.1
  (the look-ahead's ``decisive0.1``, whose picks carried all of its strength), else the
  network's first choice.

Prints tools.battle's JSON with ``variant``, ``searches`` and ``changed``.

    python experiments/issue27_resolver/play.py resolver --p1 search:agent:regc --p2 maxdamage \
        --teams ../shared/teams/gen9vgc2023regc --open-team-sheets --seed 0 -n 200
"""

from __future__ import annotations

import collections
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import league.players.search as search_mod  # noqa: E402
from league.battle.actions import joint_message  # noqa: E402
import resolver as resolver_mod  # noqa: E402
from resolver import resolve  # noqa: E402

# "network": never overrules (the network's greedy choice through the same player: a
# baseline on the same draws where the opponent samples, which --greedy would not allow)
VARIANTS = {"resolver": 0.0, "resolver0.1": 0.1, "resolver0.05": 0.05, "compare": 0.0, "network": float("inf")}
FOE_MODEL: dict = {}  # compare: the resolver's foe replies of the last search
TRACE: list = []  # compare: per search, the copies' and the resolver's values
SEEN: dict = {}
COUNTS: collections.Counter[str] = collections.Counter()


def resolved(margin: float, compare: bool = False):
    async def look(fork, tag, view, actions, logps, *args, **kwargs):
        battle, foe_sheet = SEEN.pop(tag)
        if compare:
            resolver_mod.DETAIL = []
        values = resolve(battle, view, foe_sheet, actions)
        detail, resolver_mod.DETAIL = resolver_mod.DETAIL, None
        if compare:  # play the copies' pick; keep both sides' values
            foe_model = list(FOE_MODEL.get("last", []))  # before the await: other battles resolve meanwhile
            samples, rng = args[0], args[1]
            seed = [rng.randrange(1 << 16) for _ in range(4)]
            choices = [joint_message(view, a).removeprefix("/choose ") for a in actions]
            copies = await fork(tag, choices, samples, seed, foe_ev=kwargs.get("foe_ev"))
            if copies is None or all(v is None for v in copies):
                return None
            TRACE.append(
                {
                    "actions": actions,
                    "choices": choices,
                    "copies": copies,
                    "resolver": values,
                    "turn": battle.turn,
                    "tag": tag,
                    "own": [(m.species, round(m.current_hp_fraction, 2)) for m in battle.active_pokemon if m],
                    "foes": [(m.species, round(m.current_hp_fraction, 2)) for m in battle.opponent_active_pokemon if m],
                    "foe_model": foe_model,
                    "detail": detail,
                    "moves": [[m.get("id") for m in (a or {}).get("moves", [])] for a in view.active],
                }
            )
            return max((i for i, v in enumerate(copies) if v is not None), key=lambda i: copies[i])
        best = max(range(len(actions)), key=lambda i: (values[i], -i))
        COUNTS["searches"] += 1
        if best and values[best] - values[0] < margin - 1e-9:
            best = 0
        COUNTS["changed"] += best != 0
        return best

    return look


def main(argv: list[str]) -> dict:
    variant, rest = argv[0], argv[1:]
    if variant not in VARIANTS:
        raise SystemExit(f"first argument: one of {', '.join(VARIANTS)}, not {variant!r}")
    search_mod.look_ahead = resolved(VARIANTS[variant], variant == "compare")
    if variant == "compare":
        plain_foe = resolver_mod._foe_choice

        def foe_choice(ta, battle, f):
            c = plain_foe(ta, battle, f)
            FOE_MODEL.setdefault("last", [None, None])[f] = None if c is None else (c[0].id, list(c[1]))
            return c

        resolver_mod._foe_choice = foe_choice
    plain_choose = search_mod.SearchPlayer.choose_turn

    def choose_turn(self, battle, decision):
        ctx = self.contexts.get(battle.battle_tag)
        SEEN[battle.battle_tag] = (battle, ctx.foe_sheet if ctx is not None else None)
        return plain_choose(self, battle, decision)

    search_mod.SearchPlayer.choose_turn = choose_turn
    from tools.battle import main as battle

    out = battle(rest)
    out["variant"] = variant
    out.update(COUNTS)
    if variant == "compare":
        trace = Path("runs/resolver/compare_trace.jsonl")
        trace.parent.mkdir(parents=True, exist_ok=True)
        trace.write_text("".join(json.dumps(t) + "\n" for t in TRACE))
        out["trace"] = str(trace)
    print(json.dumps(out))
    return out


if __name__ == "__main__":
    main(sys.argv[1:])
