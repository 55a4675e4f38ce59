"""Observation layout and protocol replay on a recorded battle (no server needed).

tests/data/recorded_battles.json holds both sides' protocol lines of two battles
played with the shipped pool (regenerate: tools.bench.record_battles)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from league.battle.context import make_decision
from league.battle.obs import FIELD_FEATURES, LAYOUT, MON_F, MON_FEATURES, N_MONS, OBS_DIM, split
from league.battle.replay import ReplayError, replay

DATA = Path(__file__).resolve().parents[1] / "data" / "recorded_battles.json"
RECS = json.loads(DATA.read_text())
F = {n: i for i, n in enumerate(MON_FEATURES)}
G = {n: i for i, n in enumerate(FIELD_FEATURES)}


def test_layout_is_contiguous_and_named_once():
    spans = sorted(LAYOUT.values())
    assert spans[0][0] == 0 and spans[-1][1] == OBS_DIM
    for (_a0, b0, _), (a1, _, _) in zip(spans, spans[1:]):
        assert b0 == a1
    assert len(set(MON_FEATURES)) == MON_F and len(set(FIELD_FEATURES)) == len(FIELD_FEATURES)
    v = split(np.zeros((3, OBS_DIM), np.float32))
    assert v["ids"].shape == (3, N_MONS, 8) and v["mons"].shape == (3, N_MONS, MON_F)


@pytest.mark.parametrize("rec", RECS, ids=lambda r: r["username"])
def test_replay_encodes_every_decision_consistently(rec):
    decisions = [make_decision(b, ctx) for b, ctx in replay(rec["lines"], rec["username"])]
    assert decisions[0].kind == "preview" and all(d.kind == "turn" for d in decisions[1:])
    assert len(decisions) > 5
    for d in decisions:
        v = split(d.obs)
        mons, field, ids = v["mons"], v["field"], v["ids"]
        assert np.isfinite(d.obs).all() and d.mask.any()
        assert ((mons[:, F["hp_frac"]] >= 0) & (mons[:, F["hp_frac"]] <= 1)).all()
        present = mons[:, F["present"]] == 1
        assert present[:6].all() and present[6:].all()  # own six; their six from team preview
        assert (ids[present, 0] > 1).all()  # species known
        assert (mons[:6, F["is_own"]] == 1).all() and (mons[6:, F["is_own"]] == 0).all()
        status = mons[present][:, F["status_none"] : F["status_none"] + 7]
        assert (status.sum(axis=1) == 1).all()
        if d.kind == "preview":
            assert field[G["teampreview"]] == 1 and mons[:, F["active"]].sum() == 0
        else:
            assert field[G["teampreview"]] == 0
            assert mons[:4, F["brought_or_revealed"]].all() and not mons[4:6, F["brought_or_revealed"]].any()
            assert mons[:6, F["active"]].sum() <= 2 and mons[6:, F["active"]].sum() <= 2
            own = mons[:6]
            assert (own[:, F["slot_a"]] + own[:, F["slot_b"]] == own[:, F["active"]]).all()
            assert not mons[6:, F["slot_a"]].any() and not mons[6:, F["slot_b"]].any()  # foe slots: `slots` only
            slots = v["slots"].astype(int)
            for s, row in enumerate(slots):  # each occupied slot points at an active row of its side
                if row < 12:
                    assert mons[row, F["active"]] == 1 and (row < 6) == (s < 2)
            assert sorted(r for r in slots if r < 12) == sorted(np.flatnonzero(mons[:, F["active"]]).tolist())
            if d.view.kind == "move":  # each active slot's request moves, with their (move, target) analysis
                acts = v["act_ids"]
                for s in range(2):
                    n = len(d.view.active[s].get("moves", [])) if s < len(d.view.active) and slots[s] < 12 else 0
                    assert (acts[s, :n] > 1).all() and (acts[s, n:] == 0).all()
                    assert (v["act_target"][s, :n, :, 0, 0].sum(-1) >= 1).all()  # every move aims somewhere


def test_malformed_line_names_source_and_line():
    lines = list(RECS[0]["lines"])
    i = next(k for k, ln in enumerate(lines) if ln.startswith("|request|") and "teamPreview" not in ln)
    lines[i] = "|request|{not json"
    with pytest.raises(ReplayError, match=rf"game.log:{i + 1}:"):
        for _ in replay(lines, RECS[0]["username"], source="game.log"):
            pass


def test_threat_false_leaves_only_the_threat_block_zero():
    """make_decision(threat=False), for networks without model.threat: the same
    observation but for the threat block, which stays 0 (it is filled on some turns
    with threat=True)."""
    lo, hi, _ = LAYOUT["threat"]
    filled = 0
    for rec in RECS:
        for b, ctx in replay(rec["lines"], rec["username"]):
            full = make_decision(b, ctx).obs
            bare = make_decision(b, ctx, threat=False).obs
            assert not bare[lo:hi].any()
            assert np.array_equal(np.delete(full, np.s_[lo:hi]), np.delete(bare, np.s_[lo:hi]))
            filled += bool(full[lo:hi].any())
    assert filled > 10


@pytest.mark.parametrize("block", ["threat", "sheets"])
def test_a_neural_player_reads_a_block_only_with_a_network_that_reads_it(block):
    """``reads_threat`` / ``reads_sheets``: the threat block is encoded, and the foe's open
    sheet read, only for a network with ``model.threat`` / ``model.sheets``."""
    from league.model.net import ModelConfig, PolicyValueNet
    from league.sim.policy import NeuralPlayer, PolicyServer

    class Battle:
        battle_tag = "b1"

    def reads(on: bool) -> bool:
        pol = PolicyServer(PolicyValueNet(ModelConfig(**{block: on})), "main")
        return getattr(NeuralPlayer(policy=pol, start_listening=False), f"reads_{block}")(Battle())

    assert reads(True) is True
    assert reads(False) is False


def test_a_neural_player_encodes_no_observation_for_a_battle_it_plays_as_a_fixed_baseline():
    """A matchmade seat of ``maxdamage`` (no network) gets the request's mask but no
    observation, which nothing would read; a network's seat gets both."""
    from league.model.net import ModelConfig, PolicyValueNet
    from league.sim.policy import NeuralPlayer, PolicyServer, Seat

    player = NeuralPlayer(policy=PolicyServer(PolicyValueNet(ModelConfig()), "main"), start_listening=False)
    checked = 0
    for b, ctx in replay(RECS[0]["lines"], RECS[0]["username"]):
        want = make_decision(b, ctx)
        player.seats.pop(b.battle_tag, None)
        net_d = player._decision(b, ctx)  # the player's own network (default seat)
        # (a turn with one legal order is answered without an observation: answer_forced)
        assert (net_d.obs is not None or net_d.only >= 0) and np.array_equal(net_d.mask, want.mask)
        player.seats[b.battle_tag] = Seat("maxdamage", None, baseline="maxdamage")
        base_d = player._decision(b, ctx)
        assert base_d.obs is None and np.array_equal(base_d.mask, want.mask) and base_d.kind == want.kind
        checked += 1
    assert checked > 5
