"""The coordinator's loop, whatever the placement: reports in, the coordinator decides,
the placement acts, until a stop rule; then the placement stops everything and the
league, TensorBoard and the progress line are closed.

A placement (league/coordinator/supervisor.py: processes on this machine;
league/coordinator/ray_placement/: Ray actors) is a :class:`Placement`; the wiring a
:class:`Wiring`.
"""

from __future__ import annotations

import signal
import time
from pathlib import Path
from typing import Protocol

from league.coordinator.coordinator import Coordinator, Health
from league.coordinator.monitor import Monitor
from league.population.league import LeagueManager


class Placement(Protocol):
    """Where the components run, and what the loop asks of it."""

    def spawn_exploiter(self, lane, member, league_exploiter: bool):
        """Start an exploiter's learner on ``lane``; returns its handle (``is_alive()``)."""

    def start(self, resume_from: str | None, resumed_updates: int = 0, eval_history: dict | None = None) -> None:
        """Start the simulator shard(s) and the main learner."""

    def health(self) -> Health:
        """Which components are alive, with their exit codes."""

    def execute(self, actions: list, coord: Coordinator) -> None:
        """Carry out the coordinator's decisions: restarts here, commands on the wiring."""

    def shutdown(self, coord: Coordinator) -> None:
        """Stop everything; the final reports reach ``coord``."""


class Wiring(Protocol):
    """The control channels: reports in, commands out."""

    def receive(self, timeout_ms: int) -> list:
        """The reports that arrived within ``timeout_ms`` (``(envelope, message)`` pairs)."""

    def send(self, command) -> None:
        """A command to every component."""

    def close(self) -> None: ...


def coordinate(
    cfg,
    run_dir: Path,
    wiring: Wiring,
    place: Placement,
    team_objs: list,
    resume_from: str | None,
    start_counters: dict,
    view=None,
    on_coordinator=None,
    signals: bool = True,
) -> tuple[dict, list[str]]:
    """Run to the end; returns (the run's summary, its errors). ``signals``: SIGINT and
    SIGTERM end the run cleanly (only where this runs in the main thread);
    ``on_coordinator(coord)`` is called once the coordinator exists."""
    mon = Monitor(run_dir, cfg, start_counters, view)
    league = LeagueManager(cfg.league, run_dir, resume=cfg.resume, state=start_counters.get("league"))
    mon.league = league
    coord = Coordinator(
        cfg,
        run_dir,
        mon,
        league,
        team_objs,
        place.spawn_exploiter,
        t0=time.monotonic(),
        resume_from=resume_from,
        schedule=start_counters.get("schedule"),
    )
    if on_coordinator is not None:
        on_coordinator(coord)
    old = {}
    try:
        place.start(resume_from, int(start_counters.get("updates", 0)), start_counters.get("eval_window"))
        if signals:
            old = {s: signal.signal(s, lambda *_: coord.interrupt()) for s in (signal.SIGINT, signal.SIGTERM)}
        while coord.stop_reason is None:
            reports = wiring.receive(200)
            place.execute(coord.step(time.monotonic(), reports, place.health()), coord)
            mon.line()
    finally:
        # stop the simulator shards and the learner, collect the final checkpoint
        place.shutdown(coord)
        coord.settle()
        for s, h in old.items():
            signal.signal(s, h)
        coord.league.dirty = True
        coord.league.save()
        if cfg.league.enabled:
            coord.league.log_payoff(mon.tb, mon.updates)
        mon.line(force=True)
        mon.tb.close()
        wiring.close()
    return {**coord.summary(), "bad_messages": getattr(wiring, "bad_messages", 0)}, list(coord.errors)
