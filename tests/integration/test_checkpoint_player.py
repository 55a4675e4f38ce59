"""A checkpoint plays through tools.battle (checkpoint:PATH), and bad checkpoints are clear errors."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
import torch

from league.checkpoint import CheckpointError, load_policy_net, save_checkpoint
from league.learn.learner import Learner, LearnerConfig
from league.model.net import ModelConfig, model_cfg_dict
from tests.conftest import ROOT

pytestmark = pytest.mark.integration
SMALL = ModelConfig(mon_dim=16, torso_dim=32, core_dim=32)


def _ckpt(tmp_path):
    L = Learner(LearnerConfig(), SMALL)
    state = {"learner": L.state_dict(), "model_cfg": model_cfg_dict(SMALL, "gen9vgc2023regc"), "counters": {}}
    return save_checkpoint(tmp_path, state, 0)


def test_checkpoint_spec_plays_without_errors(tmp_path):
    path = _ckpt(tmp_path)
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "tools.battle",
            "--p1",
            f"checkpoint:{path}",
            "--p2",
            "random",
            "-n",
            "8",
            "--concurrency",
            "8",
            "--out",
            str(tmp_path / "run"),
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    s = json.loads(out.stdout.strip().splitlines()[-1])
    assert s["battles"] == 8 and s["showdown_errors"] == 0


def test_an_admitted_main_exploiter_replays_with_its_team_file(tmp_path, install):
    """The exploiter's team is written beside its final weights; tools.battle plays the
    member with it (checkpoint:PATH, --p1-teams <id>_team.txt) against its victim."""
    import re

    from league.population.exploiters import ExploiterConfig, ExploiterManager
    from league.population.league import LeagueConfig, LeagueManager
    from league.teams import DEFAULT_POOLS_DIR, TeamRepository

    pool = tmp_path / "pool"
    (pool / "sun").mkdir(parents=True)
    src = DEFAULT_POOLS_DIR / "gen9vgc2023regc" / "01-sun-torkoal.txt"
    (pool / "sun" / src.name).write_text(src.read_text())
    (pool / "other.txt").write_text((DEFAULT_POOLS_DIR / "gen9vgc2023regc" / "02-rain-pelipper.txt").read_text())
    teams = TeamRepository(install).load("gen9vgc2023regc", pool)
    league = LeagueManager(LeagueConfig(), tmp_path / "run", resume=False)
    league.on_checkpoint(str(_ckpt(tmp_path / "main")), 10)
    mgr = ExploiterManager(
        ExploiterConfig(enabled=True, first_after=0, init="main", team_tag="sun"),
        league,
        teams,
        0,
        lambda lane, m: None,
        lambda cmd: None,
    )
    mgr.tick(10)
    mid = mgr.lanes[0].exploiter
    victim = league.registry.get(league.registry.get(mid).victim).checkpoint
    assert mgr.lanes[0].init_checkpoint == victim
    final = _ckpt(tmp_path / "run" / "exploiters" / mid)  # what its learner process would write
    mgr.on_learner_final(mid, str(final))
    mgr.on_eval(mid, 7.0, 10)
    m = league.registry.get(mid)
    assert m.status == "active" and m.team_file == str(final.parent / f"{mid}_team.txt")
    assert open(m.team_file).read() == src.read_text()
    replays = tmp_path / "replays"
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "tools.battle",
            "--p1",
            f"checkpoint:{m.checkpoint}",
            "--p1-teams",
            m.team_file,
            "--p2",
            f"checkpoint:{victim}",
            "-n",
            "4",
            "--servers",
            "1",
            "--concurrency",
            "4",
            "--save-replays",
            str(replays),
            "--out",
            str(tmp_path / "battle"),
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    s = json.loads(out.stdout.strip().splitlines()[-1])
    assert s["battles"] == 4 and s["showdown_errors"] == 0
    species = {b.split(" @ ")[0].split(" (")[0].strip() for b in src.read_text().split("\n\n") if b.strip()}
    for f in sorted(replays.glob("*.html")):
        p1 = {x.split(",")[0] for x in re.findall(r"^\|poke\|p1\|([^|]*)", f.read_text(), re.M)}
        assert p1 == species, (f.name, p1)  # the exploiter played its own team in every battle


def test_bad_checkpoints_are_clear_errors(tmp_path):
    bad = tmp_path / "ckpt_000000001.pt"
    bad.write_bytes(b"not a checkpoint")
    with pytest.raises(CheckpointError, match="cannot be read"):
        load_policy_net(bad)
    torch.save({"something": 1}, tmp_path / "other.pt")
    with pytest.raises(CheckpointError, match="not a league checkpoint"):
        load_policy_net(tmp_path / "other.pt")
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "tools.battle",
            "--p1",
            f"checkpoint:{tmp_path}/missing.pt",
            "--p2",
            "random",
            "-n",
            "2",
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert out.returncode == 2 and "no checkpoint file" in out.stderr
    # a network of the first observation layout (no encoder_version recorded): named, not a shape error
    old = {"learner": {"net": {"turn_head.weight": torch.zeros(1)}}, "model_cfg": vars(SMALL) | {}, "counters": {}}
    old["model_cfg"].pop("action_dim"), old["model_cfg"].pop("attn_heads")
    torch.save(old, tmp_path / "old.pt")
    with pytest.raises(
        CheckpointError,
        match="encoder version 1; this code encodes version 6 and runs networks of versions 2, 3, 4, 5, 6",
    ):
        load_policy_net(tmp_path / "old.pt")
    out = subprocess.run(
        [sys.executable, "-m", "tools.battle", "--p1", f"checkpoint:{tmp_path}/old.pt", "--p2", "random", "-n", "2"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert out.returncode == 2 and "encoder version 1" in out.stderr and "Traceback" not in out.stderr


def test_tournament_round_robin_elo_openskill_heatmap_and_order(tmp_path):
    paths = []
    for steps in (10, 5):  # given newest first: the tool orders them by training step
        L = Learner(LearnerConfig(), SMALL, seed=steps)
        L.steps = steps
        state = {"learner": L.state_dict(), "model_cfg": model_cfg_dict(SMALL, "gen9vgc2023regc"), "counters": {}}
        paths.append(str(save_checkpoint(tmp_path / f"run{steps}", state, steps)))
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "tools.tournament",
            *paths,
            "--baselines",
            "random",
            "-n",
            "4",
            "--servers",
            "1",
            "--concurrency",
            "4",
            "--out",
            str(tmp_path / "t"),
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=400,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    s = json.loads(out.stdout.strip().splitlines()[-1])
    assert s["players"] == ["ckpt_000000010", "ckpt_000000005", "random"]
    assert s["checkpoint_order"] == ["ckpt_000000005", "ckpt_000000010"]
    assert abs(sum(s["elo"].values())) < 1e-6 * 100 + 0.5 and set(s["openskill"]) == set(s["players"])
    for a in s["players"]:
        for b in s["players"]:
            if a != b:  # each pair's rates are complementary (4 games each)
                assert abs(s["win_rate"][a][b] + s["win_rate"][b][a] - 1.0) < 1e-9
    assert (
        isinstance(s["monotonic"], bool)
        and s["showdown_errors"] == 0
        and s["showdown_error_examples"] == []
        and s["unfinished"] == 0
    )
    assert (tmp_path / "t" / "tournament.png").stat().st_size > 1000


def test_sequential_tournament_over_a_run_directory(tmp_path):
    from league.checkpoint import atomic_torch_save
    from league.population.registry import Registry

    run = tmp_path / "run"
    (run / "league").mkdir(parents=True)
    reg = Registry()
    reg.add("main", id="main")
    for k, update in enumerate((30, 10, 20)):  # registered out of order: the tool sorts by training step
        path = run / "league" / f"past-{k}.pt"
        atomic_torch_save(
            {
                "learner": {"net": Learner(LearnerConfig(), SMALL, seed=k).net.state_dict()},
                "model_cfg": model_cfg_dict(SMALL, "gen9vgc2023regc"),
            },
            path,
        )
        reg.add("past", id=f"past-{k}", parent="main", created_update=update, checkpoint=str(path))
    reg.save(run / "league" / "registry.json")
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "tools.tournament",
            str(run),
            "--sequential",
            "--previous",
            "1",
            "--baselines",
            "random",
            "-n",
            "2",
            "--servers",
            "1",
            "--concurrency",
            "2",
            "--out",
            str(tmp_path / "t"),
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=400,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    s = json.loads(out.stdout.strip().splitlines()[-1])
    assert s["sequential"] and s["checkpoint_order"] == ["past-1", "past-2", "past-0"]
    assert s["pairs_played"] == 5 and "past-1" not in s["win_rate"]["past-0"]  # 10 and 30 never met
    assert [p[:2] for p in s["elo_by_step"]] == [["past-1", 10], ["past-2", 20], ["past-0", 30]]
    assert s["pairs_checked"] == 2 and s["showdown_errors"] == 0
    assert (tmp_path / "t" / "elo_vs_step.png").stat().st_size > 1000
