"""Bradley-Terry Elo and the monotonic-improvement check on hand-computed tables."""

from __future__ import annotations

import math

import numpy as np
import pytest

from league.population.elo import bradley_terry_elo, monotonic_check


def test_two_players_elo_gap_is_400_log10_of_the_odds():
    wins = np.array([[0, 3], [1, 0]])
    games = np.array([[0, 4], [4, 0]])
    elo = bradley_terry_elo(wins, games, prior=0.0)
    assert elo[0] - elo[1] == pytest.approx(400 * math.log10(3), abs=1e-6)
    assert elo.sum() == pytest.approx(0.0, abs=1e-9)
    # one tie added per pair: odds (3.5 / 1.5)
    elo = bradley_terry_elo(wins, games, prior=1.0)
    assert elo[0] - elo[1] == pytest.approx(400 * math.log10(3.5 / 1.5), abs=1e-6)


def test_three_players_consistent_ratings_are_recovered():
    # strengths 4 : 2 : 1 and every pair played at exactly the expected rates
    s = np.array([4.0, 2.0, 1.0])
    games = np.full((3, 3), 600.0)
    np.fill_diagonal(games, 0)
    wins = games * s[:, None] / (s[:, None] + s[None, :])
    elo = bradley_terry_elo(wins, games, prior=0.0)
    assert elo[0] - elo[1] == pytest.approx(400 * math.log10(2), abs=1e-4)
    assert elo[1] - elo[2] == pytest.approx(400 * math.log10(2), abs=1e-4)


def test_a_winless_player_needs_the_prior():
    wins, games = np.array([[0, 2], [0, 0]]), np.array([[0, 2], [2, 0]])
    with pytest.raises(ValueError, match="prior"):
        bradley_terry_elo(wins, games, prior=0.0)
    assert np.all(np.isfinite(bradley_terry_elo(wins, games, prior=1.0)))


def test_monotonic_check():
    wr = {("c2", "c1"): 0.6, ("c3", "c1"): 0.7, ("c3", "c2"): 0.55}
    wr.update({(b, a): 1 - v for (a, b), v in list(wr.items())})
    r = monotonic_check(["c1", "c2", "c3"], wr)
    assert r["monotonic"] and r["each_beats_previous"] and r["later_wins_share"] == 1.0 and r["pairs"] == 3
    wr[("c3", "c1")], wr[("c1", "c3")] = 0.5, 0.5  # a tie is not a win
    r = monotonic_check(["c1", "c2", "c3"], wr)
    assert not r["monotonic"] and r["each_beats_previous"] and r["violations"] == [["c3", "c1", 0.5]]
    assert r["later_wins_share"] == pytest.approx(2 / 3)
