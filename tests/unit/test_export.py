"""tools.export: a small policy-only file every player spec accepts."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from league.checkpoint import CheckpointError, load_policy_net
from league.learn.learner import Learner, LearnerConfig
from league.model.net import ModelConfig, model_cfg_dict
from league.players import PlayerSpecError
from league.specs import player_factory, policy_path
from tests.recorded import recorded_steps

ROOT = Path(__file__).resolve().parents[2]


def _checkpoint(path: Path) -> Path:
    mc = ModelConfig(mon_dim=16, torso_dim=32, core_dim=32)
    L = Learner(LearnerConfig(), mc, seed=1)
    torch.save(
        {
            "learner": L.state_dict(),
            "model_cfg": model_cfg_dict(mc, "gen9vgc2023regc"),
            "counters": {"updates": 7, "battles": 90},
        },
        path,
    )
    return path


def test_exported_policy_matches_the_source_and_is_smaller(tmp_path):
    src = _checkpoint(tmp_path / "ckpt.pt")
    out = subprocess.run(
        [sys.executable, "-m", "tools.export", str(src), str(tmp_path / "agent.pt"), "--note", "t"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    info = json.loads(out.stdout.strip().splitlines()[-1])
    assert info["dtype"] == "float16" and info["source"]["updates"] == 7 and info["source"]["note"] == "t"
    assert info["bytes"] < (tmp_path / "ckpt.pt").stat().st_size / 4  # one network, half precision
    a, b = load_policy_net(src), load_policy_net(tmp_path / "agent.pt")
    obs, mask, prev = recorded_steps(T=8, B=2)
    with torch.no_grad():
        la, va, _ = a(obs, mask, prev, a.initial_state(2))
        lb, vb, _ = b(obs, mask, prev, b.initial_state(2))
    pa, pb = torch.softmax(la.float(), -1), torch.softmax(lb.float(), -1)
    assert (pa - pb).abs().max() < 1e-2 and (va - vb).abs().max() < 1e-2
    assert callable(player_factory(f"checkpoint:{tmp_path / 'agent.pt'}"))


def test_export_of_the_target_weights_plays_the_checkpoint_s_target_network(tmp_path):
    from tools.export import export

    src = _checkpoint(tmp_path / "ckpt.pt")
    state = torch.load(src, weights_only=True)
    with torch.no_grad():  # a target network that differs from the online one
        state["learner"]["target"] = {
            k: v + 0.01 if v.is_floating_point() else v for k, v in state["learner"]["net"].items()
        }
    torch.save(state, src)
    info = export(src, tmp_path / "target.pt", fp16=False, weights="target")
    assert info["source"]["weights"] == "target"
    got = load_policy_net(tmp_path / "target.pt").state_dict()
    want, online = state["learner"]["target"], state["learner"]["net"]
    assert all(torch.equal(got[k], want[k]) for k in want)
    assert not all(torch.equal(got[k], online[k]) for k in online)
    export(tmp_path / "target.pt", tmp_path / "again.pt")  # a policy-only file exports its online weights
    with pytest.raises(CheckpointError, match="holds no target weights"):
        export(tmp_path / "target.pt", tmp_path / "no.pt", weights="target")


def test_export_refuses_what_is_not_a_checkpoint(tmp_path):
    (tmp_path / "junk.pt").write_text("not torch")
    out = subprocess.run(
        [sys.executable, "-m", "tools.export", str(tmp_path / "junk.pt"), str(tmp_path / "o.pt")],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert out.returncode == 2 and "cannot be read" in out.stderr and not (tmp_path / "o.pt").exists()
    with pytest.raises(CheckpointError):
        load_policy_net(tmp_path / "junk.pt")


def test_agent_spec_names_the_shipped_agents():
    with pytest.raises(PlayerSpecError, match="no shipped agent of that name; shipped:"):
        policy_path("agent:no-such-agent")
    assert policy_path("random") is None
    for pt in sorted((ROOT / "league" / "agents").glob("*.pt")):  # every shipped agent loads and plays
        assert policy_path(f"agent:{pt.stem}") == pt
        load_policy_net(pt)
