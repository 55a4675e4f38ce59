"""league.play against a real local Showdown server: after a dropped connection a
player logs in again and rejoins its battle, answering again a request whose choice was
lost and not one whose choice the server already had (|sentchoice|); a battle the server
no longer has (it was restarted) ends as an error instead of hanging."""

from __future__ import annotations

import asyncio
import logging
import random
import signal
from collections import Counter

import pytest
from poke_env import AccountConfiguration

from league.play.online import OnlineMixin
from league.players import PoolTeambuilder, RandomPlayer
from league.showdown import ShowdownFleet
from league.specs import player_factory
from tests.conftest import FORMAT
from tests.integration.test_play import _Relay

pytestmark = pytest.mark.integration

OnlineRandom = player_factory("random", mixin=OnlineMixin)


class _CutsItself(OnlineRandom):
    """Cuts its own connection at turn 2 of each battle: in its first battle before its
    choice goes out (the choice is lost), in the next ones 0.3 s after (the server has it)."""

    relay: _Relay

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.asked: Counter = Counter()  # (battle, request id) -> times a choice was asked for
        self.cut_at: dict[str, int] = {}  # battle -> id of the request being answered at the cut

    def choose_turn(self, battle, decision):
        tag, rqid = battle.battle_tag, battle.last_request.get("rqid")
        self.asked[tag, rqid] += 1
        choice = super().choose_turn(battle, decision)
        if battle.turn == 2 and tag not in self.cut_at:
            self.cut_at[tag] = rqid
            if len(self.cut_at) == 1:
                self.relay.cut()  # the choice about to be sent goes nowhere
            else:
                asyncio.get_running_loop().call_later(0.3, self.relay.cut)
        return choice


class _SlowAtTurn2(RandomPlayer):
    """Takes 2.5 s over its turn-2 choices, so the battle waits through the reconnect."""

    def choose_turn(self, battle, decision):
        if battle.turn != 2:
            return super().choose_turn(battle, decision)

        async def later():
            await asyncio.sleep(2.5)
            return RandomPlayer.choose_turn(self, battle, decision)

        return later()


def _players(url_config, opp_config, packed_teams, cls, **kw):
    loop = asyncio.get_running_loop()
    common = dict(battle_format=FORMAT, loop=loop, log_level=logging.CRITICAL + 1)
    me = cls(
        account_configuration=AccountConfiguration("onlineme", None),
        server_configuration=url_config,
        team=PoolTeambuilder.from_teams(packed_teams, random.Random(1)),
        login_url=None,
        seed=1,
        **common,
        **kw,
    )
    opp = _SlowAtTurn2(
        account_configuration=AccountConfiguration("onlineopp", None),
        server_configuration=opp_config,
        team=PoolTeambuilder.from_teams(packed_teams, random.Random(2)),
        seed=2,
        **common,
    )
    return me, opp


def test_rejoin_answers_a_lost_choice_again_and_not_one_the_server_has(fleet, packed_teams):
    from poke_env.ps_client.server_configuration import ServerConfiguration

    async def go():
        relay = _Relay(fleet.ports[0])
        port = await relay.start()
        _CutsItself.relay = relay
        me, opp = _players(
            ServerConfiguration(f"ws://127.0.0.1:{port}/showdown/websocket", ""),
            fleet.server_configuration(0),
            packed_teams,
            _CutsItself,
            reconnect_s=30,
        )
        accepting = asyncio.ensure_future(opp.accept_challenges("onlineme", 2))
        try:
            await me.connect()
            await asyncio.wait_for(me.challenge("onlineopp", 2, wait_s=30), 90)
            await asyncio.wait_for(accepting, 30)
        finally:
            await me.close()
            await relay.close()
            await opp.ps_client.stop_listening()
        return me, opp

    me, opp = asyncio.run(go())
    s = me.summary()
    assert s["battles"] == 2 and s["errors"] == 0 and s["showdown_errors"] == 0 and opp.showdown_errors == 0, s
    assert s["reconnects"] == 2 and s["rejoined_battles"] == 2, s
    first, second = sorted(me.cut_at, key=lambda t: int(t.rsplit("-", 1)[1]))
    assert me.asked[first, me.cut_at[first]] == 2  # lost with the connection: asked (and answered) again
    assert me.asked[second, me.cut_at[second]] == 1  # the server had it (|sentchoice|): not answered twice
    assert all(k == 1 for key, k in me.asked.items() if key not in me.cut_at.items())
    assert (opp.n_won, opp.n_lost, opp.n_tied) == (s["losses"], s["wins"], s["ties"])


class _KillsServerAtTurn2(OnlineRandom):
    fleet: ShowdownFleet

    def choose_turn(self, battle, decision):
        if battle.turn == 2 and self.fleet.generation(0) == 1:
            self.fleet.kill(0, signal.SIGKILL)  # the health thread starts it again, without the battle
        return super().choose_turn(battle, decision)


def test_a_battle_the_restarted_server_lost_is_an_error_not_a_hang(tmp_path, install, packed_teams):
    async def go(fleet):
        _KillsServerAtTurn2.fleet = fleet
        me, opp = _players(
            fleet.server_configuration(0),
            fleet.server_configuration(0),
            packed_teams,
            _KillsServerAtTurn2,
            reconnect_s=60,
        )
        asyncio.ensure_future(opp.accept_challenges("onlineme", 1))
        try:
            await me.connect()
            await asyncio.wait_for(me.challenge("onlineopp", 1, wait_s=30), 90)
        finally:
            await me.close()
        return me

    with ShowdownFleet(1, tmp_path, install=install, health_interval=0.5) as fleet:
        me = asyncio.run(go(fleet))
        assert fleet.generation(0) >= 2
    s = me.summary()
    assert s["reconnects"] == 1 and s["battles"] == 0 and s["errors"] == 1, s
    assert [r["result"] for r in me.results] == ["error"]
