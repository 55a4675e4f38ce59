"""Our own Pokemon's tera types, read from the request (encoder version 6): poke-env does
not read ``teraType`` from a request, so before this the observation showed no tera type
for our own Pokemon and the tera orders' rows were the plain orders' (no tera STAB, Tera
Blast Normal). A network with ``model.own_tera`` (off by default) reads them; older
networks load without it and are fed what they learnt on."""

from __future__ import annotations

import json

import numpy as np

from league.battle.analysis import AM
from league.battle.context import make_decision
from league.battle.obs import split
from league.battle.replay import replay
from league.model.net import ModelConfig, model_cfg_dict, model_sizes
from tests.recorded import DATA


def _first_move_request(own_tera: bool):
    rec = json.loads(DATA.read_text())[0]
    for battle, ctx in replay(rec["lines"], rec["username"]):
        d = make_decision(battle, ctx, own_tera=own_tera)
        if d.view.kind == "move":
            return battle, d
    raise AssertionError("no move request")


def test_our_tera_types_come_from_the_request_and_reach_the_tera_orders():
    battle, d = _first_move_request(True)
    request_types = {e["ident"]: e["teraType"] for e in d.view.side}
    assert request_types and all(request_types.values())
    for ident, t in request_types.items():
        mon = battle.team[ident]
        assert mon._terastallized_type is not None and mon._terastallized_type.name == t.upper()
        assert not mon.is_terastallized  # known, not used
    old_battle, old = _first_move_request(False)
    assert all(m._terastallized_type is None for m in old_battle.team.values())
    assert not np.array_equal(d.obs, old.obs)
    # with the types known, some move's tera STAB differs from its plain STAB (a move of
    # the tera type); without, the two were the same in every recorded decision
    differ = {True: 0, False: 0}
    for rec in json.loads(DATA.read_text()):
        for own_tera in (True, False):
            for battle, ctx in replay(rec["lines"], rec["username"]):
                am = split(make_decision(battle, ctx, own_tera=own_tera).obs)["act_move"]
                differ[own_tera] += int(np.count_nonzero(am[..., AM["stab"]] != am[..., AM["stab_tera"]]))
    assert differ[False] == 0 and differ[True] > 0


def test_networks_before_encoder_version_6_do_not_read_them():
    assert ModelConfig().own_tera is False  # off by default (experiments/issue27_owntera_screen)
    mc = model_cfg_dict(ModelConfig(own_tera=True), "gen9vgc2023regc")
    assert mc["encoder_version"] == 6 and model_sizes(mc)["own_tera"] is True
    old = {k: v for k, v in mc.items() if k != "own_tera"} | {"encoder_version": 5}
    assert model_sizes(old)["own_tera"] is False


def test_types_read_before_the_seat_was_known_are_forgotten_for_a_network_without_them():
    """A player reads the types while it does not know which network decides (a seat not
    drawn yet says True); once it knows the network reads none, the battle's Pokemon are
    as poke-env left them again, and the next decision encodes as without any read."""
    rec = json.loads(DATA.read_text())[0]
    steps = replay(rec["lines"], rec["username"])
    battle, ctx = next(steps)
    make_decision(battle, ctx, own_tera=True)
    assert ctx.tera_read and any(m._terastallized_type is not None for m in battle.team.values())
    make_decision(battle, ctx, own_tera=False)
    assert ctx.tera_read is None
    assert all(m._terastallized_type is None for m in battle.team.values() if not m.is_terastallized)


def test_which_players_read_them():
    """Off for every player but ``heuristic`` (its tera rule) and a network with the flag."""
    from league.players import BASELINES

    assert {n: cls.reads_own_tera(None, None) for n, cls in BASELINES.items()} == {
        "random": False,
        "maxdamage": False,
        "heuristic": True,
    }
