"""Short real runs of `python -m league.run` (real Showdown, real processes)."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time

import pytest
import torch

from league.checkpoint import latest_checkpoint, list_checkpoints
from tests.conftest import ROOT, left_behind
from tests.system.runs import LeagueRun, read_json, run_until

pytestmark = [pytest.mark.slow, pytest.mark.integration]


def _run(args, timeout=300):
    return subprocess.run(
        [sys.executable, "-m", "league.run", *args], capture_output=True, text=True, cwd=ROOT, timeout=timeout
    )


def _pids_under(path) -> list[int]:
    return left_behind(path)


def _kill_9_once(args, ready, what: str, timeout: float = 180.0) -> None:
    """Start a run, wait until ``ready()`` holds, then SIGKILL the main process."""
    with LeagueRun(args) as run:
        try:
            run.wait_for(what, ready, timeout)
        finally:
            run.kill9()


def test_two_runs_side_by_side_both_finish(tmp_path):
    """No TCP port is chosen for the run's sockets (ipc:// endpoints) and a Showdown port
    taken meanwhile is chosen again: two runs started together do not collide. (On the
    server backend: the one with ports; it is also the server backend's training run.)"""
    runs = [LeagueRun(["+experiment=smoke", f"hydra.run.dir={tmp_path / n}", "sim.backend=server"]) for n in "ab"]
    with runs[0], runs[1]:
        dones = [r.finish(timeout=400) for r in runs]
    for done in dones:
        assert done.returncode == 0, done.stderr[-3000:]
        summary = json.loads(done.stdout.strip().splitlines()[-1])
        assert summary["errors"] == 0 and summary["showdown_errors"] == 0 and summary["updates"] >= 6
    assert _pids_under(tmp_path) == []


def test_a_failed_multirun_job_does_not_end_the_sweep(tmp_path):
    out = _run(["--multirun", "+experiment=smoke", "learner.lr=-1,0.0003", f"hydra.sweep.dir={tmp_path}"])
    assert "learner.lr must be > 0" in out.stderr and "job 0 failed" in out.stderr
    summaries = [json.loads(ln) for ln in out.stdout.splitlines() if ln.startswith("{")]
    assert len(summaries) == 1 and summaries[0]["run_dir"] == str(tmp_path / "1"), out.stderr[-3000:]
    assert summaries[0]["updates"] >= 6 and latest_checkpoint(tmp_path / "1") is not None
    assert out.returncode != 0  # the sweep still says a job failed, at its end
    assert _pids_under(tmp_path) == []


def test_every_config_problem_is_reported_at_once(tmp_path):
    out = _run(
        [
            "+experiment=smoke",
            f"hydra.run.dir={tmp_path}",
            "sim.servers=0",
            "learner.lr=-1",
            "learner.rnad.policy_loss=foo",
            "learner.rnad.lambda_vtrace=1.5",
            "learner.reward.shaping=-1",
            "learner.adam_b1=1.0",
            "league.learn_from_members=true",
            "learner.reward.normalize_decay=1",
        ],
        timeout=120,
    )
    assert out.returncode == 2
    for needle in (
        "sim.servers",
        "learner.lr",
        "learner.rnad.policy_loss",
        "learner.rnad.lambda_vtrace",
        "learner.reward.shaping",
        "learner.adam_b1",
        "finite learner.rnad.rho_vtrace",
        "learner.reward.normalize_decay",
    ):
        assert needle in out.stderr
    assert not (tmp_path / "showdown").exists()


def test_resume_without_checkpoint_is_a_clear_error(tmp_path):
    out = _run(["+experiment=smoke", f"hydra.run.dir={tmp_path}", "resume=true"], timeout=120)
    assert out.returncode == 2 and "holds no checkpoint" in out.stderr


def test_serial_mode_runs_the_same_components_in_one_process(tmp_path):
    # Stopped once the league tick has frozen a snapshot, not at an update count: a stop at 9
    # updates raced the tick (every 2 s) in CI, where a burst of battles gave updates 3 to 9
    # inside one tick.
    def snapshot() -> bool:
        reg = read_json(tmp_path / "league" / "registry.json") or {"members": []}
        return any(m["role"] == "past" for m in reg["members"])

    out = run_until(
        [
            "+experiment=smoke",
            "run.placement=serial",
            "run.max_updates=0",
            "run.max_minutes=6",
            "showdown.generated_teams=3",
            f"hydra.run.dir={tmp_path}",
        ],
        snapshot,
        "snapshot",
    )
    assert out.returncode == 0, out.stderr[-3000:]
    summary = json.loads(out.stdout.strip().splitlines()[-1])
    assert summary["stop_reason"] == "interrupted" and summary["showdown_errors"] == 0
    assert summary["updates"] >= 3, summary  # a checkpoint at least (checkpoint_every=3)
    pids = json.loads((tmp_path / "processes.json").read_text())  # one process: learner and simulator are threads
    assert pids["learner"] == pids["simulator"] == pids["main"]
    assert summary["members"]["past"] >= 1  # the coordinator's league tick runs in serial mode too
    state = torch.load(summary["checkpoint"], weights_only=True)
    assert state["counters"]["league"]["registry"]["members"]
    assert state["learner"]["steps"] == summary["updates"]
    # the pool it trained on: the shipped teams and three generated, written beside the run
    assert sorted(p.name for p in (tmp_path / "teams" / "generated").iterdir()) == [
        "gen-0000.txt",
        "gen-0001.txt",
        "gen-0002.txt",
    ]
    assert _pids_under(tmp_path) == []


def test_league_smoke_with_exploiters_snapshots_ratings_and_payoff(tmp_path):
    # Event-driven, not timed: the run goes (up to a 6-minute cap) until everything checked
    # below has happened, then the test stops it with SIGINT. A stop by update count raced
    # the league exploiter's first frozen copy; a stop by time (1 minute) left a slower
    # machine ~2x of margin. Snapshots every 10 main updates keep the registry small.
    def everything_happened() -> bool:
        log = (tmp_path / "run.log").read_text() if (tmp_path / "run.log").exists() else ""
        reg = read_json(tmp_path / "league" / "registry.json") or {"members": []}
        payoff = read_json(tmp_path / "league" / "payoff.json") or {"raw_games": []}
        strength = read_json(tmp_path / "reports" / "strength.json") or {"elo": {}}
        diversity = read_json(tmp_path / "reports" / "diversity.json") or {"members": 0}
        frozen = {m["id"] for m in reg["members"] if m["role"] in ("past", "random", "maxdamage")}
        trainees = {m["id"] for m in reg["members"] if m["role"] == "league_exploiter" and m["status"] == "training"}
        return bool(
            re.search(r"main_exploiter-\d+ (admitted|discarded)", log)
            and any(m["parent"] in trainees for m in reg["members"])
            and any(a in frozen and b in frozen and g > 0 for a, b, g in payoff["raw_games"])
            and len(strength["elo"]) >= 2
            and diversity["members"] >= 2
        )

    out = run_until(
        [
            "+experiment=smoke",
            "sim.backend=server",
            "league.exploiters.enabled=true",
            "league.league_exploiters.enabled=true",
            "league.league_exploiters.freeze.max_updates=2",
            "learner.portfolio.size=2",
            "learner.portfolio.update_every_s=2",
            "run.max_updates=0",
            "run.max_minutes=6",
            "league.snapshot.every_updates=10",
            "league.eval_every_s=4",
            "league.eval_games=2",
            f"hydra.run.dir={tmp_path}",
        ],
        everything_happened,
        "judged exploiter, league exploiter copy, evaluation round and reports",
    )
    assert out.returncode == 0, out.stderr[-3000:]
    s = json.loads(out.stdout.strip().splitlines()[-1])
    assert s["stop_reason"] == "interrupted"
    assert s["exploiters_admitted"] + s["exploiters_discarded"] >= 1
    assert s["members"].get("past", 0) >= 1 and s["members"]["main"] == 1
    assert s["showdown_errors"] == 0
    reg = json.loads((tmp_path / "league" / "registry.json").read_text())
    ex = [m for m in reg["members"] if m["role"] == "main_exploiter"]
    assert ex and ex[0]["team"] and ex[0]["victim"] and ex[0]["status"] in ("active", "discarded")
    assert "victim" in ex[0]["note"]
    if ex[0]["status"] == "active":
        assert os.path.isfile(ex[0]["checkpoint"])
    payoff = json.loads((tmp_path / "league" / "payoff.json").read_text())
    assert sum(g for _, _, g in payoff["raw_games"]) > 0
    rated = [m for m in reg["members"] if m["games"] > 0]
    assert any(m["id"] == "main" for m in rated) and any(m["mu"] != 25.0 for m in rated)
    # the league exploiter trained by PFSP against the league, froze copies of itself
    le = [m for m in reg["members"] if m["role"] == "league_exploiter" and m["status"] == "training"]
    assert len(le) == 1 and le[0]["games"] > 0
    copies = [m for m in reg["members"] if m["parent"] == le[0]["id"]]
    assert s["league_exploiters_frozen"] == len(copies) >= 1
    assert all(m["role"] == "league_exploiter" and os.path.isfile(m["checkpoint"]) for m in copies)
    le_pairs = {b for a, b, g in payoff["raw_games"] if a == le[0]["id"] and g > 0}
    assert le_pairs and "main" not in le_pairs  # its opponents are frozen members
    # evaluation rounds: frozen members played each other
    frozen = {m["id"] for m in reg["members"] if m["role"] in ("past", "random", "maxdamage")}
    assert any(a in frozen and b in frozen and g > 0 for a, b, g in payoff["raw_games"])
    # ... rated by Elo among themselves (strength over training), and the policies' distances measured
    assert len(s["strength"]["elo"]) >= 2 and isinstance(s["strength"]["monotonic"], bool)
    assert s["diversity"]["members"] >= 2 and 0 <= s["diversity"]["mean_tv"] <= 1
    for f in ("strength.png", "strength.json", "diversity.png", "diversity.json"):
        assert (tmp_path / "reports" / f).is_file(), f
    # portfolio R-NaD: the main learner got references and regularised toward the closest
    assert 1 <= len(s["portfolio"]) <= 2 and all(mid in {m["id"] for m in reg["members"]} for mid in s["portfolio"])
    from tools.plot_run import load_scalars

    scalars = load_scalars(tmp_path)
    assert scalars.get("learner/main/portfolio/chosen") and scalars.get("diversity/mean_tv")
    assert _pids_under(tmp_path) == []


def test_kill_9_then_resume_continues_the_checkpoint_s_counters_optimizer_networks_and_league(tmp_path):
    """kill -9 at a moment of the test's choosing (random; what is asserted holds at any
    moment), then resume: the league (members, ratings, payoff) is the one stored with the
    checkpoint resumed from, not the league files, which may be seconds ahead of it; the
    counters, Adam's state and the evaluation windows go on from the checkpoint's."""
    import random

    args = [
        "+experiment=smoke",
        f"hydra.run.dir={tmp_path}",
        "run.max_updates=0",
        "run.max_minutes=3",
        "learner.checkpoint_every=2",
    ]
    reg_path, pay_path = tmp_path / "league" / "registry.json", tmp_path / "league" / "payoff.json"
    extra = random.uniform(0.0, 4.0)
    seen: dict = {}

    def ready() -> bool:  # a snapshot, league games, and a checkpoint at >= 6 updates with evaluation games
        try:
            reg = json.loads(reg_path.read_text())
            pay = json.loads(pay_path.read_text())
            ck = latest_checkpoint(tmp_path)
            if ck is None or int(ck.stem.split("_")[1]) < 6:
                return False
            evals = torch.load(ck, weights_only=True)["counters"].get("eval_window")
        except (OSError, ValueError, RuntimeError, EOFError):
            return False
        if evals and any(m["role"] == "past" for m in reg["members"]) and sum(g for *_, g in pay["raw_games"]) >= 6:
            seen.setdefault("t", time.monotonic())
            return time.monotonic() - seen["t"] >= extra
        return False

    _kill_9_once(args, ready, "snapshot, league games and a checkpoint at >= 6 updates with evaluation games")
    assert _pids_under(tmp_path) == [], "children or Showdown servers outlived the killed run"
    time.sleep(2.0)
    before = torch.load(latest_checkpoint(tmp_path), weights_only=True)
    n0, stored = before["learner"]["steps"], before["counters"]["league"]
    members = {m["id"]: m for m in stored["registry"]["members"]}
    assert "main" in members and all(m["created_update"] <= n0 for m in members.values())
    # resume and stop at once: the league written is the checkpoint's, exactly
    out = _run(["+experiment=smoke", f"hydra.run.dir={tmp_path}", "resume=true", f"run.max_updates={n0}"])
    assert out.returncode == 0, out.stderr[-3000:]
    reg, pay = json.loads(reg_path.read_text()), json.loads(pay_path.read_text())
    got = {m["id"]: m for m in reg["members"]}
    assert set(got) == set(members)
    for mid, m in members.items():
        assert (got[mid]["mu"], got[mid]["sigma"], got[mid]["games"]) == (m["mu"], m["sigma"], m["games"])
    assert sorted(map(tuple, pay["raw_games"])) == sorted(map(tuple, stored["payoff"]["raw_games"]))
    # and it goes on from there: counters, optimizer, evaluation windows, ratings and games
    out = _run(
        [
            "+experiment=smoke",
            f"hydra.run.dir={tmp_path}",
            "resume=true",
            f"run.max_updates={n0 + 4}",
            "learner.checkpoint_every=2",
        ]
    )
    assert out.returncode == 0, out.stderr[-3000:]
    summary = json.loads(out.stdout.strip().splitlines()[-1])
    assert summary["updates"] >= n0 + 4
    assert summary["battles"] >= before["counters"].get("battles", 0)
    after = torch.load(summary["checkpoint"], weights_only=True)
    assert after["learner"]["steps"] == summary["updates"]
    # the optimizer continued: Adam's step count grew from the checkpoint's
    s0 = before["learner"]["opt"]["state"][0]["step"]
    s1 = after["learner"]["opt"]["state"][0]["step"]
    assert float(s1) == float(s0) + (summary["updates"] - n0)
    assert all(int(p.stem.split("_")[1]) > 0 for p in list_checkpoints(tmp_path))
    # the evaluation windows went on from the checkpoint's results, not from empty
    w0, w1 = before["counters"]["eval_window"], after["counters"]["eval_window"]
    assert w0 and all(w1[opp][: len(results)] == results for opp, results in w0.items())
    after_members = {m["id"]: m for m in json.loads(reg_path.read_text())["members"]}
    assert set(members) <= set(after_members)
    assert all(after_members[k]["games"] >= m["games"] for k, m in members.items())
    games_after = {(a, b): g for a, b, g in json.loads(pay_path.read_text())["raw_games"]}
    assert all(games_after.get((a, b), 0) >= g for a, b, g in stored["payoff"]["raw_games"])
    assert _pids_under(tmp_path) == []


def test_a_run_due_while_an_exploiter_trains_holds_its_main_learner(tmp_path):
    """run.max_updates reached with a main exploiter in flight (its million updates never
    end): the run waits league.exploiters.finish_timeout_s (20 s) and stops, and the main
    learner holds meanwhile. Its final checkpoint is within the batches it already held
    (sim.n_slots / learner.batch_size = 4, and as many reports in transit) of where the run
    fell due; before the Hold it trained on for the 20 s."""
    out = _run(
        [
            "+experiment=smoke",
            f"hydra.run.dir={tmp_path}",
            "league.exploiters.enabled=true",
            "league.exploiters.train_updates=1000000",
            "league.exploiters.finish_timeout_s=20",
            "run.max_updates=8",
        ],
        timeout=400,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    s = json.loads(out.stdout.strip().splitlines()[-1])
    assert s["stop_reason"] == "max_updates" and s["showdown_errors"] == 0
    held = s["main_held_at_updates"]
    assert 8 <= held <= s["updates"] <= held + 8, (held, s["updates"])
    assert torch.load(s["checkpoint"], weights_only=True)["learner"]["steps"] == s["updates"]
    assert "the main learner holds while an exploiter in flight finishes" in out.stdout
    assert _pids_under(tmp_path) == []


def test_sigkill_of_the_learner_then_of_the_simulator_restarts_each_and_the_run_finishes(tmp_path):
    """A smoke run of 20 updates; once it has a checkpoint, SIGKILL its learner; once the
    learner is back (a new pid in processes.json), SIGKILL its simulator."""
    args = ["+experiment=smoke", f"hydra.run.dir={tmp_path}", "run.max_updates=20", "learner.checkpoint_every=2"]
    with LeagueRun(args) as run:
        run.wait_for("checkpoint", lambda: list_checkpoints(tmp_path) and (tmp_path / "processes.json").exists(), 180)
        first = read_json(tmp_path / "processes.json")
        os.kill(first["learner"], signal.SIGKILL)

        def learner_back() -> bool:
            now = read_json(tmp_path / "processes.json") or {}
            return now.get("learner") not in (None, first["learner"])

        run.wait_for("the learner's restart", learner_back, 180)
        os.kill(first["simulator"], signal.SIGKILL)
        done = run.finish(timeout=400)
    assert done.returncode == 0, done.stderr[-3000:]
    out = done.stdout
    summary = json.loads(out.strip().splitlines()[-1])
    assert summary["stop_reason"] == "max_updates" and summary["updates"] >= 20 and summary["showdown_errors"] == 0
    assert torch.load(summary["checkpoint"], weights_only=True)["learner"]["steps"] == summary["updates"]
    last = json.loads((tmp_path / "processes.json").read_text())
    assert last["learner"] != first["learner"] and last["simulator"] != first["simulator"]
    assert summary["learner_restarts"] == 1 and summary["sim_restarts"] == 1
    assert "main learner exited with code -9; restart 1 from" in out and "ckpt_" in out
    assert "simulator exited with code -9; restart 1" in out
    # battles of the dead simulator are kept: the count never goes down across the restart
    counts = [int(re.search(r"battles\s+(\d+)", line).group(1)) for line in out.splitlines() if "| battles" in line]
    assert counts and counts == sorted(counts) and summary["battles"] >= counts[-1] > 0
    # and they add up: every battle started was finished, lost (with the killed simulator,
    # or in flight at the stop) or is still in flight in the last report
    started = summary["battles"] + summary["battles_lost"] + summary["battles_in_flight"]
    assert summary["battles_started"] == started and summary["battles_lost"] >= 1
    # the new fleet started its stream workers again (the worker's log has a second start header)
    log = (tmp_path / "showdown" / "worker-0.log").read_text()
    assert "start: generation 1" in log.split("==== ")[-1] and log.count("==== ") >= 2
    assert _pids_under(tmp_path) == []


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device (none on this machine)")
def test_two_minute_smoke_on_the_gpu(tmp_path):
    # the learner (AMP, fused Adam) and the simulator's forwards on CUDA, for two minutes
    out = _run(
        [
            "+experiment=smoke",
            f"hydra.run.dir={tmp_path}",
            "learner.device=cuda",
            "sim.device=cuda",
            "run.max_updates=0",
            "run.max_minutes=2",
        ],
        timeout=400,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    summary = json.loads(out.stdout.strip().splitlines()[-1])
    assert summary["updates"] > 6 and summary["battles"] > 0 and summary["showdown_errors"] == 0
    state = torch.load(summary["checkpoint"], weights_only=True)
    assert state["learner"]["steps"] == summary["updates"]
    assert _pids_under(tmp_path) == []


def test_sigkill_of_the_main_process_during_start_up_leaves_nothing_running(tmp_path):
    """Killed as soon as its first children exist (they are still importing): each one,
    on its first line, sees that the parent that started it is gone and leaves (the parent
    passes its pid in: exit_with_parent), so no simulator lives on to start Node workers."""
    import psutil

    with LeagueRun(["+experiment=smoke", f"hydra.run.dir={tmp_path}"]) as run:
        main = psutil.Process(run.proc.pid)
        children: list = []
        run.wait_for("the first child process", lambda: children.extend(main.children(recursive=True)) or children, 120)
        run.kill9()
    deadline = time.monotonic() + 120  # the children leave once their imports are done
    while time.monotonic() < deadline and any(c.is_running() and c.status() != psutil.STATUS_ZOMBIE for c in children):
        time.sleep(0.2)
    alive = [c.pid for c in children if c.is_running() and c.status() != psutil.STATUS_ZOMBIE]
    assert alive == [], f"children of the killed main process still running: {alive}"
    assert _pids_under(tmp_path) == []
