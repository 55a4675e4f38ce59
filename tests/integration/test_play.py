"""tools.play end to end: the shipped agent on a real local Showdown server, against a
second poke-env client that challenges it (--accept) and that it challenges (--challenge,
through a TCP relay the test cuts in the middle of a battle: a dropped connection), and
bad input as one clear error (exit code 2)."""

from __future__ import annotations

import asyncio
import json
import logging
import random
import sys

import pytest
from poke_env import AccountConfiguration
from poke_env.ps_client.server_configuration import ServerConfiguration

from league.players import PoolTeambuilder, RandomPlayer
from league.showdown import processes_under
from league.teams import DEFAULT_POOLS_DIR
from tests.conftest import FORMAT, ROOT

pytestmark = pytest.mark.integration

N = 2  # battles each way
TEAM_FILE = DEFAULT_POOLS_DIR / FORMAT / "01-sun-torkoal.txt"


async def _spawn(*args: str) -> asyncio.subprocess.Process:
    return await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "tools.play",
        "--agent",
        "agent:regc",
        *args,
        cwd=ROOT,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )


async def _logged_in(proc, timeout: float = 60.0) -> tuple[str, list[str]]:
    """The URL tools.play logged in at (its stderr line), and the stderr lines until then."""
    lines: list[str] = []
    while True:
        line = (await asyncio.wait_for(proc.stderr.readline(), timeout)).decode()
        if not line:
            raise AssertionError("tools.play ended before logging in:\n" + "".join(lines))
        lines.append(line)
        if line.startswith("logged in as "):
            return line.split(" on ", 1)[1].split(";")[0], lines


async def _result(proc, lines: list[str], timeout: float = 120.0) -> tuple[dict, list[str], str]:
    out, err = await asyncio.wait_for(proc.communicate(), timeout)
    err = "".join(lines) + err.decode()
    assert proc.returncode == 0, err[-3000:]
    stdout = out.decode().strip().splitlines()
    return json.loads(stdout[-1]), stdout[:-1], err


def _opponent(name: str, config: ServerConfiguration, packed_teams, cls=RandomPlayer) -> RandomPlayer:
    return cls(
        account_configuration=AccountConfiguration(name, None),
        battle_format=FORMAT,
        server_configuration=config,
        team=PoolTeambuilder.from_teams(packed_teams, random.Random(name)),
        loop=asyncio.get_running_loop(),
        log_level=logging.CRITICAL + 1,
        seed=1,
    )


def _assert_played(s: dict, result_lines: list[str], opp, n: int, user: str) -> None:
    assert s["wins"] + s["losses"] + s["ties"] == n and s["battles"] == n, s
    assert s["errors"] == 0 and s["unplayed"] == [] and s["showdown_errors"] == 0, s
    assert s["late_decisions"] == 0, s
    assert len(result_lines) == n and all(f" vs {opp.username} " in line for line in result_lines), result_lines
    # the other side saw the same battles, with no error from Showdown either
    assert (opp.n_won, opp.n_lost, opp.n_tied) == (s["losses"], s["wins"], s["ties"])
    assert opp.showdown_errors == 0, opp.error_log
    assert all(b.opponent_username == user for b in opp.battles.values())


def test_play_accepts_challenges_on_the_local_server_it_starts(tmp_path, packed_teams):
    """--accept with no --server: tools.play starts a local server and prints its URL; a
    poke-env client connects there and challenges it N times."""
    run_dir = tmp_path / "run"

    async def go():
        proc = await _spawn("--user", "Play Agent", "--accept", str(N), "--team", str(TEAM_FILE), "--out", str(run_dir))
        url, lines = await _logged_in(proc)
        assert url.startswith("ws://127.0.0.1:") and any(url in line for line in lines[:-1])
        opp = _opponent("playchallenger", ServerConfiguration(url, ""), packed_teams)
        await asyncio.wait_for(opp.send_challenges("playagent", N), 120)
        s, results, err = await _result(proc, lines)
        _assert_played(s, results, opp, N, "Play Agent")
        assert s["mode"] == "accept" and s["server"] == url and s["reconnects"] == 0
        assert "Traceback" not in err
        await opp.ps_client.stop_listening()

    asyncio.run(go())
    assert processes_under(run_dir) == []  # the server it started is gone


class _Relay:
    """A TCP relay to a local port; :meth:`cut` resets every connection through it, as a
    network drop would (both ends see the connection die)."""

    def __init__(self, port: int):
        self.target = port
        self.pairs: list[tuple[asyncio.StreamWriter, asyncio.StreamWriter]] = []
        self.cuts = 0

    async def start(self) -> int:
        self.server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        return self.server.sockets[0].getsockname()[1]

    async def _serve(self, reader, writer) -> None:
        up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.target)
        self.pairs.append((writer, up_writer))

        async def pipe(src, dst):
            try:
                while data := await src.read(65536):
                    dst.write(data)
                    await dst.drain()
            except (ConnectionError, OSError):
                pass
            finally:
                dst.close()

        await asyncio.gather(pipe(reader, up_writer), pipe(up_reader, writer))

    def cut(self) -> None:
        self._abort()
        self.cuts += 1

    def _abort(self) -> None:
        for a, b in self.pairs:
            a.transport.abort()
            b.transport.abort()
        self.pairs.clear()

    async def close(self) -> None:
        self._abort()
        self.server.close()
        await self.server.wait_closed()


class _CutsMidBattle(RandomPlayer):
    """Answers normally, except at its first turn-2 request: a second later (the agent has
    answered by then) it cuts the relay (the agent's connection), and answers a second
    after that."""

    relay: _Relay | None = None

    def choose_turn(self, battle, decision):
        relay = _CutsMidBattle.relay
        if relay is None or battle.turn < 2:
            return super().choose_turn(battle, decision)
        _CutsMidBattle.relay = None  # once

        async def later():
            await asyncio.sleep(1.0)
            relay.cut()
            await asyncio.sleep(1.0)
            return RandomPlayer.choose_turn(self, battle, decision)

        return later()


def test_play_challenges_and_rejoins_after_a_dropped_connection(fleet, packed_teams):
    """--challenge USER -n N on a given --server (the session's server, through a relay):
    the agent's connection is cut in the middle of its first battle; it reconnects, logs
    in again, rejoins the battle and finishes every battle without an error."""

    async def go():
        relay = _Relay(fleet.ports[0])
        port = await relay.start()
        _CutsMidBattle.relay = relay
        opp = _opponent("playopp", fleet.server_configuration(0), packed_teams, cls=_CutsMidBattle)
        accepting = asyncio.ensure_future(opp.accept_challenges("playagent2", N))
        await asyncio.wait_for(opp.ps_client.logged_in.wait(), 30)
        try:
            proc = await _spawn(
                "--server",
                f"ws://127.0.0.1:{port}",
                "--login-server",
                "none",
                "--user",
                "playagent2",
                "--challenge",
                "playopp",
                "-n",
                str(N),
            )
            url, lines = await _logged_in(proc)
            assert url == f"ws://127.0.0.1:{port}/showdown/websocket"  # the path added
            s, results, err = await _result(proc, lines)
            await asyncio.wait_for(accepting, 30)
        finally:
            _CutsMidBattle.relay = None
            await relay.close()
        assert relay.cuts == 1
        _assert_played(s, results, opp, N, "playagent2")
        assert s["mode"] == "challenge" and s["reconnects"] == 1 and s["rejoined_battles"] == 1, s
        assert "connection to" in err and "rejoined battle" in err, err[-3000:]
        await opp.ps_client.stop_listening()

    asyncio.run(go())


# ---------------------------------------------------------------- bad input: exit 2, before anything starts
def _main_exit(capsys, *argv: str) -> tuple[int, str]:
    code, _, err = _main_exit_out(capsys, *argv)
    return code, err


def _main_exit_out(capsys, *argv: str) -> tuple[int, str, str]:
    from tools.play import main

    with pytest.raises(SystemExit) as e:
        main(list(argv))
    captured = capsys.readouterr()
    return e.value.code, captured.out, captured.err


BASE = ("--agent", "agent:regc", "--user", "someone")


def test_help_exits_zero_without_side_effects(capsys, tmp_path):
    code, _ = _main_exit(capsys, "--help", "--out", str(tmp_path / "run"))
    assert code == 0 and not (tmp_path / "run").exists()


@pytest.mark.parametrize(
    "argv, says",
    [
        (("--agent", "checkpoint:/nonexistent/ckpt.pt", "--user", "u", "--accept", "1"), "no checkpoint file"),
        (("--agent", "agent:nope", "--user", "u", "--accept", "1"), "shipped: agent:regc"),
        ((*BASE, "--accept", "1", "--server", "http://127.0.0.1:8000/showdown/websocket"), "not a websocket URL"),
        ((*BASE, "--accept", "1", "--server", "ws:///showdown/websocket"), "not a websocket URL"),
        ((*BASE, "--accept", "1", "--server", "wss://x.example", "--login-server", "ftp://x"), "not an http(s) URL"),
        (
            (*BASE, "--accept", "1", "--server", "wss://x.example", "--password-file", "/nonexistent/pw"),
            "--password-file /nonexistent/pw: cannot read it",
        ),
        ((*BASE, "--accept", "0"), "N >= 1"),
        ((*BASE, "--ladder", "2", "-n", "3"), "-n is the number of battles for --challenge"),
        (("--agent", "agent:regc", "--user", "a,b", "--accept", "1"), "a Showdown name"),
        (("--agent", "agent:regc", "--user", "Some One", "--challenge", "someone"), "challenge another user"),
        ((*BASE, "--accept", "1", "--team", "/nonexistent/team.txt"), "no such file"),
    ],
)
def test_bad_input_is_one_clear_error(capsys, argv, says):
    code, err = _main_exit(capsys, *argv)
    assert code == 2 and says in err and "Traceback" not in err, err


def test_empty_password_file_and_illegal_team_are_clear_errors(capsys, tmp_path):
    pw = tmp_path / "pw"
    pw.write_text("\n")
    code, err = _main_exit(capsys, *BASE, "--accept", "1", "--server", "wss://x.example", "--password-file", str(pw))
    assert code == 2 and "is empty" in err
    team = tmp_path / "team.txt"
    team.write_text(TEAM_FILE.read_text().replace("Level: 50", "Level: 50\nAbility: Huge Power", 1))
    code, err = _main_exit(capsys, *BASE, "--accept", "1", "--team", str(team))
    assert code == 2 and "rejected by Showdown's validator" in err and str(team) in err, err


def test_missing_node_and_unreachable_server_are_clear_errors(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))  # no node on it
    code, err = _main_exit(capsys, *BASE, "--accept", "1", "--out", str(tmp_path / "run"))
    assert code == 2 and "Node.js was not found" in err
    monkeypatch.undo()
    from league.showdown import free_port

    code, err = _main_exit(
        capsys, *BASE, "--accept", "1", "--server", f"ws://127.0.0.1:{free_port()}", "--login-server", "none"
    )
    assert code == 2 and "cannot connect to ws://127.0.0.1:" in err and "Traceback" not in err, err


def test_ladder_in_a_format_the_server_does_not_ladder_is_reported(capsys, caplog, fleet):
    """Reg C is not ladderable on Showdown 0.11.11: the server's refusal comes back as the
    reason of an unplayed battle (errors 1, exit code 1), not as a hang. The login server
    given cannot be reached: without a password the name is sent alone, which this server
    (no login security) takes."""
    from league.showdown import free_port

    login = f"http://127.0.0.1:{free_port()}/action.php"
    code, out, err = _main_exit_out(
        capsys, *BASE, "--ladder", "1", "--server", fleet.servers[0].url, "--login-server", login, "--wait", "30"
    )
    assert "cannot be reached" in caplog.text and "sending the name alone" in caplog.text, caplog.text
    s = json.loads(out.strip().splitlines()[-1])
    assert code == 1 and s["errors"] == 1 and s["battles"] == 0, s
    assert len(s["unplayed"]) == 1 and "not ladderable" in s["unplayed"][0], s


def test_a_password_needs_the_login_server(capsys, tmp_path, fleet):
    """With --password-file the login server must answer: one that cannot be reached is a
    clear error (exit 2), not a name sent without its password."""
    from league.showdown import free_port

    pw = tmp_path / "pw"
    pw.write_text("hunter2\n")
    pw.chmod(0o600)
    code, err = _main_exit(
        capsys,
        *BASE,
        "--accept",
        "1",
        "--server",
        fleet.servers[0].url,
        "--login-server",
        f"http://127.0.0.1:{free_port()}/action.php",
        "--password-file",
        str(pw),
    )
    assert code == 2 and "error: the login server http://127.0.0.1:" in err and "cannot be reached" in err, err
    assert "Traceback" not in err
