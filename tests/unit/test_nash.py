"""Nash mixture of the league's meta-game on hand-made payoff tables."""

from __future__ import annotations

import numpy as np
import pytest

from league.population.nash import NashError, antisymmetric, bootstrap_nash, nash_mixture, replicator

# win rate of row against column: rock, paper, scissors
RPS = np.array([[0.5, 0.0, 1.0], [1.0, 0.5, 0.0], [0.0, 1.0, 0.5]])


def test_rock_paper_scissors_is_uniform_with_zero_value():
    r = nash_mixture(RPS)
    assert r.weights == pytest.approx([1 / 3, 1 / 3, 1 / 3], abs=1e-9)
    assert r.value == pytest.approx(0.0, abs=1e-9)
    assert r.averages == pytest.approx([0, 0, 0], abs=1e-9) and r.support == [0, 1, 2]


def test_dominated_member_gets_zero_weight_and_a_negative_nash_average():
    w = np.full((4, 4), 0.5)
    w[:3, :3] = RPS
    w[3, :3] = [0.4, 0.3, 0.2]  # loses to each of them
    w[:3, 3] = 1 - w[3, :3]
    r = nash_mixture(w)
    assert r.weights[3] == pytest.approx(0.0, abs=1e-9)
    assert r.weights[:3] == pytest.approx([1 / 3] * 3, abs=1e-9)
    # its Nash average: (-0.1 - 0.2 - 0.3) / 3 against the uniform RPS mixture
    assert r.averages[3] == pytest.approx(-0.2, abs=1e-9) and 3 not in r.support


def test_a_member_beating_all_others_takes_all_the_weight():
    w = np.array([[0.5, 0.7, 0.6], [0.3, 0.5, 0.9], [0.4, 0.1, 0.5]])
    r = nash_mixture(w)
    assert r.weights == pytest.approx([1, 0, 0], abs=1e-9)
    assert r.averages == pytest.approx([0, -0.2, -0.1], abs=1e-9)


def test_asymmetric_mixed_equilibrium_by_hand():
    # A = [[0, a, -b], [-a, 0, c], [b, -c, 0]] has the Nash mixture (c, b, a) / (a + b + c)
    a_, b_, c_ = 0.1, 0.2, 0.3
    w = 0.5 + np.array([[0, a_, -b_], [-a_, 0, c_], [b_, -c_, 0]])
    r = nash_mixture(w)
    assert r.weights == pytest.approx(np.array([c_, b_, a_]) / (a_ + b_ + c_), abs=1e-7)


def test_antisymmetric_part_and_errors():
    assert antisymmetric(RPS) == pytest.approx(RPS - 0.5)
    with pytest.raises(NashError, match="NaN"):
        nash_mixture(np.array([[0.5, np.nan], [np.nan, 0.5]]))
    with pytest.raises(ValueError, match="square"):
        nash_mixture(np.zeros((2, 3)))


def test_bootstrap_intervals_narrow_with_games_and_cover_the_truth():
    w = 0.5 + np.array([[0, 0.1, -0.2], [-0.1, 0, 0.3], [0.2, -0.3, 0]])
    truth = np.array([0.3, 0.2, 0.1]) / 0.6
    lo_few, hi_few = bootstrap_nash(w, np.full((3, 3), 20), n_boot=100, seed=1)
    lo, hi = bootstrap_nash(w, np.full((3, 3), 2000), n_boot=100, seed=1)
    assert np.all(lo <= truth + 1e-9) and np.all(truth <= hi + 1e-9)
    assert np.all(hi - lo < hi_few - lo_few)


def test_bootstrap_keeps_an_unplayed_pairs_given_entry():
    """Members 0 and 1 played 500 games (0 wins 0.7); member 2 played no one, its pairs
    filled as a prediction would: 2 beats 0 at 0.8, loses to 1 at 0.4. The lopsided
    rock-paper-scissors A[0,1] = a, A[1,2] = c, A[2,0] = b has p ∝ (c, b, a) (the hand
    table in test_exploiters); a = 0.2 +- ~0.04 resampled, b = 0.3 and c = 0.1 kept, so
    member 1's weight 0.3 / (0.4 + a) stays within [0.45, 0.55]. Resampled as even, 2
    would tie both and 1 (beaten by 0) would take no weight."""
    w = np.array([[0.5, 0.7, 0.2], [0.3, 0.5, 0.6], [0.8, 0.4, 0.5]])
    g = np.array([[0, 500, 0], [500, 0, 0], [0, 0, 0]])
    assert nash_mixture(w).weights == pytest.approx([1 / 6, 1 / 2, 1 / 3], abs=1e-6)
    lo, hi = bootstrap_nash(w, g, n_boot=100, seed=0)
    assert 0.45 < lo[1] <= 0.5 <= hi[1] < 0.55
    assert lo[0] <= 1 / 6 <= hi[0] and lo[2] <= 1 / 3 <= hi[2]


def test_replicator_time_average_agrees_on_rps_and_drops_the_dominated():
    assert replicator(RPS) == pytest.approx([1 / 3] * 3, abs=0.02)
    w = np.full((4, 4), 0.5)
    w[:3, :3] = RPS
    w[3, :3] = [0.4, 0.3, 0.2]
    w[:3, 3] = 1 - w[3, :3]
    assert replicator(w)[3] < 0.02


def test_nash_report_tool_on_a_hand_made_league(tmp_path, capsys):
    import json

    from league.population.payoff import PayoffTable
    from league.population.registry import Registry
    from tools import nash_report

    reg = Registry()
    for mid in ("main", "past-1", "past-2", "weak"):
        reg.add("main" if mid == "main" else "past", id=mid)
    pay = PayoffTable()
    # main > past-1 > past-2 > main (a cycle, 3:1 each way), and everyone beats "weak" 4:0
    for a, b in (("main", "past-1"), ("past-1", "past-2"), ("past-2", "main")):
        for s in (1, 1, 1, 0):
            pay.update(a, b, s)
    for a in ("main", "past-1", "past-2"):
        for _ in range(4):
            pay.update(a, "weak", 1)
    (tmp_path / "league").mkdir()
    reg.save(tmp_path / "league" / "registry.json")
    pay.save(tmp_path / "league" / "payoff.json")
    out = nash_report.main([str(tmp_path), "--boot", "20"])
    assert json.loads(capsys.readouterr().out.strip().splitlines()[-1]) == out
    assert out["members"] == 4 and sorted(out["support"]) == ["main", "past-1", "past-2"]
    assert "Optimal" in out["solver_status"]
    text = (tmp_path / "reports" / "nash.md").read_text()
    assert "| weak | past | 0.000 |" in text and "| main | main | 0.333 |" in text
    for name in ("payoff", "nash_weights", "nash_averages", "ratings"):
        assert (tmp_path / "reports" / f"{name}.png").stat().st_size > 1000
    assert list((tmp_path / "tb").glob("events.out.tfevents.*"))  # the images went to TensorBoard too


def test_nash_report_without_a_league_names_the_missing_file(tmp_path, capsys):
    from tools import nash_report

    with pytest.raises(SystemExit) as e:
        nash_report.main([str(tmp_path)])
    assert e.value.code == 2 and "registry.json not found" in capsys.readouterr().err


def _league_dir(tmp_path, ids, games):
    from league.population.payoff import PayoffTable, Ratings
    from league.population.registry import Registry

    reg, pay, ratings = Registry(), PayoffTable(), Ratings()
    for mid in ids:
        reg.add("main" if mid == "main" else "past", id=mid)
    for a, b, s, n in games:
        for _ in range(n):
            pay.update(a, b, s)
            if a in reg.members and b in reg.members:
                ratings.update(reg.get(a), reg.get(b), s)
    (tmp_path / "league").mkdir()
    reg.save(tmp_path / "league" / "registry.json")
    pay.save(tmp_path / "league" / "payoff.json")


def test_nash_report_predicts_unplayed_pairs_from_the_ratings(tmp_path, capsys):
    """A sparse league: "strong" beat the main agent 10 of 10, the main agent beat "weak"
    10 of 10, "lone" beat "weak" in the only 3 games it played. Read as even, lone and
    strong are both unbeaten and any mix of them is a Nash mixture; predicted from the
    ratings strong beats lone, and the support is strong alone."""
    from tools import nash_report

    _league_dir(
        tmp_path,
        ["main", "strong", "weak", "lone"],
        [("strong", "main", 1.0, 10), ("main", "weak", 1.0, 10), ("lone", "weak", 1.0, 3)],
    )
    out = nash_report.main([str(tmp_path), "--boot", "20"])
    capsys.readouterr()
    assert out["support"] == ["strong"] and out["pairs_played"] == 3
    assert "an unplayed pair reads as the members' ratings predict" in (tmp_path / "reports" / "nash.md").read_text()


def test_nash_report_names_a_payoff_from_another_run(tmp_path, capsys):
    from tools import nash_report

    _league_dir(tmp_path, ["main", "past-1"], [("main", "past-1", 1.0, 2), ("main", "ghost", 0.0, 2)])
    with pytest.raises(SystemExit) as e:
        nash_report.main([str(tmp_path)])
    err = capsys.readouterr().err
    assert e.value.code == 2 and "ghost" in err and "different runs" in err
