"""The server-less stream backend against real Showdown: parity with a server, many battles
without an error, a worker killed mid-battle."""

from __future__ import annotations

import asyncio
import gc
import json
import logging
import os
import signal
import threading
import time

import pytest
from poke_env import AccountConfiguration
from poke_env.player import Player

from league import heap
from league.battle.replay import RecordingMixin
from league.match import play_matches
from league.players import RandomPlayer
from league.players.base import ChoiceOrder, NoReplayLog, PoolTeambuilder
from league.showdown import ShowdownFleet, StreamFleet
from tests.conftest import FORMAT

pytestmark = pytest.mark.integration


class RecordingRandom(RecordingMixin, RandomPlayer):
    pass


class Scripted(RecordingMixin, Player):
    """Answers each request with the next choice a server battle's input log holds."""

    def __init__(self, choices: list[str], **kw):
        super().__init__(**kw)
        self.choices = list(choices)

    def teampreview(self, battle):
        return "/" + self.choices.pop(0)  # "team 1234"

    def choose_move(self, battle):
        return ChoiceOrder("/choose " + self.choices.pop(0))


# Lines only a server adds (rooms, users, timers, UI), and per-request ids.
_SERVER_ONLY = {
    "init",
    "deinit",
    "title",
    "j",
    "J",
    "l",
    "L",
    "t:",
    "raw",
    "c",
    "inactive",
    "inactiveoff",
    "uhtml",
    "uhtmlchange",
}


def _normal(lines: list[str]) -> list[str]:
    out = []
    for line in lines:
        parts = line.split("|")
        if not line.startswith("|") or len(parts) < 2 or parts[1] in _SERVER_ONLY:
            continue
        if parts[1] == "player":  # the server adds avatars, and "|player|p2|" when a player leaves the room
            if len(parts) < 4 or not parts[3]:
                continue
            line = "|".join(parts[:4])
        elif parts[1] == "request" and parts[2]:
            req = json.loads("|".join(parts[2:]))
            req.pop("rqid", None)
            line = "|request|" + json.dumps(req, sort_keys=True)
        out.append(line)
    return out


def _choices(input_log: list[str], side: str) -> list[str]:
    return [line[len(side) + 2 :] for line in input_log if line.startswith(f">{side} ")]


def _players(input_log: list[str]) -> dict[str, dict]:
    return {line[8:10]: json.loads(line[11:]) for line in input_log if line.startswith(">player ")}


def test_same_seed_and_choices_give_the_same_battle_on_both_backends(tmp_path, install, packed_teams):
    """Battles played by our players on a server (which logs each battle's seed and input),
    replayed on a stream worker from the same seed, teams and choices: the simulator's log,
    each player's protocol stream (server-only lines aside) and the winner are identical."""
    server_players: list = []

    def recording(**kw):
        server_players.append(RecordingRandom(**kw))
        return server_players[-1]

    with ShowdownFleet(1, tmp_path / "server", install=install, log_battles=True) as fleet:
        result = asyncio.run(
            play_matches(fleet, recording, recording, 8, packed_teams, packed_teams, concurrency=4, seed=11)
        )
        assert result.battles == 8 and result.showdown_errors == 0
        deadline = time.monotonic() + 20
        while len(fleet.battle_logs()) < 8 and time.monotonic() < deadline:
            time.sleep(0.2)  # the server writes its logs after the battle ends
        logs = fleet.battle_logs()
    assert len(logs) == 8
    seen = {(p.username, tag): rec for p in server_players for tag, rec in p.recordings.items()}

    async def replay(fleet, log):
        seats = _players(log["inputLog"])
        seed = int(log["seed"].split(",")[1], 16)
        kw = dict(battle_format=FORMAT, max_concurrent_battles=1, start_listening=False, log_level=60)
        p = {
            side: Scripted(
                _choices(log["inputLog"], side),
                account_configuration=AccountConfiguration(seats[side]["name"], None),
                team=PoolTeambuilder(lambda t=seats[side]["team"]: t),
                **kw,
            )
            for side in ("p1", "p2")
        }
        seeds = type("Seeds", (), {"getrandbits": lambda self, k: seed})()
        await fleet.pair_task(0, p["p1"], p["p2"], 1, 1, seeds, record_log=True)
        return p

    compared = 0
    with StreamFleet(1, tmp_path / "stream", install=install) as sfleet:
        for log in logs:
            ends = []
            link = sfleet.servers[0].link
            orig = link._on_frames
            link._on_frames = lambda frames, ends=ends, orig=orig: (
                ends.extend(f for f in frames if f["t"] == "end"),
                orig(frames),
            )
            p = asyncio.run(replay(sfleet, log))
            link._on_frames = orig
            assert len(ends) == 1, "the stream battle did not end"
            assert ends[0]["seed"] == log["seed"] and ends[0]["winner"] == log["winner"]
            assert _normal(ends[0]["log"]) == _normal(log["log"])
            for side in ("p1", "p2"):
                assert not p[side].choices, "the stream battle asked for fewer choices than the server's"
                (stream_rec,) = p[side].recordings.values()
                assert _normal(stream_rec) == _normal(seen[p[side].username, log["roomid"]])
                compared += len(stream_rec)
    assert compared > 8 * 2 * 50


def test_random_battles_on_the_stream_backend_send_no_bad_choice(tmp_path, install, packed_teams):
    with StreamFleet(2, tmp_path, install=install) as fleet:
        result = asyncio.run(
            play_matches(fleet, RandomPlayer, RandomPlayer, 500, packed_teams, packed_teams, concurrency=16, seed=7)
        )
    assert result.showdown_errors == 0, result.error_examples
    assert result.battles == 500 and result.unfinished == 0
    assert result.p1_wins + result.p2_wins + result.ties == 500
    assert fleet.crashes == []


def test_finished_battles_keep_no_replay_log_unless_replays_are_saved(tmp_path, install, packed_teams):
    """Issue 31: poke-env's per-battle copy of every message is kept only for save_replays
    (a finished battle stays alive ~30 s; the copies cost every full collection); the
    results are still read right, and play_matches settled the garbage collector. (With
    ``--save-replays``, tools.battle's replays are whole: tests/integration/test_tools_cli.py.)"""
    battles: list = []

    class Keeping(RandomPlayer):
        def on_battle_end(self, battle) -> None:
            battles.append(battle)

    with StreamFleet(1, tmp_path, install=install) as fleet:
        result = asyncio.run(play_matches(fleet, Keeping, Keeping, 12, packed_teams, packed_teams, concurrency=4))
    assert result.battles == 12 and result.unfinished == 0
    assert len(battles) == 24 and all(b.finished for b in battles)
    assert all(isinstance(b._replay_data, NoReplayLog) and len(b._replay_data) == 0 for b in battles)
    assert sum(b.won is True for b in battles) == result.p1_wins + result.p2_wins  # won_by read the winner
    assert gc.get_threshold()[0] == heap.YOUNG


def test_a_killed_worker_is_restarted_and_its_battles_counted_lost(tmp_path, install, packed_teams):
    with StreamFleet(1, tmp_path, install=install, health_interval=0.3) as fleet:
        first_pid = fleet.pids()[0]
        killed = threading.Event()

        def kill_when_busy():
            deadline = time.monotonic() + 60
            link = fleet.servers[0].link
            while time.monotonic() < deadline and (len(link.battles) < 6 or link.frames < 60):
                time.sleep(0.01)  # battles under way: players have seen their first turns
            fleet.kill(0)
            killed.set()

        killer = threading.Thread(target=kill_when_busy, daemon=True)
        killer.start()
        made: list[RandomPlayer] = []

        def make(**kw):
            made.append(RandomPlayer(**kw))
            return made[-1]

        result = asyncio.run(play_matches(fleet, make, make, 60, packed_teams, packed_teams, concurrency=8, seed=9))
        killer.join(timeout=60)  # it sets the event just after the kill: not before the matches see it
        assert killed.is_set()
        # the players of the killed worker's match, and those after it, keep their counts and
        # no battle: a simulator keeps its players, and kept each one's battles (issue 29's leak)
        assert len(made) >= 4 and all(p.retired for p in made)
        assert [len(p.battles) + len(p.contexts) + len(p.activity) for p in made] == [0] * len(made)
        assert not any(p.logger.name in logging.Logger.manager.loggerDict for p in made)  # poke-env's, one each
        assert sum(p.n_finished for p in made[0::2]) == result.battles
        assert fleet.servers[0].restarts >= 1 and fleet.generation(0) >= 2
        assert fleet.pids() and fleet.pids()[0] != first_pid
        assert result.unfinished >= 1, "battles in flight on the killed worker are counted as lost"
        assert result.battles + result.unfinished == 60
        # every battle p1 took part in is accounted for: finished or lost, none started twice
        assert result.started == 60 and result.abandoned == 0
        assert result.showdown_errors == 0
        pids = fleet.pids()
    for pid in [first_pid, *pids]:  # nothing left behind
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)


def test_a_worker_that_stops_answering_is_restarted(tmp_path, install):
    with StreamFleet(1, tmp_path, install=install, health_interval=0.2, probe_failures_before_restart=3) as fleet:
        pid = fleet.pids()[0]
        os.kill(pid, signal.SIGSTOP)  # alive, but deaf
        deadline = time.monotonic() + 20
        while fleet.servers[0].restarts == 0 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert fleet.servers[0].restarts == 1
        assert fleet.wait_healthy(0, 20)
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)


def test_the_worker_reports_a_bad_command_and_goes_on(tmp_path, install, packed_teams):
    """A battle the simulator throws on is reported and forgotten; the worker keeps serving."""
    with StreamFleet(1, tmp_path, install=install) as fleet:
        link = fleet.servers[0].link
        got: list[dict] = []

        async def go():
            loop = asyncio.get_running_loop()
            b = link.open("battle-x-1", {})
            link._on_frames = lambda frames: got.extend(frames)
            link.send(
                t="start",
                id="battle-x-1",
                format=FORMAT,
                seed="sodium," + "0" * 32,
                p1={"name": "a", "team": "not a team"},
                p2={"name": "b", "team": packed_teams[0]},
            )
            link.send(t="ping", n=99)
            deadline = loop.time() + 10
            while not any(f["t"] == "crash" for f in got) and loop.time() < deadline:
                await asyncio.sleep(0.05)
            return b

        asyncio.run(go())
        crash = [f for f in got if f["t"] == "crash"]
        assert crash and crash[0]["id"] == "battle-x-1"
        deadline = time.monotonic() + 5
        while link.pongs < 99 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert link.pongs == 99 and fleet.is_alive(0)


def test_memtrace_lines_from_a_worker_into_a_directory_it_makes(tmp_path, install, packed_teams, monkeypatch):
    """LEAGUE_MEMTRACE in a worker: its memory each period in DIR/node_PID.jsonl (DIR made
    if missing: a worker that could not write once died of it), the battles it finished counted."""
    out = tmp_path / "mem" / "nested"
    monkeypatch.setenv("LEAGUE_MEMTRACE", str(out))
    monkeypatch.setenv("LEAGUE_MEMTRACE_NODE_MS", "200")
    with StreamFleet(1, tmp_path / "fleet", install=install) as fleet:
        res = asyncio.run(play_matches(fleet, RandomPlayer, RandomPlayer, 2, packed_teams, packed_teams, seed=3))
        assert res.battles == 2 and res.unfinished == 0
        path = None
        deadline = time.monotonic() + 30
        while path is None and time.monotonic() < deadline:
            for f in out.glob("node_*.jsonl"):
                lines = f.read_text().splitlines()
                if lines and json.loads(lines[-1])["finished"] >= 2:
                    path = f
            time.sleep(0.1)
        assert path is not None, list(tmp_path.rglob("*"))
        assert fleet.is_alive(0)
    last = json.loads(path.read_text().splitlines()[-1])
    assert set(last) == {"min", "rss", "heapTotal", "heapUsed", "external", "arrayBuffers", "live", "finished"}
    assert last["live"] == 0 and last["rss"] > last["heapUsed"] > 0
