"""No file from outside is unpickled (league/checkpoint.py ``safe_load``): a crafted file
that would run code when unpickled is refused, and its code does not run, through every
entry that takes a network or data file; checkpoints are written as tensors and plain
data; earlier releases' checkpoints (config dataclasses, numpy's RNG key) still load.
No process, no Showdown."""

from __future__ import annotations

import dataclasses
import json
import pickle
import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

from league import checkpoint as ckpt
from league.config import Config, ConfigError, verify
from league.model.net import ModelConfig, PolicyValueNet, model_cfg_dict
from tests.conftest import ROOT


class _Payload:
    """Unpickling this runs ``exec``: it writes the marker file."""

    def __init__(self, marker: Path):
        self.marker = marker

    def __reduce__(self):
        return exec, (f"open({str(self.marker)!r}, 'w').write('ran')",)


@pytest.fixture
def evil(tmp_path) -> tuple[Path, Path]:
    """A file shaped like a checkpoint whose unpickling would write ``marker``."""
    marker = tmp_path / "marker"
    path = tmp_path / "evil.pt"
    torch.save({"learner": {"net": {}}, "model_cfg": _Payload(marker)}, path)
    return path, marker


def _network_file(path: Path) -> Path:
    ckpt.atomic_torch_save(
        {
            "learner": {"net": PolicyValueNet(ModelConfig()).state_dict()},
            "model_cfg": model_cfg_dict(ModelConfig(), "gen9vgc2023regc"),
        },
        path,
    )
    return path


def _refused(call, marker: Path, exc=ckpt.CheckpointError) -> str:
    with pytest.raises(exc) as e:
        call()
    assert not marker.exists(), "the file's code ran"
    return str(e.value)


def test_the_payload_really_runs_code_when_unpickled(evil):
    """The test's own check: without weights_only the file does write its marker."""
    path, marker = evil
    torch.load(path, weights_only=False)
    assert marker.read_text() == "ran"


def test_a_crafted_checkpoint_is_refused_by_every_loader(evil):
    from league.specs import check_spec_format, player_factory

    path, marker = evil
    msg = _refused(lambda: ckpt.load_checkpoint(path), marker)
    assert "refused" in msg and str(path) in msg and "builtins.exec" in msg
    _refused(lambda: ckpt.load_policy_net(path), marker)
    _refused(lambda: ckpt.safe_load(path), marker)
    _refused(lambda: ckpt.model_mismatch(path, ModelConfig()), marker)
    _refused(lambda: player_factory(f"checkpoint:{path}"), marker)  # tools.battle, tools.play, tools.exploit...
    _refused(lambda: check_spec_format(f"checkpoint:{path}", "gen9vgc2023regc"), marker)


@pytest.mark.parametrize("key", ["run.init_checkpoint", "league.bc_checkpoint"])
def test_a_crafted_checkpoint_setting_is_one_config_error(evil, key):
    path, marker = evil
    cfg = Config()
    cfg.run.max_minutes = 1.0  # the one thing the defaults leave to the experiment
    section, name = key.split(".")
    setattr(getattr(cfg, section), name, str(path))
    msg = _refused(lambda: verify(cfg), marker, ConfigError)
    assert key in msg and "refused" in msg


def test_resume_from_a_crafted_checkpoint_is_refused(evil, tmp_path):
    path, marker = evil
    run_dir = tmp_path / "run"
    ckpt.checkpoint_dir(run_dir).mkdir(parents=True)
    path.rename(ckpt.checkpoint_dir(run_dir) / "ckpt_000000010.pt")
    _refused(lambda: ckpt.load_checkpoint(ckpt.latest_checkpoint(run_dir)), marker)


def _dataset(tmp_path: Path, chunk_name: str) -> Path:
    from league.battle.obs import ENCODER_VERSION, OBS_DIM

    d = tmp_path / "data"
    d.mkdir()
    (d / "manifest.json").write_text(
        json.dumps(
            {
                "encoder_version": ENCODER_VERSION,
                "obs_dim": OBS_DIM,
                "formats": ["gen9vgc2023regc"],
                "chunks": {"train": [{"file": chunk_name}], "heldout": [{"file": chunk_name}]},
            }
        )
    )
    return d


def test_a_crafted_bc_chunk_is_refused_by_training_and_evaluation(evil, tmp_path):
    from league.bc.train import BCConfig, eval_bc, train_bc

    path, marker = evil
    data = _dataset(tmp_path, "train_0000.pt")
    path.rename(data / "train_0000.pt")
    msg = _refused(lambda: train_bc(data, tmp_path / "out", ModelConfig(), BCConfig()), marker)
    assert "BC chunk" in msg
    good = _network_file(tmp_path / "net.pt")
    _refused(lambda: eval_bc(good, data), marker)


def test_a_crafted_bc_chunk_is_exit_2_from_tools_logit_spread(evil, tmp_path):
    path, marker = evil
    data = _dataset(tmp_path, "heldout_0000.pt")
    path.rename(data / "heldout_0000.pt")
    good = _network_file(tmp_path / "net.pt")
    out = subprocess.run(
        [sys.executable, "-m", "tools.logit_spread", str(good), "--data", str(data)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 2 and "refused" in out.stderr, out.stderr[-2000:]
    assert not marker.exists()


@pytest.mark.parametrize("name", ["../outside.pt", "/etc/passwd", "sub/x.pt", ".hidden.pt", 7, "x.pkl"])
def test_a_manifest_naming_a_chunk_outside_the_data_set_is_refused(tmp_path, name):
    from league.bc.dataset import DatasetError
    from league.bc.train import BCConfig, train_bc

    data = _dataset(tmp_path, name)
    with pytest.raises(DatasetError, match="plain file name"):
        train_bc(data, tmp_path / "out", ModelConfig(), BCConfig())
    assert not (tmp_path / "out").exists()


def test_a_data_set_of_another_encoder_is_refused_naming_the_fix(tmp_path):
    from league.bc.dataset import DatasetError
    from league.bc.train import BCConfig, train_bc

    data = _dataset(tmp_path, "train_0000.pt")
    m = json.loads((data / "manifest.json").read_text())
    (data / "manifest.json").write_text(json.dumps({**m, "encoder_version": 1, "obs_dim": 10}))
    with pytest.raises(DatasetError, match="encoder version 1 .size 10.*parse the logs again"):
        train_bc(data, tmp_path / "out", ModelConfig(), BCConfig())


@pytest.mark.parametrize("name", ["../agents/regc", "../../tests/x", "/tmp/x", "regc/../regc", ""])
def test_agent_names_stay_inside_league_agents(name):
    from league.players import PlayerSpecError
    from league.specs import policy_path

    with pytest.raises(PlayerSpecError, match="no shipped agent"):
        policy_path(f"agent:{name}")
    assert policy_path("agent:regc").parent.name == "agents"


def test_a_checkpoint_as_written_loads_with_weights_only_and_restores_the_rngs(tmp_path):
    class _L:  # what learner_state reads of a Learner
        steps = 3

        def state_dict(self):
            return {"net": PolicyValueNet(ModelConfig()).state_dict(), "steps": 3}

    state = ckpt.learner_state(_L(), {"battles": 5}, Config(), weights_version=2)
    path = ckpt.save_checkpoint(tmp_path, state, 3)
    loaded = torch.load(path, weights_only=True)  # no allow-list: tensors and plain data only
    assert loaded["config"] == dataclasses.asdict(Config()) and loaded["counters"] == {"battles": 5, "updates": 3}
    ckpt.set_rng_state(loaded["rng"])
    draws = (torch.rand(2).tolist(), np.random.rand(2).tolist(), random.random())
    ckpt.set_rng_state(loaded["rng"])
    assert (torch.rand(2).tolist(), np.random.rand(2).tolist(), random.random()) == draws


def test_an_earlier_releases_checkpoint_still_loads(tmp_path):
    """Before: the config dataclass itself and numpy's RNG state as a tuple with an array."""
    path = tmp_path / "ckpt_000000004.pt"
    torch.save(
        {
            "learner": {"net": PolicyValueNet(ModelConfig()).state_dict()},
            "model_cfg": model_cfg_dict(ModelConfig(), "gen9vgc2023regc"),
            "config": Config(),
            "rng": {"torch": torch.get_rng_state(), "numpy": np.random.get_state(), "python": random.getstate()},
            "counters": {"updates": 4},
        },
        path,
    )
    with pytest.raises(pickle.UnpicklingError):
        torch.load(path, weights_only=True)  # what made it legacy
    state = ckpt.load_checkpoint(path)
    assert isinstance(state["config"], Config) and state["counters"] == {"updates": 4}
    ckpt.set_rng_state(state["rng"])
    first = np.random.rand()
    ckpt.set_rng_state(state["rng"])
    assert np.random.rand() == first
    assert ckpt.load_policy_net(path) is not None
