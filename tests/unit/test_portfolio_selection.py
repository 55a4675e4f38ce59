"""Reference portfolio and population selection on hand-made tables."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from league.population.nash import NashError
from league.population.portfolio import choose_portfolio, closest_reference, nash_portfolio
from league.population.selection import mutate, plan_selection


def test_closest_reference_is_the_min_kl():
    assert closest_reference([0.3, 0.05, 0.2]) == 1
    assert closest_reference([0.1]) == 0
    with pytest.raises(ValueError):
        closest_reference([])
    with pytest.raises(ValueError, match="not finite"):
        closest_reference([0.1, float("nan")])


def test_portfolio_strategies():
    ids = ["p1", "p2", "p3", "p4"]
    created = {"p1": 100, "p2": 200, "p3": 300, "p4": 400}
    rating = {"p1": 30.0, "p2": 20.0, "p3": 25.0, "p4": 10.0}
    nash = {"p1": 0.0, "p2": 0.6, "p3": 0.4, "p4": 0.0}
    assert choose_portfolio(ids, 2, "recent", created=created) == ["p4", "p3"]
    assert choose_portfolio(ids, 2, "best", rating=rating) == ["p1", "p3"]
    # nash: the support only (p1 and p4 hold no weight: they would add nothing to the mixture)
    assert choose_portfolio(ids, 3, "nash", nash=nash, rating=rating) == ["p2", "p3"]
    # p1, p2 play alike; p3 differs from both; p4 is p3's twin (rows may cover any opponents)
    w = np.array([[0.5, 0.5, 0.9, 0.9], [0.5, 0.5, 0.9, 0.9], [0.1, 0.1, 0.5, 0.5], [0.1, 0.1, 0.5, 0.5]])
    # start from the best rated (p1); the farthest from it is p3 or p4 (equal: the first)
    assert choose_portfolio(ids, 2, "diverse", rating=rating, win_rates=w) == ["p1", "p3"]
    assert choose_portfolio(ids, 10, "best", rating=rating) == ["p1", "p3", "p2", "p4"]
    assert choose_portfolio([], 3, "best") == []
    with pytest.raises(ValueError, match="unknown portfolio strategy"):
        choose_portfolio(ids, 2, "newest")


@pytest.mark.parametrize(
    "size, expected",
    [
        # Nash mixture over the league (main and a baseline included): main .3, random .1,
        # p1 .3, p2 .2, p3 .1, p4 0. Only the frozen candidates p1..p4 can be references;
        # the chosen ones' weights are renormalised to sum 1.
        (1, [("p1", 1.0)]),
        (2, [("p1", 0.3 / 0.5), ("p2", 0.2 / 0.5)]),  # 0.6, 0.4
        (3, [("p1", 0.5), ("p2", 1 / 3), ("p3", 1 / 6)]),  # / 0.6
        (5, [("p1", 0.5), ("p2", 1 / 3), ("p3", 1 / 6)]),  # p4 is outside the support
    ],
)
def test_nash_portfolio_weights_hand_table(size, expected):
    nash = {"main": 0.3, "random": 0.1, "p1": 0.3, "p2": 0.2, "p3": 0.1, "p4": 0.0}
    got = nash_portfolio(["p4", "p3", "p2", "p1"], size, nash)
    assert [m for m, _ in got] == [m for m, _ in expected]
    assert [w for _, w in got] == pytest.approx([w for _, w in expected], abs=1e-12)


def test_nash_portfolio_ties_by_rating_and_refuses_an_empty_support():
    nash = {"a": 0.25, "b": 0.25, "c": 0.5}
    assert nash_portfolio(["a", "b", "c"], 2, nash, rating={"a": 1.0, "b": 2.0}) == [("c", 2 / 3), ("b", 1 / 3)]
    assert nash_portfolio(["a", "b", "c"], 2, nash, rating={"a": 3.0, "b": 2.0}) == [("c", 2 / 3), ("a", 1 / 3)]
    # all the weight on the main agent: no reference to weight, and no uniform fallback
    with pytest.raises(NashError, match="Nash support"):
        nash_portfolio(["a", "b"], 3, {"main": 1.0, "a": 1e-9})


def test_selection_keeps_the_cap_and_never_touches_main_or_baselines():
    roles = {"main": "main", "random": "random", "p1": "past", "p2": "past", "p3": "past", "e1": "main_exploiter"}
    scores = {"main": -5.0, "random": -9.0, "p1": 0.1, "p2": 0.5, "p3": 0.0, "e1": 0.3}
    drop, clone = plan_selection(scores, roles, cap=3, clones=1)
    # 4 eligible + 1 clone -> cap 3: drop the 2 weakest (p3, p1), clone the strongest (p2)
    assert drop == ["p3", "p1"] and clone == ["p2"]
    assert "main" not in drop + clone and "random" not in drop + clone
    assert plan_selection(scores, roles, cap=10, clones=0) == ([], [])
    assert plan_selection(scores, roles, cap=5, clones=1) == ([], ["p2"])
    drop, clone = plan_selection(scores, roles, cap=1, clones=3)  # no room for a clone beside its parent
    assert clone == [] and drop == ["p3", "p1", "e1"]


def test_mutation_noise_scales_with_each_tensor_and_leaves_others():
    g = torch.Generator().manual_seed(0)
    state = {"w": torch.linspace(-1, 1, 10000), "steps": torch.tensor(3), "b": torch.zeros(5)}
    m = mutate(state, 0.1, g)
    delta = m["w"] - state["w"]
    assert float(delta.std()) == pytest.approx(0.1 * float(state["w"].std()), rel=0.05)
    assert torch.equal(m["steps"], state["steps"]) and torch.equal(m["b"], state["b"])  # std 0: no noise
    assert torch.equal(mutate(state, 0.0, g)["w"], state["w"])
