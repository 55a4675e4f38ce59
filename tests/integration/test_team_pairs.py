"""Team pairs (league.sampler.team_pfsp) on the real stream backend: in every battle the
agent plays the pair's own team and its opponent the pair's foe team, on each worker, and
each finished battle teaches its pair."""

from __future__ import annotations

import asyncio

import pytest
from poke_env.data.normalize import to_id_str
from poke_env.teambuilder import Teambuilder

from league.model.net import ModelConfig, PolicyValueNet
from league.population.sampling import OpponentSampler, SamplerConfig, TeamPairs
from league.showdown import StreamFleet
from league.sim.matchmaker import Matchmaker
from league.sim.policy import MatchmadePlayer, PolicyServer, pair_key
from league.sim.simulator import SimConfig, Simulator

pytestmark = pytest.mark.integration


def _species(packed: str) -> frozenset[str]:
    return frozenset(to_id_str(m.species or m.nickname) for m in Teambuilder.parse_packed_team(packed))


def test_each_battle_plays_its_drawn_pair(install, packed_teams, tmp_path, monkeypatch):
    teams = packed_teams[:4]
    assert len({_species(t) for t in teams}) == 4  # the teams tell apart by their species
    seen: list[tuple[tuple[int, int], frozenset[str], frozenset[str]]] = []
    end = MatchmadePlayer.on_battle_end

    def record(self, battle):  # the opponent's side: its own team, and the agent's at preview
        seat = self.seats.get(battle.battle_tag)
        own = frozenset(to_id_str(m.species) for m in battle.team.values())
        agent = frozenset(to_id_str(m.species) for m in battle.teampreview_opponent_team)
        seen.append((seat.pair, own, agent))
        end(self, battle)

    monkeypatch.setattr(MatchmadePlayer, "on_battle_end", record)
    policy = PolicyServer(PolicyValueNet(ModelConfig(mon_dim=16, torso_dim=32, core_dim=32)), "main", seed=1)
    pairs = TeamPairs(len(teams), "squared", uniform=0.25, prior_games=2.0, seed=3)
    mm = Matchmaker(policy, teams, OpponentSampler(SamplerConfig(strategy="pfsp"), seed=1), seed=2, pairs=pairs)
    mm.update(
        {
            "members": {"maxdamage": {"role": "maxdamage", "checkpoint": None, "team": None}},
            "pools": {"fixed": ["maxdamage"]},
            "win_rates": {},
        }
    )
    want = 8
    trajectories = []

    async def main():
        stop = asyncio.Event()
        with StreamFleet(2, tmp_path, install=install) as fleet:
            sim = Simulator(
                SimConfig(servers=2, concurrency=2, eval_concurrency=0),
                fleet,
                policy,
                teams,
                lambda t: trajectories.append(t) or True,
                seed=5,
                matchmaker=mm,
            )

            async def until_done():
                t0 = asyncio.get_running_loop().time()
                while len(seen) < want:
                    assert asyncio.get_running_loop().time() - t0 < 180, f"{len(seen)} of {want} battles finished"
                    await asyncio.sleep(0.2)
                stop.set()

            await asyncio.gather(sim.run(stop), until_done())

    asyncio.run(main())
    assert len(seen) >= want
    for pair, own, agent in seen:
        assert pair is not None
        assert own == _species(teams[pair[1]]) and agent == _species(teams[pair[0]]), pair
    assert pairs.games.sum() == len(seen)  # every finished battle taught its pair
    # the agent's trajectories carry their pair's key (learner.rnad.ppo_advantage=group):
    # its own team's and the foe team's species, as drawn
    keys = {pair_key(_species(teams[a]), _species(teams[b])) for (a, b), _, _ in seen}
    assert trajectories and all(t.agent == "main" for t in trajectories)
    assert {t.group for t in trajectories} <= keys, "a trajectory keyed by another pair than the one it played"
