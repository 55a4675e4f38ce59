"""League maths: PFSP and pool distributions (hand tables + seeded statistics),
snapshot/admission/reset rules (every branch), registry and payoff persistence."""

from __future__ import annotations

import json
import random
from collections import Counter

import numpy as np
import pytest

from league.population.payoff import PayoffTable, Ratings
from league.population.registry import Registry, RegistryError
from league.population.rules import (
    AdmissionConfig,
    FreezeConfig,
    SnapshotConfig,
    admit_exploiter,
    should_freeze_league_exploiter,
    should_reset_league_exploiter,
    should_snapshot,
)
from league.population.sampling import (
    OpponentSampler,
    SamplerConfig,
    TeamPairs,
    curriculum_weights,
    pfsp_weights,
    recent_historical_probs,
    team_pair_probs,
)


def test_pfsp_weightings_hand_table():
    wr = [0.2, 0.5, 0.9]
    np.testing.assert_allclose(pfsp_weights(wr, "squared"), np.array([0.64, 0.25, 0.01]) / 0.9)
    np.testing.assert_allclose(pfsp_weights(wr, "variance"), [0.32, 0.5, 0.18])
    np.testing.assert_allclose(pfsp_weights(wr, "linear_capped"), np.array([0.5, 0.5, 0.1]) / 1.1)
    np.testing.assert_allclose(pfsp_weights([1.0, 1.0], "squared"), [0.5, 0.5])  # beats all: uniform
    with pytest.raises(ValueError):
        pfsp_weights(wr, "cubic")


def test_recent_historical_hand_table():
    p = recent_historical_probs(10, 3, recent_share=0.7, exploration=0.15)
    np.testing.assert_allclose(p[-3:], 0.015 + 0.85 * 0.7 / 3)
    np.testing.assert_allclose(p[:7], 0.015 + 0.85 * 0.3 / 7)
    assert p.sum() == pytest.approx(1.0)
    np.testing.assert_allclose(recent_historical_probs(2, 5, 0.7, 0.0), [0.5, 0.5])  # no old ones


def test_curriculum_weights_hand_table():
    w = curriculum_weights(
        {"self": 0.5, "past": 0.8, "exploiters": 0.3, "fixed": 0.95},
        {"self": 0.5, "past": 0.25, "exploiters": 0.15, "fixed": 0.1},
        floor=0.1,
    )
    expected = np.array([0.3, 0.075, 0.12, 0.015]) / 0.51
    np.testing.assert_allclose([w["self"], w["past"], w["exploiters"], w["fixed"]], expected)


def test_team_pair_probs_hand_table():
    # two teams; pair (0, 0) won 1 of 2, (1, 1) lost 2 of 2, the others never played:
    # mean 1/4; shrunk rates with 2 prior battles (1 + 0.5)/4, 0.5/2, 0.5/2, 0.5/4
    wins, games = np.array([[1.0, 0.0], [0.0, 0.0]]), np.array([[2.0, 0.0], [0.0, 2.0]])
    p = team_pair_probs(wins, games, "squared", uniform=0.2, prior_games=2.0)
    focus = np.array([0.625**2, 0.75**2, 0.75**2, 0.875**2]) / 2.28125  # (1 - rate)^2, normalised
    np.testing.assert_allclose(p, 0.8 * focus + 0.05)
    assert p.sum() == pytest.approx(1.0) and p.argmax() == 3  # the pair lost most: drawn most
    # nothing played yet: every pair alike
    np.testing.assert_allclose(team_pair_probs(np.zeros((3, 3)), np.zeros((3, 3)), "squared", 0.25, 2.0), 1 / 9)
    # all uniform: the rates do not matter
    np.testing.assert_allclose(team_pair_probs(wins, games, "squared", 1.0, 2.0), 0.25)


def test_team_pairs_window_weighs_older_results_less():
    tp = TeamPairs(2, "squared", uniform=0.0, prior_games=0.0, window=2.0)  # each later battle halves a result
    tp.report(0, 0, 1.0)
    tp.report(0, 1, 0.0)
    tp.report(0, 1, 1.0)
    np.testing.assert_allclose(tp.wins, [[0.25, 1.0], [0.0, 0.0]])
    np.testing.assert_allclose(tp.games, [[0.25, 1.5], [0.0, 0.0]])
    # no window: every battle counts alike
    flat = TeamPairs(2, "squared", uniform=0.0, prior_games=0.0)
    for own, foe, score in ((0, 0, 1.0), (0, 1, 0.0), (0, 1, 1.0)):
        flat.report(own, foe, score)
    np.testing.assert_allclose(flat.games, [[1.0, 2.0], [0.0, 0.0]])


def test_team_pairs_draw_by_their_probabilities_and_learn_from_reports():
    tp = TeamPairs(3, "squared", uniform=0.1, prior_games=2.0, seed=4)
    assert tp.stats() == {"effective_share": pytest.approx(1.0), "played_share": 0.0}
    for _ in range(30):  # the agent wins every pair with own team 0 and loses every other
        for own in range(3):
            for foe in range(3):
                tp.report(own, foe, 1.0 if own == 0 else 0.0)
    probs = tp.probs()
    draws = Counter(tp.draw() for _ in range(20000))
    for (own, foe), n in draws.items():
        assert n / 20000 == pytest.approx(probs[own, foe], abs=0.015)
    assert sum(n for (own, _), n in draws.items() if own == 0) / 20000 < 0.06  # won pairs: ~the uniform share
    stats = tp.stats()
    # by hand: mean 1/3, rates (30 + 2/3)/32 and (2/3)/32, so p = 0.011383 (won) and 0.160976
    # (lost): 1 / (3 p_won^2 + 6 p_lost^2) = 6.416 effective pairs of 9
    assert stats["played_share"] == 1.0 and stats["effective_share"] == pytest.approx(6.416 / 9, abs=1e-3)
    a, b = TeamPairs(3, "squared", 0.1, 2.0, seed=5), TeamPairs(3, "squared", 0.1, 2.0, seed=5)
    draws_a = [a.draw() for _ in range(50)]
    assert draws_a == [b.draw() for _ in range(50)] and len(set(draws_a)) > 3  # seeded


def _freq(sampler, n, **kw):
    c = Counter(sampler.sample(**kw) for _ in range(n))
    return {k: v / n for k, v in c.items()}


WR = {"past-1": 0.9, "past-2": 0.6, "past-3": 0.3, "exp-1": 0.2, "random": 0.99}


def _wr(a, b):
    return WR.get(b, 0.5)


POOLS = {"past": ["past-1", "past-2", "past-3"], "exploiters": ["exp-1"], "fixed": ["random"]}


def test_pfsp_sampler_matches_distribution():
    s = OpponentSampler(SamplerConfig(strategy="pfsp", pfsp_weighting="squared"), seed=1)
    f = _freq(s, 20000, main="main", pools=POOLS, win_rate=_wr)
    cands = ["past-1", "past-2", "past-3", "exp-1", "random"]
    expect = pfsp_weights([WR[c] for c in cands], "squared")
    for c, e in zip(cands, expect):
        assert f.get(c, 0.0) == pytest.approx(e, abs=0.015)


def test_recent_historical_sampler_matches_distribution():
    past = [f"past-{i}" for i in range(8)]
    s = OpponentSampler(
        SamplerConfig(strategy="recent_historical", k_recent=2, recent_share=0.7, exploration=0.2), seed=2
    )
    f = _freq(s, 20000, main="main", pools={"past": past}, win_rate=_wr)
    for c, e in zip(past, recent_historical_probs(8, 2, 0.7, 0.2)):
        assert f.get(c, 0.0) == pytest.approx(e, abs=0.015)


def test_curriculum_sampler_category_shares_and_self_play_fallbacks():
    cfg = SamplerConfig(strategy="curriculum")
    s = OpponentSampler(cfg, seed=3)
    f = _freq(s, 20000, main="main", pools=POOLS, win_rate=_wr)
    w = s.last_weights
    assert f["main"] == pytest.approx(w["self"], abs=0.015)
    assert sum(f.get(p, 0) for p in POOLS["past"]) == pytest.approx(w["past"], abs=0.015)
    assert f["exp-1"] == pytest.approx(w["exploiters"], abs=0.015)
    assert f["random"] == pytest.approx(w["fixed"], abs=0.01)
    # hardest category (exploiters, wr .2) is boosted above its base share
    assert w["exploiters"] > cfg.base["exploiters"]
    assert OpponentSampler(SamplerConfig(strategy="pfsp"), 0).sample("main", {}, _wr) == "main"
    assert OpponentSampler(SamplerConfig(strategy="self_play"), 0).sample("main", POOLS, _wr) == "main"


def test_seeded_sampler_is_reproducible():
    s1, s2 = OpponentSampler(SamplerConfig(), seed=7), OpponentSampler(SamplerConfig(), seed=7)
    draws = [s1.sample("main", POOLS, _wr) for _ in range(50)]
    assert draws == [s2.sample("main", POOLS, _wr) for _ in range(50)]
    assert len(set(draws)) > 2


def test_snapshot_rule_every_branch():
    cfg = SnapshotConfig(every_updates=500, beat_threshold=0.7, min_games=50, min_updates_between=100)
    assert should_snapshot(0, None, 0.5, 0, cfg)[0]  # first
    assert should_snapshot(1500, 1000, 0.5, 0, cfg)[0]  # every K
    assert not should_snapshot(1499, 1000, 0.5, 400, cfg)[0]
    assert should_snapshot(1100, 1000, 0.75, 60, cfg)[0]  # early: beats the last one
    assert not should_snapshot(1100, 1000, 0.75, 49, cfg)[0]  # too few games
    assert not should_snapshot(1099, 1000, 0.95, 500, cfg)[0]  # too soon
    assert not should_snapshot(1200, 1000, 0.69, 500, cfg)[0]  # not beating it enough


def test_admission_rule_every_branch():
    cfg = AdmissionConfig(threshold=0.6)
    assert admit_exploiter(60, 100, cfg)[0]  # at the threshold
    assert admit_exploiter(61, 100, cfg)[0]
    ok, why = admit_exploiter(59, 100, cfg)
    assert not ok and "0.59" in why
    assert not admit_exploiter(0, 0, cfg)[0]


def test_league_exploiter_reset_probability():
    rng = random.Random(0)
    n = sum(should_reset_league_exploiter(0.25, rng) for _ in range(20000))
    assert n / 20000 == pytest.approx(0.25, abs=0.015)
    assert not any(should_reset_league_exploiter(0.0, rng) for _ in range(100))
    assert all(should_reset_league_exploiter(1.0, rng) for _ in range(100))


def test_league_exploiter_freeze_rule_every_branch():
    cfg = FreezeConfig(min_updates=100, max_updates=400, beat_threshold=0.7, min_games=10)
    wr, g = {"past-1": 0.9, "past-2": 0.8}, {"past-1": 20, "past-2": 10}
    ok, why = should_freeze_league_exploiter(400, {"past-1": 0.1}, {"past-1": 50}, cfg)
    assert ok and "400 updates" in why  # the time limit freezes regardless of win rates
    assert should_freeze_league_exploiter(99, wr, g, cfg) == (False, "not yet")  # too early even if it wins
    ok, why = should_freeze_league_exploiter(150, {}, {}, cfg)
    assert not ok and "no frozen members" in why
    ok, why = should_freeze_league_exploiter(150, wr, {"past-1": 20, "past-2": 9}, cfg)
    assert not ok and "fewer than 10 games" in why
    ok, why = should_freeze_league_exploiter(150, wr, g, cfg)
    assert ok and "worst past-2 0.80" in why
    ok, why = should_freeze_league_exploiter(150, {**wr, "past-2": 0.7}, g, cfg)  # must be above, not at
    assert not ok and "past-2" in why


def test_registry_round_trip_and_atomic_save(tmp_path, monkeypatch):
    reg = Registry()
    main = reg.add("main", checkpoint="c/main.pt")
    reg.add("main_exploiter", victim=main.id, team="packed", team_name="t1", status="training")
    reg.add("random")
    path = tmp_path / "registry.json"
    reg.save(path)
    back = Registry.load(path)
    assert back.to_json() == reg.to_json()
    assert back.count_by_role() == {"main": 1, "main_exploiter": 1, "random": 1}
    # a crash in the middle of a write leaves the previous registry readable
    reg.add("past")

    def boom(obj, f, **kw):
        f.write('{"version": 1, "count')
        raise KeyboardInterrupt

    monkeypatch.setattr(json, "dump", boom)
    with pytest.raises(KeyboardInterrupt):
        reg.save(path)
    monkeypatch.undo()
    assert Registry.load(path).to_json() == back.to_json()
    assert [p.name for p in tmp_path.iterdir()] == ["registry.json"]
    path.write_text("{broken")
    with pytest.raises(RegistryError, match="cannot be read"):
        Registry.load(path)
    with pytest.raises(RegistryError, match="unknown role"):
        reg.add("wizard")


def test_payoff_table_decay_and_unknown_pairs(tmp_path):
    t = PayoffTable(decay=0.5)
    assert t.win_rate("a", "b") == 0.5
    t.update("a", "b", 1.0)  # wins 1, games 1
    t.update("a", "b", 0.0)  # wins 0.5, games 1.5
    assert t.win_rate("a", "b") == pytest.approx(1 / 3)
    assert t.win_rate("b", "a") == pytest.approx(2 / 3)
    w, g = t.matrix(["a", "b", "c"])
    assert w[0, 2] == 0.5 and g[0, 1] == 2 and g[1, 0] == 2
    t.save(tmp_path / "payoff.json")
    assert PayoffTable.load(tmp_path / "payoff.json").win_rate("a", "b") == pytest.approx(1 / 3)


def test_ratings_move_the_right_way():
    reg = Registry()
    a, b = reg.add("main"), reg.add("random")
    r = Ratings()
    r.update(a, b, 1.0)
    assert a.mu > 25 > b.mu and a.games == b.games == 1
    mu_a = a.mu
    r.update(a, b, 0.0)
    assert a.mu < mu_a


def test_stable_seed_is_the_same_in_every_process():
    import subprocess
    import sys

    from league.seeding import stable_seed

    code = "from league.seeding import stable_seed; print(stable_seed(0, 'main_exploiter_3'), hash('x'))"
    outs = [
        subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
        for _ in range(2)
    ]
    assert outs[0][0] == outs[1][0] == str(stable_seed(0, "main_exploiter_3"))
    assert (
        0 <= stable_seed("a") < 2**31
        and stable_seed("a") != stable_seed("b")
        and stable_seed(1, "a") != stable_seed(2, "a")
    )
