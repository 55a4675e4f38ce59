"""Shared fixtures. Integration tests start real Showdown servers (no mocks)."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED_POOL = ROOT.parent / "shared" / "teams" / "gen9vgc2023regc"
FORMAT = "gen9vgc2023regc"


@pytest.fixture(scope="session")
def pool_dir() -> Path | None:
    """The 238-team shared pool when it sits beside the checkout, else the shipped pool (None)."""
    return SHARED_POOL if SHARED_POOL.is_dir() else None


@pytest.fixture(scope="session")
def install():
    from league.showdown import locate_showdown

    return locate_showdown()


@pytest.fixture(scope="session")
def packed_teams(install, pool_dir) -> list[str]:
    from league.teams import TeamRepository

    return [t.packed for t in TeamRepository(install).load(FORMAT, pool_dir)]


@pytest.fixture(scope="session")
def fleet(tmp_path_factory, install):
    """One real Showdown server for the whole session."""
    from league.showdown import ShowdownFleet

    with ShowdownFleet(1, tmp_path_factory.mktemp("fleet"), install=install) as f:
        yield f


def left_behind(run_dir, grace_s: float = 20.0) -> list[int]:
    """The processes a run left behind: those whose command line names ``run_dir``,
    whose working directory is inside it (Showdown servers and their Node workers), and
    those ``run_dir/processes.json`` lists (learners, simulators, exploiters, actors),
    still alive after up to ``grace_s`` (a killed run's children leave within seconds by
    themselves: PR_SET_PDEATHSIG, the parent watch); [] as soon as none is left."""
    import json
    import os
    import subprocess
    import time

    from league.showdown.fleet import processes_under

    def listed() -> set[int]:
        try:
            pids = json.loads((Path(run_dir) / "processes.json").read_text())
        except (OSError, ValueError):
            return set()
        out = set()
        for v in pids.values():
            if isinstance(v, int):
                out.add(v)
            elif isinstance(v, list):
                out.update(p for p in v if isinstance(p, int))
            elif isinstance(v, dict):
                out.update(p for p in v.values() if isinstance(p, int))
        return out

    def alive(pid: int) -> bool:
        try:
            with open(f"/proc/{pid}/stat") as f:
                return f.read().rsplit(")", 1)[1].split()[0] != "Z"  # a zombie has ended
        except OSError:
            return False

    deadline = time.monotonic() + grace_s
    while True:
        named = subprocess.run(["pgrep", "-f", str(run_dir)], capture_output=True, text=True).stdout.split()
        left = sorted(
            p for p in {*map(int, named), *processes_under(run_dir), *listed()} if p != os.getpid() and alive(p)
        )
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.2)
