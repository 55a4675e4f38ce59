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
