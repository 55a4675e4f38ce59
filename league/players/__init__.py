"""poke-env players for VGC doubles: a codec-driven base, and the fixed baselines."""

from __future__ import annotations

from league.players.base import ChoiceOrder, LeaguePlayer, PoolTeambuilder, sample_legal
from league.players.maxdamage import MaxDamagePlayer
from league.players.random_player import RandomPlayer

BASELINES = {"random": RandomPlayer, "maxdamage": MaxDamagePlayer}


class PlayerSpecError(ValueError):
    pass


def player_class(spec: str):
    """Player class for a SPEC (`random`, `maxdamage`)."""
    if spec in BASELINES:
        return BASELINES[spec]
    raise PlayerSpecError(f"unknown player spec {spec!r}: expected one of {sorted(BASELINES)}")


__all__ = [
    "BASELINES",
    "ChoiceOrder",
    "LeaguePlayer",
    "MaxDamagePlayer",
    "PlayerSpecError",
    "PoolTeambuilder",
    "RandomPlayer",
    "player_class",
    "sample_legal",
]
