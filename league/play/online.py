"""Play on any Pokemon Showdown server: answer in time, rejoin, count results.

The connection is league/play/client.py's :class:`OnlineClient` (login, reconnects).
:class:`OnlineMixin` goes in front of any of our players
(``league.specs.player_factory(spec, mixin=OnlineMixin)``):

- a rejoined battle is rebuilt from the log the server sends again (poke-env would apply
  every event a second time to the old battle object); a request whose choice the server
  already has is taken in but not answered again; a battle that was not rejoined a few
  seconds after the login is asked for (``/join``), and one the server no longer has
  (``|noinit|``, e.g. it restarted) ends as an error;
- every decision is answered within ``move_deadline`` seconds: when the policy has not
  answered by then, a legal choice drawn uniformly from the mask is sent instead
  (``late_decisions``). Choices are the codec's, checked against the legality mask
  (league.players.base), so no illegal choice is sent;
- with ``timer`` the battle timer is turned on at the start of each battle, so an opponent
  who stops answering loses on time (VGC formats: 55 s a turn, 7 min in all); a battle
  with no message for ``battle_timeout`` seconds is forfeited and counted as an error;
- :meth:`OnlineMixin.accept`, :meth:`OnlineMixin.challenge` and :meth:`OnlineMixin.ladder`
  play n battles, at most ``concurrency`` at a time, sending again a challenge or ladder
  search the server dropped during a reconnect. Each finished battle is reported
  through ``on_result``; a battle asked for that never started (declined, nobody
  challenged within the wait, refused by the server) is counted in ``unplayed``, with
  the reason. ``wins + losses + ties + errors == n`` where ``errors`` counts both.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

import orjson
from poke_env.data import to_id_str
from websockets.exceptions import ConnectionClosed

from league.play.client import LOGIN_TIMEOUT_S, LoginError, OnlineClient
from league.players.base import LeaguePlayer, sample_legal

log = logging.getLogger(__name__)

# The mixin goes in front of one of our players: to the type checker it is one (its
# attributes and super() calls are LeaguePlayer's); at run time it derives from object.
if TYPE_CHECKING:
    _Player = LeaguePlayer
else:
    _Player = object


class OnlineMixin(_Player):
    """Online behaviour for any of our players (see the module docstring). Build players
    with ``player_factory(spec, mixin=OnlineMixin)`` and inside a running event loop."""

    ps_client: OnlineClient  # in place of poke-env's (__init__)

    def __init__(
        self,
        *args,
        login_url: str | None = None,
        reconnect_s: float = 120.0,
        move_deadline: float = 10.0,
        battle_timeout: float = 900.0,
        timer: bool = True,
        concurrency: int = 1,
        on_result: Callable[[dict], None] | None = None,
        **kwargs,
    ):
        kwargs["start_listening"] = False
        kwargs["start_timer_on_battle_start"] = timer
        kwargs["max_concurrent_battles"] = 0  # the play loops keep to `concurrency`
        if kwargs.get("loop") is None:
            kwargs["loop"] = asyncio.get_running_loop()
        log_level = kwargs.get("log_level")
        super().__init__(*args, **kwargs)
        old = self.ps_client
        for handler in list(old.logger.handlers):  # poke-env's stderr handler, on a logger we no longer use
            old.logger.removeHandler(handler)
        self.ps_client = OnlineClient(
            account_configuration=old.account_configuration,
            avatar=old._avatar,
            log_level=log_level,
            on_battle_message=self._handle_battle_message,
            on_update_challenges=self._update_challenges,
            on_challenge_request=self._handle_challenge_request,
            server_configuration=old.server_configuration,
            open_timeout=old._open_timeout,
            ping_interval=old._ping_interval,
            ping_timeout=old._ping_timeout,
            loop=old.loop,
            login_url=login_url,
            reconnect_s=reconnect_s,
            on_event=self._notify,
            on_pm=self._on_pm,
            on_login=self._on_relogin,
        )
        self.move_deadline = move_deadline
        self.battle_timeout = battle_timeout
        self.concurrency = concurrency
        self.on_result = on_result
        self.started = 0
        self.results: list[dict] = []  # one per finished battle: battle, result, opponent, turns
        self.unplayed: list[str] = []  # one reason per battle asked for that never started
        self.late_decisions = 0
        self.rejoins = 0
        self.challenges_from: dict[str, str] = {}  # user id -> format of their pending challenge to us
        self.declined: dict[str, str] = {}  # user id -> why our challenge to them ended without a battle
        self._rejoined: set[str] = set()  # battles the server sent again since the last login
        self._fallback_rng = random.Random(to_id_str(self.username))
        self._changed = asyncio.Event()
        self._tasks: list[asyncio.Future] = []

    # ------------------------------------------------------------------ state
    @property
    def active(self) -> int:
        return self.started - len(self.results)

    @property
    def online(self) -> bool:
        return self.ps_client.logged_in.is_set()

    @property
    def failed(self) -> Exception | None:
        return self.ps_client.error

    def _notify(self) -> None:
        ev, self._changed = self._changed, asyncio.Event()
        ev.set()

    async def _until(self, pred: Callable[[], bool], timeout: float | None = None) -> bool:
        """Wait until ``pred()``; False on timeout or when the connection failed for good."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while not pred():
            if self.failed is not None:
                return False
            left = 1.0 if deadline is None else min(1.0, deadline - time.monotonic())
            if left <= 0:
                return False
            try:
                await asyncio.wait_for(self._changed.wait(), left)
            except TimeoutError:
                pass
        return True

    def _unplayed(self, k: int, reason: str) -> None:
        if k > 0:
            log.warning("%d battle(s) not played: %s", k, reason)
            self.unplayed.extend([reason] * k)

    # ------------------------------------------------------------------ lifecycle
    async def connect(self, timeout: float = LOGIN_TIMEOUT_S + 5) -> None:
        """Connect and log in; raises :class:`LoginError` or :class:`ConnectError`."""
        self._tasks = [asyncio.ensure_future(self.ps_client.run()), asyncio.ensure_future(self._watch_battles())]
        ok = await self._until(lambda: self.online, timeout)
        if self.failed is not None:
            raise self.failed
        if not ok:
            raise LoginError(f"not logged in on {self.ps_client.websocket_url} within {timeout:.0f}s")

    async def close(self) -> None:
        await self.ps_client.close()
        for t in self._tasks:
            t.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    async def _send(self, coro: Awaitable) -> bool:
        """Send (a poke-env client coroutine); False when the connection is down."""
        try:
            await coro
            return True
        except (ConnectionClosed, AttributeError, AssertionError):  # AssertionError: poke-env's logged-in check
            return False

    def _on_relogin(self) -> None:
        self._rejoined.clear()
        asyncio.ensure_future(self._join_missing())

    async def _join_missing(self, after_s: float = 3.0) -> None:
        """After a reconnect, ask for the battles Showdown did not send again by itself."""
        await asyncio.sleep(after_s)
        for tag, battle in list(self._battles.items()):
            if not battle.finished and tag not in self._rejoined and self.online:
                log.warning("%s: battle %s not rejoined; asking for it", self.username, tag)
                await self._send(self.ps_client.send_message(f"/join {tag}"))

    async def _watch_battles(self) -> None:
        """Forfeit (and count as errors) battles with no message for ``battle_timeout`` s."""
        while True:
            await asyncio.sleep(2.0)
            if not self.online or not self.battle_timeout:
                continue
            now = time.monotonic()
            for tag, battle in list(self._battles.items()):
                if battle.finished or tag in self.timed_out:
                    continue
                if now - self.activity.get(tag, now) > self.battle_timeout:
                    log.warning(
                        "battle %s: no message for %.0fs; forfeiting it (counted as an error)", tag, self.battle_timeout
                    )
                    asyncio.ensure_future(self.drop_battle(tag))

    # ------------------------------------------------------------------ poke-env hooks
    async def _create_battle(self, split_message):
        tag = "-".join(split_message)[1:]
        known = tag in self._battles
        battle = await super()._create_battle(split_message)
        if not known and tag in self._battles:
            self.started += 1
            self._rejoined.add(tag)
            log.info("%s: battle %s started", self.username, tag)
            self._notify()
        return battle

    async def _handle_battle_message(self, split_messages):
        tag = split_messages[0][0].lstrip(">")
        kinds = {m[1] for m in split_messages[1:] if len(m) > 1}
        if "noinit" in kinds:  # the server does not have this battle (any more)
            battle = self._battles.get(tag)
            if battle is not None and not battle.finished and tag not in self.timed_out:
                log.warning("battle %s: the server no longer has it (counted as an error)", tag)
                await self.drop_battle(tag, grace_s=0)
            return
        if "init" in kinds and tag in self._battles:  # rejoined after a reconnect: the whole log again
            old = self._battles[tag]
            if old.finished:
                return
            self._battles[tag] = type(old)(
                battle_tag=tag, username=self.username, logger=self.logger, save_replays=self._save_replays, gen=old.gen
            )
            self._rejoined.add(tag)
            self.rejoins += 1
            log.warning("%s: rejoined battle %s", self.username, tag)
        if "sentchoice" in kinds:  # the server has our choice for this request: take it in, do not answer
            battle = self._battles.get(tag)
            kept = []
            for m in split_messages[1:]:
                if len(m) > 2 and m[1] == "request" and m[2] and battle is not None:
                    battle.parse_request(orjson.loads(m[2]), self._strict_battle_tracking)
                elif not (len(m) > 1 and m[1] in ("request", "sentchoice")):
                    kept.append(m)
            split_messages = [split_messages[0], *kept]
        await super()._handle_battle_message(split_messages)

    def _battle_finished_callback(self, battle) -> None:
        dropped = battle.battle_tag in self.timed_out
        super()._battle_finished_callback(battle)
        result = "error" if dropped else "win" if battle.won else "loss" if battle.lost else "tie"
        rec = {
            "battle": battle.battle_tag,
            "result": result,
            "opponent": battle.opponent_username,
            "turns": battle.turn,
        }
        self.results.append(rec)
        self._notify()
        if self.on_result is not None:
            self.on_result(rec)

    async def _handle_challenge_request(self, split_message) -> None:
        pass  # challenges are read from every |pm| line by _on_pm

    async def _update_challenges(self, split_message) -> None:
        challenges = orjson.loads(split_message[2]).get("challengesFrom", {})
        self.challenges_from = {to_id_str(u): f for u, f in challenges.items()}

    def _on_pm(self, sender: str, receiver: str, text: str) -> None:
        me, frm, to = to_id_str(self.username), to_id_str(sender), to_id_str(receiver)
        if text.startswith("/challenge"):
            fmt = text[len("/challenge") :].strip().split("|")[0]
            if to == me and frm != me:
                if fmt:
                    self.challenges_from[frm] = fmt
                else:
                    self.challenges_from.pop(frm, None)
        elif frm != me and ("rejected the challenge" in text or "Challenge cancelled" in text):
            self.declined[frm] = text.split(" ", 1)[-1]
        elif frm == me and "Challenge cancelled" in text:
            self.declined[to] = text.split(" ", 1)[-1]

    # ------------------------------------------------------------------ decisions in time
    def choose_preview(self, battle, decision):
        return self._in_time(super().choose_preview(battle, decision), battle, decision)

    def choose_turn(self, battle, decision):
        return self._in_time(super().choose_turn(battle, decision), battle, decision)

    def _in_time(self, choice, battle, decision):
        if not isinstance(choice, Awaitable) or not self.move_deadline:
            return choice
        return self._answer_in_time(choice, battle, decision)

    async def _answer_in_time(self, choice, battle, decision) -> int:
        try:
            return await asyncio.wait_for(choice, self.move_deadline)
        except TimeoutError:
            self.late_decisions += 1
            log.warning(
                "battle %s: no decision within %.1fs; sending a legal choice drawn at random",
                battle.battle_tag,
                self.move_deadline,
            )
            return sample_legal(decision.mask, self._fallback_rng)

    # ------------------------------------------------------------------ play loops
    async def accept(self, n: int, wait_s: float | None = None) -> None:
        """Accept ``n`` challenges in our format (from anyone), waiting up to ``wait_s``
        (None: forever) for each one to come."""
        done = 0
        while done < n and self.failed is None:
            if not await self._until(lambda: self.active < self.concurrency):
                break
            if not await self._until(lambda: self.online and bool(self._acceptable()), wait_s):
                if self.failed is None:
                    self._unplayed(n - done, f"no challenge in {self.format} within {wait_s:.0f}s")
                    done = n
                break
            user = self._acceptable()[0]
            before, mark = self.started, len(self.ps_client.notices)
            if not await self._send(self.ps_client.accept_challenge(user, self.next_team)):
                continue

            def answered(b: int = before, m: int = mark) -> bool:
                return self.started > b or len(self.ps_client.notices) > m or not self.online

            await self._until(answered, 30.0)
            if self.started > before:
                done += 1
            else:  # withdrawn meanwhile, or refused (the notice says why): forget it
                self.challenges_from.pop(user, None)
        await self._finish(n, done)

    def _acceptable(self) -> list[str]:
        return [u for u, f in self.challenges_from.items() if f == self.format]

    async def challenge(self, opponent: str, n: int, wait_s: float | None = None) -> None:
        """Challenge ``opponent`` ``n`` times. A user not (yet) online is asked again every
        few seconds for up to ``wait_s``; so is one who lets a challenge wait that long."""
        opp = to_id_str(opponent)
        await self._asking(
            n,
            wait_s,
            lambda: self.ps_client.challenge(opp, self.format, self.next_team),
            f"/cancelchallenge {opp}",
            opp,
        )

    async def ladder(self, n: int, wait_s: float | None = None) -> None:
        """Play ``n`` ladder battles (``/search``), each found within ``wait_s``."""
        await self._asking(
            n,
            wait_s,
            lambda: self.ps_client.search_ladder_game(self.format, self.next_team),
            f"/cancelsearch {self.format}",
            None,
        )

    async def _asking(
        self, n: int, wait_s: float | None, ask: Callable[[], Awaitable], cancel: str, opp: str | None
    ) -> None:
        done = 0
        deadline = None
        while done < n and self.failed is None:
            if not await self._until(lambda: self.active < self.concurrency and self.online):
                break
            if deadline is None and wait_s:
                deadline = time.monotonic() + wait_s
            before, mark = self.started, len(self.ps_client.notices)
            if opp is not None:
                self.declined.pop(opp, None)
            if not await self._send(ask()):
                continue
            left = None if deadline is None else max(0.0, deadline - time.monotonic())

            def answered(b: int = before, m: int = mark) -> bool:
                return (
                    self.started > b
                    or len(self.ps_client.notices) > m
                    or not self.online
                    or (opp is not None and opp in self.declined)
                )

            await self._until(answered, left)
            if self.started > before:
                done, deadline = done + 1, None
                continue
            if self.failed is not None:
                break
            if not self.online:
                continue  # the server dropped the challenge or search with us: ask again once back
            notice = self.ps_client.notices[mark] if len(self.ps_client.notices) > mark else None
            out_of_time = deadline is not None and time.monotonic() >= deadline
            if notice is not None and not out_of_time and _retryable(notice):
                if "already" in notice:  # a challenge or search of ours the server still holds
                    await self._send(self.ps_client.send_message(cancel))
                await asyncio.sleep(11.0 if "10 seconds" in notice else 5.0)
                continue
            if notice is not None:
                self._unplayed(n - done, f"the server refused: {notice}")
                break
            if opp is not None and opp in self.declined:
                self._unplayed(1, f"{opp}: {self.declined.pop(opp)}")
                done, deadline = done + 1, None
                continue
            await self._send(self.ps_client.send_message(cancel))
            self._unplayed(n - done, f"no battle started within {wait_s:.0f}s")
            break
        await self._finish(n, done)

    async def _finish(self, n: int, asked: int) -> None:
        await self._until(lambda: self.active <= 0)
        if self.failed is not None:
            lost = self.active
            if lost:
                log.warning("%d battle(s) in flight lost with the connection", lost)
            for tag, b in list(self._battles.items()):
                if not b.finished and tag not in self.timed_out:
                    rec = {"battle": tag, "result": "error", "opponent": b.opponent_username, "turns": b.turn}
                    self.results.append(rec)
                    if self.on_result is not None:
                        self.on_result(rec)
            self.started = len(self.results)
            self._unplayed(n - asked, f"connection failed: {self.failed}")

    def summary(self) -> dict:
        count = {k: sum(r["result"] == k for r in self.results) for k in ("win", "loss", "tie", "error")}
        return {
            "wins": count["win"],
            "losses": count["loss"],
            "ties": count["tie"],
            "errors": count["error"] + len(self.unplayed),
            "battles": count["win"] + count["loss"] + count["tie"],
            "showdown_errors": self.showdown_errors,
            "reconnects": self.ps_client.reconnects,
            "rejoined_battles": self.rejoins,
            "late_decisions": self.late_decisions,
            "unplayed": sorted(set(self.unplayed)),
        }


def _retryable(notice: str) -> bool:
    """Challenge refusals that may pass: the user is not online yet, or the server's
    challenge throttle or a stale challenge of ours."""
    return any(
        s in notice
        for s in (
            "was not found",
            "10 seconds after your last challenge",
            "already challenging someone",
            "already searching",
            "went offline before your battle",
        )
    )
