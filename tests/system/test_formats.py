"""Training on another format: smoke runs of `python -m league.run` on Reg G with its
own pool and on Reg M-B (Pokemon Champions) with the shipped one (real Showdown, real
processes), and a format the league cannot play refused before any work."""

from __future__ import annotations

import json
import shutil

import pytest

from league.teams import DEFAULT_POOLS_DIR
from tests.conftest import ROOT
from tests.system.test_run import _pids_under, _run

pytestmark = [pytest.mark.slow, pytest.mark.integration]

REG_G = "gen9vgc2024regg"


def test_smoke_on_reg_g_with_its_own_pool(tmp_path):
    pool = tmp_path / "pool"
    shutil.copytree(DEFAULT_POOLS_DIR / REG_G, pool)  # any directory of Reg G teams
    run_dir = tmp_path / "run"
    out = _run(["experiment=smoke", f"showdown.format={REG_G}", f"showdown.teams={pool}",
                f"hydra.run.dir={run_dir}"])
    assert out.returncode == 0, out.stderr[-3000:]
    summary = json.loads(out.stdout.strip().splitlines()[-1])
    assert summary["errors"] == 0 and summary["showdown_errors"] == 0, summary
    assert summary["updates"] >= 6 and summary["battles"] > 0 and summary["stop_reason"] == "max_updates"
    assert _pids_under(run_dir) == []


def test_smoke_on_reg_mb_with_its_shipped_pool(tmp_path):
    """Pokemon Champions Reg M-B end to end (Mega Evolution in the codec, the Champions
    dex in the encoder, the shipped pool validated at start): no error of any kind."""
    run_dir = tmp_path / "run"
    out = _run(["experiment=smoke", "showdown.format=gen9championsvgc2026regmb", f"hydra.run.dir={run_dir}"])
    assert out.returncode == 0, out.stderr[-3000:]
    summary = json.loads(out.stdout.strip().splitlines()[-1])
    assert summary["errors"] == 0 and summary["showdown_errors"] == 0, summary
    assert summary["updates"] >= 6 and summary["battles"] > 0 and summary["stop_reason"] == "max_updates"
    assert _pids_under(run_dir) == []


@pytest.mark.parametrize("fmt, needle", [
    ("gen9vgc2024reg", "is not a format of pokemon-showdown 0.11.11; closest: gen9vgc2024regg"),
    ("gen9doublesou", "is not supported: it brings the whole team"),
    ("gen9randombattle", "is not supported: it is a singles format"),
])
def test_a_format_the_league_cannot_play_is_one_error_before_work(tmp_path, fmt, needle):
    out = _run(["experiment=smoke", f"showdown.format={fmt}", f"hydra.run.dir={tmp_path}"], timeout=120)
    assert out.returncode == 2
    lines = [ln for ln in out.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith(f"error: showdown.format '{fmt}'") and needle in lines[0], out.stderr
    assert "The league plays: gen9vgc2023regc" in lines[0]
    assert not (tmp_path / "showdown").exists() and not (tmp_path / "checkpoints").exists()
