"""Uniform over the legal mask (joint turn orders and team-preview picks)."""

from __future__ import annotations

import random

from league.players.base import LeaguePlayer, sample_legal


class RandomPlayer(LeaguePlayer):
    encode_observations = False

    def __init__(self, *args, seed: int | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        self.rng = random.Random(seed)

    def choose_preview(self, battle, decision) -> int:
        return sample_legal(decision.mask, self.rng)

    def choose_turn(self, battle, decision) -> int:
        return sample_legal(decision.mask, self.rng)
