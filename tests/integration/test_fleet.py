"""The Showdown fleet against real Node servers."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import threading
import time

import pytest

from league.match import play_matches
from league.players import RandomPlayer
from league.showdown import ShowdownFleet, ShowdownSetupError, locate_showdown, websocket_ok
from league.showdown.fleet import processes_under
from tests.conftest import left_behind

pytestmark = pytest.mark.integration


def _pids_under(path) -> list[int]:
    """Running now: named on their command line or working inside ``path``."""
    out = subprocess.run(["pgrep", "-f", str(path)], capture_output=True, text=True).stdout.split()
    return sorted({int(p) for p in out if int(p) != os.getpid()} | set(processes_under(path)))


def test_start_ready_logs_and_clean_stop(tmp_path, install):
    with ShowdownFleet(2, tmp_path, install=install) as fleet:
        assert len(set(fleet.ports)) == 2
        for port in fleet.ports:
            assert websocket_ok(port)
        for s in fleet.servers:
            assert s.log_path.exists() and s.log_path.parent == tmp_path / "showdown"
            assert (s.workdir / "pokemon-showdown" / "config" / "config.js").exists()
        assert len(_pids_under(tmp_path)) >= 4  # each server is a tree of Node processes
    assert left_behind(tmp_path) == []
    for port in fleet.ports:
        assert not websocket_ok(port, timeout=0.5)


def test_stops_on_exception(tmp_path, install):
    with pytest.raises(RuntimeError):
        with ShowdownFleet(1, tmp_path, install=install):
            raise RuntimeError("boom")
    assert left_behind(tmp_path) == []


def test_killed_server_restarts_and_match_counts_lost_battles(tmp_path, install, packed_teams):
    n = 60
    players = []

    def make_p1(**kw):
        players.append(RandomPlayer(**kw))
        return players[-1]

    with ShowdownFleet(1, tmp_path, install=install, health_interval=0.5) as fleet:
        killer_done = threading.Event()

        def killer():
            # by progress, not by time: once 5 battles have ended (of 60, 16 at once) battles
            # are in flight, however fast this machine plays them; then SIGKILL the server
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline and sum(p.n_finished for p in list(players)) < 5:
                time.sleep(0.05)
            fleet.kill(0, signal.SIGKILL)
            killer_done.set()

        thread = threading.Thread(target=killer, daemon=True)
        thread.start()
        result = asyncio.run(
            play_matches(fleet, make_p1, RandomPlayer, n, packed_teams, packed_teams, concurrency=16, stall_timeout=60)
        )
        thread.join(timeout=60)  # it sets the event just after the kill: not before the matches see it
        assert killer_done.is_set()
        assert fleet.servers[0].restarts >= 1
        assert fleet.generation(0) >= 2
    assert result.battles + result.unfinished == n
    assert result.unfinished >= 1  # the battles in flight at the kill are counted, not waited for
    assert result.battles >= n - 16
    assert result.showdown_errors == 0


def test_missing_node_and_missing_package_are_clear_errors(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(ShowdownSetupError, match="Node.js was not found"):
        locate_showdown()
    monkeypatch.undo()
    import league.showdown.install as inst

    monkeypatch.setattr(inst, "_candidate_dirs", lambda: [tmp_path / "nowhere"])
    with pytest.raises(ShowdownSetupError, match="make setup"):
        locate_showdown()


def test_a_port_taken_between_choice_and_bind_gets_another(tmp_path, install, monkeypatch):
    """Another program binds the chosen port before Node does: the server is started
    again on another port instead of failing (or talking to someone else's server)."""
    import socket

    import league.showdown.fleet as fleet_mod

    squatter = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    squatter.bind(("127.0.0.1", 0))
    squatter.listen()
    taken = squatter.getsockname()[1]
    real = fleet_mod.free_port
    ports = iter([taken])
    monkeypatch.setattr(fleet_mod, "free_port", lambda: next(ports, None) or real())
    try:
        with ShowdownFleet(1, tmp_path, install=install) as fleet:
            assert fleet.ports[0] != taken and websocket_ok(fleet.ports[0])
            assert fleet_mod.listens_on(fleet.servers[0].proc.pid, fleet.ports[0])
            assert not fleet_mod.listens_on(fleet.servers[0].proc.pid, taken)
            assert "EADDRINUSE" in fleet.servers[0].log_path.read_text()
    finally:
        squatter.close()
    assert left_behind(tmp_path) == []


class _HangsOnce(RandomPlayer):
    """Never answers one turn of its first battle that reaches turn 2 (a hung battle
    among live ones)."""

    hung: set = set()

    def choose_turn(self, battle, decision):
        if battle.turn >= 2 and (not _HangsOnce.hung or battle.battle_tag in _HangsOnce.hung):
            _HangsOnce.hung.add(battle.battle_tag)
            return asyncio.get_running_loop().create_future()  # never set
        return super().choose_turn(battle, decision)


def test_a_hung_battle_among_live_ones_is_ended_and_counted(fleet, packed_teams):
    _HangsOnce.hung = set()
    result = asyncio.run(
        play_matches(
            fleet,
            _HangsOnce,
            RandomPlayer,
            6,
            packed_teams,
            packed_teams,
            concurrency=3,
            stall_timeout=600,
            battle_timeout=4,
        )
    )
    assert len(_HangsOnce.hung) == 1
    assert result.timed_out == 1 and result.unfinished == 1  # not counted as a win or a loss
    assert result.battles == 5 and result.p1_wins + result.p2_wins + result.ties == 5
    assert result.summary()["timed_out"] == 1
