"""tools.chaos's end of a run: a component left stopped (SIGSTOP) near the end is first
found hung and replaced, and a run whose learner never wrote a checkpoint is judged by
the coordinator's own rule (no checkpoint is 0 updates)."""

from __future__ import annotations

import json
import signal
import subprocess
import threading
import time

from tools.chaos import Chaos, parse_args


def _chaos(tmp_path, *overrides) -> Chaos:
    args = parse_args(["--minutes", "1", "--every", "5", "--out", str(tmp_path), *overrides])
    c = Chaos(args, tmp_path)
    c.run_dir.mkdir(parents=True)
    return c


def _summary_log(c: Chaos, updates: int) -> None:
    line = json.dumps({"run_dir": str(c.run_dir), "updates": updates, "showdown_errors": 0})
    (c.run_dir / "run.log").write_text(f"updates     {updates} | battles 10\n{line}\n")


def test_no_checkpoint_and_no_updates_is_consistent_updates_without_one_are_not(tmp_path):
    c = _chaos(tmp_path / "a")
    _summary_log(c, 0)
    r = c.report(0)
    assert r["checks"]["updates_never_below_checkpoint"] is True, r["problems"]
    assert r["problems"]["final_checkpoint"] is None

    c = _chaos(tmp_path / "b")
    _summary_log(c, 3)  # 3 updates claimed, none kept: lost
    r = c.report(0)
    assert r["checks"]["updates_never_below_checkpoint"] is False and not r["ok"]


def test_the_heartbeat_limit_is_the_override_else_the_default(tmp_path):
    assert _chaos(tmp_path / "a", "run.heartbeat_timeout_s=30").heartbeat_s() == 30.0
    from league.config import RunConf

    assert _chaos(tmp_path / "b").heartbeat_s() == RunConf.heartbeat_timeout_s
    # a component stopped before its first report is found after run.start_timeout_s
    assert _chaos(tmp_path / "c", "run.heartbeat_timeout_s=30", "run.start_timeout_s=45").hung_limit_s() == 45.0
    assert _chaos(tmp_path / "d").hung_limit_s() == RunConf.start_timeout_s


def test_a_run_is_stopped_only_after_its_stopped_component_is_replaced_and_learns(tmp_path):
    c = _chaos(tmp_path)
    hung = subprocess.Popen(["sleep", "600"])
    run = subprocess.Popen(["sleep", "600"])  # stands for the league.run process: alive
    try:
        hung.send_signal(signal.SIGSTOP)
        c.proc = run
        c.faults = [{"kind": "learner", "signal": "SIGSTOP", "pid": hung.pid}]
        (c.run_dir / "run.log").write_text("updates     0 | battles 4\n")
        done = []

        def coordinator():  # finds it hung, kills it; its replacement then learns
            time.sleep(0.5)
            hung.kill()
            hung.wait()
            done.append("killed")
            time.sleep(0.5)
            done.append("learned")  # before the line is visible: the waiter may return the moment it is
            with open(c.run_dir / "run.log", "a") as f:
                f.write("updates     2 | battles 9\n")

        t = threading.Thread(target=coordinator)
        t.start()
        c.wait_recovered(limit_s=120.0)
        assert done == ["killed", "learned"]
        t.join()
    finally:
        for p in (hung, run):
            p.kill()
            p.wait()


def test_without_a_stopped_component_there_is_nothing_to_wait_for(tmp_path):
    c = _chaos(tmp_path)
    run = subprocess.Popen(["sleep", "600"])
    try:
        c.proc = run
        c.faults = [{"kind": "worker", "signal": "SIGKILL", "pid": 1}]
        c.wait_recovered(limit_s=600.0)  # returns at once; a wait would time the suite out
    finally:
        run.kill()
        run.wait()


def _cycling(tmp_path, kinds: str) -> Chaos:
    args = parse_args(
        ["--minutes", "1", "--every", "5", "--faults", kinds, "--cycle", "--stop-share", "0", "--out", str(tmp_path)]
    )
    c = Chaos(args, tmp_path)
    c.run_dir.mkdir(parents=True)
    return c


def test_cycle_waits_for_the_kind_in_turn_rather_than_hitting_another(tmp_path):
    c = _cycling(tmp_path, "learner,run")
    assert c.inject() is False and c.faults == []  # no learner up yet (a run starting): not "run" instead
    learner = subprocess.Popen(["sleep", "600"])
    try:
        (c.run_dir / "processes.json").write_text(json.dumps({"learner": learner.pid}))
        assert c.inject() is True
        assert [(f["kind"], f["pid"], f["signal"]) for f in c.faults] == [("learner", learner.pid, "SIGKILL")]
        assert learner.wait(timeout=60) == -signal.SIGKILL
    finally:
        learner.kill()
        learner.wait()


def test_cycle_moves_on_after_waiting_a_whole_period_for_a_kind_that_never_comes(tmp_path):
    c = _cycling(tmp_path, "worker,learner")
    learner = subprocess.Popen(["sleep", "600"])
    try:
        (c.run_dir / "processes.json").write_text(json.dumps({"learner": learner.pid}))
        assert c.inject() is False and c.faults == []  # no worker (no simulator): waited for
        c.waiting_since = time.monotonic() - 6.0  # a whole period (--every 5) later
        assert c.inject() is True and [f["kind"] for f in c.faults] == ["learner"]
    finally:
        learner.kill()
        learner.wait()


def test_cycle_goes_on_past_the_minutes_until_each_kind_was_injected(tmp_path):
    """--cycle on a busy box: a kind whose turns came before it was up (workers of a run
    still starting) gets more periods past --minutes (1 here, --every 5), up to 3 x --minutes."""
    c = _cycling(tmp_path, "worker,learner")
    end = c.t0 + 60.0
    assert c.end_after(c.t0 + 10.0, end) == end  # before --minutes: as it was
    c.faults = [{"kind": "learner"}]
    assert c.not_injected() == ["worker"]
    assert c.end_after(end + 1.0, end) == end + 6.0  # no worker yet: one more period
    assert c.end_after(c.t0 + 178.0, end) == c.t0 + 180.0  # the last one stops at 3 x --minutes
    assert c.end_after(c.t0 + 180.0, c.t0 + 180.0) is None
    c.faults.append({"kind": "worker"})
    assert c.end_after(end + 1.0, end) is None  # each injected: the run ends
    assert c.end_after(end + 1.0, None) is None
    drawn = _chaos(tmp_path / "drawn", "--faults", "worker,learner")  # drawn, not cycled: --minutes is the end
    assert drawn.end_after(drawn.t0 + 61.0, drawn.t0 + 60.0) is None
