"""poke-env players for VGC doubles: a codec-driven base, and the fixed baselines."""

from __future__ import annotations

from league.players.base import ChoiceOrder, LeaguePlayer, PoolTeambuilder, sample_legal
from league.players.heuristic import HeuristicPlayer
from league.players.maxdamage import MaxDamagePlayer
from league.players.random_player import RandomPlayer

BASELINES = {"random": RandomPlayer, "maxdamage": MaxDamagePlayer, "heuristic": HeuristicPlayer}


class PlayerSpecError(ValueError):
    pass


__all__ = [
    "BASELINES",
    "ChoiceOrder",
    "HeuristicPlayer",
    "LeaguePlayer",
    "MaxDamagePlayer",
    "PlayerSpecError",
    "PoolTeambuilder",
    "RandomPlayer",
    "sample_legal",
]
