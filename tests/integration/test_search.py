"""The one-turn look-ahead on a real stream worker (``fork``) and the ``search:SPEC`` player
that uses it: the live battle is untouched, a look-ahead is a function of its seed, a choice
Showdown refuses scores nothing, and a search player plays whole battles without an error."""

from __future__ import annotations

import asyncio
import math
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


class SpreadForkingRandom(ForkingRandom):
    """:class:`ForkingRandom` whose looks are at its choice with the foes as they are and
    with their spread hidden (``foe_ev`` 84: the even spread), keeping what each look saw
    of the foes."""

    async def _look(self, battle, order):
        choices, seed = [order.message.removeprefix("/choose ")], [len(self.looks), 7, 8, 9]
        exact = await self.ps_client.fork(battle.battle_tag, choices, 2, seed, report=True)
        even = await self.ps_client.fork(battle.battle_tag, choices, 2, seed, foe_ev=84, report=True)
        shown = {m.species: m.current_hp_fraction for m in battle.opponent_team.values()}
        self.looks.append((exact, even, shown))
        return order


def _respread(packed: str, evs: str, nature: str) -> str:
    """A packed team with every Pokémon's EVs, IVs (all 31) and nature replaced."""
    mons = []
    for mon in packed.split("]"):
        f = mon.split("|")
        f[5], f[6], f[8] = nature, evs, ""
        mons.append("|".join(f))
    return "]".join(mons)


def test_a_look_ahead_can_hide_the_foes_spread(tmp_path, install, packed_teams):
    """``foe_ev``: the copies' foes get the even spread (their stats are then exactly the
    estimates the network's features use, league/battle/dex.py) and the HP share their
    health line shows; without it they keep their own spread."""
    from league.battle.dex import STATS, SV, stat_estimate

    skewed_team = _respread(packed_teams[1], "252,252,0,0,0,4", "Adamant")
    with StreamFleet(1, tmp_path, install=install) as fleet:
        p1, _ = _one_battle(fleet, SpreadForkingRandom, 1, packed_teams[0], skewed_team)
    assert p1.looks
    hp_checked = 0
    for exact, even, shown in p1.looks:
        assert exact is not None and even is not None
        assert all(-1.0 <= v <= 1.0 for v in (*exact[0], *even[0]))
        for real, hidden in zip(exact[1], even[1], strict=True):
            base = SV.pokedex[hidden["species"]]["baseStats"]
            want = {s: stat_estimate(base[s], s, 50) for s in STATS}
            assert hidden["stats"] == {s: want[s] for s in hidden["stats"]}  # the even spread, exactly
            assert hidden["maxhp"] == want["hp"]
            assert real["stats"] != hidden["stats"] and real["maxhp"] != want["hp"]  # (252 HP, Adamant)
            frac = shown.get(hidden["species"])  # what the player sees of a foe it has met
            if frac is not None and real["hp"] > 0:
                assert hidden["hp"] == max(1, math.floor(frac * want["hp"] + 0.5))  # (JS's Math.round)
                hp_checked += 1
            else:
                assert (hidden["hp"] > 0) == (real["hp"] > 0)
    assert hp_checked > len(p1.looks)  # the foes met, look after look


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
    assert (s["k"], s["samples"], s["prior"], s["foe_spread"]) == (4, 2, 0.0, "even")  # the settings it played with


@pytest.mark.parametrize("play", [False, True, "network"])
def test_the_main_agent_searches_a_share_of_its_move_requests_for_targets(tmp_path, install, packed_teams, play):
    """sim.search_share on a real worker: the learning player's move requests carry the
    look-ahead's pick (legal there, one of the network's likeliest), every other step -1;
    the opponent seat and team preview never do; the counters add up. The picks are drawn
    (sim.search_tau > 0), the argmax's path is the search player's (above). With
    sim.search_play the pick is the action played, with the behaviour's log-prob 0, or with
    sim.search_mu=network the network's own log-prob of it (below 0: an untrained network
    never gives one of several legal actions probability 1)."""
    from collections import Counter

    from league.model.net import ModelConfig, PolicyValueNet
    from league.sim.policy import PolicyServer
    from league.sim.simulator import SimConfig, Simulator

    got = []
    cfg = SimConfig(
        servers=1,
        concurrency=2,
        eval_concurrency=0,
        search_share=1.0,
        search_k=4,
        search_tau=0.05,
        search_play=bool(play),
        search_mu="network" if play == "network" else "sure",
    )
    policy = PolicyServer(PolicyValueNet(ModelConfig(mon_dim=16, torso_dim=32, core_dim=32)), "main", seed=1)

    async def main(fleet):
        stop = asyncio.Event()
        sim = Simulator(cfg, fleet, policy, packed_teams, lambda t: got.append(t) or True, seed=5)

        async def until_done():  # by events: two self-play battles whose both sides arrived
            t0 = asyncio.get_running_loop().time()
            while sum(n == 2 for n in Counter(t.battle for t in got).values()) < 2:
                assert asyncio.get_running_loop().time() - t0 < 240, "two self-play battles did not finish"
                await asyncio.sleep(0.2)
            stop.set()

        await asyncio.gather(sim.run(stop), until_done())
        return sim

    with StreamFleet(1, tmp_path, install=install) as fleet:
        sim = asyncio.run(main(fleet))
    snap = sim.snapshot()
    searched = [t for t in got if any(x >= 0 for x in t.target)]
    plain = [t for t in got if not any(x >= 0 for x in t.target)]
    # p1 (the main player) searched; its self-play partner, p2, never
    p1 = [p for p in sim.players if getattr(p, "counted", False)]
    assert len(p1) >= 1 and all(p.search_share == 1.0 and p.search_tau == 0.05 for p in p1)
    assert searched and all(x == -1 for t in plain for x in t.target)
    assert any(not t.target for t in plain)  # p2's: never searched, no targets at all
    n_targets = 0
    for t in searched:
        assert len(t.target) == len(t.actions) and t.target[0] == -1  # team preview: never
        for m, x in zip(t.mask, t.target):
            assert x == -1 or m[x]
        if play is True:  # every pick was played, as the behaviour's sure choice (log-prob 0)
            assert all(a == x and lp == 0.0 for a, x, lp in zip(t.actions, t.target, t.logp) if x >= 0)
        if play == "network":  # every pick was played, with the network's log-prob of it
            assert all(a == x and -30.0 < lp < 0.0 for a, x, lp in zip(t.actions, t.target, t.logp) if x >= 0)
        n_targets += sum(x >= 0 for x in t.target)
    if not play:  # a player drawing from 4+ candidates at share 1 plays some other action
        assert any(a != x for t in searched for a, x in zip(t.actions, t.target) if x >= 0)
    assert snap["search_skipped"] == 0
    assert n_targets <= snap["search_targets"] and 0 <= snap["search_changed"] <= snap["search_targets"]
    # a move request with one legal action is not searched: at share 1 every other one is
    moves = sum(1 for t in searched for x, pre in zip(t.target, t.is_preview) if not pre)
    assert n_targets >= 0.5 * moves


def test_a_search_player_records_its_battles_for_behaviour_cloning(tmp_path):
    """tools.bc generate --p1 search:agent:regc: the logs name the policy ``search`` and
    read back legal; tools.bc eval scores the network's agreement with its own search's
    picks; a search player on a server is refused before any fleet starts."""
    import json
    import subprocess
    import sys

    from league.bc.dataset import parse_log
    from tests.conftest import ROOT

    def bc(*args):
        return subprocess.run(
            [sys.executable, "-m", "tools.bc", *args], capture_output=True, text=True, cwd=ROOT, timeout=300
        )

    logs = tmp_path / "logs"
    out = bc("generate", "-n", "3", "--p1", "search:agent:regc", "--p2", "random", "--out", str(logs))
    assert out.returncode == 0, out.stderr[-2000:]
    g = json.loads(out.stdout.strip().splitlines()[-1])
    assert g["by_matchup"] == {"search:agent:regc-vs-random": g["logs"]} and g["logs"] >= 2
    n_search = 0
    for f in logs.glob("*.log"):
        trajs = parse_log(f)
        assert sorted(t.policy for t in trajs) == ["random", "search"]
        for t in trajs:
            assert all(m[a] for m, a in zip(t.mask, t.actions))
        n_search += sum(len(t.actions) for t in trajs if t.policy == "search")
    e = bc("eval", str(ROOT / "league/agents/regc.pt"), str(logs), "--policies", "search")
    assert e.returncode == 0, e.stderr[-2000:]
    ev = json.loads(e.stdout.strip().splitlines()[-1])
    assert ev["decisions"] == n_search and 0 < ev["top1"] < 1
    refused = bc(
        "generate",
        "-n",
        "1",
        "--p1",
        "search:agent:regc",
        "--p2",
        "random",
        "--backend",
        "server",
        "--out",
        str(tmp_path / "no"),
    )
    assert refused.returncode != 0 and "--backend stream" in refused.stderr
    assert not (tmp_path / "no").exists()
