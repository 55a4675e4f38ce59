"""Entry point: ``python -m league.run +experiment=reg_c [overrides]``.

The life of a run, top to bottom:
  1. compose the config (Hydra) and verify all of it at once;
  2. check the edges before any work: Node + Showdown, the team pool (Showdown's
     validator), the checkpoint to resume from;
  3. connect (league/transport/wiring.py: every socket and shared buffer, with
     producer, consumer and message type) and place the components: here as processes
     (league/coordinator/supervisor.py), or all in this one (``run.serial=true``);
  4. run: the simulator plays, the learner learns; the coordinator
     (league/coordinator/coordinator.py) takes their reports and decides (league,
     exploiters, restarts, stop rules), the supervisor carries it out, the monitor
     writes TensorBoard and a console progress line;
  5. shut down: stop everything, let the learner write its final checkpoint, print one
     JSON line (run_dir, updates, battles, showdown_errors, checkpoint, ...).

Resume a run in place: ``python -m league.run +experiment=reg_c resume=true
hydra.run.dir=<its run dir>``.
"""

from __future__ import annotations

import json
import logging
import signal
import sys
import time
from pathlib import Path

import hydra
from hydra.core.hydra_config import HydraConfig
from hydra.types import RunMode
from omegaconf import DictConfig

from league import checkpoint as ckpt
from league.config import Config, ConfigError, register, resolve_device, to_object, verify
from league.coordinator.coordinator import Coordinator
from league.coordinator.monitor import Monitor
from league.coordinator.serial import run_serial
from league.coordinator.supervisor import Supervisor
from league.population.league import LeagueManager
from league.showdown import ShowdownSetupError, locate_showdown
from league.teams import TeamPoolError, TeamRepository
from league.transport.wiring import connect

log = logging.getLogger("league.run")
register()


def run(cfg: Config, run_dir: Path) -> dict:
    # ---- 2. check the edges before any work
    install = locate_showdown()
    team_objs = TeamRepository(install).load(cfg.showdown.format, cfg.showdown.teams)
    teams = [t.packed for t in team_objs]
    resume_from = None
    start_counters: dict = {}
    if cfg.resume:
        resume_from = ckpt.latest_checkpoint(run_dir)
        if resume_from is None:
            raise ConfigError([f"resume=true but {ckpt.checkpoint_dir(run_dir)} holds no checkpoint "
                               "(set hydra.run.dir to the run to resume)"])
        start_counters = ckpt.load_checkpoint(resume_from).get("counters", {})
        resume_from = str(resume_from)
    device = resolve_device(cfg.learner.device)
    if cfg.run.serial:
        return run_serial(cfg, run_dir, teams, team_objs, resume_from, start_counters, device)

    # ---- 3. connect and place the components
    w = connect(cfg)
    mon = Monitor(run_dir, cfg, start_counters)
    sup = Supervisor(cfg, run_dir, w, teams, device)
    league = LeagueManager(cfg.league, run_dir, resume=cfg.resume, state=start_counters.get("league"))
    coord = Coordinator(cfg, run_dir, mon, league, team_objs, sup.spawn_exploiter, t0=time.monotonic(),
                        resume_from=resume_from, schedule=start_counters.get("schedule"))
    sup.start(resume_from, int(start_counters.get("updates", 0)), start_counters.get("eval_window"))

    # ---- 4. run until a stop condition: reports in, the coordinator decides, the supervisor acts
    old = {s: signal.signal(s, lambda *_: coord.interrupt()) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        while coord.stop_reason is None:
            reports = w.receive(200)
            sup.execute(coord.step(time.monotonic(), reports, sup.health()), coord)
            mon.line()
    finally:
        # ---- 5. shut down: stop the simulator and the learner, collect the final checkpoint
        sup.shutdown(coord)
        for s, h in old.items():
            signal.signal(s, h)
        coord.league.dirty = True
        coord.league.save()
        if cfg.league.enabled:
            coord.league.log_payoff(mon.tb, mon.updates)
        mon.line(force=True)
        mon.tb.close()
        w.close()
    for e in coord.errors:
        print(e, file=sys.stderr)
    return coord.summary()


class JobFailed(RuntimeError):
    """A --multirun job that failed: Hydra records it and runs the next job (sys.exit
    would get past Hydra and end the sweep); the sweep exits non-zero at the end."""


def _fail(code: int, text: str) -> None:
    hc = HydraConfig.get()
    if hc.mode == RunMode.MULTIRUN:
        print(f"job {hc.job.num} failed ({text}); the sweep goes on", file=sys.stderr, flush=True)
        raise JobFailed(f"job {hc.job.num} ({hc.runtime.output_dir}): {text}")
    sys.exit(code)


@hydra.main(version_base=None, config_path="../conf", config_name="config")
def main(dcfg: DictConfig) -> None:
    # ---- 1. compose + verify
    try:
        cfg = to_object(dcfg)
        verify(cfg)
        summary = run(cfg, Path(HydraConfig.get().runtime.output_dir))
    except (ConfigError, ShowdownSetupError, TeamPoolError, ckpt.CheckpointError) as e:
        print(f"error: {e}", file=sys.stderr)
        _fail(2, "bad input")
        return
    print(json.dumps(summary), flush=True)
    if summary["errors"] or summary["stop_reason"] == "component failed":
        _fail(1, f"stop reason {summary['stop_reason']!r}, {summary['errors']} errors")


if __name__ == "__main__":
    main()
