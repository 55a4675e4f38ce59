"""The ``heuristic`` baseline: its joint scoring by hand tables, its choices on recorded
battles (legal, and where they differ from maxdamage's, for the reasons it has)."""

from __future__ import annotations

import numpy as np
import pytest

from league.battle.actions import SLOT_ACTIONS, move_action
from league.battle.context import make_decision
from league.battle.replay import replay
from league.players import heuristic as h
from league.players.maxdamage import maxdamage_turn
from tests.recorded import recordings

A = move_action(0, 3, False)  # move 0 at foe a
B = move_action(1, 4, False)  # move 1 at foe b


def _tables(rows):
    """Slot tables from {(slot, order): (score, foe, dmg, ko)}; other orders score -9."""
    score = np.full((2, SLOT_ACTIONS), -9.0)
    foe = np.full((2, SLOT_ACTIONS), -1)
    dmg = np.zeros((2, SLOT_ACTIONS))
    ko = np.zeros((2, SLOT_ACTIONS))
    for (s, o), (sc, f, d, k) in rows.items():
        score[s, o], foe[s, o], dmg[s, o], ko[s, o] = sc, f, d, k
    return score, foe, dmg, ko


def test_joint_scores_hand_table_focus_without_overkill():
    assert h.KO_BONUS == 0.5  # the table below is computed with it
    # foe a has 0.4 of its HP: either slot's move 0 knocks it out for sure (0.4 + 0.5);
    # move 1 at foe b (full HP) does 0.30 from slot 0, 0.35 from slot 1
    t = _tables(
        {
            (0, A): (0.9, 0, 0.4, 1.0),
            (0, B): (0.3, 1, 0.3, 0.0),
            (1, A): (0.9, 0, 0.4, 1.0),
            (1, B): (0.35, 1, 0.35, 0.0),
        }
    )
    total = h.joint_scores(*t, hp=(0.4, 1.0))
    # both at foe a: 1.8 less the second 0.4 (past its HP) and the second knock-out (0.5)
    assert total[A, A] == pytest.approx(0.9)
    assert total[A, B] == pytest.approx(1.25)  # slot 0 knocks foe a out, slot 1 hits foe b
    assert total[B, A] == pytest.approx(1.2)
    assert total[B, B] == pytest.approx(0.65)  # 0.65 < foe b's HP: nothing to take off
    assert np.unravel_index(np.argmax(total), total.shape) == (A, B)  # maxdamage's sum would double into foe a


def test_joint_scores_hand_table_a_knock_out_only_the_two_together_make():
    # foe a has 0.7: 0.4 + 0.4 from the two slots knock it out, neither alone does; no foe b
    t = _tables({(0, A): (0.4, 0, 0.4, 0.0), (1, A): (0.4, 0, 0.4, 0.0)})
    total = h.joint_scores(*t, hp=(0.7, None))
    assert total[A, A] == pytest.approx(0.8 - 0.1 + 0.5)  # 0.1 past its HP, one knock-out gained
    t = _tables({(0, A): (0.4, 0, 0.4, 0.0), (1, A): (0.2, 0, 0.2, 0.0)})
    assert h.joint_scores(*t, hp=(0.7, None))[A, A] == pytest.approx(0.6)  # 0.6 < 0.7: a plain sum


def test_heuristic_chooses_legal_orders_on_recorded_battles_and_not_maxdamage_s():
    """Every recorded turn: the choice is legal and the same when asked again; on some
    turns it is not maxdamage's (its rules change choices, not only scores)."""
    checked = differ = 0
    for rec in recordings():
        for battle, ctx in replay(rec["lines"], rec["username"]):
            d = make_decision(battle, ctx, encode=False)
            if d is None or d.kind != "turn" or d.view.kind != "move":
                continue
            j = h.heuristic_turn(battle, d)
            assert d.mask[j] and h.heuristic_turn(battle, d) == j
            checked += 1
            differ += j != maxdamage_turn(battle, d)
    assert checked > 20 and differ > 0


def test_preview_by_matchup_is_maxdamage_s_without_the_matchup_term(monkeypatch):
    """At every recorded team preview: with MATCHUP_WEIGHT 0 the heuristic brings what
    maxdamage brings; with it, a legal choice whose scores differ from offence + speed
    by the matchup alone (a Pokemon whose attacks hit the foe's six harder scores more)."""
    from league.players.maxdamage import maxdamage_preview

    seen = 0
    for rec in recordings():
        for battle, ctx in replay(rec["lines"], rec["username"]):
            d = make_decision(battle, ctx, encode=False)
            if d is None or d.kind != "preview":
                continue
            seen += 1
            with_matchup = h.heuristic_preview(battle, d)
            assert d.mask[with_matchup]
            scores = h.preview_scores(battle, d)
            monkeypatch.setattr(h, "MATCHUP_WEIGHT", 0.0)
            assert h.heuristic_preview(battle, d) == maxdamage_preview(battle, d)
            plain = h.preview_scores(battle, d)
            monkeypatch.setattr(h, "MATCHUP_WEIGHT", 0.5)
            assert any(abs(a - b) > 1e-9 for a, b in zip(scores, plain))
    assert seen >= 4


def test_log2_effectiveness_hand_table():
    assert [h._log2(e) for e in (0.0, 0.25, 0.5, 1.0, 2.0, 4.0)] == [-2.0, -2.0, -1.0, 0.0, 1.0, 2.0]
