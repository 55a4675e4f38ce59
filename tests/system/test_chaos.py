"""tools.chaos at smoke sizes: a real league run that has a stream worker killed, its
learner killed and stopped (hung), and the whole run killed and resumed, and still
passes every check (nothing lost, nothing left running, nothing half written)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.conftest import ROOT, left_behind

pytestmark = [pytest.mark.slow, pytest.mark.integration]


def _chaos(tmp_path, *args, timeout=600):
    return subprocess.run(
        [sys.executable, "-m", "tools.chaos", *args], cwd=ROOT, capture_output=True, text=True, timeout=timeout
    )


def test_a_smoke_league_survives_killed_and_stopped_components_and_a_killed_run(tmp_path):
    out = tmp_path / "chaos"
    # the faults fall where the seed puts them; each kind asked for is injected at least
    # once (--faults cycles them: a deterministic order, not a draw that may miss one; a
    # kind not up yet, as a run's workers while it starts on a busy box, is waited for)
    res = _chaos(
        tmp_path,
        "--experiment",
        "smoke",
        "--minutes",
        "1.4",
        "--every",
        "15",
        "--seed",
        "3",
        "--faults",
        "worker,learner,run",
        "--cycle",
        "--stop-share",
        "0.5",
        "--rss-from",
        "0",
        "--no-exploiters",
        "--out",
        str(out),
        "run.heartbeat_timeout_s=30",
        "run.start_timeout_s=60",  # a component stopped while still starting: found within the test
        "learner.checkpoint_every=2",
    )
    r = json.loads(res.stdout.strip().splitlines()[-1])
    assert res.returncode == 0 and r["ok"], json.dumps({k: r[k] for k in ("checks", "problems", "faults")})[-3000:]
    kinds = {f["kind"] for f in r["faults"]}
    assert kinds == {"worker", "learner", "run"} and r["starts"] >= 2
    assert r["summary"]["updates"] > 0 and r["summary"]["learner_restarts"] >= 0
    assert set(r["rss_mb"]["first"]) >= {"main", "learner", "simulator"}
    assert json.loads((out / "chaos.json").read_text()) == r
    assert left_behind(out) == []


def test_bad_input_is_exit_2_before_any_run(tmp_path):
    for args in (
        ["--minutes", "1", "--every", "5", "--faults", "bogus"],
        ["--minutes", "0", "--every", "5"],
        ["--minutes", "1", "--every", "5", "resume=true"],
    ):
        res = _chaos(tmp_path, *args, "--out", str(tmp_path / "x"), timeout=60)
        assert res.returncode == 2 and res.stderr.strip(), res.stderr
    assert not (tmp_path / "x").exists()
