"""The one-turn look-ahead on a real stream worker (``fork``) and the ``search:SPEC`` player
that uses it: the live battle is untouched, a look-ahead is a function of its seed, a choice
Showdown refuses scores nothing, and a search player plays whole battles without an error."""

from __future__ import annotations

import asyncio
import random

import pytest
from poke_env import AccountConfiguration

from league.match import play_matches
from league.players import RandomPlayer
from league.players.base import ChoiceOrder, PoolTeambuilder
from league.showdown import StreamFleet
from league.specs import player_factory
from tests.conftest import FORMAT
from tests.integration.test_stream import _normal

pytestmark = pytest.mark.integration


class ForkingRandom(RandomPlayer):
    """A seeded random player that, before each move request's choice, asks the worker to
    look one turn ahead twice with one seed for [its choice, a choice no request allows]."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.looks: list[tuple] = []

    def choose_move(self, battle):
        order = super().choose_move(battle)
        if not isinstance(order, ChoiceOrder) or not order.message.startswith("/choose move"):
            return order
        return self._look(battle, order)

    async def _look(self, battle, order):
        choices = [order.message.removeprefix("/choose "), "move 9 1, move 9 1"]
        seed = [len(self.looks), 2, 3, 4]
        first = await self.ps_client.fork(battle.battle_tag, choices, 2, seed)
        again = await self.ps_client.fork(battle.battle_tag, choices, 2, seed)
        self.looks.append((first, again))
        return order


def _one_battle(fleet, p1_cls, seed: int, team1: str, team2: str):
    """Battle ``seed`` between a seeded p1 of ``p1_cls`` and a seeded random p2 (one at a
    time, so both players' choices follow their seeds): p1 and the simulator's own log."""
    ends: list[dict] = []
    link = fleet.servers[0].link
    orig = link._on_frames
    link._on_frames = lambda frames: (ends.extend(f for f in frames if f["t"] == "end"), orig(frames))
    kw = dict(battle_format=FORMAT, max_concurrent_battles=1, start_listening=False, log_level=60)
    names = (AccountConfiguration("looker", None), AccountConfiguration("foe", None))
    p1 = p1_cls(seed=seed, team=PoolTeambuilder(lambda: team1), account_configuration=names[0], **kw)
    p2 = RandomPlayer(seed=seed + 1, team=PoolTeambuilder(lambda: team2), account_configuration=names[1], **kw)
    try:
        asyncio.run(fleet.pair_task(0, p1, p2, 1, 1, random.Random(seed), record_log=True))
    finally:
        link._on_frames = orig
    assert len(ends) == 1, "the battle did not end"
    return p1, ends[0]


def test_a_look_ahead_leaves_the_live_battle_as_it_was_and_follows_its_seed(tmp_path, install, packed_teams):
    looked_at = 0
    with StreamFleet(1, tmp_path, install=install) as fleet:
        for seed in (1, 2, 3):
            teams = packed_teams[seed % len(packed_teams)], packed_teams[(seed + 5) % len(packed_teams)]
            forking, end_forked = _one_battle(fleet, ForkingRandom, seed, *teams)
            _, end_plain = _one_battle(fleet, RandomPlayer, seed, *teams)
            # the same seed, teams and choices: the same battle, look-aheads or not
            assert end_forked["winner"] == end_plain["winner"]
            assert _normal(end_forked["log"]) == _normal(end_plain["log"])
            for first, again in forking.looks:
                assert first == again  # one seed, one answer
                mine, refused = first
                assert refused is None and mine is not None and -1.0 <= mine <= 1.0
            looked_at += len(forking.looks)
    assert looked_at >= 6


def test_a_search_player_plays_whole_battles_and_searches_its_move_requests(tmp_path, install, packed_teams):
    make = player_factory("search:agent:regc", seed=0, format_id=FORMAT, backend="stream", search={"k": 4})
    with StreamFleet(1, tmp_path, install=install) as fleet:
        result = asyncio.run(
            play_matches(fleet, make, RandomPlayer, 4, packed_teams, packed_teams, concurrency=2, seed=5)
        )
    assert result.battles == 4 and result.unfinished == 0
    assert result.showdown_errors == 0, result.error_examples
    s = result.summary()["p1_search"]
    assert s["searched"] >= 4 * 2 and s["skipped"] == 0
    assert 0 <= s["changed"] <= s["searched"]
    assert (s["k"], s["samples"], s["prior"]) == (4, 2, 0.0)  # the settings it played with, in the JSON
