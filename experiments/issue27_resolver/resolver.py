"""One turn resolved from our own damage analysis, no Showdown copies (issue 27).

The look-ahead (`search:agent:regc`) wins ~0.80 against `maxdamage` where the network
alone wins ~0.66: Showdown's copies of the battle play each candidate one turn ahead
against a damage-greedy foe model. About half of that is predicting the foes' replies, and
`heuristic`'s hand weighting of the network's own rows ranks the same candidates worse
than the network does (experiments/issue27_search_parts). The question here: is what the
copies find computable from what a player knows, with the damage formula the observation
already uses (league/battle/damage.py), if the turn is *resolved* rather than scored
order by order? If yes, the resolution is a feature the network could read; if not, the
copies' edge is in what our formula and a simple turn model miss.

``resolve(battle, view, foe_sheet, cands)`` returns each candidate joint action's
one-turn value, the copies' own measure: each active Pokémon worth 0 fainted and 0.5 +
0.5 x its HP share alive, ours less the foes', over 4. The turn:

- the foes reply as the copies' foe model does: each active foe uses the damaging move
  (revealed, on its open sheet, or while fewer than four are known an 80-power move of
  each of its types) and target that take the most HP from our actives as they stand
  (spread moves summed), no tera;
- Mega Evolution and Terastallization happen first: our tera'd or mega Pokémon takes the
  foes' hits with its new types (and stats);
- everyone acts in order of priority, then speed (effective speed, the foes' best
  estimate; reversed under Trick Room); a Pokémon knocked out before it acts does nothing;
  Protect (and its kin) shields its user from every hit that turn, unless it protected
  the turn before (then it is counted as failing, as it does two times in three); Fake Out on a slot's
  first turn flinches a foe that has not acted yet; a single-target move whose target has
  fainted goes to the other foe;
- damage is our formula's low roll in one pass and its high roll in another (the value is
  their mean), times the move's accuracy;
- a switch or a status move other than Protect and Fake Out does nothing this turn.
"""

from __future__ import annotations

import dataclasses

from league.battle.actions import decode_slot, split_joint
from league.battle.analysis import TurnAnalysis, _aims, _foe_moves
from league.battle.damage import damage
from league.battle.fighter import effective_speed, mega_fighter, move_priority
from league.battle.moves import _PROTECT_LIKE, move_info

_SPREAD = ("allAdjacentFoes", "allAdjacent")
_FAKE_OUT = ("fakeout",)


@dataclasses.dataclass
class _Act:
    who: str  # "own0", "own1", "foe0", "foe1"
    prio: int
    speed: float
    hits: list  # (position, lo, hi) in HP of the target
    protect: bool = False
    flinch: bool = False  # Fake Out: flinches its target if it has not acted yet
    single: bool = False  # one target, redirected when it has fainted


def _pos(p: str, s: int) -> str:
    """A position of ``_aims`` seen from our slot ``s`` -> a side position."""
    return {"foe0": "foe0", "foe1": "foe1", "ally": f"own{1 - s}", "self": f"own{s}"}.get(p, p)


def _our_act(ta, view, s: int, a: int, me_now) -> tuple[_Act | None, object]:
    """Slot ``s``'s order ``a``: its act this turn and the fighter it is once the turn's
    gimmick happened (tera'd / mega types for the foes' hits)."""
    kind, j, t, b = decode_slot(a)
    me = ta.own[s]
    if kind != "move" or me is None:
        return None, me_now
    act = view.active[s] if s < len(view.active) else None
    moves = (act or {}).get("moves", [])[:4]
    if j >= len(moves):
        return None, me_now
    rm = moves[j]
    mi = move_info(rm.get("id", ""), ta.mech)
    user, tera = me, False
    if b and act.get("canMegaEvo"):
        user = mega_fighter(me, ta.mech) or me
        me_now = user
    elif b and act.get("canTerastallize") and me.tera >= 0:
        tera = True
        me_now = dataclasses.replace(me, types=(me.tera,), terastallized=True)
    speed = effective_speed(user, ta.env, "mid")
    out = _Act(f"own{s}", move_priority(user, mi), speed, [])
    if mi.id in _PROTECT_LIKE:
        mons = ta.battle.active_pokemon
        mon = mons[s] if s < len(mons) else None
        # a Protect right after another fails two times in three: counted as failing
        out.protect = mon is None or not getattr(mon, "protect_counter", 0)
        return out, me_now
    if mi.category == 2:
        return out, me_now
    positions = next((ps for tt, ps in _aims(rm.get("target") if "target" in rm else None, s) if tt == t), ())
    if "random" in positions:
        positions = ("foe0", "foe1")
        w = 0.5
    else:
        w = 1.0
    live = {
        "foe0": ta.foes[0],
        "foe1": ta.foes[1],
        "ally": ta.own[1 - s],
    }
    n_live = sum(live[p] is not None for p in positions if p in live)
    spread = mi.target in _SPREAD and n_live > 1
    acc = 1.0 if mi.never_miss else min(1.0, mi.accuracy)
    for p in positions:
        dfn = live.get(p)
        if dfn is None:
            continue
        h = damage(user, mi, dfn, ta.env, spread=spread, tera=tera)
        out.hits.append((_pos(p, s), w * acc * h.lo, w * acc * h.hi))
    out.single = len(positions) == 1 and positions[0] in ("foe0", "foe1")
    out.flinch = mi.id in _FAKE_OUT and me.first_turn
    return out, me_now


def _foe_choice(ta, battle, f: int):
    """Foe ``f``'s reply by the copies' foe model: (MoveInfo, positions hit, spread) or None."""
    foe = ta.foes[f]
    if foe is None:
        return None
    mons = battle.opponent_active_pokemon[:2]
    moves, _ = _foe_moves(mons[f], foe, ta.mech, ta.sheets[f])
    ours = [(f"own{s}", m) for s, m in enumerate(ta.own) if m is not None]
    best, best_d = None, 0.0
    for mi in moves:
        if mi.target in _SPREAD:
            spread = len(ours) > 1
            d = sum(min(damage(foe, mi, m, ta.env, spread=spread).exp, m.hp) for _, m in ours)
            if d > best_d:
                best, best_d = (mi, tuple(p for p, _ in ours), spread), d
        else:
            for p, m in ours:
                d = min(damage(foe, mi, m, ta.env).exp, m.hp)
                if d > best_d:
                    best, best_d = (mi, (p,), False), d
    return best


def _foe_act(ta, f: int, choice, ours_now: dict) -> _Act | None:
    if choice is None:
        return None
    foe = ta.foes[f]
    mi, positions, spread = choice
    acc = 1.0 if mi.never_miss else min(1.0, mi.accuracy)
    out = _Act(f"foe{f}", move_priority(foe, mi), effective_speed(foe, ta.env, "mid"), [])
    for p in positions:
        dfn = ours_now.get(p)
        if dfn is None:
            continue
        h = damage(foe, mi, dfn, ta.env, spread=spread)
        out.hits.append((p, acc * h.lo, acc * h.hi))
    out.single = len(positions) == 1
    return out


DETAIL: list | None = None  # set to a list to collect each resolution's acts and HP after


def _play(acts: list[_Act], hp: dict, max_hp: dict, roll: int, trick_room: bool) -> float:
    hp = dict(hp)
    order = sorted(acts, key=lambda x: (-x.prio, x.speed if trick_room else -x.speed))
    protected: set[str] = set()
    flinched: set[str] = set()
    for x in order:
        if hp.get(x.who, 0.0) <= 0 or x.who in flinched:
            continue
        if x.protect:
            protected.add(x.who)
            continue
        for p, lo, hi in x.hits:
            d = hi if roll else lo
            if x.single and hp.get(p, 0.0) <= 0:  # redirected to the other foe of the actor
                other = {"foe0": "foe1", "foe1": "foe0", "own0": "own1", "own1": "own0"}[p]
                if hp.get(other, 0.0) <= 0:
                    continue
                # the same share of the other's HP (its own formula is not computed)
                d = d / max(max_hp[p], 1e-6) * max_hp[other]
                p = other
            if hp.get(p, 0.0) <= 0 or p in protected:
                continue
            hp[p] = max(0.0, hp[p] - d)
            if x.flinch:
                flinched.add(p)
    if DETAIL is not None:
        DETAIL.append(
            {
                "order": [(x.who, x.prio, round(x.speed), x.protect, [(p, round(lo), round(hi)) for p, lo, hi in x.hits]) for x in order],
                "hp_after": {k: round(h / max(max_hp[k], 1e-6), 2) for k, h in hp.items()},
                "max_hp": {k: round(v) for k, v in max_hp.items()},
            }
        )
    v = 0.0
    for k, h in hp.items():
        alive = 0.5 + 0.5 * h / max(max_hp[k], 1e-6) if h > 0 else 0.0
        v += alive if k.startswith("own") else -alive
    return v / 4.0


def resolve(battle, view, foe_sheet, cands: list[int]) -> list[float]:
    """Each candidate joint action's one-turn value (module docstring)."""
    ta = TurnAnalysis(battle, foe_sheet)
    hp, max_hp = {}, {}
    for s, m in enumerate(ta.own):
        if m is not None:
            hp[f"own{s}"], max_hp[f"own{s}"] = m.hp, m.max_hp
    for f, m in enumerate(ta.foes):
        if m is not None:
            hp[f"foe{f}"], max_hp[f"foe{f}"] = m.hp, m.max_hp
    foe_choices = [_foe_choice(ta, battle, f) for f in range(2)]
    out = []
    for c in cands:
        acts, ours_now = [], {f"own{s}": m for s, m in enumerate(ta.own) if m is not None}
        for s, a in enumerate(split_joint(c)):
            if ta.own[s] is None:
                continue
            act, now = _our_act(ta, view, s, a, ta.own[s])
            ours_now[f"own{s}"] = now
            if act is not None:
                acts.append(act)
        for f in range(2):
            x = _foe_act(ta, f, foe_choices[f], ours_now)
            if x is not None:
                acts.append(x)
        out.append(0.5 * sum(_play(acts, hp, max_hp, r, ta.env.trick_room) for r in (0, 1)))
    return out
