"""Where a component's CPU goes: a profile switched on by the environment (issue 31).

``LEAGUE_PROFILE=DIR``: each simulator shard and learner runs its work under
``cProfile`` and, when it ends cleanly (the run stopped, or its budget reached), writes
``DIR/NAME_PID.prof`` (``pstats``; read it with ``python -m pstats FILE`` or
``pstats.Stats(FILE).sort_stats("tottime").print_stats(30)``). A component killed
writes nothing. cProfile slows a Python-bound process ~1.5-2x: a run profiled so is no
speed figure, only a share of where its time goes."""

from __future__ import annotations

import contextlib
import cProfile
import os
from collections.abc import Iterator
from pathlib import Path

ENV = "LEAGUE_PROFILE"


@contextlib.contextmanager
def profiled(name: str) -> Iterator[None]:
    """Profile the block when ``LEAGUE_PROFILE`` names a directory; a no-op otherwise."""
    out = os.environ.get(ENV)
    if not out:
        yield
        return
    prof = cProfile.Profile()
    prof.enable()
    try:
        yield
    finally:
        prof.disable()
        d = Path(out)
        d.mkdir(parents=True, exist_ok=True)
        tmp = d / f".{name}_{os.getpid()}.prof.tmp"
        prof.dump_stats(tmp)
        os.replace(tmp, d / f"{name}_{os.getpid()}.prof")
