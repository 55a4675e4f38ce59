"""The package as a user installs it: a wheel built from the project, installed into a
fresh virtual environment (reusing this environment's torch and the other dependencies,
not its editable copy of the project), its `league` command run from an empty
directory, Showdown installed by the package itself into a user cache (npm, offline
from npm's cache where `make setup` left the pinned tarball)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig

import pytest
import torch

from tests.conftest import ROOT, left_behind

pytestmark = [pytest.mark.slow, pytest.mark.integration]


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """(the venv's `league` command, the environment to run it with)."""
    base = tmp_path_factory.mktemp("install")
    src = base / "src"  # the project's files as git knows them (no build/ left in the checkout)
    files = subprocess.run(
        ["git", "ls-files", "-co", "--exclude-standard"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    for f in files:
        if (ROOT / f).is_file() and not f.startswith(("tests/", "experiments/", "docs/")):
            (src / f).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / f, src / f)
    wheels = base / "wheels"
    out = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(wheels), str(src)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    (wheel,) = wheels.glob("league-*.whl")
    venv = base / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    py = venv / "bin" / "python"
    site = subprocess.run(
        [py, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], capture_output=True, text=True
    ).stdout.strip()
    # the dependencies (torch, poke-env, ...) from this environment, after the venv's own packages
    (venv / site.split(str(venv) + "/")[1] / "deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    out = subprocess.run(
        [py, "-m", "pip", "install", "--no-deps", "--no-index", "-q", str(wheel)], capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr[-3000:]
    env = {k: v for k, v in os.environ.items() if k not in ("LEAGUE_SHOWDOWN_DIR", "PYTHONPATH")}
    env["LEAGUE_CACHE_DIR"] = str(base / "cache")
    return venv / "bin" / "league", env, base


def test_the_installed_league_command_runs_the_smoke_experiment_from_an_empty_directory(installed):
    league, env, base = installed
    empty, run_dir = base / "empty", base / "run"
    empty.mkdir()

    def run(*args, timeout=300):
        return subprocess.run([league, *args], cwd=empty, env=env, capture_output=True, text=True, timeout=timeout)

    where = subprocess.run(
        [league.parent / "python", "-c", "import league, tools; print(league.__file__, tools.__file__)"],
        cwd=empty,
        env=env,
        capture_output=True,
        text=True,
    ).stdout
    assert str(ROOT) not in where and str(base / "venv") in where, where  # the wheel's code, not the checkout's
    out = run("run", "experiment=smoke", f"hydra.run.dir={run_dir}")
    assert out.returncode == 0, out.stderr[-3000:]
    assert "installing pokemon-showdown@0.11.11" in out.stderr  # once, into the user cache
    assert (base / "cache" / "showdown-0.11.11" / "node_modules" / "pokemon-showdown" / "package.json").is_file()
    summary = json.loads(out.stdout.strip().splitlines()[-1])
    assert summary["run_dir"] == str(run_dir)
    assert json.loads((run_dir / "summary.json").read_text()) == summary  # the run's record
    log = (run_dir / "run.log").read_text()
    assert "/4 min, ETA" in log and "updates      0" in log and json.dumps(summary) in log  # the console lines
    assert summary["updates"] >= 6 and summary["battles"] > 0
    assert summary["showdown_errors"] == 0
    assert summary["checkpoint"] and os.path.isfile(summary["checkpoint"])
    assert list((run_dir / "tb").glob("events.out.tfevents.*"))
    state = torch.load(summary["checkpoint"], weights_only=True)
    assert state["learner"]["steps"] == summary["updates"]
    assert {"net", "target", "reg", "reg_prev", "opt"} <= set(state["learner"])
    assert left_behind(run_dir) == []
    assert sorted(p.name for p in empty.iterdir()) == []  # nothing written where it was run

    # a second run in the same directory without resume=true: one error, nothing changed
    def files(skip_hydra: bool = False) -> dict:
        return {
            p: p.read_bytes() for p in run_dir.rglob("*") if p.is_file() and not (skip_hydra and ".hydra" in p.parts)
        }

    before = files()
    again = run("run", "experiment=smoke", f"hydra.run.dir={run_dir}", timeout=120)  # refused before Hydra writes
    assert again.returncode == 2 and "holds the checkpoints of an earlier run" in again.stderr, again.stderr[-2000:]
    assert "resume=true" in again.stderr and "new directory" in again.stderr
    assert "installing" not in again.stderr  # Showdown found in the cache now
    assert files() == before
    # a sweep's job there (Hydra has written the job's .hydra/ by then): the job is refused, nothing else changes
    again = run(
        "run",
        "--multirun",
        "experiment=smoke",
        f"hydra.sweep.dir={base}",
        f"hydra.sweep.subdir={run_dir.name}",
        timeout=120,
    )
    assert again.returncode != 0 and "holds the checkpoints of an earlier run" in again.stderr, again.stderr[-2000:]
    assert files(skip_hydra=True) == {p: b for p, b in before.items() if ".hydra" not in p.parts}
    # the tools are commands of it too
    out = run("battle", "--p1", "random", "--p2", "maxdamage", "-n", "2", "--servers", "1", timeout=180)
    assert out.returncode == 0, out.stderr[-2000:]
    assert json.loads(out.stdout.strip().splitlines()[-1])["battles"] == 2
    assert run("bogus").returncode == 2
