"""The league's lifecycle rules as pure functions: snapshots, exploiter admission,
league-exploiter resets. Each returns its decision and the reason (for the logs)."""

from __future__ import annotations

import random
from dataclasses import dataclass


@dataclass
class SnapshotConfig:
    every_updates: int = 500  # freeze the main agent into the league every K updates
    beat_threshold: float = 0.7  # ... or earlier, when it beats its last snapshot this often
    min_games: int = 50  # games against the last snapshot before the early rule applies
    min_updates_between: int = 100  # never two snapshots closer than this


def should_snapshot(
    updates: int, last_snapshot_update: int | None, wr_vs_last: float, games_vs_last: int, cfg: SnapshotConfig
) -> tuple[bool, str]:
    if last_snapshot_update is None:
        return True, "first snapshot"
    since = updates - last_snapshot_update
    if since >= cfg.every_updates:
        return True, f"{since} updates since the last snapshot"
    if since >= cfg.min_updates_between and games_vs_last >= cfg.min_games and wr_vs_last >= cfg.beat_threshold:
        return True, f"beats the last snapshot {wr_vs_last:.2f} over {games_vs_last} games"
    return False, "not yet"


@dataclass
class AdmissionConfig:
    threshold: float = 0.6  # win rate against the victim needed to join the league


def admit_exploiter(wins: float, games: int, cfg: AdmissionConfig) -> tuple[bool, str]:
    if games <= 0:
        return False, "no evaluation games were played"
    rate = wins / games
    if rate >= cfg.threshold:
        return True, f"beat its victim {rate:.2f} >= {cfg.threshold} over {games} games"
    return False, f"beat its victim only {rate:.2f} < {cfg.threshold} over {games} games"


def should_reset_league_exploiter(reset_prob: float, rng: random.Random) -> bool:
    """AlphaStar: at each of its snapshots a league exploiter restarts from its initial
    weights with probability ``reset_prob``."""
    return rng.random() < reset_prob


@dataclass
class FreezeConfig:
    """When a league exploiter adds a frozen copy of itself to the league (AlphaStar's
    ``ready_to_checkpoint``): after ``min_updates`` of its own updates once it beats every
    frozen member above ``beat_threshold`` (each over ``min_games``), and in any case
    after ``max_updates``."""

    min_updates: int = 100  # its own updates before the beat-everyone rule applies
    max_updates: int = 400  # a frozen copy after this many updates in any case
    beat_threshold: float = 0.7  # win rate against every frozen member that freezes it early
    min_games: int = 10  # games against each frozen member before its win rate counts


def should_freeze_league_exploiter(
    since: int, win_rates: dict[str, float], games: dict[str, int], cfg: FreezeConfig
) -> tuple[bool, str]:
    """``since``: its updates since its last frozen copy; ``win_rates``/``games``: against
    each frozen member of the league."""
    if since >= cfg.max_updates:
        return True, f"{since} updates since its last frozen copy"
    if since < cfg.min_updates:
        return False, "not yet"
    if not win_rates:
        return False, "no frozen members to beat yet"
    short = [m for m in win_rates if games.get(m, 0) < cfg.min_games]
    if short:
        return False, f"fewer than {cfg.min_games} games against {len(short)} member(s)"
    worst = min(win_rates, key=lambda m: win_rates[m])
    if win_rates[worst] > cfg.beat_threshold:
        return True, f"beats every frozen member above {cfg.beat_threshold} (worst {worst} {win_rates[worst]:.2f})"
    return False, f"{worst} still holds it to {win_rates[worst]:.2f}"
