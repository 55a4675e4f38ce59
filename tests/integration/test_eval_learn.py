"""The simulator on a real server: evaluation games become learning data when asked."""

from __future__ import annotations

import asyncio
from collections import Counter

import pytest

from league.model.net import ModelConfig, PolicyValueNet
from league.sim.policy import PolicyServer
from league.sim.simulator import SimConfig, Simulator

pytestmark = pytest.mark.integration


def _play(fleet, teams, eval_learn: bool, want: int = 6, timeout_s: float = 120.0):
    """Self-play and evaluation at once until ``want`` evaluation games have ended;
    returns the trajectories the sink got and the simulator's stats."""
    got = []
    cfg = SimConfig(servers=1, concurrency=1, eval_concurrency=1, eval_learn=eval_learn)
    policy = PolicyServer(PolicyValueNet(ModelConfig(mon_dim=16, torso_dim=32, core_dim=32)), "main", seed=1)

    async def main():
        stop = asyncio.Event()
        sim = Simulator(cfg, fleet, policy, teams, lambda t: got.append(t) or True, seed=5)

        def both_seats() -> bool:  # a self-play battle whose two trajectories both arrived
            return 2 in Counter(t.battle for t in got if t.opponent == "self").values()

        async def until_done():
            # by events, not by luck: the evaluation games and one whole self-play battle
            t0 = asyncio.get_running_loop().time()
            while sum(sim.stats.eval_games.values()) < want or not both_seats():
                assert asyncio.get_running_loop().time() - t0 < timeout_s, (
                    "evaluation games or a self-play battle did not finish"
                )
                await asyncio.sleep(0.2)
            stop.set()

        await asyncio.gather(sim.run(stop), until_done())
        return sim

    sim = asyncio.run(main())
    return got, sim


def test_evaluation_games_are_learning_data_only_when_asked(fleet, packed_teams):
    got, sim = _play(fleet, packed_teams, eval_learn=True)
    evals = [t for t in got if t.opponent in ("random", "maxdamage")]
    ended = sum(sim.stats.eval_games.values())
    # each finished evaluation game hands over the main policy's trajectory (before it is
    # counted), unless it was too long to keep
    assert len(evals) <= ended <= len(evals) + sim.stats.dropped_long and ended >= 6
    assert {t.opponent for t in evals} == {o for o, n in sim.stats.eval_games.items() if n}
    for t in evals:
        assert t.agent == "main" and t.is_preview[0] and not any(t.is_preview[1:])
        assert t.reward in (1.0, -1.0, 0.0) and len(t.actions) == len(t.logp) == len(t.obs) > 1
    assert set(sim.stats.eval) <= {"random", "maxdamage"}  # win rates still logged apart
    # self-play: both seats of a finished battle carry one battle key (rnad.opponent_kl
    # pairs them); step keys start at team preview (0) and grow
    selfs = Counter(t.battle for t in got if t.opponent == "self")
    assert 0 not in selfs and set(selfs.values()) <= {1, 2} and 2 in selfs.values()
    assert all(t.battle not in selfs for t in evals)  # a baseline opponent is no partner
    for t in got:
        assert len(t.order) == len(t.actions) and t.order[0] == 0
        assert all(b > a for a, b in zip(t.order, t.order[1:]))
        assert all(o // 8 >= 1 for o in t.order[1:])  # turns after preview
    snap = sim.snapshot()  # the main agent's battles leave the evaluation games out
    assert snap["eval_battles"] == ended
    assert 2 * snap["main_battles"] <= len(got) - len(evals) + sim.stats.dropped_long
    got_off, sim_off = _play(fleet, packed_teams, eval_learn=False)
    assert sum(sim_off.stats.eval_games.values()) >= 6 and {t.opponent for t in got_off} <= {"self"}
