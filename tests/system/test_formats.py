"""Training on another format: smoke runs of `python -m league.run` on Reg G with its
own pool and on Reg M-B (Pokemon Champions) with the shipped one (real Showdown, real
processes), and a format the league cannot play refused before any work."""

from __future__ import annotations

import json
import shutil

import pytest

from league.teams import DEFAULT_POOLS_DIR
from tests.system.test_run import _pids_under, _run

pytestmark = [pytest.mark.slow, pytest.mark.integration]

REG_G = "gen9vgc2024regg"
REG_MB = "gen9championsvgc2026regmb"


def test_smoke_on_reg_g_with_its_own_pool(tmp_path):
    pool = tmp_path / "pool"
    shutil.copytree(DEFAULT_POOLS_DIR / REG_G, pool)  # any directory of Reg G teams
    run_dir = tmp_path / "run"
    out = _run(["experiment=smoke", f"showdown.format={REG_G}", f"showdown.teams={pool}", f"hydra.run.dir={run_dir}"])
    assert out.returncode == 0, out.stderr[-3000:]
    summary = json.loads(out.stdout.strip().splitlines()[-1])
    assert summary["errors"] == 0 and summary["showdown_errors"] == 0, summary
    assert summary["updates"] >= 6 and summary["battles"] > 0 and summary["stop_reason"] == "max_updates"
    assert _pids_under(run_dir) == []


def test_smoke_on_reg_mb_with_its_shipped_pool(tmp_path):
    """Pokemon Champions Reg M-B end to end (Mega Evolution in the codec, the Champions
    dex in the encoder and the network's move table, the shipped pool validated at
    start): no error of any kind; its checkpoints record the format and its data, and
    Reg C's agent is refused as its starting point before any work."""
    from league.checkpoint import latest_checkpoint, load_checkpoint, load_policy_net
    from league.specs import AGENTS_DIR

    run_dir = tmp_path / "run"
    out = _run(["experiment=smoke", f"showdown.format={REG_MB}", f"hydra.run.dir={run_dir}"])
    assert out.returncode == 0, out.stderr[-3000:]
    summary = json.loads(out.stdout.strip().splitlines()[-1])
    assert summary["errors"] == 0 and summary["showdown_errors"] == 0, summary
    assert summary["updates"] >= 6 and summary["battles"] > 0 and summary["stop_reason"] == "max_updates"
    assert _pids_under(run_dir) == []
    ckpt = latest_checkpoint(run_dir)
    mc = load_checkpoint(ckpt)["model_cfg"]
    assert mc["formats"] == [REG_MB] and mc["data"] == "champions"
    assert load_policy_net(ckpt, format_id=REG_MB).data == "champions"
    for member in (run_dir / "league").glob("*.pt"):  # frozen members carry it too
        assert load_checkpoint(member)["model_cfg"]["data"] == "champions", member
    out = _run(
        [
            "experiment=smoke",
            f"showdown.format={REG_MB}",
            f"run.init_checkpoint={AGENTS_DIR / 'regc.pt'}",
            f"hydra.run.dir={tmp_path / 'init'}",
        ],
        timeout=120,
    )
    assert out.returncode == 2 and "run.init_checkpoint" in out.stderr, out.stderr[-3000:]
    assert (
        "was trained for gen9vgc2023regc (Scarlet/Violet data)" in out.stderr
        and "Pokemon Champions format" in out.stderr
    )
    assert not (tmp_path / "init" / "checkpoints").exists()


@pytest.mark.parametrize(
    "fmt, needle",
    [
        ("gen9vgc2024reg", "is not a format of pokemon-showdown 0.11.11; closest: gen9vgc2024regg"),
        ("gen9doublesou", "is not supported: it brings the whole team"),
        ("gen9randombattle", "is not supported: it is a singles format"),
    ],
)
def test_a_format_the_league_cannot_play_is_one_error_before_work(tmp_path, fmt, needle):
    out = _run(["experiment=smoke", f"showdown.format={fmt}", f"hydra.run.dir={tmp_path}"], timeout=120)
    assert out.returncode == 2
    lines = [ln for ln in out.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith(f"error: showdown.format '{fmt}'") and needle in lines[0], out.stderr
    assert "The league plays: gen9vgc2023regc" in lines[0]
    assert not (tmp_path / "showdown").exists() and not (tmp_path / "checkpoints").exists()
