"""Real Showdown replays -> BC data (league/bc/replays.py, ``tools.bc parse-replays``):
the two public human replays in tests/data/replays, hand-made logs for each
reconstruction rule, malformed input, JSON-lines input, and ``tools.bc train`` on the result."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

from league.battle.actions import (
    JOINT_ACTIONS,
    NO_TARGET,
    PASS,
    SLOT_ACTIONS,
    joint_action,
    move_action,
    preview_action,
    split_joint,
    switch_action,
)
from league.bc.replay_sources import replay_sources
from league.bc.replays import (
    ReplayError,
    ReplaySource,
    build_replay_dataset,
    parse_replay,
    read_replay_counts,
    reconstruct,
)
from tests.conftest import ROOT
from tests.recorded import replay_agreement

REPLAYS = ROOT / "tests" / "data" / "replays"
DATA = ROOT / "tests" / "data"
# whole labels, partial labels, decisions; shown choices, rebuilt
REAL = {"gen9vgc2025reggbo3-2354759723": (3, 2, 7, 9, 9), "gen9vgc2025reggbo3-2354761491": (6, 5, 11, 16, 16)}

# Both hand-made sides use this sheet, in this team order.
SHEET = [
    ("Incineroar", "M", "SitrusBerry", "Intimidate", "FakeOut,FlareBlitz,KnockOff,PartingShot", "Ghost"),
    ("Amoonguss", "F", "RockyHelmet", "Regenerator", "RagePowder,Spore,PollenPuff,Protect", "Water"),
    ("Indeedee-F", "F", "PsychicSeed", "PsychicSurge", "FollowMe,ExpandingForce,HelpingHand,TrickRoom", "Fairy"),
    ("Garchomp", "M", "ClearAmulet", "RoughSkin", "Earthquake,DragonClaw,RockSlide,Protect", "Steel"),
    ("Dragonite", "M", "LumBerry", "Multiscale", "Outrage,ExtremeSpeed,HyperBeam,Protect", "Normal"),
    ("Urshifu-Rapid-Strike", "F", "ChoiceScarf", "UnseenFist", "SurgingStrikes,CloseCombat,Uturn,AquaJet", "Water"),
]
INCINEROAR, AMOONGUSS, INDEEDEE, GARCHOMP, DRAGONITE, URSHIFU = range(6)


def _packed(sheet) -> str:
    return "]".join(f"{s}||{item}|{ab}|{moves}|||{g}|||50|,,,,,{tera}" for s, g, item, ab, moves, tera in sheet)


def _log(body: str, winner: str = "Alice", sheets=(SHEET, SHEET)) -> str:
    p1_sheet, p2_sheet = (_packed(x) for x in sheets)
    pokes = "\n".join(
        f"|poke|{p}|{'Urshifu-*' if s.startswith('Urshifu') else s}, L50, {g}|"
        for p in ("p1", "p2")
        for s, g, *_ in SHEET
    )
    head = (
        f"|j|☆Alice\n|j|☆Bob\n|t:|1700000000\n|gametype|doubles\n|player|p1|Alice|1|1500\n"
        f"|player|p2|Bob|2|1500\n|teamsize|p1|6\n|teamsize|p2|6\n|gen|9\n|tier|[Gen 9] VGC 2025 Reg G\n"
        f"|rule|Species Clause: Limit one of each Pokémon\n|clearpoke\n{pokes}\n|teampreview|4\n"
        f"|showteam|p1|{p1_sheet}\n|showteam|p2|{p2_sheet}\n|\n|start\n"
    )
    return head + body.strip() + f"\n|\n|win|{winner}\n"


# Turn 1: a spread move KOs p1a before it acts, Helping Hand on the ally, p1a replaced at the
# end of the turn. Turn 2: tera + a targeted move, a paralysed slot. Turn 3: Choice Scarf
# keeps Urshifu on Surging Strikes. Turn 4: Close Combat under that lock (illegal). Turn 5:
# a forfeit before anything ran (never answered).
LOG_FAINT_TERA = _log("""
|switch|p1a: Incineroar|Incineroar, L50, M|100/100
|switch|p1b: Amoonguss|Amoonguss, L50, F|100/100
|switch|p2a: Chompy|Garchomp, L50, M|100/100
|switch|p2b: Indeedee|Indeedee-F, L50, F|100/100
|-ability|p1a: Incineroar|Intimidate|boost
|-unboost|p2a: Chompy|atk|1
|-fieldstart|move: Psychic Terrain|[from] ability: Psychic Surge|[of] p2b: Indeedee
|turn|1
|
|move|p2b: Indeedee|Helping Hand|p2a: Chompy
|-singleturn|p2a: Chompy|Helping Hand|[of] p2b: Indeedee
|move|p2a: Chompy|Rock Slide|p1a: Incineroar|[spread] p1a,p1b
|-damage|p1a: Incineroar|0 fnt
|-damage|p1b: Amoonguss|60/100
|faint|p1a: Incineroar
|move|p1b: Amoonguss|Pollen Puff|p2a: Chompy
|-damage|p2a: Chompy|70/100
|-status|p2b: Indeedee|par
|
|upkeep
|
|switch|p1a: Urshifu|Urshifu-Rapid-Strike, L50, F|100/100
|turn|2
|
|-terastallize|p1a: Urshifu|Water
|move|p2a: Chompy|Protect|p2a: Chompy
|-singleturn|p2a: Chompy|Protect
|move|p1a: Urshifu|Surging Strikes|p2a: Chompy
|-activate|p2a: Chompy|move: Protect
|cant|p2b: Indeedee|par
|move|p1b: Amoonguss|Spore|p2b: Indeedee
|-status|p2b: Indeedee|slp|[from] move: Spore
|
|upkeep
|turn|3
|
|move|p1a: Urshifu|Surging Strikes|p2a: Chompy
|-damage|p2a: Chompy|40/100
|move|p2a: Chompy|Dragon Claw|p1a: Urshifu
|-damage|p1a: Urshifu|50/100
|move|p1b: Amoonguss|Protect|p1b: Amoonguss
|-singleturn|p1b: Amoonguss|Protect
|cant|p2b: Indeedee|slp
|
|upkeep
|turn|4
|
|move|p2a: Chompy|Protect|p2a: Chompy
|-singleturn|p2a: Chompy|Protect
|move|p1a: Urshifu|Close Combat|p2a: Chompy
|-activate|p2a: Chompy|move: Protect
|move|p1b: Amoonguss|Spore|p2a: Chompy
|-activate|p2a: Chompy|move: Protect
|cant|p2b: Indeedee|slp
|
|upkeep
|turn|5
|
|-message|Bob forfeited.
""")

# Turn 1: Follow Me draws U-turn (its target is not shown), U-turn's mid-turn switch, an ally
# healed with Pollen Puff. Turn 2: a locked Outrage, a single-target move made spread,
# p2b replaced. Turn 3: a switch order, Hyper Beam. Turn 4: the recharge turn, Fake Out,
# a flinch. Turn 5: Flare Blitz lands on foe a after foe b fainted (it may have aimed at b);
# p2 forfeits while it should replace b (never answered).
LOG_REDIRECT_LOCK = _log("""
|switch|p1a: Urshifu|Urshifu-Rapid-Strike, L50, F|100/100
|switch|p1b: Dragonite|Dragonite, L50, M|100/100
|switch|p2a: Indeedee|Indeedee-F, L50, F|100/100
|switch|p2b: Amoonguss|Amoonguss, L50, F|100/100
|-fieldstart|move: Psychic Terrain|[from] ability: Psychic Surge|[of] p2a: Indeedee
|turn|1
|
|move|p2a: Indeedee|Follow Me|p2a: Indeedee
|-singleturn|p2a: Indeedee|move: Follow Me
|move|p1a: Urshifu|U-turn|p2a: Indeedee
|-damage|p2a: Indeedee|80/100
|
|t:|1700000001
|switch|p1a: Garchomp|Garchomp, L50, M|100/100
|move|p1b: Dragonite|Outrage|p2b: Amoonguss
|-damage|p2b: Amoonguss|40/100
|move|p2b: Amoonguss|Pollen Puff|p2a: Indeedee
|-heal|p2a: Indeedee|100/100
|
|upkeep
|turn|2
|
|move|p1a: Garchomp|Dragon Claw|p2a: Indeedee
|-damage|p2a: Indeedee|30/100
|move|p1b: Dragonite|Outrage|p2b: Amoonguss|[from]lockedmove
|-damage|p2b: Amoonguss|0 fnt
|faint|p2b: Amoonguss
|move|p2a: Indeedee|Expanding Force|p1a: Garchomp|[spread] p1a,p1b
|-damage|p1a: Garchomp|70/100
|-damage|p1b: Dragonite|80/100
|-start|p1b: Dragonite|confusion|[fatigue]
|
|upkeep
|
|switch|p2b: Dragonite|Dragonite, L50, M|100/100
|turn|3
|
|switch|p1a: Incineroar|Incineroar, L50, M|100/100
|move|p2b: Dragonite|Extreme Speed|p1a: Incineroar
|-damage|p1a: Incineroar|75/100
|move|p2a: Indeedee|Trick Room|p2a: Indeedee
|-fieldstart|move: Trick Room|[of] p2a: Indeedee
|move|p1b: Dragonite|Hyper Beam|p2a: Indeedee
|-damage|p2a: Indeedee|10/100
|-mustrecharge|p1b: Dragonite
|
|upkeep
|turn|4
|
|move|p1a: Incineroar|Fake Out|p2b: Dragonite
|-damage|p2b: Dragonite|90/100
|move|p2a: Indeedee|Helping Hand|p2b: Dragonite
|cant|p2b: Dragonite|flinch
|cant|p1b: Dragonite|recharge
|
|upkeep
|turn|5
|
|move|p1b: Dragonite|Extreme Speed|p2b: Dragonite
|-damage|p2b: Dragonite|0 fnt
|faint|p2b: Dragonite
|move|p1a: Incineroar|Flare Blitz|p2a: Indeedee
|-damage|p2a: Indeedee|5/100
|cant|p2a: Indeedee|par
|
|upkeep
|-message|Bob forfeited.
""")


def _write(tmp_path: Path, name: str, text: str) -> ReplaySource:
    p = tmp_path / name
    p.write_text(text)
    return ReplaySource(str(p), p)


def _legal(trajs) -> bool:
    """Every step's action legal, and a partial label's set within the mask."""
    return all(m[a] for t in trajs for m, a in zip(t.mask, t.actions)) and all(
        s is None or (s.any() and not (s & ~m).any()) for t in trajs for m, s in zip(t.mask, t.labels)
    )


def _slot_is(x: int, orders: set[int]) -> np.ndarray:
    """bool (2025,): the joint actions whose slot ``x`` order is one of ``orders``."""
    grid = np.zeros((SLOT_ACTIONS, SLOT_ACTIONS), dtype=bool)
    if x == 0:
        grid[sorted(orders), :] = True
    else:
        grid[:, sorted(orders)] = True
    return grid.reshape(-1)


def _preview_set(*actions: int) -> np.ndarray:
    out = np.zeros(JOINT_ACTIONS, dtype=bool)
    out[list(actions)] = True
    return out


def test_forced_switch_after_faint_tera_spread_and_cant(tmp_path):
    (p1, p2), c = parse_replay(_write(tmp_path, "faint.log", LOG_FAINT_TERA))
    # p1 brought Incineroar, Amoonguss (leads), Urshifu (first back shown), one back never shown
    replace_urshifu = joint_action(switch_action(2), PASS)
    tera_strike = move_action(0, 3, True)  # Surging Strikes at foe slot a, terastallized
    spore_b = move_action(1, 4, False)  # Spore at foe slot b
    protect = move_action(3, NO_TARGET, False)
    # kept: preview (partial), turn 1 (partial: slot a fainted first), the replacement, turns 2 and 3;
    # turn 4 (Close Combat under the Scarf lock) is illegal under the rebuilt mask
    assert p1.actions[2:] == [
        replace_urshifu,
        joint_action(tera_strike, spore_b),
        joint_action(move_action(0, 3, False), protect),
    ]
    assert p1.is_preview == [True, False, False, False, False] and p1.labels[2:] == [None, None, None]
    assert p1.outcome == 1.0 and p2.outcome == -1.0 and p1.policy == p2.policy == "human"
    # team preview: leads Incineroar + Amoonguss, backs Urshifu and one never sent in: 3 back pairs
    assert np.array_equal(
        p1.labels[0], _preview_set(*(preview_action((INCINEROAR, AMOONGUSS), (URSHIFU, k)) for k in (2, 3, 4)))
    )
    # turn 1: slot a (Incineroar) fainted before acting: any legal order; slot b Pollen Puff at foe a
    pollen_puff = move_action(2, 3, False)
    assert np.array_equal(p1.labels[1], p1.mask[1] & _slot_is(1, {pollen_puff}))
    assert p1.labels[1].sum() == 26 and p1.actions[1] in np.flatnonzero(p1.labels[1])
    # the forced switch: slot a may take either back (the unrevealed one too), slot b passes
    assert set(np.flatnonzero(p1.mask[2])) == {replace_urshifu, joint_action(switch_action(3), PASS)}
    # tera on one slot only: Spore with tera is illegal while Urshifu terastallizes
    assert not p1.mask[3][joint_action(tera_strike, move_action(1, 4, True))]
    # Choice Scarf: after Surging Strikes only Surging Strikes (at either foe or the ally in
    # slot b, -2), or the switch to the unseen back
    slot_a = {split_joint(j)[0] for j in np.flatnonzero(p1.mask[4])}
    assert slot_a == {move_action(0, t, False) for t in (0, 3, 4)} | {switch_action(3)}
    # p2: preview (leads only: all 6 back pairs); Rock Slide (spread: no target) with Helping Hand on
    # the ally in slot a (-1); then Protect / Dragon Claw / Protect with Indeedee paralysed or asleep
    assert p2.actions[1] == joint_action(move_action(2, NO_TARGET, False), move_action(2, 1, False))
    assert p2.labels[0].sum() == 6 and p2.labels[1] is None
    for k, slot_a_order in ((2, protect), (3, move_action(1, 3, False)), (4, protect)):
        assert np.array_equal(p2.labels[k], p2.mask[k] & _slot_is(0, {slot_a_order}))
    assert _legal([p1, p2])
    assert (c.decisions, c.reconstructed, c.partial, c.illegal) == (11, 4, 6, 1)
    assert c.skipped == {"illegal under the rebuilt mask": 1}
    # choices: 11 decisions x 2, less p1's replacement's passing slot b; shown: all but the 6 below;
    # rebuilt: all shown but turn 4's two (the decision is illegal)
    assert (c.choices, c.shown, c.rebuilt) == (21, 15, 13)
    assert c.not_shown == {
        "team preview: not all four brought Pokemon shown": 2,
        "fainted before acting": 1,
        "|cant| (par): its order is not shown": 1,
        "|cant| (slp): its order is not shown": 2,
    }
    assert c.shown_reconstructed == 13 / 15 and c.all_reconstructed == 10 / 11


def test_redirection_lock_recharge_and_switches(tmp_path):
    src = _write(tmp_path, "redirect.json", json.dumps({"id": "hand-1", "log": LOG_REDIRECT_LOCK}))
    (p1, p2), c = parse_replay(src)
    assert c.name == "hand-1"
    # p1 showed all four: leads Urshifu (a) and Dragonite (b), then Garchomp and Incineroar
    preview = preview_action((URSHIFU, DRAGONITE), (GARCHOMP, INCINEROAR))
    u_turn_out = joint_action(switch_action(2), PASS)  # the mid-turn switch after U-turn: Garchomp
    outrage_locked = move_action(0, NO_TARGET, False)  # the locked move: its only order, no target
    turn2 = joint_action(move_action(1, 3, False), outrage_locked)  # Dragon Claw at foe a
    turn3 = joint_action(switch_action(3), move_action(2, 3, False))  # switch to Incineroar; Hyper Beam
    turn4 = joint_action(move_action(0, 4, False), move_action(0, NO_TARGET, False))  # Fake Out; recharge
    whole = [p1.actions[k] for k in range(7) if p1.labels[k] is None]
    assert whole == [preview, u_turn_out, turn2, turn3, turn4]
    assert p1.is_preview == [True] + [False] * 6
    assert {split_joint(j)[1] for j in np.flatnonzero(p1.mask[3])} == {outrage_locked}
    assert {split_joint(j)[1] for j in np.flatnonzero(p1.mask[5])} == {move_action(0, NO_TARGET, False)}
    # turn 1: U-turn drawn by Follow Me: any target it could have chosen (either foe, the ally -2),
    # with Outrage (no target); turn 5: Flare Blitz at foe a or foe b (b fainted first), Extreme Speed at b
    u_turn = {move_action(2, t, False) for t in (0, 3, 4)}
    assert np.array_equal(p1.labels[1], p1.mask[1] & _slot_is(0, u_turn) & _slot_is(1, {outrage_locked}))
    assert p1.labels[1].sum() == 3
    flare_blitz = {move_action(1, t, False) for t in (3, 4)}
    assert np.array_equal(p1.labels[6], p1.mask[6] & _slot_is(0, flare_blitz) & _slot_is(1, {move_action(1, 4, False)}))
    assert p1.labels[6].sum() == 2
    # p2: Follow Me + Pollen Puff on the ally in slot a (from slot b: -1); Dragonite replaces
    # Amoonguss in slot b; Trick Room + Extreme Speed at foe slot a
    follow_me = move_action(0, NO_TARGET, False)
    assert [p2.actions[k] for k in (1, 3, 4)] == [
        joint_action(follow_me, move_action(2, 1, False)),
        joint_action(PASS, switch_action(2)),
        joint_action(move_action(3, NO_TARGET, False), move_action(1, 3, False)),
    ]
    # turn 2: Expanding Force made spread (no target needed: any it could take), Amoonguss fainted first
    expanding_force = {move_action(1, t, False) for t in (0, 3, 4)}
    assert np.array_equal(p2.labels[2], p2.mask[2] & _slot_is(0, expanding_force))
    # turn 4: Helping Hand on the ally (-2), Dragonite flinched
    assert np.array_equal(p2.labels[5], p2.mask[5] & _slot_is(0, {move_action(2, 0, False)}))
    assert _legal([p1, p2])
    assert (c.decisions, c.reconstructed, c.partial, c.illegal) == (14, 8, 5, 0)
    assert c.skipped == {"|cant| (par): its order is not shown": 1}  # p2's turn 5: neither slot acted
    assert (c.choices, c.shown, c.rebuilt) == (24, 19, 19)
    assert c.target_open == {
        "redirected (Follow Me / Rage Powder)": 1,
        "made a spread move (random target logged)": 1,
        "the other foe fainted (retarget)": 1,
    }
    assert c.not_shown == {
        "team preview: not all four brought Pokemon shown": 1,
        "fainted before acting": 2,
        "|cant| (flinch): its order is not shown": 1,
        "|cant| (par): its order is not shown": 1,
    }


# Outrage (Showdown's lockedmove): turn 1 it hits, so turn 2's request is locked into it although
# Dragonite flinches and never shows it; turn 3 it hits and ends in fatigue, turn 4 Protect blocks
# it: neither locks the next turn, so turn 5's request is free when Dragonite faints before acting.
LOG_RAMPAGE = _log("""
|switch|p1a: Garchomp|Garchomp, L50, M|100/100
|switch|p1b: Dragonite|Dragonite, L50, M|100/100
|switch|p2a: Incineroar|Incineroar, L50, M|100/100
|switch|p2b: Amoonguss|Amoonguss, L50, F|100/100
|turn|1
|
|move|p1a: Garchomp|Dragon Claw|p2a: Incineroar
|-damage|p2a: Incineroar|80/100
|move|p1b: Dragonite|Outrage|p2b: Amoonguss
|-damage|p2b: Amoonguss|70/100
|move|p2b: Amoonguss|Protect|p2b: Amoonguss
|-fail|p2b: Amoonguss
|move|p2a: Incineroar|Knock Off|p1a: Garchomp
|-damage|p1a: Garchomp|80/100
|
|upkeep
|turn|2
|
|move|p2a: Incineroar|Fake Out|p1b: Dragonite
|-damage|p1b: Dragonite|90/100
|move|p1a: Garchomp|Protect|p1a: Garchomp
|-singleturn|p1a: Garchomp|Protect
|cant|p1b: Dragonite|flinch
|move|p2b: Amoonguss|Spore|p1a: Garchomp
|-activate|p1a: Garchomp|move: Protect
|
|upkeep
|turn|3
|
|move|p1a: Garchomp|Dragon Claw|p2a: Incineroar
|-damage|p2a: Incineroar|60/100
|move|p1b: Dragonite|Outrage|p2b: Amoonguss
|-damage|p2b: Amoonguss|40/100
|-start|p1b: Dragonite|confusion|[fatigue]
|move|p2b: Amoonguss|Protect|p2b: Amoonguss
|-fail|p2b: Amoonguss
|move|p2a: Incineroar|Knock Off|p1a: Garchomp
|-damage|p1a: Garchomp|60/100
|
|upkeep
|turn|4
|
|move|p2b: Amoonguss|Protect|p2b: Amoonguss
|-singleturn|p2b: Amoonguss|Protect
|move|p1a: Garchomp|Dragon Claw|p2a: Incineroar
|-damage|p2a: Incineroar|40/100
|-activate|p1b: Dragonite|confusion
|move|p1b: Dragonite|Outrage|p2b: Amoonguss
|-activate|p2b: Amoonguss|move: Protect
|move|p2a: Incineroar|Knock Off|p1a: Garchomp
|-damage|p1a: Garchomp|40/100
|
|upkeep
|turn|5
|
|move|p2a: Incineroar|Flare Blitz|p1b: Dragonite
|-damage|p1b: Dragonite|0 fnt
|faint|p1b: Dragonite
|move|p1a: Garchomp|Dragon Claw|p2a: Incineroar
|-damage|p2a: Incineroar|20/100
|
|upkeep
|-message|Bob forfeited.
""")


def test_outrage_locks_the_next_request_only_after_a_hit_without_fatigue(tmp_path):
    """Showdown's lockedmove: a rampage move that hit and did not end in fatigue locks the next
    turn's request to it, shown or not; a miss, Protect or fatigue lets it go."""
    _, (p1, _) = reconstruct(_write(tmp_path, "rampage.log", LOG_RAMPAGE))
    turns = [d for d in p1.decisions if d.kind == "turn"]
    assert [d.line for d in turns] == [34, 46, 57, 70, 83]  # the |turn| lines
    dragon_claw, protect = move_action(1, 3, False), move_action(3, NO_TARGET, False)
    outrage = move_action(0, NO_TARGET, False)
    # turn 2: locked (Outrage hit on turn 1): Showdown's request holds Outrage alone, trapped
    assert turns[1].view.active[1] == {"moves": [{"move": "Outrage", "id": "outrage"}], "trapped": True}
    assert {split_joint(j)[1] for j in np.flatnonzero(turns[1].mask)} == {outrage}
    assert turns[1].label == joint_action(protect, outrage)  # whole: the flinching slot had one order
    # turns 3 to 5: free (no hit on turn 2; fatigue on turn 3; Protect on turn 4)
    for d in turns[2:]:
        assert [m["id"] for m in d.view.active[1]["moves"]] == ["outrage", "extremespeed", "hyperbeam", "protect"]
    assert turns[2].label == joint_action(dragon_claw, outrage) and turns[3].label == turns[2].label
    # turn 5: Dragonite fainted before acting: a partial label, any of its (free) orders
    assert turns[4].label is None
    assert np.array_equal(turns[4].labels, turns[4].mask & _slot_is(0, {dragon_claw}))
    assert {split_joint(j)[1] for j in np.flatnonzero(turns[4].labels)} >= {protect, outrage}


def test_a_move_stopped_by_armor_tail_is_the_movers_choice_not_the_holders(tmp_path):
    """``|cant|HOLDER|ability: Armor Tail|MOVE|[of] USER`` (Dazzling, Queenly Majesty, Damp
    alike): USER chose MOVE (its |move| line shows it, no target); HOLDER's own order is
    what it does next."""
    log = _log("""
|switch|p1a: Incineroar|Incineroar, L50, M|100/100
|switch|p1b: Amoonguss|Amoonguss, L50, F|100/100
|switch|p2a: Indeedee|Indeedee-F, L50, F|100/100
|switch|p2b: Garchomp|Garchomp, L50, M|100/100
|turn|1
|
|move|p1a: Incineroar|Fake Out||[still]
|cant|p2a: Indeedee|ability: Armor Tail|Fake Out|[of] p1a: Incineroar
|move|p2a: Indeedee|Follow Me|p2a: Indeedee
|-singleturn|p2a: Indeedee|move: Follow Me
|move|p2b: Garchomp|Protect|p2b: Garchomp
|-singleturn|p2b: Garchomp|Protect
|move|p1b: Amoonguss|Spore|p2a: Indeedee
|-status|p2a: Indeedee|slp|[from] move: Spore
|
|upkeep
|-message|Bob forfeited.
""")
    (p1, p2), c = parse_replay(_write(tmp_path, "armortail.log", log))
    follow_me, protect = move_action(0, NO_TARGET, False), move_action(3, NO_TARGET, False)
    assert p2.labels[1] is None and p2.actions[1] == joint_action(follow_me, protect)
    fake_out = {move_action(0, t, False) for t in range(5)}  # its target is not shown
    spore = {move_action(1, t, False) for t in range(5)}  # drawn by Follow Me
    assert np.array_equal(p1.labels[1], p1.mask[1] & _slot_is(0, fake_out) & _slot_is(1, spore))
    assert c.target_open == {"no target shown": 1, "redirected (Follow Me / Rage Powder)": 1}
    assert c.shown == c.rebuilt == 6  # 2 leads, 4 orders


def test_real_replays_counts_and_every_action_legal():
    """The two public human replays: every decision found, each reconstructed one legal under
    its rebuilt mask. Both are short (a 2-turn sweep, a 4-turn forfeit): many choices are
    never shown (Pokemon knocked out or asleep before acting, backs never sent in)."""
    sources = replay_sources(REPLAYS)
    assert [Path(s.name).name for s in sources] == [f"{k}.json" for k in sorted(REAL)]
    for src in sources:
        trajs, c = parse_replay(src)
        assert (c.reconstructed, c.partial, c.decisions, c.shown, c.rebuilt) == REAL[c.name] and c.illegal == 0
        assert sum(len(t) for t in trajs) == c.reconstructed + c.partial and _legal(trajs)
        assert sum(s is not None for t in trajs for s in t.labels) == c.partial
        assert sum(c.skipped.values()) == c.decisions - c.reconstructed - c.partial
        for t in trajs:
            assert all(obs.shape == trajs[0].obs[0].shape and np.isfinite(obs).all() for obs in t.obs)
    _, c = parse_replay(sources[0])
    assert c.skipped == {"fainted before acting": 2}  # turns 1 and 2 of p1: both knocked out first
    assert c.not_shown == {"fainted before acting": 4, "team preview: not all four brought Pokemon shown": 1}
    assert c.target_open == {"made a spread move (random target logged)": 1}


def test_lines_no_parser_knows_are_read_past_and_counted_by_kind(tmp_path):
    """Real logs carry text a client or server added and kinds of line newer than ours:
    each is skipped and counted, never a reason to drop the replay; the decisions and
    labels are those of the clean log."""
    src = REPLAYS / "gen9vgc2025reggbo3-2354761491.json"
    lines = json.loads(src.read_text())["log"].split("\n")
    k = lines.index("|turn|2")
    extra = ["a note a chat client added", "|nonsense|x", "|newkind|a|b", "|nonsense|y"]
    noisy = _write(tmp_path, "noisy.json", json.dumps({"log": "\n".join(lines[:k] + extra + lines[k:])}))
    clean_trajs, clean = parse_replay(replay_sources(src)[0])
    trajs, c = parse_replay(noisy)
    assert c.ignored_lines == {"text": 1, "nonsense": 2, "newkind": 1} and clean.ignored_lines == {}
    assert c.as_dict() | {"ignored_lines": {}} == clean.as_dict() | {"name": c.name}
    assert [t.actions for t in trajs] == [t.actions for t in clean_trajs]
    assert c.as_dict()["ignored_lines"] == {"newkind": 1, "nonsense": 2, "text": 1}


def test_open_team_sheets_agreed_by_both_players_are_recorded_and_counted(tmp_path):
    """ "NAME has agreed to open team sheets." (the server's text line, then |showteam| for
    both): read, not ignored; the replay says how its sheets came out (``agreed`` when both
    players agreed, else ``shown`` by the format) and the data set counts them. The
    observation is unchanged: encoder version 2 has no place to say the sheets are open."""
    text = json.loads((REPLAYS / "gen9vgc2025reggbo3-2354761491.json").read_text())["log"]
    lines = text.split("\n")
    k = next(i for i, line in enumerate(lines) if line.startswith("|showteam|"))
    agree = ["NicoViBrittania has agreed to open team sheets.", "mantinevt-tv has agreed to open team sheets."]
    (tmp_path / "src").mkdir()
    both = _write(tmp_path / "src", "both.log", "\n".join(lines[:k] + agree + lines[k:]))
    one = _write(tmp_path / "src", "one.log", "\n".join(lines[:k] + agree[:1] + lines[k:]))
    clean_trajs, clean = parse_replay(replay_sources(REPLAYS)[1])
    for src, how in ((both, "agreed"), (one, "shown")):
        trajs, c = parse_replay(src)
        assert c.open_sheets == how and c.ignored_lines == {}
        assert [np.stack(t.obs).tobytes() for t in trajs] == [np.stack(t.obs).tobytes() for t in clean_trajs]
    assert clean.open_sheets == "shown"
    m = build_replay_dataset(tmp_path / "src", tmp_path / "data", on_replay=lambda s: None)
    assert m["open_team_sheets"] == {"agreed": 1, "shown": 1}
    assert [r["open_sheets"] for r in read_replay_counts(tmp_path / "data")] == ["agreed", "shown"]


def test_malformed_replays_name_file_and_line(tmp_path):
    text = json.loads((REPLAYS / "gen9vgc2025reggbo3-2354761491.json").read_text())["log"]
    lines = text.split("\n")
    end = next(i for i, line in enumerate(lines) if line.startswith("|win|"))
    truncated = _write(tmp_path, "truncated.log", "\n".join(lines[: end - 3]))
    with pytest.raises(ReplayError, match=r"truncated.log:\d+: the battle never ends"):
        parse_replay(truncated)
    with pytest.raises(ReplayError, match=r"not-json.json:1: not JSON"):
        parse_replay(_write(tmp_path, "not-json.json", "{oops"))
    with pytest.raises(ReplayError, match=r"no-log.json: a replay is a JSON object with a 'log' string"):
        parse_replay(_write(tmp_path, "no-log.json", "{}"))
    with pytest.raises(ReplayError, match=r"no such file or directory"):
        replay_sources(tmp_path / "missing")
    (tmp_path / "empty").mkdir()
    with pytest.raises(ReplayError, match=r"no \*.json or \*.log replays"):
        replay_sources(tmp_path / "empty")


def test_json_lines_and_a_bad_record_among_good_ones(tmp_path):
    records = [(REPLAYS / f"{k}.json").read_text().strip() for k in sorted(REAL)]
    jsonl = tmp_path / "replays.jsonl"
    jsonl.write_text("\n".join([records[0], "{broken", records[1]]) + "\n")
    errors, said = [], []
    m = build_replay_dataset(jsonl, tmp_path / "data", on_error=errors.append, on_replay=said.append)
    assert len(errors) == 1 and f"{jsonl}:2: not JSON" in errors[0]
    got = {
        r["name"]: (r["reconstructed"], r["partial"], r["decisions"], r["shown"], r["rebuilt"])
        for r in read_replay_counts(tmp_path / "data")
    }
    assert got == REAL
    assert m["logs"] == 3 and m["battles"] == 2 and m["trajectories"] == 4
    assert (m["decisions"], m["decisions_partial"], m["decisions_total"], m["illegal"]) == (16, 7, 18, 0)
    assert (m["choices_shown"], m["choices_rebuilt"], m["shown_reconstructed"]) == (25, 25, 1.0)
    assert m["all_reconstructed"] == round(16 / 18, 4)
    assert [r["source"] for r in read_replay_counts(tmp_path / "data")] == [f"{jsonl}:1", f"{jsonl}:3"]
    assert m["replays_file"] == "replays.jsonl"
    assert [line.split(" (skipped")[0] for line in said] == [
        f"{k}: {f + p}/{n} decisions reconstructed ({p} partial), {r}/{s} shown choices rebuilt"
        for k, (f, p, n, s, r) in sorted(REAL.items())
    ]
    chunks = [c for split in ("train", "heldout") for c in m["chunks"][split]]
    assert sum(c["trajectories"] for c in chunks) == 4
    assert all((tmp_path / "data" / c["file"]).is_file() for c in chunks)


def test_parse_replays_then_train_one_epoch(tmp_path):
    src = tmp_path / "replays"
    shutil.copytree(REPLAYS, src)
    (src / "hand.log").write_text(LOG_REDIRECT_LOCK)
    out = subprocess.run(
        [sys.executable, "-m", "tools.bc", "parse-replays", str(src), "--out", str(tmp_path / "data")],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    lines = out.stdout.strip().splitlines()
    r = json.loads(lines[-1])
    assert r["replays"] == {
        "gen9vgc2025reggbo3-2354759723": "5/7 (2 partial)",
        "gen9vgc2025reggbo3-2354761491": "11/11 (5 partial)",
        "hand": "13/14 (5 partial)",
    }
    assert (r["battles"], r["decisions"], r["decisions_partial"], r["decisions_total"]) == (3, 29, 12, 32)
    assert (r["illegal"], r["errors"], r["choices_shown"], r["choices_rebuilt"]) == (0, 0, 44, 44)
    assert (r["shown_reconstructed"], r["all_reconstructed"]) == (1.0, round(29 / 32, 4))
    assert any(line.startswith("gen9vgc2025reggbo3-2354759723: 5/7 decisions reconstructed") for line in lines)
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "tools.bc",
            "train",
            str(tmp_path / "data"),
            "--out",
            str(tmp_path / "bc"),
            "--epochs",
            "1",
            "--model-size",
            "small",
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    s = json.loads(out.stdout.strip().splitlines()[-1])
    assert s["decisions"] > 0 and s["updates"] >= 1 and Path(s["checkpoint"]).is_file()
    bad = subprocess.run(
        [sys.executable, "-m", "tools.bc", "parse-replays", str(tmp_path / "nowhere"), "--out", str(tmp_path / "x")],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert bad.returncode != 0 and "no such file or directory" in bad.stderr


def test_a_dump_is_read_entry_by_entry_and_gives_what_the_files_give(tmp_path, monkeypatch):
    """The public datasets' {battle_id: [timestamp, log]} dump, read in small chunks (each
    entry decoded alone, the buffer refilled): the same replays as the replay files."""
    import league.bc.replay_sources as rs

    monkeypatch.setattr(rs, "CHUNK", 257)  # many refills, values split across them
    logs = {p.stem: json.loads(p.read_text())["log"] for p in sorted(REPLAYS.glob("*.json"))}
    dump = tmp_path / "dump.json"
    dump.write_text(json.dumps({k: [1700000000 + i, v] for i, (k, v) in enumerate(logs.items())}, indent=1))
    got = rs.replay_sources(dump)
    assert [s.name for s in got] == [f"{dump}:{k}" for k in logs]
    assert [s.read() for s in got] == list(logs.items())
    as_files = {c.name: c.as_dict() for c in (parse_replay(s)[1] for s in rs.replay_sources(REPLAYS))}
    from_dump = {c.name: c.as_dict() for c in (parse_replay(s)[1] for s in got)}
    assert from_dump == as_files
    # a log string for a value works too; a truncated dump is one error naming it
    (tmp_path / "strings.json").write_text(json.dumps(logs))
    assert [s.read() for s in rs.replay_sources(tmp_path / "strings.json")] == list(logs.items())
    (tmp_path / "cut.json").write_text(dump.read_text()[:-200])
    with pytest.raises(ReplayError, match="cut.json: not a complete JSON object"):
        rs.replay_sources(tmp_path / "cut.json")


def test_filters_by_format_and_rating_and_workers_give_the_same_data_set(tmp_path):
    from league.bc.replay_sources import replay_meta

    objs = [json.loads(p.read_text()) for p in sorted(REPLAYS.glob("*.json"))]
    assert replay_meta(objs[0]["log"], objs[0])[0] == "gen9vgc2025reggbo3"
    assert replay_meta("|tier|[Gen 9] VGC 2025 Reg G\n|raw|A's rating: 1500\n|raw|B's rating: 1700\n", {}) == (
        "gen9vgc2025regg",
        1600.0,
    )
    assert replay_meta("|tier|x\n", {"rating": 1234}) == ("x", 1234.0)
    jsonl = tmp_path / "replays.jsonl"
    rows = [dict(objs[0], rating=1700), dict(objs[1], rating=1100), dict(objs[0], id="other", formatid="gen9ou")]
    jsonl.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    m = build_replay_dataset(
        jsonl,
        tmp_path / "a",
        on_error=lambda s: None,
        on_replay=lambda s: None,
        fmt="gen9vgc2025reggbo3",
        min_rating=1500,
    )
    assert m["battles"] == 1 and m["logs"] == 3
    assert m["filtered"] == {"format gen9ou": 1, "rating below 1500": 1}
    seen = []
    m1 = build_replay_dataset(REPLAYS, tmp_path / "one", on_error=lambda s: None, on_replay=lambda s: None)
    m2 = build_replay_dataset(
        REPLAYS, tmp_path / "two", on_error=lambda s: None, on_replay=lambda s: None, workers=2, on_progress=seen.append
    )
    one, two = (list(read_replay_counts(tmp_path / d)) for d in ("one", "two"))
    assert len(one) == 2 and two == one and m2["chunks"] == m1["chunks"] and seen == [1, 2]
    for c in m1["chunks"]["train"] + m1["chunks"]["heldout"]:
        a = torch.load(tmp_path / "one" / c["file"], weights_only=True)
        b = torch.load(tmp_path / "two" / c["file"], weights_only=True)
        assert a.keys() == b.keys()
        assert all(torch.equal(a[k], b[k]) if torch.is_tensor(a[k]) else a[k] == b[k] for k in a)


def test_a_side_s_team_sheet_rebuilt_from_its_log_by_hand():
    """What the log shows of each Pokemon, in hindsight: moves it chose (not a move another
    called, not Struggle), the first item and ability attributed to it (an [of] names the
    holder; Trace's holder has Trace, the traced Pokemon the ability shown; Trick's item is
    not the set's), its tera type; a back never sent in: its species alone."""
    from league.bc.replay_hindsight import sheet_from_log
    from league.bc.replay_protocol import _Line

    body = """
|switch|p1a: Blaze|Incineroar, L50, M|100/100
|switch|p1b: Amoonguss|Amoonguss, L50, F|100/100
|switch|p2a: Chompy|Garchomp, L50, M|100/100
|switch|p2b: Gardy|Gardevoir, L50, F|100/100
|-ability|p1a: Blaze|Intimidate|boost
|-ability|p2b: Gardy|Intimidate|[from] ability: Trace|[of] p1a: Blaze
|turn|1
|move|p1a: Blaze|Fake Out|p2a: Chompy
|-damage|p2a: Chompy|80/100
|move|p2a: Chompy|Rock Slide|p1a: Blaze|[spread] p1a,p1b
|-damage|p2a: Chompy|75/100|[from] item: Rocky Helmet|[of] p1b: Amoonguss
|move|p1b: Amoonguss|Sleep Talk|p1b: Amoonguss
|move|p1b: Amoonguss|Spore|p2a: Chompy|[from]move: Sleep Talk
|-enditem|p1a: Blaze|Sitrus Berry|[eat]
|turn|2
|-terastallize|p1a: Blaze|Ghost
|move|p1a: Blaze|Knock Off|p2b: Gardy
|-enditem|p2b: Gardy|Choice Scarf|[from] move: Knock Off|[of] p1a: Blaze
|move|p1b: Amoonguss|Trick|p2a: Chompy
|-item|p1b: Amoonguss|Life Orb|[from] move: Trick
|-damage|p1b: Amoonguss|50/100|[from] item: Life Orb
|move|p1a: Blaze|Struggle|p2a: Chompy
|move|p1a: Blaze|Fake Out|p2a: Chompy
"""
    lines = [_Line(i, x.split("|")) for i, x in enumerate(_log(body).split("\n"), 1) if x.startswith("|")]
    p1 = {m.species: m for m in sheet_from_log(lines, "p1")}
    p2 = {m.species: m for m in sheet_from_log(lines, "p2")}
    assert list(p1) == ["Incineroar", "Amoonguss", "Indeedee-F", "Garchomp", "Dragonite", "Urshifu"]
    blaze, goose = p1["Incineroar"], p1["Amoonguss"]
    assert (blaze.moves, blaze.item, blaze.ability, blaze.tera_type) == (
        ["fakeout", "knockoff"],
        "sitrusberry",
        "intimidate",
        "Ghost",
    )
    # Sleep Talk chosen, Spore called by it; Rocky Helmet from the [of]; Trick's Life Orb not its own
    assert (goose.moves, goose.item, goose.ability, goose.tera_type) == (
        ["sleeptalk", "trick"],
        "rockyhelmet",
        None,
        None,
    )
    assert (p2["Gardevoir"].ability, p2["Gardevoir"].item, p2["Gardevoir"].moves) == ("trace", "choicescarf", [])
    assert p2["Garchomp"].moves == ["rockslide"] and (p2["Garchomp"].level, p2["Garchomp"].gender) == (50, "M")
    urshifu = p1["Urshifu"]  # "Urshifu-*" at preview, never sent in
    assert (urshifu.moves, urshifu.item, urshifu.ability, urshifu.level) == ([], None, None, 50)


def test_a_replay_without_open_team_sheets_is_read_from_its_log(tmp_path):
    """Without |showteam| (a ladder game whose players did not agree) each side's sheet is
    rebuilt from its own log: the replay is read, not rejected, every choice the log shows
    is rebuilt and legal, and the replay counts as ``none``. Of this replay's 11 decisions
    the same are kept as with the sheets; whole labels may differ (a Pokemon whose other
    moves the log never shows has fewer options)."""
    text = json.loads((REPLAYS / "gen9vgc2025reggbo3-2354761491.json").read_text())["log"]
    closed = "\n".join(x for x in text.split("\n") if not x.startswith("|showteam|"))
    (tmp_path / "src").mkdir()
    trajs, c = parse_replay(_write(tmp_path / "src", "closed.log", closed))
    _, with_sheets = parse_replay(replay_sources(REPLAYS)[1])
    assert c.open_sheets == "none" and c.illegal == 0 and _legal(trajs)
    assert (c.decisions, c.shown) == (with_sheets.decisions, with_sheets.shown) == (11, 16)
    assert c.rebuilt == c.shown and c.reconstructed + c.partial == with_sheets.reconstructed + with_sheets.partial
    m = build_replay_dataset(tmp_path / "src", tmp_path / "data", on_replay=lambda s: None)
    assert m["open_team_sheets"] == {"none": 1} and m["battles"] == 1


def test_a_tera_the_log_never_shows_leaves_its_slot_open_without_sheets(tmp_path):
    """tests/data/regc_logs/commander-tera-unshown.log.gz (tools.bc generate, random vs
    random; the suite once drew it): p2 chose Tatsugiri's Dragon Pulse with tera and
    switched Dondozo in beside it; Commander put Tatsugiri into Dondozo's mouth, so it never
    acted and never terastallized. Without open sheets its tera type is unknown and the
    rebuilt request offers no tera, so no label can hold the recorded order: the slot is
    open (every order of the rebuilt mask), and the check reads the tera as unknowable.
    With the sheets the label holds the tera order itself."""
    import gzip

    from league.bc.validate import in_label_without_sheets, meaning, recorded_choices

    log = tmp_path / "commander.log"
    log.write_bytes(gzip.decompress((DATA / "regc_logs" / "commander-tera-unshown.log.gz").read_bytes()))
    for sheets in (True, False):
        r = replay_agreement(log, sheets=sheets)
        assert r["wrong_mask"] == [] and r["wrong_label"] == [], sheets
        assert r["counts"].rebuilt == r["counts"].shown == 37
    closed = replay_agreement(log, sheets=False)
    p2 = next(s for s in closed["sides"] if s.role == "p2")
    (kind, action, view, _), ours = next(
        (rec, d) for rec, d in zip(recorded_choices(log)["p2"], p2.decisions) if d.line == 60
    )
    assert meaning(kind, action, view) == (("move", "dragonpulse", 0, True), ("switch", "p2: Dondozo"))
    assert ours.view.gimmick[0] == "" and view.gimmick[0] == "terastallize"
    options = {meaning(kind, int(a), ours.view)[0] for a in np.flatnonzero(ours.labels)}
    assert ("move", "dragonpulse", 0, False) in options and all(not o[3] for o in options if o[0] == "move")
    assert in_label_without_sheets(kind, ours.labels, ours.mask, ours.view, action, view)
    # a slot the label does not leave open gets no such allowance: only the switch kept
    only = ours.labels.copy()
    only[[a for a in np.flatnonzero(only) if meaning(kind, int(a), ours.view)[0][0] == "move"]] = False
    assert only.any() and not in_label_without_sheets(kind, only, ours.mask, ours.view, action, view)


def test_gravity_and_imprison_disable_moves_as_showdown_shows_them(tmp_path):
    """Gravity disables moves flagged ``gravity`` (High Jump Kick); a foe under Imprison
    disables the moves it has (U-turn, on its sheet), shown disabled to slot a while slot
    b, the side's last active Pokemon, is alive (Showdown's "hidden" disable)."""
    p1_sheet = [list(x) for x in SHEET]
    p1_sheet[URSHIFU][2:5] = ["MysticWater", "UnseenFist", "SurgingStrikes,CloseCombat,Uturn,HighJumpKick"]
    p2_sheet = [list(x) for x in SHEET]
    p2_sheet[INDEEDEE][4] = "FollowMe,Imprison,HelpingHand,Uturn"
    body = """
|switch|p1a: Urshifu|Urshifu-Rapid-Strike, L50, F|100/100
|switch|p1b: Amoonguss|Amoonguss, L50, F|100/100
|switch|p2a: Chompy|Garchomp, L50, M|100/100
|switch|p2b: Indeedee|Indeedee-F, L50, F|100/100
|turn|1
|
|move|p2b: Indeedee|Imprison|p2b: Indeedee
|-start|p2b: Indeedee|move: Imprison
|move|p1a: Urshifu|Surging Strikes|p2a: Chompy
|-damage|p2a: Chompy|60/100
|move|p1b: Amoonguss|Protect|p1b: Amoonguss
|-singleturn|p1b: Amoonguss|Protect
|-fieldstart|move: Gravity
|
|upkeep
|turn|2
|
|move|p1a: Urshifu|Close Combat|p2a: Chompy
|-damage|p2a: Chompy|0 fnt
|faint|p2a: Chompy
|move|p1b: Amoonguss|Spore|p2b: Indeedee
|-status|p2b: Indeedee|slp
"""
    (p1, _), c = parse_replay(_write(tmp_path, "gravity.log", _log(body, sheets=(p1_sheet, p2_sheet))))
    slot = lambda mask, x: {split_joint(j)[x] for j in np.flatnonzero(mask)}  # noqa: E731
    surging, close_combat, uturn, hjk = (move_action(k, 3, False) for k in range(4))
    # turn 1: nothing in force yet
    assert {surging, close_combat, uturn, hjk} <= slot(p1.mask[1], 0)
    # turn 2: U-turn (Imprison, slot a) and High Jump Kick (Gravity) disabled; the choice legal
    assert surging in slot(p1.mask[2], 0) and close_combat in slot(p1.mask[2], 0)
    assert uturn not in slot(p1.mask[2], 0) and hjk not in slot(p1.mask[2], 0)
    assert split_joint(p1.actions[2])[0] == close_combat and c.illegal == 0
    assert _legal([p1])


def test_open_team_sheets_are_in_the_observation_and_closed_ones_are_not(tmp_path):
    """Encoder version 4: with both |showteam| sheets, every decision's ``sheets`` flag is 1
    and the foe's rows hold its sheet from team preview on (item, ability, all four moves,
    tera type), revealed or not; the same battle without them reads the foe as RL does
    (flag 0, only what play revealed)."""
    from league.battle.obs import (
        ID_ABILITY,
        ID_ITEM,
        ID_MOVE0,
        ID_TERA,
        MON_FEATURES,
        TYPES,
        move_vocab_id,
        split,
        vocab_id,
    )

    def foe_row(obs, k: int) -> tuple:
        v = split(obs.astype(np.float32))
        ids = v["ids"][6 + k]
        return (
            int(ids[ID_ITEM]),
            int(ids[ID_ABILITY]),
            [int(x) for x in ids[ID_MOVE0 : ID_MOVE0 + 4]],
            int(ids[ID_TERA]),
            float(v["mons"][6 + k][MON_FEATURES.index("moves_known")]),
        )

    def sheet_row(k: int) -> tuple:
        _, _, item, ability, moves, tera = SHEET[k]
        ids = [move_vocab_id(m.lower()) for m in moves.split(",")]
        return (
            vocab_id("items", item.lower()),
            vocab_id("abilities", ability.lower()),
            ids,
            TYPES_BY_NAME[tera] + 1,
            1.0,
        )

    TYPES_BY_NAME = {t.name.title(): i for i, t in enumerate(TYPES)}
    (p1, p2), c = parse_replay(_write(tmp_path, "open.log", LOG_FAINT_TERA), foe_sheets=True)
    assert c.open_sheets == "shown"
    for side in (p1, p2):
        assert all(float(split(o.astype(np.float32))["sheets"][0]) == 1.0 for o in side.obs)
    # p1's first turn: Garchomp (revealed, nothing used yet) and Dragonite (never seen) read as their sheets
    turn1 = p1.obs[1]
    assert foe_row(turn1, GARCHOMP) == sheet_row(GARCHOMP)
    assert foe_row(turn1, DRAGONITE) == sheet_row(DRAGONITE)
    assert foe_row(p1.obs[0], URSHIFU) == sheet_row(URSHIFU)  # at preview, "Urshifu-*": its sheet's forme

    closed = "\n".join(ln for ln in LOG_FAINT_TERA.splitlines() if not ln.startswith("|showteam|"))
    (q1, _), c2 = parse_replay(_write(tmp_path, "closed.log", closed), foe_sheets=True)
    assert c2.open_sheets == "none"
    assert all(float(split(o.astype(np.float32))["sheets"][0]) == 0.0 for o in q1.obs)
    item, ability, moves, tera, known = foe_row(q1.obs[1], DRAGONITE)
    assert (item, moves, tera, known) == (1, [0, 0, 0, 0], 0, 0.0)  # unknown item, no move, no tera type seen


def test_by_default_an_open_sheet_replay_reads_the_foe_as_the_league_sees_battles(tmp_path):
    """parse-replays without --foe-sheets: the same open-sheet replay gives the foe rows of
    the closed one (flag 0, the foe as play revealed it: what the league's battles and
    tools.play give), and the manifest says so."""
    from league.battle.obs import LAYOUT, split

    src = _write(tmp_path, "open.log", LOG_FAINT_TERA)
    (p1, _), c = parse_replay(src)
    closed = "\n".join(ln for ln in LOG_FAINT_TERA.splitlines() if not ln.startswith("|showteam|"))
    (q1, _), _ = parse_replay(_write(tmp_path, "closed.log", closed))
    (o1, _), _ = parse_replay(src, foe_sheets=True)
    assert c.open_sheets == "shown"  # what the replay had is still counted

    def foe(o):  # the foe's rows (own rows differ: the closed replay rebuilds its own sheet from the log)
        v = split(o.astype(np.float32))
        return np.concatenate([v["ids"][6:].ravel(), v["mon_moves"][6:].ravel(), v["sheets"]])

    assert np.array_equal(foe(p1.obs[1]), foe(q1.obs[1]))
    assert not np.array_equal(foe(o1.obs[1]), foe(p1.obs[1]))
    assert all(o[LAYOUT["sheets"][0]] == 0 for o in p1.obs)
    (tmp_path / "src").mkdir()
    _write(tmp_path / "src", "open.log", LOG_FAINT_TERA)
    m = build_replay_dataset(tmp_path / "src", tmp_path / "data", on_replay=lambda s: None)
    assert m["foe_sheets"] is False and m["open_team_sheets"] == {"shown": 1}
    m = build_replay_dataset(tmp_path / "src", tmp_path / "with", on_replay=lambda s: None, foe_sheets=True)
    assert m["foe_sheets"] is True


@pytest.mark.parametrize(
    "manifest, reads",
    [
        ({"foe_sheets": True, "open_team_sheets": {"shown": 3, "none": 2}}, True),
        ({"foe_sheets": True, "open_team_sheets": {"agreed": 1, "none": 1}}, True),
        ({"foe_sheets": True, "open_team_sheets": {"shown": 5}}, False),  # the flag is 1 everywhere: no feature
        ({"foe_sheets": True, "open_team_sheets": {"none": 5}}, False),  # 0 everywhere
        ({"foe_sheets": False, "open_team_sheets": {"shown": 3, "none": 2}}, False),  # sheets not read
        ({"battles": 10}, False),  # a data set of our own logs: no replays
    ],
)
def test_a_network_reads_the_sheets_flag_only_where_the_data_has_both_kinds(manifest, reads):
    from league.bc.replays import reads_sheets

    assert reads_sheets(manifest) is reads
