"""Where a long run's memory goes: a diagnostic switched on by the environment.

``LEAGUE_MEMTRACE=DIR`` (optional ``LEAGUE_MEMTRACE_EVERY`` seconds, default 300): each
process that calls :func:`start` (a simulator, a learner) runs Python's ``tracemalloc``
and, every period, writes ``DIR/NAME_PID.txt``: the allocation sites (four frames) whose
live memory grew most since the first period's snapshot (so start-up is not counted),
with the process's RSS. The Node stream workers write ``DIR/node_PID.jsonl`` (V8's heap
and RSS each minute, league/showdown/stream_worker.js). Off by default: tracemalloc
costs CPU and memory, so a run traced is not one to time. docs/troubleshooting.md says how to
read the files."""

from __future__ import annotations

import os
import threading
import time
import tracemalloc
from pathlib import Path

from league.atomic import atomic_write_text

ENV = "LEAGUE_MEMTRACE"
ENV_EVERY = "LEAGUE_MEMTRACE_EVERY"
FRAMES = 4
TOP = 30


def rss_mb() -> float:
    """This process's resident memory (MiB), from /proc (0.0 where there is none)."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
    except (OSError, ValueError, IndexError):
        return 0.0


def report(base: tracemalloc.Snapshot, now: tracemalloc.Snapshot, name: str, minutes: float) -> str:
    """The text of one period: the sites whose live memory grew most from ``base``."""
    stats = now.compare_to(base, "traceback")
    total = sum(s.size for s in now.statistics("filename"))
    lines = [
        f"{name} pid {os.getpid()} at {minutes:.1f} min: RSS {rss_mb():.1f} MiB, "
        f"traced {total / 2**20:.1f} MiB, growth since the first snapshot "
        f"{sum(s.size_diff for s in stats) / 2**20:+.1f} MiB",
        "",
    ]
    for s in stats[:TOP]:
        lines.append(f"{s.size_diff / 2**20:+8.2f} MiB  {s.count_diff:+8d} blocks  (now {s.size / 2**20:.2f} MiB)")
        lines.extend(f"        {fr.filename}:{fr.lineno}" for fr in reversed(s.traceback))  # the allocating line first
    return "\n".join(lines) + "\n"


def start(name: str) -> bool:
    """Trace this process's memory if ``LEAGUE_MEMTRACE`` names a directory; returns
    whether it does. A daemon thread writes the report every period."""
    out = os.environ.get(ENV)
    if not out:
        return False
    every = float(os.environ.get(ENV_EVERY, "300"))
    path = Path(out) / f"{name}_{os.getpid()}.txt"
    tracemalloc.start(FRAMES)
    t0 = time.monotonic()

    def loop() -> None:
        time.sleep(every)
        base = tracemalloc.take_snapshot()
        while True:
            time.sleep(every)
            snap = tracemalloc.take_snapshot()
            atomic_write_text(path, report(base, snap, name, (time.monotonic() - t0) / 60))

    threading.Thread(target=loop, name="memtrace", daemon=True).start()
    return True
