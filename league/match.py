"""Play N battles between two player specs across a Showdown fleet, surviving crashes.

Each server gets one (p1, p2) pair of poke-env players and its share of the battles,
C at a time. A watchdog follows every server: when the fleet restarts it (the
process died or stopped answering) or no battle has made progress for
``stall_timeout`` seconds, the battles in flight there are counted as
``unfinished`` (lost), the players are dropped, and fresh players carry on with
the rest of that server's share once it answers again. Nothing waits forever.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import math
import random
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from poke_env import AccountConfiguration

from league import heap
from league.players.base import LeaguePlayer, PoolTeambuilder
from league.showdown import Fleet

log = logging.getLogger(__name__)

PlayerFactory = Callable[..., LeaguePlayer]
_NAMES = itertools.count()


@dataclass
class MatchResult:
    battles: int = 0
    started: int = 0  # battles p1 took part in: battles + unfinished + abandoned (league.match's accounting)
    p1_wins: int = 0
    p2_wins: int = 0
    ties: int = 0
    unfinished: int = 0
    decisions: int = 0
    showdown_errors: int = 0
    unavailable_choices: int = 0  # refused for hidden information and chosen again (LeaguePlayer)
    error_kinds: Counter = field(default_factory=Counter)
    error_examples: list[str] = field(default_factory=list)
    server_restarts: int = 0
    abandoned: int = 0  # in flight when asked to stop (continuous mode); not an error
    timed_out: int = 0  # ended by the per-battle watchdog (also counted in unfinished)
    wall_s: float = 0.0
    # Mega Evolution (Champions formats): battles a side mega-evolved in, battles it could have
    p1_megas: int = 0
    p1_mega_chances: int = 0
    p2_megas: int = 0
    p2_mega_chances: int = 0
    # a search player's look-ahead (league/players/search.py), per side: move requests
    # searched, those where it changed the network's first choice, those it could not search
    search: dict[str, Counter] = field(default_factory=dict)
    search_settings: dict[str, dict] = field(default_factory=dict)

    def summary(self) -> dict:
        lo, hi = wilson_interval(self.p1_wins, self.battles)
        return {
            "battles": self.battles,
            "p1_wins": self.p1_wins,
            "p2_wins": self.p2_wins,
            "ties": self.ties,
            "p1_win_rate": self.p1_wins / self.battles if self.battles else 0.0,
            "ci95": [round(lo, 4), round(hi, 4)],
            "battles_per_s": round(self.battles / self.wall_s, 3) if self.wall_s else 0.0,
            "decisions_per_s": round(self.decisions / self.wall_s, 2) if self.wall_s else 0.0,
            "showdown_errors": self.showdown_errors,
            "unavailable_choices": self.unavailable_choices,
            "unfinished": self.unfinished,
            "abandoned": self.abandoned,
            "started": self.started,
            "timed_out": self.timed_out,
            "server_restarts": self.server_restarts,
            "p1_megas": self.p1_megas,
            "p1_mega_chances": self.p1_mega_chances,
            "p2_megas": self.p2_megas,
            "p2_mega_chances": self.p2_mega_chances,
            **{
                f"{side}_search": {**dict(c), **self.search_settings.get(side, {})}
                for side, c in sorted(self.search.items())
            },
            "wall_s": round(self.wall_s, 2),
        }


def wilson_interval(k: int, n: int, z: float = 1.959964) -> tuple[float, float]:
    """95% Wilson score interval for k successes in n trials."""
    if n == 0:
        return 0.0, 1.0
    p = k / n
    den = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / den
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / den
    return max(0.0, centre - half), min(1.0, centre + half)


def _split(n: int, k: int) -> list[int]:
    return [n // k + (1 if i < n % k else 0) for i in range(k)]


def _drop_stalled(p1: LeaguePlayer, p2: LeaguePlayer, timeout: float) -> None:
    """Both players drop every battle neither has heard of for ``timeout`` seconds."""
    now = time.monotonic()
    for tag, b in list(p1.battles.items()):
        if b.finished or tag in p1.timed_out:
            continue
        last = max(p1.activity.get(tag, now), p2.activity.get(tag, 0.0))
        if now - last > timeout:
            log.warning("battle %s: no progress for %.0fs; ending it (counted as timed out)", tag, timeout)
            for p in (p1, p2):
                if tag in p.battles:
                    asyncio.ensure_future(p.drop_battle(tag))
                else:
                    p.timed_out.add(tag)


async def _watch(
    task, p1, p2, fleet: Fleet, i: int, gen: int, stop, stall_timeout: float, battle_timeout: float
) -> bool:
    """Until the match task ends, or server ``i`` restarts or stalls (its battles in flight
    are then lost), or ``stop`` is set (returns True). A stalled battle among live ones
    is dropped on its own (``battle_timeout``)."""
    crashed = stopped = False
    last_progress, last_marker = time.monotonic(), (-1, -1)
    while not task.done():
        await asyncio.wait({task}, timeout=0.5)
        if task.done():
            break
        if stop is not None and stop.is_set():
            stopped = True
            break
        if fleet.generation(i) != gen or not fleet.is_alive(i):
            crashed = True
            log.warning("server %d restarted during a match: counting its in-flight battles as lost", i)
            break
        if battle_timeout:
            _drop_stalled(p1, p2, battle_timeout)
        marker = (p1.n_finished, p1.decisions + p2.decisions)
        if marker != last_marker:
            last_marker, last_progress = marker, time.monotonic()
        elif time.monotonic() - last_progress > stall_timeout:
            crashed = True
            log.warning("server %d: no progress for %.0fs; dropping its in-flight battles", i, stall_timeout)
            break
    if crashed or stopped:
        task.cancel()
        try:
            await asyncio.wait_for(asyncio.shield(task), timeout=1)
        except BaseException:
            pass
    elif task.exception() is not None:
        log.error("server %d: match task failed: %r", i, task.exception())
    return stopped


def _account(result: MatchResult, p1: LeaguePlayer, p2: LeaguePlayer, stopped: bool) -> int:
    """Add one pair of players' counts to ``result``; returns the battles they used up."""
    result.p1_wins += p1.n_won
    result.p2_wins += p1.n_lost
    result.ties += p1.n_tied
    result.battles += p1.n_finished
    result.timed_out += p1.n_timed_out
    result.unfinished += p1.n_timed_out
    result.p1_megas += p1.n_megas
    result.p1_mega_chances += p1.n_mega_chances
    result.p2_megas += p2.n_megas
    result.p2_mega_chances += p2.n_mega_chances
    for side, p in (("p1", p1), ("p2", p2)):
        counts, settings = getattr(p, "search_counts", None), getattr(p, "search_settings", None)
        if counts is not None and settings is not None:
            result.search.setdefault(side, Counter()).update(counts())
            result.search_settings[side] = settings()
    in_flight = p1.n_in_flight
    result.started += p1.n_started
    p1.retire()
    p2.retire()
    if stopped:
        result.abandoned += in_flight
    else:
        result.unfinished += in_flight
    for p in (p1, p2):
        result.decisions += p.decisions
        result.showdown_errors += p.showdown_errors
        result.unavailable_choices += p.unavailable_choices
        result.error_kinds.update(p.errors)
        result.error_examples.extend(p.error_log[: max(0, 20 - len(result.error_examples))])
    return p1.n_finished + p1.n_timed_out + in_flight


async def _close(player: LeaguePlayer) -> None:
    try:
        await asyncio.wait_for(player.ps_client.stop_listening(), timeout=3)
    except Exception:
        pass


class FleetExhausted(RuntimeError):
    """A server that finishes no battle through its restart budget, in continuous play."""


async def play_matches(
    fleet: Fleet,
    make_p1: PlayerFactory,
    make_p2: PlayerFactory,
    n_battles: int | None,
    p1_teams: list[str],
    p2_teams: list[str],
    *,
    battle_format: str = "gen9vgc2023regc",
    concurrency: int = 16,
    seed: int = 0,
    stall_timeout: float = 120.0,
    battle_timeout: float = 300.0,
    on_progress: Callable[[int], None] | None = None,
    stop: asyncio.Event | None = None,
    servers: list[int] | None = None,
    open_team_sheets: bool = False,
) -> MatchResult:
    """Play ``n_battles`` finished battles (p1 vs p2); returns counts from p1's side.

    ``n_battles=None`` plays continuously until ``stop`` is set; the battles in flight
    then are counted as ``abandoned``. ``servers`` restricts play to those fleet indices.
    A battle with no message for ``battle_timeout`` seconds while others go on (0: never)
    is ended (``LeaguePlayer.drop_battle``) and counted in ``timed_out`` and ``unfinished``.
    ``on_progress(finished)``: the battles finished so far, every half second and at the end.
    ``open_team_sheets``: both players accept open team sheets (the format must have the
    rule: ``FormatInfo.open_team_sheets``), so each sees the other's sheet at team preview.
    """
    heap.settle()  # the process's first battles: its start-up frozen, collections rare (league/heap.py)
    result = MatchResult()
    loop = asyncio.get_running_loop()
    t0 = time.monotonic()
    idx = list(range(len(fleet.servers))) if servers is None else list(servers)
    if n_battles is None:
        if stop is None:
            raise ValueError("continuous play (n_battles=None) needs a stop event")
        shares = [10**12] * len(idx)
    else:
        shares = _split(n_battles, len(idx))

    async def serve(i: int, share: int) -> None:
        rng = random.Random(seed * 1000 + i)
        left = share
        attempts = 0
        while left > 0 and not (stop is not None and stop.is_set()):
            attempts += 1
            if attempts > fleet.max_restarts + 2:
                if n_battles is None:  # continuous play (training): a simulator that goes on without it idles
                    raise FleetExhausted(
                        f"server {i}: no battle finished in {attempts - 1} attempts in a row (past its restart "
                        f"budget of {fleet.max_restarts}); the simulator stops, so the run restarts it or stops "
                        "with this error"
                    )
                log.error("server %d: giving up on %d battles after %d attempts", i, left, attempts - 1)
                result.unfinished += left
                return
            if not await asyncio.to_thread(fleet.wait_healthy, i, 120.0):
                continue
            gen = fleet.generation(i)
            uid = next(_NAMES)
            common = dict(
                battle_format=battle_format,
                server_configuration=fleet.server_configuration(i),
                max_concurrent_battles=concurrency,
                loop=loop,
                # poke-env logs task cancellation at CRITICAL when players are dropped;
                # Showdown's |error| messages are counted by LeaguePlayer instead.
                log_level=logging.CRITICAL + 1,
                accept_open_team_sheet=open_team_sheets,
                **fleet.player_kwargs(i),
            )
            p1 = make_p1(
                account_configuration=AccountConfiguration(f"p1s{i}n{uid}", None),
                team=PoolTeambuilder.from_teams(p1_teams, random.Random(rng.random())),
                **common,
            )
            p2 = make_p2(
                account_configuration=AccountConfiguration(f"p2s{i}n{uid}", None),
                team=PoolTeambuilder.from_teams(p2_teams, random.Random(rng.random())),
                **common,
            )
            task = asyncio.ensure_future(fleet.pair_task(i, p1, p2, left, concurrency, random.Random(rng.random())))
            live[i] = p1
            stopped = await _watch(task, p1, p2, fleet, i, gen, stop, stall_timeout, battle_timeout)
            live.pop(i, None)  # counted in result from here on
            left -= _account(result, p1, p2, stopped)
            if p1.n_finished > 0:  # progress: attempts counts stalls in a row, not over the whole run
                attempts = 0
            await asyncio.gather(_close(p1), _close(p2))
            p1.release()  # their battles' objects go; their counts stay
            p2.release()

    live: dict[int, LeaguePlayer] = {}  # each server's players now (their battles not yet in result)

    async def tick(report: Callable[[int], None]) -> None:
        while True:
            report(result.battles + sum(p.n_finished for p in live.values()))
            await asyncio.sleep(0.5)

    ticker = asyncio.ensure_future(tick(on_progress)) if on_progress is not None else None
    try:
        await asyncio.gather(*(serve(i, s) for i, s in zip(idx, shares) if s > 0))
    finally:
        if ticker is not None:
            ticker.cancel()
        if on_progress is not None:
            on_progress(result.battles)
    result.wall_s = time.monotonic() - t0
    result.server_restarts = sum(s.restarts for s in fleet.servers)
    return result
