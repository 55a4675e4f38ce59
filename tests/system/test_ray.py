"""run.placement=ray for real: a local Ray started by the run, and a local two-node Ray
cluster (ray.cluster_utils.Cluster) with the roles pinned to nodes by custom resources
and a simulator shard's process SIGKILLed mid-run."""

from __future__ import annotations

import json
import os
import re
import signal
import time

import pytest
import torch
from ray.cluster_utils import Cluster

from league.checkpoint import latest_checkpoint, list_checkpoints
from tests.conftest import ROOT, left_behind
from tests.system.runs import LeagueRun, read_json
from tests.system.runs import summary as read_summary

pytestmark = [pytest.mark.slow, pytest.mark.integration, pytest.mark.ray]

MB = 1024 * 1024


def _pids_under(path) -> list[int]:
    return left_behind(path)


def test_smoke_on_a_local_ray_ends_like_the_process_placement(tmp_path):
    with LeagueRun(
        ["experiment=smoke", "run.placement=ray", f"hydra.run.dir={tmp_path}", "ray.object_store_mb=200"]
    ) as run:
        done = run.finish(timeout=400)
    assert done.returncode == 0, done.stderr[-3000:]
    summary = read_summary(done.stdout)
    assert summary["stop_reason"] == "max_updates" and summary["updates"] >= 6 and summary["battles"] > 0
    assert summary["errors"] == 0 and summary["showdown_errors"] == 0
    # the same keys as the process placement's line, the checkpoint the learner actor wrote
    assert {"run_dir", "updates", "battles", "checkpoint", "battles_per_s", "sim_restarts"} <= set(summary)
    assert torch.load(summary["checkpoint"], weights_only=True)["learner"]["steps"] == summary["updates"]
    placed = json.loads((tmp_path / "processes.json").read_text())
    assert len(placed["shards"]) == 1 and placed["nodes"]["learner"] == placed["nodes"]["shards"][0]
    # the coordinator actor's lines reach run.log (its last line shows the summary's count)
    assert f"updates {summary['updates']:6d}" in (tmp_path / "run.log").read_text()
    assert _pids_under(tmp_path) == []


def test_a_second_ctrl_c_ends_the_ray_driver_within_ten_seconds(tmp_path):
    """The first SIGINT asks for a clean stop (a final checkpoint); a second one, right
    after, ends the driver at once: exit 130 within 10 s, saying resume=true goes on, its
    local Ray and every process of the run stopped."""
    with LeagueRun(
        [
            "experiment=smoke",
            "run.placement=ray",
            "run.max_updates=0",
            "run.max_minutes=5",
            f"hydra.run.dir={tmp_path}",
            "ray.object_store_mb=200",
        ]
    ) as run:
        run.wait_for("a checkpoint", lambda: list_checkpoints(tmp_path), 300)
        run.proc.send_signal(signal.SIGINT)
        time.sleep(0.5)
        t0 = time.monotonic()
        done = run.finish(timeout=60, sig=signal.SIGINT)
        took = time.monotonic() - t0
    assert done.returncode == 130, done.stderr[-3000:]
    assert took < 10, took
    assert "second interrupt" in done.stderr and "resume=true" in done.stderr
    assert _pids_under(tmp_path) == []


def test_a_bad_ray_address_is_a_clear_error_before_any_work(tmp_path):
    with LeagueRun(
        ["experiment=smoke", "run.placement=ray", "ray.address=127.0.0.1:1", f"hydra.run.dir={tmp_path}"]
    ) as run:
        done = run.finish(timeout=120)
    err = done.stderr
    assert done.returncode == 2
    assert "ray.address=127.0.0.1:1: nothing answers there" in err and "ray start --head" in err
    assert not (tmp_path / "checkpoints").exists()


def test_without_ray_the_ray_placement_names_the_install_command(tmp_path):
    # a Python where `import ray` fails: a package of that name first on the path
    fake = tmp_path / "noray" / "ray"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text("raise ImportError('no ray here')\n")
    env = {**os.environ, "PYTHONPATH": f"{tmp_path / 'noray'}{os.pathsep}{ROOT}"}
    with LeagueRun(["experiment=smoke", "run.placement=ray", f"hydra.run.dir={tmp_path / 'run'}"], env=env) as run:
        done = run.finish(timeout=120)
    err = done.stderr
    assert done.returncode == 2, err[-2000:]
    assert "run.placement=ray needs Ray, not installed here: pip install -e '.[ray]'" in err
    assert not (tmp_path / "run" / "checkpoints").exists()


def test_exploiters_learn_in_lane_actors_and_killed_actors_are_brought_back(tmp_path):
    """Main and league exploiters on a local Ray: each lane's learner is an actor; the
    league exploiter's lane actor and then the main learner's actor are SIGKILLed mid-run:
    Ray brings both back, the league exploiter resumes from its own checkpoint, the main
    learner from the run's. Event-driven, not timed: the test waits (up to a 6-minute
    cap) until everything it checks has happened, then stops the run with SIGINT."""
    le_dir, log_path = tmp_path / "exploiters", tmp_path / "run.log"

    def log() -> str:
        return log_path.read_text() if log_path.exists() else ""

    def frozen_copies() -> list:
        members = (read_json(tmp_path / "league" / "registry.json") or {"members": []})["members"]
        return [
            m
            for m in members
            if m["role"] == "league_exploiter" and m["parent"] != "main" and m["status"] != "training"
        ]

    with LeagueRun(
        [
            "experiment=smoke",
            "run.placement=ray",
            f"hydra.run.dir={tmp_path}",
            "ray.object_store_mb=200",
            "league.exploiters.enabled=true",
            "league.league_exploiters.enabled=true",
            "league.league_exploiters.freeze.max_updates=2",
            "run.max_updates=0",
            "run.max_minutes=6",
            "league.snapshot.every_updates=10",
        ]
    ) as run:
        run.wait_for(
            "league exploiter checkpoint",
            lambda: (
                (tmp_path / "processes.json").exists() and list(le_dir.glob("league_exploiter-*/checkpoints/ckpt_*.pt"))
            ),
        )
        first = read_json(tmp_path / "processes.json")
        assert len(first["lanes"]) == 2  # lane 0: main exploiters, lane 1: the league exploiter
        os.kill(first["lanes"][1], signal.SIGKILL)
        run.wait_for("lane restart", lambda: "restarting from its last checkpoint" in log())
        c0 = latest_checkpoint(tmp_path)
        run.wait_for("new main checkpoint", lambda: latest_checkpoint(tmp_path) != c0)
        os.kill(first["learner"], signal.SIGKILL)  # after a checkpoint newer than the lane's kill
        n_copies = len(frozen_copies())
        run.wait_for(
            "learner restart, a copy frozen after it, a main exploiter judged",
            lambda: (
                "main learner exited with code -9; restart 1" in log()
                and len(frozen_copies()) > max(n_copies, 1)  # one after the kill, two in all
                and re.search(r"main_exploiter-\d+ (admitted|discarded)", log())
            ),
        )
        time.sleep(3)  # processes.json is rewritten every 2 s
        out = run.interrupt()
    assert out.returncode == 0, out.stderr[-3000:]
    s = read_summary(out.stdout)
    assert s["stop_reason"] == "interrupted" and s["errors"] == 0 and s["showdown_errors"] == 0
    assert s["learner_restarts"] == 1 and s["sim_restarts"] == 0
    assert re.search(r"league_exploiter-\d+: learner exited with code -9; restarting from its last checkpoint", log())
    after = read_json(tmp_path / "processes.json")
    assert after["lanes"][1] != first["lanes"][1] and after["learner"] != first["learner"]
    # the main exploiter trained in lane 0's actor and was judged; its team beside its weights
    assert s["exploiters_admitted"] + s["exploiters_discarded"] >= 1
    reg = json.loads((tmp_path / "league" / "registry.json").read_text())
    mex = [m for m in reg["members"] if m["role"] == "main_exploiter"]
    assert mex and list((le_dir / mex[0]["id"]).rglob(f"{mex[0]['id']}_team.txt"))
    # the league exploiter froze copies of itself before and after its actor was killed
    assert s["league_exploiters_frozen"] >= 2
    assert torch.load(s["checkpoint"], weights_only=True)["learner"]["steps"] == s["updates"]
    assert _pids_under(tmp_path) == []


@pytest.fixture
def two_nodes():
    """A head node that offers the learner's resource, a worker node that offers two
    simulator shards'; both on this machine."""
    cluster = Cluster(
        initialize_head=True,
        head_node_args={
            "num_cpus": 1,
            "resources": {"learner_node": 1},
            "object_store_memory": 100 * MB,
            "include_dashboard": False,
        },
    )
    worker = cluster.add_node(num_cpus=2, resources={"sim_node": 2}, object_store_memory=100 * MB)
    cluster.wait_for_nodes()
    try:
        yield cluster, cluster.head_node.node_id, worker.node_id
    finally:
        cluster.shutdown()


def test_two_shards_on_one_node_the_learner_on_another_and_a_killed_shard_is_restarted(tmp_path, two_nodes):
    """Event-driven, not timed: shard 1 is SIGKILLed after the first checkpoint; the test
    waits until the coordinator has restarted it and a checkpoint newer than the restart
    exists, then stops the run with SIGINT (a run ended by max_updates could stop before
    Ray reports the dead actor on a loaded machine)."""
    cluster, head, worker = two_nodes
    log_path = tmp_path / "run.log"

    def log() -> str:
        return log_path.read_text() if log_path.exists() else ""

    args = [
        "experiment=smoke",
        f"hydra.run.dir={tmp_path}",
        "run.placement=ray",
        f"ray.address={cluster.address}",
        "sim.shards=2",
        "+ray.sim_resources={sim_node:1}",
        "+ray.learner_resources={learner_node:1}",
        "run.max_updates=0",
        "run.max_minutes=6",
        "learner.checkpoint_every=2",
    ]
    with LeagueRun(args) as run:
        run.wait_for("checkpoint", lambda: list_checkpoints(tmp_path) and (tmp_path / "processes.json").exists(), 240)
        first = read_json(tmp_path / "processes.json")
        # placed as asked: both shards on the worker node, the learner on the head
        assert first["nodes"]["shards"] == [worker, worker] and first["nodes"]["learner"] == head
        os.kill(first["shards"][1], signal.SIGKILL)  # the shard's process, as a crash would end it
        run.wait_for("shard restart", lambda: "simulator shard 1 exited with code -9; restart 1" in log())
        run.wait_for(
            "the restarted shard's pid",
            lambda: read_json(tmp_path / "processes.json")["shards"][1] != first["shards"][1],
        )
        c0 = latest_checkpoint(tmp_path)
        run.wait_for("a checkpoint after the restart", lambda: latest_checkpoint(tmp_path) != c0)
        time.sleep(3)  # processes.json is rewritten every 2 s
        done = run.interrupt()
    assert done.returncode == 0, done.stderr[-3000:]
    summary = read_summary(done.stdout)
    assert summary["stop_reason"] == "interrupted"
    assert summary["errors"] == 0 and summary["showdown_errors"] == 0
    assert summary["sim_restarts"] == 1 and summary["learner_restarts"] == 0
    after = json.loads((tmp_path / "processes.json").read_text())
    assert after["shards"][0] == first["shards"][0] and after["shards"][1] != first["shards"][1]  # Ray restarted it
    assert after["nodes"]["shards"][1] == worker
    assert torch.load(summary["checkpoint"], weights_only=True)["learner"]["steps"] == summary["updates"]
    # each shard played: its own fleet directory, its workers started
    for k in (0, 1):
        assert (tmp_path / "shards" / str(k) / "showdown" / "worker-0.log").exists()
    assert _pids_under(tmp_path) == []


def test_a_request_no_node_can_meet_is_a_clear_error():
    from league.config import Config, ConfigError
    from league.coordinator.ray_placement import check_fits

    nodes = [
        {"Alive": True, "Resources": {"CPU": 2.0, "sim": 2.0, "node:1.2.3.4": 1.0}},
        {"Alive": True, "Resources": {"CPU": 8.0, "GPU": 1.0}},
    ]
    cfg = Config()
    cfg.ray.sim_resources, cfg.ray.learner_gpus = {"sim": 1}, 1
    check_fits(cfg, nodes)  # shards on the first node, the learner on the second
    cfg.ray.sim_resources, cfg.ray.learner_gpus = {"sim": 1}, 2
    with pytest.raises(ConfigError, match=r"the learner asks for .*'GPU': 2.*ray.learner_gpus"):
        check_fits(cfg, nodes)
    cfg.ray.learner_gpus, cfg.ray.sim_cpus = 1, 4
    with pytest.raises(ConfigError, match="a simulator shard asks for"):
        check_fits(cfg, nodes)
    # each fits somewhere, all together do not: three learners (main + two exploiter lanes)
    # ask for 3 GPUs of a cluster's 1
    cfg.ray.sim_cpus = 1
    cfg.league.exploiters.enabled = cfg.league.league_exploiters.enabled = True
    with pytest.raises(ConfigError, match=r"asks for 3 GPU in all .*3 learners.* has 1;"):
        check_fits(cfg, nodes)
    cfg.ray.learner_gpus = 0  # then 1 + 3 CPUs of 10, and no GPU: it fits
    check_fits(cfg, nodes)
