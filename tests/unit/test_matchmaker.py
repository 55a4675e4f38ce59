"""The main agent's matchmaker with team pairs (league.sampler.team_pfsp): both sides'
teams of a battle come from one drawn pair, and only battles against other members teach
the pairs."""

from __future__ import annotations

from league.model.net import ModelConfig, PolicyValueNet
from league.population.sampling import OpponentSampler, SamplerConfig, TeamPairs
from league.sim.matchmaker import Matchmaker
from league.sim.policy import PolicyServer

TEAMS = ["A|x", "B|x", "C|x"]


def _matchmaker(strategy: str, members: dict, pools: dict, pairs: TeamPairs | None) -> Matchmaker:
    main = PolicyServer(PolicyValueNet(ModelConfig(mon_dim=16, torso_dim=32, core_dim=32)), "main")
    mm = Matchmaker(main, TEAMS, OpponentSampler(SamplerConfig(strategy=strategy), seed=1), seed=2, pairs=pairs)
    mm.update({"members": members, "pools": pools, "win_rates": {}})
    return mm


MAXDAMAGE = {"maxdamage": {"role": "maxdamage", "checkpoint": None, "team": None}}


def test_both_teams_of_a_battle_come_from_one_pair_and_its_result_teaches_that_pair():
    pairs = TeamPairs(3, "squared", uniform=0.0, prior_games=2.0, seed=3)
    mm = _matchmaker("pfsp", MAXDAMAGE, {"fixed": ["maxdamage"]}, pairs)
    for _ in range(40):
        own = mm.own_team()
        seat, foe = mm.draw()
        assert seat.member == "maxdamage" and seat.pair is not None
        assert (TEAMS[seat.pair[0]], TEAMS[seat.pair[1]]) == (own, foe)
        mm.report(seat.member, 0.0 if seat.pair == (2, 1) else 1.0, seat.pair)  # the agent loses only (C, B)
    assert pairs.games.sum() == 40 and pairs.wins.sum() == 40 - pairs.games[2, 1]
    p = pairs.probs()
    assert p[2, 1] == p.max() and p[2, 1] > 0.5  # uniform 0: most draws now go to the lost pair
    assert [r for r, _ in mm.drain_results()] == ["maxdamage"] * 40


def test_the_agents_own_battles_and_members_with_their_own_team_teach_no_pair():
    pairs = TeamPairs(3, "squared", uniform=0.5, prior_games=2.0, seed=3)
    mm = _matchmaker("self_play", {}, {}, pairs)
    own = mm.own_team()
    seat, foe = mm.draw()
    assert seat.member == "main" and seat.pair is None and own in TEAMS and foe in TEAMS
    mm.report("main", 1.0, (0, 0))  # (a pair given anyway is not learnt from the agent's own battles)
    assert pairs.games.sum() == 0
    # a member that plays its own team (as an exploiter does): the pair's foe team is not played
    own_team = {"md": {"role": "maxdamage", "checkpoint": None, "team": "E|x"}}
    mm = _matchmaker("pfsp", own_team, {"exploiters": ["md"]}, pairs)
    mm.own_team()
    seat, foe = mm.draw()
    assert seat.member == "md" and foe == "E|x" and seat.pair is None


def test_every_scripted_baseline_is_seated_as_a_baseline_not_a_network():
    """A fixed member of each scripted role (random, maxdamage, heuristic) plays as that
    baseline (no policy), and the baseline answers with a legal order."""
    import random

    from league.battle.context import make_decision
    from league.battle.replay import replay
    from league.population.registry import SCRIPTED_ROLES
    from league.sim.policy import baseline_choice
    from tests.recorded import recordings

    assert "heuristic" in SCRIPTED_ROLES
    for role in SCRIPTED_ROLES:
        mm = _matchmaker("pfsp", {role: {"role": role, "checkpoint": None, "team": None}}, {"fixed": [role]}, None)
        seat, _ = mm.draw()
        assert (seat.member, seat.baseline, seat.policy) == (role, role, None)
    rec = recordings()[0]
    rng = random.Random(0)
    for battle, ctx in list(replay(rec["lines"], rec["username"]))[:6]:
        d = make_decision(battle, ctx, encode=False)
        if d is not None:
            for role in SCRIPTED_ROLES:
                assert d.mask[baseline_choice(role, battle, d, rng)]
