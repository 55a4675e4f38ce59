"""The tools' shared command line: every `--help` works and changes nothing, bad input is
exit code 2 everywhere, the sub-commands that play take `--format` (a bad one stops them
before anything starts), and tools.battle lets a side bring its own team and saves replays."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT

TOOLS = sorted(p.stem for p in (ROOT / "tools").glob("*.py") if p.stem not in ("__init__", "cli"))
SUBCOMMANDS = {
    "bench": ["encode", "e2e", "backends", "learner", "infer", "sweep", "replays", "ab"],
    "bc": ["generate", "parse", "parse-replays", "train", "eval"],
    "teams": ["generate"],
}
# sub-commands that play battles (or start Showdown) take --format; the others read no
# format (logs and replays carry theirs; training, evaluation and the network benchmarks
# are the same for every format)
WITH_FORMAT = {
    "bc": ["generate"],
    "bench": ["encode", "e2e", "backends", "sweep", "replays", "ab"],
    "teams": ["generate"],
}
TEAM = ROOT / "league" / "teams" / "default" / "gen9vgc2023regc" / "01-sun-torkoal.txt"


def _tool(cwd: Path, *args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/local/bin:/usr/bin:/bin"},
    )


def test_the_tool_list_is_what_ships():
    assert {"battle", "tournament", "play", "bc", "bench", "export", "gen_vocab", "nash_report"} <= set(TOOLS)


@pytest.mark.parametrize(
    "cmd", [[t] for t in TOOLS] + [[t, s] for t, subs in SUBCOMMANDS.items() for s in subs], ids=lambda c: " ".join(c)
)
def test_every_help_exits_0_and_touches_nothing(cmd, tmp_path):
    vocab = ROOT / "league" / "battle" / "vocab.json"
    before = vocab.stat().st_mtime_ns
    out = _tool(tmp_path, f"tools.{cmd[0]}", *cmd[1:], "--help")
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("usage: python -m tools.") and len(out.stdout.splitlines()) > 3
    assert list(tmp_path.iterdir()) == [] and vocab.stat().st_mtime_ns == before


@pytest.mark.parametrize("cmd", [[t, s] for t, subs in SUBCOMMANDS.items() for s in subs], ids=lambda c: " ".join(c))
def test_the_sub_commands_that_play_take_format(cmd, tmp_path):
    out = _tool(tmp_path, f"tools.{cmd[0]}", *cmd[1:], "--help")
    assert out.returncode == 0, out.stderr
    if cmd[1] in WITH_FORMAT[cmd[0]]:
        assert re.search(r"--format FORMAT\s+Showdown format id \(default: gen9vgc2023regc\)", out.stdout), out.stdout
    else:
        assert "--format" not in out.stdout, out.stdout


@pytest.mark.parametrize(
    "args, needle",
    [
        (
            ["tools.bc", "generate", "-n", "1", "--out", "logs"],
            "format 'gen9doublesou' ([Gen 9] Doubles OU) is not supported",
        ),
        (["tools.bench", "encode", "-n", "1"], "format 'gen9doublesou' ([Gen 9] Doubles OU) is not supported"),
        (["tools.bench", "e2e", "--seconds", "1"], "format 'gen9vgc2024reg' is not a format of"),
        (["tools.bench", "backends", "--seconds", "1"], "format 'gen9vgc2024reg' is not a format of"),
        (["tools.bench", "sweep", "--seconds", "1"], "format 'gen9vgc2024reg' is not a format of"),
        (
            ["tools.bench", "ab", "--seconds", "1", "--b", "sim.compile=true"],
            "format 'gen9vgc2024reg' is not a format of",
        ),
    ],
    ids=lambda a: " ".join(a[:2]) if isinstance(a, list) else None,
)
def test_a_bad_format_is_one_error_and_exit_2_before_anything_starts(args, needle, tmp_path):
    bad = needle.split("'")[1]
    out = _tool(tmp_path, *args, "--format", bad)
    assert out.returncode == 2, (out.stdout, out.stderr)
    assert out.stderr.startswith(f"error: {needle}") and out.stderr.count("\n") == 1, out.stderr
    assert "The league plays: gen9vgc2023regc" in out.stderr
    assert out.stdout == "" and list(tmp_path.iterdir()) == []  # no fleet, no run, no log directory


@pytest.mark.parametrize(
    "args, needle",
    [
        (["tools.battle", "--p1", "random", "--p2", "random", "-n", "0"], "-n"),
        (["tools.battle", "--p1", "nobody", "--p2", "random"], "unknown player spec"),
        (["tools.battle", "--p1", "random", "--p2", "random", "--p1-teams", "missing_dir"], "missing_dir"),
        (["tools.tournament", "missing.pt", "--baselines", "random"], "missing.pt"),
        (["tools.bc", "eval", "missing.pt", "."], "no model file"),
        (["tools.bc", "generate", "-n", "1", "--out", "x", "--p1", "random"], "--p2"),
        (["tools.export", "missing.pt", "out.pt"], "no checkpoint file"),
        (["tools.nash_report", "missing_run"], "league run directory"),
        (["tools.sweep_report", "missing_sweep"], "not a directory"),
        (["tools.logit_spread", "x.pt", "--data", "missing_data"], "not a directory"),
        (["tools.play", "--agent", "random", "--user", "u", "--accept", "1", "--server", "http://x"], "ws"),
        (["tools.battle", "--p1", "random", "--p2", "random", "--bogus-flag"], "unrecognized"),
        (["tools.bench", "backends", "--backends", "stream,ws"], "--backends 'stream,ws': a comma-separated list"),
        (["tools.bench", "backends", "--rounds", "0"], "--rounds 0: at least 1"),
        (
            ["tools.bench", "learner", "--set", "learner.rnad.vtrace_net=bogus"],
            "learner.rnad.vtrace_net must be one of target, online",
        ),
        (["tools.bench", "learner", "--set", "learner.nope=1"], "Key 'nope' not in 'LearnerConfig'"),
        (["tools.battle", "--p1", "random", "--p2", "random", "--format", "gen9doublesou"], "not supported"),
        (
            [
                "tools.battle",
                "--p1",
                "random",
                "--p2",
                "random",
                "--format",
                "gen94v4doublesdraft",
                "--open-team-sheets",
            ],
            'no "Open Team Sheets" rule',
        ),
        (
            ["tools.exploit", "maxdamage", "--minutes", "1", "--format", "gen94v4doublesdraft", "--open-team-sheets"],
            "Open Team Sheets",
        ),
        (["tools.tournament", "x.pt", "--format", "gen94v4doublesdraft", "--open-team-sheets"], "Open Team Sheets"),
        (
            ["tools.play", "--agent", "random", "--user", "u", "--accept", "1", "--format", "gen9vgc2024reg"],
            "closest: gen9vgc2024regg",
        ),
    ],
    ids=lambda a: a[0] if isinstance(a, list) else None,
)
def test_bad_input_is_one_error_and_exit_2(args, needle, tmp_path):
    out = _tool(tmp_path, *args)
    assert out.returncode == 2, (out.stdout, out.stderr)
    assert needle in out.stderr, out.stderr


def test_battle_with_a_side_s_own_team_saves_one_replay_per_battle(tmp_path):
    replays = tmp_path / "replays"
    out = _tool(
        tmp_path,
        "tools.battle",
        "--p1",
        "maxdamage",
        "--p2",
        "random",
        "-n",
        "10",
        "--p1-teams",
        str(TEAM),
        "--save-replays",
        str(replays),
        "--servers",
        "1",
        "--concurrency",
        "5",
        "--out",
        str(tmp_path / "run"),
        timeout=300,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    summary = json.loads(out.stdout.strip().splitlines()[-1])
    assert summary["battles"] == 10 and summary["showdown_errors"] == 0
    files = sorted(replays.glob("*.html"))
    assert len(files) == 10
    species = {ln.split(" @ ")[0].split(" (")[0].strip() for ln in TEAM.read_text().split("\n\n") if ln.strip()}
    for f in files:
        html = f.read_text()
        assert "battle-log-data" in html and re.search(r"^\|win\|", html, re.M), f.name
        p1 = {m.split(",")[0] for m in re.findall(r"^\|poke\|p1\|([^|]*)", html, re.M)}
        assert p1 == species, (f.name, p1, species)  # side 1 always brought its own team


@pytest.mark.parametrize("bad", ["sim.compile", "env:LEAGUE_ACCEL", "env:=0", "env:A B=1"])
def test_bench_ab_refuses_an_override_without_a_value_before_anything_starts(tmp_path, bad):
    out = _tool(tmp_path, "tools.bench", "ab", "--b", bad)
    assert out.returncode == 2 and out.stderr == (
        f"error: --a/--b {bad!r}: an override is KEY=VALUE (e.g. sim.compile=true) or env:NAME=VALUE "
        "(e.g. env:LEAGUE_ACCEL=0)\n"
    )
    assert out.stdout == "" and list(tmp_path.iterdir()) == []
