"""Real battles on a real Showdown server: legality, baselines, replay fidelity, CLIs."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys

import numpy as np
import pytest

from league.battle.context import make_decision
from league.battle.obs import OBS_DIM
from league.battle.replay import RecordingMixin, replay
from league.match import play_matches
from league.players import HeuristicPlayer, MaxDamagePlayer, RandomPlayer
from tests.conftest import ROOT

pytestmark = pytest.mark.integration


def test_random_vs_random_sends_no_illegal_choice(fleet, packed_teams):
    result = asyncio.run(
        play_matches(fleet, RandomPlayer, RandomPlayer, 60, packed_teams, packed_teams, concurrency=16, seed=3)
    )
    assert result.showdown_errors == 0, result.error_examples
    assert result.unfinished == 0 and result.battles == 60
    assert result.decisions > 60 * 10


class ForcedCounter(RandomPlayer):
    """Notes every turn a player answers without choosing (answer_forced): its mask and
    the order sent."""

    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        self.answered: list[tuple[int, int]] = []  # (legal orders, order sent)

    def _finish_turn(self, j, d, ctx):
        if d.only >= 0:
            assert d.obs is None
            self.answered.append((int(d.mask.sum()), j))
        return super()._finish_turn(j, d, ctx)


def test_a_turn_with_one_legal_order_is_answered_with_it_and_showdown_takes_it(fleet, packed_teams):
    """Forced turns (a forced switch to the last Pokemon standing) get no choice, only
    their one order, and Showdown accepts every one. 16 battles: a side losing its last
    two Pokemon one at a time meets one in nearly every battle."""
    players = []

    def factory(**kw):
        players.append(ForcedCounter(**kw))
        return players[-1]

    result = asyncio.run(play_matches(fleet, factory, factory, 16, packed_teams, packed_teams, concurrency=8, seed=7))
    assert result.showdown_errors == 0, result.error_examples
    assert result.battles == 16
    answered = [a for p in players for a in p.answered]
    assert len(answered) >= 4 and sum(p.forced for p in players) == len(answered)
    assert all(n == 1 for n, _ in answered)


@pytest.mark.parametrize("player, seed", [(MaxDamagePlayer, 4), (HeuristicPlayer, 5)], ids=["maxdamage", "heuristic"])
def test_scripted_baseline_beats_random_with_no_illegal_choice(fleet, packed_teams, player, seed):
    result = asyncio.run(
        play_matches(fleet, player, RandomPlayer, 40, packed_teams, packed_teams, concurrency=16, seed=seed)
    )
    assert result.showdown_errors == 0, result.error_examples
    assert result.battles == 40
    assert result.p1_wins / result.battles >= 0.75


class LiveRecorder(RecordingMixin, RandomPlayer):
    """Records protocol lines and, at each decision, the live observation and mask."""

    encode_observations = True
    answer_forced = False  # every decision encoded, those with one legal order too

    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        self.live: dict[str, list[tuple[np.ndarray, np.ndarray]]] = {}

    def choose_preview(self, battle, d):
        self.live.setdefault(battle.battle_tag, []).append((d.obs.copy(), d.mask.copy()))
        return super().choose_preview(battle, d)

    def choose_turn(self, battle, d):
        self.live.setdefault(battle.battle_tag, []).append((d.obs.copy(), d.mask.copy()))
        return super().choose_turn(battle, d)


def test_replayed_protocol_reproduces_live_observations_and_masks(fleet, packed_teams):
    players = []

    def factory(**kw):
        players.append(LiveRecorder(**kw))
        return players[-1]

    result = asyncio.run(play_matches(fleet, factory, factory, 6, packed_teams, packed_teams, concurrency=6, seed=5))
    assert result.battles == 6
    compared = 0
    for p in players:
        for tag, lines in p.recordings.items():
            live = p.live[tag]
            replayed = [make_decision(b, ctx) for b, ctx in replay(lines, p.username)]
            assert len(replayed) == len(live)
            for (obs, mask), d in zip(live, replayed):
                assert obs.shape == (OBS_DIM,) and np.isfinite(obs).all()
                np.testing.assert_array_equal(d.mask, mask)
                np.testing.assert_array_equal(d.obs, obs)
                compared += 1
    assert compared > 6 * 2 * 5


def test_battle_cli_prints_json_summary_last(tmp_path, pool_dir):
    cmd = [
        sys.executable,
        "-m",
        "tools.battle",
        "--p1",
        "maxdamage",
        "--p2",
        "random",
        "-n",
        "12",
        "--concurrency",
        "6",
        "--out",
        str(tmp_path / "run"),
    ]
    if pool_dir is not None:
        cmd += ["--teams", str(pool_dir)]
    out = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    summary = json.loads(out.stdout.strip().splitlines()[-1])
    for key in (
        "battles",
        "p1_wins",
        "p2_wins",
        "p1_win_rate",
        "ci95",
        "battles_per_s",
        "decisions_per_s",
        "showdown_errors",
        "unfinished",
    ):
        assert key in summary
    assert summary["battles"] == 12 and summary["unfinished"] == 0 and summary["showdown_errors"] == 0
    lo, hi = summary["ci95"]
    assert 0 <= lo <= summary["p1_win_rate"] <= hi <= 1
    assert (tmp_path / "run" / "showdown" / "worker-0.log").exists()


def test_bench_encode_prints_figures(tmp_path):
    out = subprocess.run(
        [sys.executable, "-m", "tools.bench", "encode", "--battles", "2", "--repeat", "1"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    figures = json.loads(out.stdout.strip().splitlines()[-1])
    assert figures["states"] > 10
    assert figures["encode_ms_median"] > 0 and figures["mask_ms_median"] > 0


def test_bench_replays_prints_figures_for_our_own_battles_as_replays():
    """tools.bench replays at smoke size: recorded Reg M-B battles written as the replay
    site's .json files, cycled to 12, parsed on two processes; every one read."""
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "tools.bench",
            "replays",
            "--logs",
            str(ROOT / "tests" / "data" / "regmb_logs"),
            "--replays",
            "12",
            "--workers",
            "2",
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    f = json.loads(out.stdout.strip().splitlines()[-1])
    assert (f["replays"], f["battles"], f["errors"], f["distinct_logs"]) == (12, 12, 0, 3)
    assert f["format"] == "gen9championsvgc2026regmb" and f["replays_per_s"] > 0 and f["peak_rss_mb_main"] > 0
    assert 0 < f["decisions"] <= f["decisions_total"]
