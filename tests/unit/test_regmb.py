"""Reg M-B (Pokemon Champions) decisions on a recorded battle, no server needed:
tests/data/recorded_regmb.json holds both sides' protocol lines of one battle, maxdamage
(p1) vs random (p2), with the shipped Reg M-B pool; both sides mega-evolve on turn 1
(regenerate: ``python -m tools.bc generate -n 6 --p1 maxdamage --p2 random --format
gen9championsvgc2026regmb --seed 7``, the first log, ``|t:|`` lines dropped)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest

from league.battle.actions import decode_slot, joint_message, split_joint
from league.battle.analysis import AM, AT, TurnAnalysis, analyse_moves
from league.battle.context import make_decision
from league.battle.damage import damage
from league.battle.dex import champions
from league.battle.fighter import mega_fighter
from league.battle.moves import move_info
from league.battle.obs import FIELD_FEATURES, MON_FEATURES, move_vocab_id, split, vocab_id
from league.battle.replay import replay
from league.players.maxdamage import maxdamage_turn

DATA = Path(__file__).resolve().parents[1] / "data" / "recorded_regmb.json"
REC = json.loads(DATA.read_text())
P1, P2 = REC["sides"]
F = {n: i for i, n in enumerate(MON_FEATURES)}
G = {n: i for i, n in enumerate(FIELD_FEATURES)}


def _decisions(side: dict):
    for battle, ctx in replay(side["lines"], side["username"]):
        yield battle, ctx, make_decision(battle, ctx)


def test_replayed_maxdamage_sends_what_it_sent_live_mega_first():
    """maxdamage's order at every recorded turn is the one it chose live (the |choose| line
    after each request), and on turn 1 it mega-evolves."""
    sent = []
    for battle, ctx, d in _decisions(P1):
        assert battle.format == REC["format"] == "gen9championsvgc2026regmb"
        if d.kind != "turn" or d.view.kind != "move":
            continue
        recorded = P1["lines"][ctx.line]  # the line after the request
        assert recorded.startswith("|choose|turn|")
        sent.append(joint_message(d.view, maxdamage_turn(battle, d)))
        assert recorded.split("|")[-1] == sent[-1]
    assert len(sent) >= 5
    assert sent[0] == "/choose move 1 mega, move 3 1" and all(" mega" not in s for s in sent[1:])
    assert all("terastallize" not in s for s in sent)


def test_mega_orders_carry_the_mega_forme_s_damage_and_speed():
    battle, ctx, d = next((b, c, d) for b, c, d in _decisions(P1) if d.kind == "turn")
    assert d.view.gimmick == ["mega", ""]  # Aerodactyl holds its stone; Archaludon none
    assert ctx.could_mega
    v = split(d.obs)
    am, at = v["act_move"], v["act_target"]
    assert (am[0, :, AM["can_tera"]] == 1).all() and (am[1, :, AM["can_tera"]] == 0).all()
    ta = TurnAnalysis(battle)
    assert ta.mech is champions()
    aero, mega = ta.own[0], mega_fighter(ta.own[0], ta.mech)
    assert (aero.species, mega.species) == ("aerodactyl", "aerodactylmega")
    assert mega.atk > aero.atk and mega.spe > aero.spe
    # Rock Slide (move 1, spread): b = 1 is Mega Aerodactyl's hit on the foes, b = 0 plain Aerodactyl's
    slide = move_info("rockslide", ta.mech)
    row0, row1 = at[0, 0, 2, 0], at[0, 0, 2, 1]
    for _k, foe in enumerate(ta.foes):
        h0 = damage(aero, slide, foe, ta.env, spread=True)
        h1 = damage(mega, slide, foe, ta.env, spread=True)
        assert h1.exp > h0.exp
    assert row1[AT["exp_foes"]] > row0[AT["exp_foes"]] and row1[AT["hi_foes"]] >= row0[AT["hi_foes"]]
    # the forme's speed decides who moves first: foes between Aerodactyl (200) and its mega (222)
    assert (aero.spe, mega.spe) == (200, 222)
    ta.foes = [dataclasses.replace(f, spe_min=210.0, spe=212.0, spe_max=215.0) for f in ta.foes]
    ids, am2, at2 = np.zeros((2, 4)), np.zeros((2, 4, len(AM))), np.zeros((2, 4, 5, 2, len(AT)))
    analyse_moves(battle, d.view, ids, am2, at2, move_vocab_id, ta)
    assert (at2[0, 0, 2, 0, AT["first"]], at2[0, 0, 2, 1, AT["first"]]) == (0.0, 1.0)
    # a status move (Tailwind, move 3) does the same with or without mega
    np.testing.assert_array_equal(at[0, 2, 2, 0], at[0, 2, 2, 1])


def test_mega_state_and_champions_data_in_the_observation():
    seen_mega = False
    for battle, _ctx, d in _decisions(P1):
        v = split(d.obs)
        mons, ids, field, mm = v["mons"], v["ids"], v["field"], v["mon_moves"]
        assert (ids[:, 7] == 0).all() and not mons[:, F["tera_bug"] : F["tera_bug"] + 20].any()  # no tera in Champions
        if d.kind != "turn" or battle.turn < 2:
            continue
        seen_mega = True
        # after turn 1 both sides have mega-evolved (the tera flags carry the format's transformation)
        assert field[G["own_used_tera"]] == 1 and field[G["opp_used_tera"]] == 1
        aero = next(r for r in range(6) if ids[r, 0] == vocab_id("species", "aerodactylmega"))
        assert mons[aero, F["terastallized"]] == 1
        assert mons[aero, F["base_atk"]] == pytest.approx(135 / 200)  # Mega Aerodactyl 80/135/85/70/95/150
        others = [r for r in range(6) if r != aero and mons[r, F["present"]]]
        assert not mons[others, F["terastallized"]].any()
        # Rock Slide used once on turn 1: Champions PP 10 -> 12 at most, 11 left (poke-env counts from 16)
        if battle.turn == 2:
            assert mm[aero, 0, 1] == pytest.approx(11 / 12)
    assert seen_mega


def test_random_side_masks_offer_mega_only_until_it_is_used():
    offered_after = []
    for battle, _ctx, d in _decisions(P2):
        if d.kind != "turn" or d.view.kind != "move":
            continue
        legal = [decode_slot(a) for j in np.flatnonzero(d.mask) for a in split_joint(int(j))]
        has_mega_order = any(kind == "move" and b for kind, _, _, b in legal)
        assert has_mega_order == ("mega" in d.view.gimmick)
        if battle.used_mega_evolve:
            offered_after.append(has_mega_order)
    assert offered_after and not any(offered_after)  # one Mega Evolution a battle
