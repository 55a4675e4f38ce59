"""Bradley-Terry Elo and the monotonic-improvement check on hand-computed tables."""

from __future__ import annotations

import math

import numpy as np
import pytest

from league.population.elo import bradley_terry_elo, elo_of, monotonic_check, rank_correlation, sequential_pairs


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


def test_monotonic_check_leaves_out_pairs_that_did_not_play():
    # a sequential tournament: neighbours only; c3 never met c1
    wr = {("c2", "c1"): 0.75, ("c3", "c2"): 0.4}
    r = monotonic_check(["c1", "c2", "c3"], wr)
    assert r["pairs"] == 2 and r["consecutive_pairs"] == 2 and r["later_wins_share"] == 0.5
    assert not r["each_beats_previous"] and r["violations"] == [["c3", "c2", 0.4]]
    r = monotonic_check(["c1", "c2", "c3"], {})
    assert r["pairs"] == 0 and r["monotonic"] and r["later_wins_share"] == 1.0


def test_sequential_pairs_table():
    assert sequential_pairs(["s1", "s2", "s3"], ["random"], 1) == [
        ("s1", "random"),
        ("s2", "s1"),
        ("s2", "random"),
        ("s3", "s2"),
        ("s3", "random"),
    ]
    assert sequential_pairs(["s1", "s2", "s3"], [], 2) == [("s2", "s1"), ("s3", "s2"), ("s3", "s1")]
    assert sequential_pairs(["s1", "s2"], ["random", "maxdamage"], 0) == [
        ("s1", "random"),
        ("s1", "maxdamage"),
        ("s2", "random"),
        ("s2", "maxdamage"),
    ]


def test_elo_of_a_subset_anchored_at_a_baseline():
    # a beat random 3 of 4; b has no game among these players; x is outside the set
    wins = {("a", "random"): 3.0, ("random", "a"): 1.0, ("b", "x"): 5.0, ("x", "b"): 0.0}
    games = {("a", "random"): 4.0, ("random", "a"): 4.0, ("b", "x"): 5.0, ("x", "b"): 5.0}
    elo = elo_of(["a", "b", "random"], wins, games, anchor="random")
    assert set(elo) == {"a", "random"} and elo["random"] == 0.0
    assert elo["a"] == pytest.approx(400 * math.log10(3.5 / 1.5), abs=1e-6)  # one tie added
    mean0 = elo_of(["a", "random"], wins, games, anchor="maxdamage")  # anchor not rated: mean 0
    assert mean0["a"] == pytest.approx(-mean0["random"]) and elo_of(["a"], wins, games) == {}


def test_rank_correlation_table():
    assert rank_correlation([1, 2, 3], [10, 20, 30]) == pytest.approx(1.0)
    assert rank_correlation([1, 2, 3], [30, 20, 10]) == pytest.approx(-1.0)
    assert rank_correlation([1, 2, 3], [10, 30, 20]) == pytest.approx(0.5)  # 1 - 6*2/(3*8)
    assert rank_correlation([1, 2, 3, 4], [5, 5, 6, 7]) == pytest.approx(math.sqrt(0.9))  # a tie: average ranks
    assert rank_correlation([1], [3]) is None and rank_correlation([1, 2], [4, 4]) is None
