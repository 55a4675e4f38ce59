"""How well does our damage analysis predict the damage Showdown deals? (issue 27)

The network reads league/battle/damage.py's figures for every order (the observation's
per-target rows), and ``maxdamage`` chooses by them; nobody had compared them with the
hits of real battles. This plays N battles (p1 SPEC against p2 ``maxdamage`` on a team
pool, both sides recorded), replays each side's recording line by line into a fresh
poke-env battle, and at each direct hit (a ``|-damage|`` line with no ``[from]`` after a
``|move|`` line) computes ``damage(attacker, move, defender)`` from the battle as that side
saw it just before the move, against the HP share the hit removed.

A hit is *inside* when the share removed lies in the formula's [lo, hi] (min roll with
worst-case modifiers, max roll with best-case ones) within the display's rounding (a foe's
HP is shown in whole percent: 0.02 of its max HP, kept for ours too); a knock-out only
bounds the damage from below. Critical hits, multi-hit moves, fixed-damage moves, hits
taken through a substitute, a berry, a sash or Sturdy are counted apart.

    python experiments/issue27_damage_calib/calib.py -n 200 > out.json
    python experiments/issue27_damage_calib/calib.py -n 200 --p1 agent:regmb --format gen9championsvgc2026regmb
    CALIB_NO_AURA=1 python experiments/issue27_damage_calib/calib.py ...   # the formula without the auras
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import logging
import os
import tempfile
from collections import Counter, defaultdict

import numpy as np
import orjson
from poke_env.battle import DoubleBattle
from poke_env.data import to_id_str

from league.battle.damage import damage
from league.battle.dex import TYPE_INDEX, mechanics_of
from league.battle.fighter import env_of, fighter, with_field_abilities
from league.battle.moves import move_info
from league.battle.protocol import mend
from league.battle.replay import RecordingMixin
from league.match import play_matches
from league.showdown import StreamFleet, locate_showdown
from league.specs import player_factory
from league.teams import TeamRepository

FORMAT = "gen9vgc2023regc"
_LOG = logging.getLogger("calib")
_SKIP = {
    "choose", "error", "bigerror", "init", "title", "j", "J", "l", "L", "c", "raw", "html", "uhtml", "n", "N",
    "inactive", "inactiveoff", "deinit", "noinit", "popup", "t:", "expire", "uhtmlchange", "tempnotify",
    "tempnotifyoff",
}  # fmt: skip
NO_AURA = os.environ.get("CALIB_NO_AURA") == "1"
_AURA = {(TYPE_INDEX["FAIRY"], "fairyaura"), (TYPE_INDEX["DARK"], "darkaura")}
TOL = 0.02  # of max HP: a foe's HP is shown in whole percent (ours exactly; the same bound kept)


def _mon(battle: DoubleBattle, ident: str):
    """The active Pokemon at position ``p1a`` / ``p2b`` (ident ``p1a: Name``)."""
    pos = ident.split(":")[0].strip()
    if len(pos) < 3:
        return None, None
    side, slot = pos[:2], "ab".index(pos[2]) if pos[2] in "ab" else -1
    own = side == battle.player_role
    act = battle.active_pokemon if own else battle.opponent_active_pokemon
    if slot < 0 or slot >= len(act):
        return None, own
    return act[slot], own


def _fighter(battle: DoubleBattle, mon, own: bool, mech):
    team = battle.team if own else battle.opponent_team
    fainted = sum(1 for m in team.values() if m.fainted) if own else 0
    sc = battle.side_conditions if own else battle.opponent_side_conditions
    return fighter(mon, own, sc, fainted, mech)


class Hit:
    __slots__ = ("own_attacker", "move", "att", "dfn", "lo", "hi", "real", "ko", "crit", "flags", "cat", "spread",
                 "att_item", "att_ability", "dfn_item", "dfn_ability", "tera", "ruin", "aura")  # fmt: skip


_RUIN_ON = {  # ruin ability -> (the stat it lowers is the attacker's (True) or the defender's, physical moves?)
    "swordofruin": (False, True),
    "beadsofruin": (False, False),
    "tabletsofruin": (True, True),
    "vesselofruin": (True, False),
}


def _ruin_case(att, dfn, bystanders, mi) -> str:
    """Whether a ruin ability bears on this hit through a third Pokemon ("bystander": held by
    neither the attacker nor the defender, the Pokemon whose stat it lowers not holding it),
    "mirror" (the lowered Pokemon holds it itself, so Showdown does not lower it), else "none"."""
    physical = mi.category == 0
    for ab, (on_att, phys) in _RUIN_ON.items():
        if phys != physical:
            continue
        lowered, other = (att, dfn) if on_att else (dfn, att)
        if lowered.ability == ab and (other.ability == ab or any(b.ability == ab for b in bystanders)):
            return "mirror"
        if lowered.ability != ab and other.ability != ab and any(b.ability == ab for b in bystanders):
            return "bystander"
    return "none"


def hits_of(lines: list[str], username: str) -> list[Hit]:
    """Every direct hit in one side's recording, with the formula's range at the time."""
    battle = DoubleBattle(battle_tag="calib", username=username, logger=_LOG, gen=9)
    mech = None
    out: list[Hit] = []
    cur = None  # (attacker ident, MoveInfo, fighters-at-move-time dict, spread, attacker tera)
    crit: set[str] = set()
    marks: dict[str, set] = defaultdict(set)  # defender ident -> events in this move (berry, sash, ...)
    for line in lines:
        if not line.startswith("|"):
            continue
        split = line.split("|")
        if len(split) < 2 or split[1] in _SKIP:
            continue
        kind = split[1]
        if kind == "request":
            if split[2]:
                battle.parse_request(orjson.loads(split[2]))
            continue
        if kind in ("win", "tie"):
            break
        if kind == "move" and len(split) > 3:
            if mech is None:
                mech = mechanics_of(battle.format)
            src = split[2]
            att_mon, own = _mon(battle, src)
            mi = move_info(to_id_str(split[3]), mech)
            cur = None
            crit.clear()
            marks.clear()
            if att_mon is not None and mi.exists and mi.category < 2:
                tags = " ".join(split[4:])
                spread = "[spread]" in tags
                fighters = {}
                for side in ("p1", "p2"):
                    for s in "ab":
                        m, o = _mon(battle, f"{side}{s}:")
                        if m is not None and not m.fainted:
                            fighters[f"{side}{s}"] = (m, _fighter(battle, m, o, mech))
                cur = (src.split(":")[0].strip(), mi, fighters, spread, own)
        elif kind == "-crit" and len(split) > 2:
            crit.add(split[2].split(":")[0].strip())
        elif kind in ("-enditem", "-activate", "-hitcount", "-fail") and len(split) > 2:
            marks[split[2].split(":")[0].strip()].add(kind + ":" + to_id_str(split[3] if len(split) > 3 else ""))
            if kind == "-hitcount":
                marks["*"].add("multihit")
        elif (
            kind in ("-damage",)
            and cur is not None
            and len(split) > 3
            and not any(s.startswith("[from]") for s in split[4:])
        ):
            pos = split[2].split(":")[0].strip()
            tgt, t_own = _mon(battle, split[2])
            apos, mi, fighters, spread, a_own = cur
            if tgt is not None and pos in fighters and apos in fighters and pos != apos:
                before = tgt.current_hp_fraction
                battle.parse_message(mend(split))
                after = tgt.current_hp_fraction
                att_mon, att_f = fighters[apos]
                dfn_mon, dfn_f = fighters[pos]
                env = with_field_abilities(
                    env_of(battle), [f for _, f in fighters.values()]
                )  # as TurnAnalysis builds it
                if NO_AURA:  # the formula before auras counted (the experiment's "before" row)
                    env = dataclasses.replace(env, fairy_aura=False, dark_aura=False)
                h = damage(att_f, mi, dfn_f, env, spread=spread)
                r = Hit()
                r.own_attacker = bool(a_own)
                r.move = mi.id
                r.att, r.dfn = att_f.species, dfn_f.species
                r.lo, r.hi = h.lo / dfn_f.max_hp, h.hi / dfn_f.max_hp
                r.real = before - after
                r.ko = after <= 0
                r.crit = pos in crit
                fl = set(marks.get(pos, ())) | set(marks.get("*", ()))
                if mi.fixed:
                    fl.add("fixed")
                if mi.hits_max > 1:
                    fl.add("multihit")
                r.flags = sorted(fl)
                r.cat = "physical" if mi.category == 0 else "special"
                r.spread = spread
                r.att_item, r.att_ability = att_f.item, att_f.ability or "?"
                r.dfn_item, r.dfn_ability = dfn_f.item, dfn_f.ability or "?"
                r.tera = att_f.terastallized
                auras = {f.ability for _, f in fighters.values()} & {"fairyaura", "darkaura"}
                r.aura = "aura on its type" if any((mi.type, a) in _AURA for a in auras) else "none"
                r.ruin = _ruin_case(att_f, dfn_f, [f for p, (_, f) in fighters.items() if p not in (apos, pos)], mi)
                out.append(r)
                continue
        battle.parse_message(mend(split))
    return out


def verdict(h: Hit, tol: float) -> str:
    if h.crit:
        return "crit"
    if h.flags:
        return "other"
    if h.real < h.lo - tol and not h.ko:
        return "below"
    if h.real > h.hi + tol:
        return "above"
    return "inside"


def table(hits: list[Hit], key) -> dict:
    groups: dict[str, Counter] = defaultdict(Counter)
    ratio: dict[str, list] = defaultdict(list)
    for h in hits:
        v = verdict(h, TOL)
        k = key(h)
        groups[k][v] += 1
        if v in ("inside", "below", "above") and not h.ko and h.hi > 0:
            ratio[k].append(h.real / (0.5 * (h.lo + h.hi)))
    out = {}
    for k, c in sorted(groups.items(), key=lambda kv: -sum(kv[1].values())):
        judged = c["inside"] + c["below"] + c["above"]
        out[k] = {
            "hits": sum(c.values()),
            "judged": judged,
            "inside": round(c["inside"] / max(judged, 1), 3),
            "below": round(c["below"] / max(judged, 1), 3),
            "above": round(c["above"] / max(judged, 1), 3),
            "crit": c["crit"],
            "other": c["other"],
            # the share removed over the middle of [lo, hi]: its 10th, 50th and 90th percentiles
            "real_over_mid_p10_p50_p90": [round(float(q), 3) for q in np.percentile(ratio[k], [10, 50, 90])]
            if ratio[k]
            else None,
        }
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("-n", type=int, default=200)
    ap.add_argument("--p1", default="agent:regc")
    ap.add_argument("--format", default=FORMAT)
    ap.add_argument("--teams", default=None, help="team pool (default: ../shared/teams/FORMAT)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--top", type=int, default=25, help="worst (attacker, move) groups listed")
    args = ap.parse_args()
    install = locate_showdown()
    fmt = args.format
    teams = [t.packed for t in TeamRepository(install).load(fmt, args.teams or f"../shared/teams/{fmt}")]
    players: list = []

    def keep(factory):
        def make(**kw):
            p = factory(**kw)
            players.append(p)
            return p

        return make

    p1 = keep(player_factory(args.p1, args.seed, True, mixin=RecordingMixin, format_id=fmt, backend="stream"))
    p2 = keep(player_factory("maxdamage", args.seed + 1, True, mixin=RecordingMixin, format_id=fmt))
    with tempfile.TemporaryDirectory() as tmp, StreamFleet(2, tmp, install=install) as fleet:
        res = asyncio.run(
            play_matches(fleet, p1, p2, args.n, teams, teams, battle_format=fmt, concurrency=8, seed=args.seed)
        )
    hits: list[Hit] = []
    for p in players:
        for lines in p.recordings.values():
            if any(ln.startswith("|win|") or ln.startswith("|tie") for ln in lines):
                hits.extend(hits_of(lines, p.username))
    # each hit is seen by both sides' recordings: keep the view of the side that was hit
    # (our own HP exact) and of the side that hit (the foe's HP in percent) apart
    mine = [h for h in hits if h.own_attacker]
    theirs = [h for h in hits if not h.own_attacker]
    worst: dict[tuple, Counter] = defaultdict(Counter)
    for h in mine:
        v = verdict(h, TOL)
        if v in ("inside", "below", "above"):
            worst[(h.att, h.move, h.att_item, h.att_ability)][v] += 1
    bad = sorted(worst.items(), key=lambda kv: -(kv[1]["below"] + kv[1]["above"]))[: args.top]
    print(
        json.dumps(
            {
                "p1": args.p1,
                "format": fmt,
                "battles": res.battles,
                "p1_win_rate": round(res.p1_wins / max(res.battles, 1), 3),
                "hits_we_deal": table(mine, lambda h: "all"),
                "hits_we_take": table(theirs, lambda h: "all"),
                "we_deal_by_category": table(mine, lambda h: h.cat + (" spread" if h.spread else "")),
                "we_deal_by_attacker_item_known": table(
                    mine, lambda h: "item known" if h.att_item != "?" else "item unknown"
                ),
                "we_take_by_attacker_item_known": table(
                    theirs, lambda h: "item known" if h.att_item != "?" else "item unknown"
                ),
                "we_take_by_attacker_ability_known": table(
                    theirs, lambda h: "ability known" if h.att_ability != "?" else "ability unknown"
                ),
                "we_deal_by_defender_item_known": table(
                    mine, lambda h: "item known" if h.dfn_item != "?" else "item unknown"
                ),
                "we_deal_tera": table(mine, lambda h: "attacker terastallized" if h.tera else "not"),
                # a ruin ability held by a third Pokemon (Showdown: every active Pokemon but
                # its holders), or by the lowered one itself
                "we_deal_by_ruin_case": table(mine, lambda h: h.ruin),
                "we_take_by_ruin_case": table(theirs, lambda h: h.ruin),
                # Fairy Aura / Dark Aura on the field and the move of its type (Reg M-B: Mega Floette)
                "we_deal_by_aura_case": table(mine, lambda h: h.aura),
                "we_take_by_aura_case": table(theirs, lambda h: h.aura),
                "worst_attacker_move_item_ability": [
                    {"attacker": k[0], "move": k[1], "item": k[2], "ability": k[3], **dict(c)} for k, c in bad
                ],
            },
            indent=1,
        )
    )


if __name__ == "__main__":
    main()
