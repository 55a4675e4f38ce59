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
    state = {"learner": L.state_dict(), "model_cfg": model_cfg_dict(SMALL), "counters": {}}
    return save_checkpoint(tmp_path, state, 0)


def test_checkpoint_spec_plays_without_errors(tmp_path):
    path = _ckpt(tmp_path)
    out = subprocess.run([sys.executable, "-m", "tools.battle", "--p1", f"checkpoint:{path}", "--p2", "random",
                          "-n", "8", "--concurrency", "8", "--out", str(tmp_path / "run")],
                         capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    s = json.loads(out.stdout.strip().splitlines()[-1])
    assert s["battles"] == 8 and s["showdown_errors"] == 0


def test_bad_checkpoints_are_clear_errors(tmp_path):
    bad = tmp_path / "ckpt_000000001.pt"
    bad.write_bytes(b"not a checkpoint")
    with pytest.raises(CheckpointError, match="cannot be read"):
        load_policy_net(bad)
    torch.save({"something": 1}, tmp_path / "other.pt")
    with pytest.raises(CheckpointError, match="not a league checkpoint"):
        load_policy_net(tmp_path / "other.pt")
    out = subprocess.run([sys.executable, "-m", "tools.battle", "--p1", f"checkpoint:{tmp_path}/missing.pt",
                          "--p2", "random", "-n", "2"], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert out.returncode == 2 and "no checkpoint file" in out.stderr
    # a network of the first observation layout (no encoder_version recorded): named, not a shape error
    old = {"learner": {"net": {"turn_head.weight": torch.zeros(1)}}, "model_cfg": vars(SMALL) | {}, "counters": {}}
    old["model_cfg"].pop("action_dim"), old["model_cfg"].pop("attn_heads")
    torch.save(old, tmp_path / "old.pt")
    with pytest.raises(CheckpointError, match="encoder version 1; this code encodes version 2"):
        load_policy_net(tmp_path / "old.pt")
    out = subprocess.run([sys.executable, "-m", "tools.battle", "--p1", f"checkpoint:{tmp_path}/old.pt",
                          "--p2", "random", "-n", "2"], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert out.returncode == 2 and "encoder version 1" in out.stderr and "Traceback" not in out.stderr


def test_tournament_round_robin_elo_openskill_heatmap_and_order(tmp_path):
    paths = []
    for steps in (10, 5):  # given newest first: the tool orders them by training step
        L = Learner(LearnerConfig(), SMALL, seed=steps)
        L.steps = steps
        state = {"learner": L.state_dict(), "model_cfg": model_cfg_dict(SMALL), "counters": {}}
        paths.append(str(save_checkpoint(tmp_path / f"run{steps}", state, steps)))
    out = subprocess.run([sys.executable, "-m", "tools.tournament", *paths, "--baselines", "random", "-n", "4",
                          "--servers", "1", "--concurrency", "4", "--out", str(tmp_path / "t")],
                         capture_output=True, text=True, cwd=ROOT, timeout=400)
    assert out.returncode == 0, out.stderr[-2000:]
    s = json.loads(out.stdout.strip().splitlines()[-1])
    assert s["players"] == ["ckpt_000000010", "ckpt_000000005", "random"]
    assert s["checkpoint_order"] == ["ckpt_000000005", "ckpt_000000010"]
    assert abs(sum(s["elo"].values())) < 1e-6 * 100 + 0.5 and set(s["openskill"]) == set(s["players"])
    for a in s["players"]:
        for b in s["players"]:
            if a != b:  # each pair's rates are complementary (4 games each)
                assert abs(s["win_rate"][a][b] + s["win_rate"][b][a] - 1.0) < 1e-9
    assert isinstance(s["monotonic"], bool) and s["showdown_errors"] == 0 and s["unfinished"] == 0
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
        atomic_torch_save({"learner": {"net": Learner(LearnerConfig(), SMALL, seed=k).net.state_dict()},
                           "model_cfg": model_cfg_dict(SMALL)}, path)
        reg.add("past", id=f"past-{k}", parent="main", created_update=update, checkpoint=str(path))
    reg.save(run / "league" / "registry.json")
    out = subprocess.run([sys.executable, "-m", "tools.tournament", str(run), "--sequential", "--previous", "1",
                          "--baselines", "random", "-n", "2", "--servers", "1", "--concurrency", "2",
                          "--out", str(tmp_path / "t")], capture_output=True, text=True, cwd=ROOT, timeout=400)
    assert out.returncode == 0, out.stderr[-2000:]
    s = json.loads(out.stdout.strip().splitlines()[-1])
    assert s["sequential"] and s["checkpoint_order"] == ["past-1", "past-2", "past-0"]
    assert s["pairs_played"] == 5 and "past-1" not in s["win_rate"]["past-0"]  # 10 and 30 never met
    assert [p[:2] for p in s["elo_by_step"]] == [["past-1", 10], ["past-2", 20], ["past-0", 30]]
    assert s["pairs_checked"] == 2 and s["showdown_errors"] == 0
    assert (tmp_path / "t" / "elo_vs_step.png").stat().st_size > 1000
