"""What the two Showdown backends share: N supervised child processes.

A fleet starts its processes, and a health thread restarts one whose process exited or
whose probe (a websocket handshake for a server, a ping for a stream worker) failed
``probe_failures_before_restart`` times in a row, bumping its ``generation`` so clients
can tell. Every process runs in its own process group, which :meth:`stop` (also on
leaving the ``with`` block and at interpreter exit) kills whole; PR_SET_PDEATHSIG kills
it if this process dies first. Subclasses give ``_spawn``, ``_wait_ready`` and ``_probe``.
"""

from __future__ import annotations

import atexit
import ctypes
import logging
import os
import random
import signal
import subprocess
import threading
import weakref
from dataclasses import dataclass, field
from pathlib import Path

log = logging.getLogger(__name__)


@dataclass(kw_only=True)
class ProcessState:
    """One supervised process of a fleet: what the health thread reads and bumps (each
    backend adds its own: a server's port and directory, a worker's link)."""

    index: int
    log_path: Path
    proc: subprocess.Popen | None = None
    generation: int = 0  # bumped at each (re)start
    restarts: int = 0
    failed_probes: int = 0
    history: list[str] = field(default_factory=list)


_LIVE: weakref.WeakSet[SupervisedFleet] = weakref.WeakSet()


def set_pdeathsig() -> None:  # runs in the child between fork and exec
    try:
        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except OSError:
        pass


def tail(path: Path, n: int = 15) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-n:])
    except OSError:
        return "(no log)"


class SupervisedFleet:
    """``servers``: one state per process (``index``, ``proc``, ``generation``,
    ``restarts``, ``failed_probes``, ``history``). Use as a context manager."""

    kind = "process"  # in log lines
    start_error: type[Exception] = RuntimeError

    def __init__(
        self,
        servers: list,
        run_dir: str | Path,
        *,
        start_timeout: float,
        health_interval: float,
        probe_failures_before_restart: int,
        max_restarts: int,
    ):
        self.run_dir = Path(run_dir)
        self.root = self.run_dir / "showdown"
        self.servers = servers
        self.start_timeout = start_timeout
        self.health_interval = health_interval
        self.probe_failures_before_restart = probe_failures_before_restart
        self.max_restarts = max_restarts
        self._lock = threading.RLock()
        self._stop_event = threading.Event()
        self._health_thread: threading.Thread | None = None

    # ---------------------------------------------------------------- what a match asks of it (league/match.py)
    def player_kwargs(self, i: int) -> dict:
        """Extra keyword arguments for the players of process ``i`` (none by default)."""
        return {}

    async def pair_task(
        self, i: int, p1, p2, n: int, concurrency: int, seed_rng: random.Random, record_log: bool = False
    ) -> None:
        """Play ``n`` battles between ``p1`` and ``p2`` on process ``i``: by default the
        players challenge each other on it (a server); a stream fleet starts them itself."""
        await p1.battle_against(p2, n_battles=n)

    # ---------------------------------------------------------------- hooks
    def _start_all(self) -> None:
        """Spawn every process and wait until each serves (raise ``start_error`` if not)."""
        for s in self.servers:
            self._spawn(s, reason="start")
        for s in self.servers:
            self._wait_ready(s, self.start_timeout)

    def _spawn(self, s, reason: str) -> None:
        raise NotImplementedError

    def _wait_ready(self, s, timeout: float) -> None:
        """Return once ``s`` serves, or raise ``start_error``."""
        raise NotImplementedError

    def _probe(self, s) -> bool | None:
        """One health probe of a live process: True answered, False did not, None no verdict."""
        raise NotImplementedError

    def _release(self, s) -> None:
        """Drop what this side holds of ``s`` (pipes, threads) before its process dies."""

    # ---------------------------------------------------------------- lifecycle
    def start(self):
        self.root.mkdir(parents=True, exist_ok=True)
        _LIVE.add(self)
        try:
            self._start_all()
        except BaseException:
            self.stop()
            raise
        self._health_thread = threading.Thread(target=self._health_loop, name=f"{self.kind}-health", daemon=True)
        self._health_thread.start()
        return self

    def stop(self) -> None:
        self._stop_event.set()
        if self._health_thread is not None and self._health_thread is not threading.current_thread():
            self._health_thread.join(timeout=10)
        with self._lock:
            for s in self.servers:
                self._terminate(s)
        _LIVE.discard(self)

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    # ---------------------------------------------------------------- queries
    def generation(self, i: int) -> int:
        return self.servers[i].generation

    def pids(self) -> list[int]:
        return [s.proc.pid for s in self.servers if s.proc is not None and s.proc.poll() is None]

    def kill(self, i: int, sig: int = signal.SIGKILL) -> None:
        """Send a signal to process i (tests use it to simulate a crash)."""
        p = self.servers[i].proc
        if p is not None and p.poll() is None:
            os.kill(p.pid, sig)

    # ---------------------------------------------------------------- internals
    def _terminate(self, s) -> None:
        self._release(s)
        p = s.proc
        if p is None:
            return
        if p.poll() is None:
            try:
                os.killpg(p.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
            try:
                p.wait(timeout=5)
            except subprocess.TimeoutExpired:
                pass
        # The group may still hold children (a server's battle and validator processes)
        # even when the main process is gone, e.g. after a SIGKILL of the main process only.
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        try:
            p.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass

    def _restart(self, s, reason: str) -> None:
        with self._lock:
            if self._stop_event.is_set():
                return
            if s.restarts >= self.max_restarts:
                log.error("%s %d exceeded %d restarts; leaving it down", self.kind, s.index, self.max_restarts)
                return
            self._terminate(s)
            s.restarts += 1
            log.warning("restarting %s %d (%s), restart #%d", self.kind, s.index, reason, s.restarts)
            self._spawn(s, reason=f"restart ({reason})")
        try:
            self._wait_ready(s, self.start_timeout)
        except self.start_error as e:
            log.error("%s", e)

    def _health_loop(self) -> None:
        while not self._stop_event.wait(self.health_interval):
            for s in self.servers:
                if self._stop_event.is_set():
                    return
                if s.proc is None:
                    continue
                if s.proc.poll() is not None:
                    self._restart(s, f"process exited with code {s.proc.returncode}")
                    continue
                ok = self._probe(s)
                if ok:
                    s.failed_probes = 0
                elif ok is not None:
                    s.failed_probes += 1
                    if s.failed_probes >= self.probe_failures_before_restart:
                        self._restart(s, f"{s.failed_probes} failed probes")


@atexit.register
def _stop_all_fleets() -> None:
    for fleet in list(_LIVE):
        try:
            fleet.stop()
        except Exception:  # pragma: no cover - best effort at exit
            pass
