"""Entry point: ``python -m league.run [experiment=reg_c|smoke] [overrides]`` (``--help``
lists every setting).

The life of a run, top to bottom:
  1. compose the config (Hydra) and verify all of it at once;
  2. check the edges before any work: Node + Showdown, the format (Showdown's format
     list: a gen 9 doubles format the codec plays, league/showdown/formats.py), the
     team pool (Showdown's validator), the checkpoint to resume from;
  3. connect (league/transport/wiring.py: every socket and shared buffer, with
     producer, consumer and message type) and place the components: here as processes
     (league/coordinator/supervisor.py), as Ray actors on a local Ray or a cluster
     (``run.placement=ray``: league/coordinator/ray_placement/), or as threads of this
     one (``run.placement=serial``: league/coordinator/serial.py), over the same loop;
  4. run: the simulator plays, the learner learns; the coordinator
     (league/coordinator/coordinator.py) takes their reports and decides (league,
     exploiters, restarts, stop rules), the supervisor carries it out, the monitor
     writes TensorBoard and a console progress line;
  5. shut down: stop everything, let the learner write its final checkpoint, print one
     JSON line (run_dir, updates, battles, showdown_errors, checkpoint, ...), also
     written to RUN_DIR/summary.json. The console lines go to RUN_DIR/run.log too.

Resume a run in place: ``python -m league.run resume=true hydra.run.dir=<its run dir>``
(with the experiment and overrides it was started with).
"""

from __future__ import annotations

import json
import logging
import os
import sys
from pathlib import Path

import hydra
from hydra.core.hydra_config import HydraConfig
from omegaconf import DictConfig

from league import accel, memtrace
from league import checkpoint as ckpt
from league.atomic import atomic_write_text, remove_stale
from league.command_line import experiment_args, fail, refuse_used_run_dir, used_run_dir
from league.config import Config, ConfigError, to_object, value_at, verify
from league.config_doc import register
from league.coordinator.loop import coordinate
from league.coordinator.serial import SerialPlacement
from league.coordinator.supervisor import Supervisor
from league.coordinator.view import Tee, make_view
from league.device import resolve_device
from league.showdown import ShowdownSetupError, locate_showdown
from league.showdown.formats import FormatError, check_format, open_team_sheets_refusal
from league.teams import TeamPoolError, TeamRepository
from league.teams.repo import select_tag
from league.transport.wiring import RUN_DIR_ENV, connect

log = logging.getLogger("league.run")
register()


def run(cfg: Config, run_dir: Path, view=None) -> dict:
    # ---- 2. check the edges before any work
    install = locate_showdown()
    fmt = check_format(cfg.showdown.format, install, key="showdown.format")
    if cfg.showdown.open_team_sheets and (why := open_team_sheets_refusal(fmt, "showdown.open_team_sheets")):
        raise ConfigError([why])
    repo = TeamRepository(install)
    team_objs = repo.load(cfg.showdown.format, cfg.showdown.teams)
    if cfg.showdown.generated_teams:  # the same teams on a resume: seeded by run.seed
        gen = repo.generate(
            cfg.showdown.format, cfg.showdown.generated_teams, cfg.run.seed, run_dir / "teams" / "generated"
        )
        team_objs = team_objs + gen
    for key in ("league.sampler.team_tag", "league.exploiters.team_tag"):  # sub-pools: each must hold a team
        try:
            select_tag(team_objs, value_at(cfg, key))
        except TeamPoolError as e:
            raise ConfigError([f"{key}: {e}"]) from e
    resume_from, start_counters = ckpt.resume_point(run_dir, cfg.model) if cfg.resume else (None, {})
    device = resolve_device(cfg.learner.device)
    for p in remove_stale(run_dir):  # half-written files of a killed run (a resume's predecessor)
        log.warning("removed %s, a file a killed run left half written", p)
    # ---- 3. connect and place the components; 4. run; 5. shut down (league/coordinator/loop.py)
    os.environ[RUN_DIR_ENV] = str(run_dir.resolve())  # inherited by every process the run starts
    coordinator_threads(cfg.run.placement)
    if cfg.run.placement == "ray":  # Ray actors, here or on a cluster (imports Ray)
        from league.coordinator.ray_placement import run_ray

        summary, errors = run_ray(cfg, run_dir, team_objs, resume_from, start_counters)
    else:
        serial = cfg.run.placement == "serial"  # the same components, as threads of this process
        w = connect(cfg, threads=serial)
        sup = (SerialPlacement if serial else Supervisor)(cfg, run_dir, w, team_objs, device)
        summary, errors = coordinate(cfg, run_dir, w, sup, team_objs, resume_from, start_counters, view)
    for err in errors:
        print(err, file=sys.stderr)
    return summary


def coordinator_threads(placement: str) -> None:
    """One torch thread for this process when the simulator and the learner run elsewhere
    (``process`` and ``ray`` placements), as they each set for themselves. Its torch work
    (each evaluation round's diversity probe: every member's forward on the probe states)
    otherwise takes torch's default, a thread per core: on a 16-core GPU machine ~9 cores
    for ~20 s, and six shards' battles/s halved meanwhile (experiments/gpu, the fourth
    lease). ``serial`` keeps torch's default: the learner steps in this process."""
    if placement != "serial":
        import torch

        torch.set_num_threads(1)


@hydra.main(version_base=None, config_path="conf", config_name="config")
def main(dcfg: DictConfig) -> None:
    run_dir = Path(HydraConfig.get().runtime.output_dir)
    if not dcfg.get("resume", False) and (why := used_run_dir(run_dir)):
        print(f"error: {why}", file=sys.stderr)
        fail(2, "run directory in use")
        return
    run_dir.mkdir(parents=True, exist_ok=True)
    # the console lines (progress, coordinator, errors, the final JSON) go to run.log too
    with open(run_dir / "run.log", "a", buffering=1) as log_file:
        out, err = sys.stdout, sys.stderr
        sys.stdout, sys.stderr = Tee(out, log_file), Tee(err, log_file)
        try:
            _main(dcfg, run_dir, out, log_file)
        finally:
            sys.stdout, sys.stderr = out, err


def _main(dcfg: DictConfig, run_dir: Path, terminal, log_file) -> None:
    # ---- 1. compose + verify
    try:
        cfg = to_object(dcfg)
        if cfg.resume:  # the run's network is its checkpoint's, whatever today's defaults
            named = {o.split("=", 1)[0].lstrip("+~").removeprefix("model.") for o in HydraConfig.get().overrides.task}
            for line in ckpt.adopt_model_sizes(run_dir, cfg.model, named):
                print(f"resume: {line} (the run's checkpoint; the default changed since it started)", file=sys.stderr)
        verify(cfg)
        if slow := accel.note():
            print(slow, file=sys.stderr)
        if why := memtrace.env_problem():
            raise ConfigError([why])
        view = make_view(cfg.run.console, terminal, log_file)  # the live table on a terminal
        if view is not None:
            view.start()
        try:
            summary = run(cfg, run_dir, view)
        finally:
            if view is not None:
                view.stop()
    except (ConfigError, ShowdownSetupError, FormatError, TeamPoolError, ckpt.CheckpointError) as e:
        print(f"error: {e}", file=sys.stderr)
        fail(2, "bad input")
        return
    except KeyboardInterrupt:  # a second Ctrl-C on the Ray driver: ended without its final checkpoint
        print("stopped at a second interrupt: resume=true continues from the last checkpoint", file=sys.stderr)
        fail(130, "interrupted")
        return
    summary["accel"] = accel.mode()
    atomic_write_text(run_dir / "summary.json", json.dumps(summary, indent=1) + "\n")
    print(json.dumps(summary), flush=True)
    if summary["stop_reason"] == "diverged":
        d = summary.get("learner_diverged") or {}
        print(
            f"error: the learner diverged at update {d.get('update')} ({d.get('figure')} {d.get('value')}); "
            f"the run ends at {summary['checkpoint']}. Lower learner.lr or bound the logits with "
            "learner.rnad.logit_l2, then resume=true goes on from there (docs/troubleshooting.md)",
            file=sys.stderr,
        )
        fail(1, "learner diverged")
    elif summary["errors"] or summary["stop_reason"] == "component failed":
        fail(1, f"stop reason {summary['stop_reason']!r}, {summary['errors']} errors")


if __name__ == "__main__":
    sys.argv[1:] = experiment_args(sys.argv[1:])
    if (why := refuse_used_run_dir(sys.argv[1:])) is not None:
        print(f"error: {why}", file=sys.stderr)
        sys.exit(2)
    main()
