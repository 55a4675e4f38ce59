"""Base poke-env player for VGC: team preview and turns go through our codec.

Subclasses implement :meth:`choose_preview` and :meth:`choose_turn`, which receive
a :class:`~league.battle.context.Decision` (observation, legal mask, request view)
and return an action index. Whatever they return is checked against the mask, so
no illegal choice ever reaches Showdown. Every ``|error|`` Showdown sends is counted.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections import Counter, deque
from collections.abc import Awaitable, Callable

import numpy as np
from poke_env.player import Player
from poke_env.player.battle_order import BattleOrder
from poke_env.teambuilder import Teambuilder
from websockets.exceptions import ConnectionClosed

from league.battle.actions import joint_message, preview_message
from league.battle.context import BattleContext, Decision, make_decision
from league.battle.protocol import mend
from league.battle.sheets import foe_sets

log = logging.getLogger(__name__)  # not the player's own logger: play_matches silences those

UNAVAILABLE = "[Unavailable choice]"  # the kind of |error| Showdown re-requests after (see unavailable_choices)


class ChoiceOrder(BattleOrder):
    """A ready-made Showdown choice string."""

    __slots__ = ("_message",)

    def __init__(self, message: str):
        self._message = message

    @property
    def message(self) -> str:
        return self._message


class NoReplayLog(list):
    """A battle's replay log that keeps nothing (issue 31). poke-env copies every message
    of a battle into ``battle._replay_data``, only for ``save_replays``; a finished battle
    stays alive ~30 s after its end (``_battle_finished_callback``), so a simulator held
    ~1,300 of them, ~290,000 lists, that every full garbage collection walked (0.65 s
    each, measured). ``won_by`` and ``tied`` read it empty and append nothing."""

    __slots__ = ()

    def append(self, item) -> None:
        pass


class PoolTeambuilder(Teambuilder):
    """Yields a packed team per battle from a callable (per-episode team sampling)."""

    def __init__(self, next_packed: Callable[[], str]):
        self._next = next_packed

    def yield_team(self) -> str:
        return self._next()

    @classmethod
    def from_teams(cls, packed_teams: list[str], rng: random.Random) -> PoolTeambuilder:
        if not packed_teams:
            raise ValueError("empty team pool")
        return cls(lambda: rng.choice(packed_teams))


class LeaguePlayer(Player):
    """Counts decisions and Showdown errors; routes choices through the codec."""

    encode_observations = True
    # CPU seconds (this thread's) spent building decisions (observation, mask), summed over
    # every player of the process: tools.bench's per-battle CPU table reads it. Timed on
    # one decision in TIME_EVERY and scaled (an estimate): each thread-CPU clock read is a
    # system call, and in a live simulator on a busy box the two of a decision took 0.6 ms
    # of its wall time (measured; 0.3 us each in a quiet loop: preemption lands there).
    encode_cpu_s = 0.0
    TIME_EVERY = 8
    _untimed = 0
    # A turn with one legal joint order (a forced switch to the last Pokemon standing, a
    # locked move) is answered with it, not encoded nor shown to a network (~8 % of a
    # battle's decisions): True in training and play alike, so a recurrent network sees
    # the steps it learnt from (``sim.answer_forced``; tools.battle --forced-by-network).
    answer_forced = True

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.contexts: dict[str, BattleContext] = {}
        self.decisions = 0
        self.forced = 0  # of them, turns with one legal joint order (answer_forced)
        self.errors: Counter[str] = Counter()
        self.error_log: list[str] = []
        self.n_won = self.n_lost = self.n_tied = 0
        self.turns = 0  # summed over finished battles
        self.n_megas = 0  # finished battles in which we mega-evolved (Champions formats)
        self.n_mega_chances = 0  # finished battles in which a request offered Mega Evolution
        self._finished_at: deque[tuple[float, str]] = deque()
        # per-battle watchdog (league.match): last message time per battle, battles dropped
        self.activity: dict[str, float] = {}
        self.timed_out: set[str] = set()
        self.n_timed_out = 0
        # battle accounting (league.match, the simulator's report): every battle this player
        # took part in is finished, timed out, still in flight, or lost with the player
        # (``lost_at_retire``: not finished once league.match dropped it on a crash or a stop)
        self.n_started = 0
        self.retired = False

    # ------------------------------------------------------------------ hooks
    def choose_preview(self, battle, decision: Decision) -> int:
        raise NotImplementedError

    def choose_turn(self, battle, decision: Decision) -> int:
        raise NotImplementedError

    def on_battle_end(self, battle) -> None:
        """Called once per finished battle."""

    def on_battle_dropped(self, battle) -> None:
        """Called instead of ``on_battle_end`` for a battle the watchdog ended (no
        progress): its outcome means nothing, only forget it."""

    def encodes(self, battle) -> bool:
        """Whether this battle's decisions need the observation (whoever decides reads
        it): ``encode_observations``, unless a subclass knows better per battle."""
        return self.encode_observations

    def reads_threat(self, battle) -> bool:
        """Whether this battle's observations need the threat block (whoever decides
        reads it); a player that does not know says True."""
        return True

    def reads_sheets(self, battle) -> bool:
        """Whether this battle's observations read the foe's open sheet, when the battle
        has one (whoever decides reads it: a network with ``model.sheets``); a player
        that does not know says True."""
        return True

    def reads_own_tera(self, battle) -> bool:
        """Whether this battle's decisions read our Pokemon's tera types from the request
        (league.battle.context.read_tera_types): a network with ``model.own_tera``, and
        ``heuristic`` (its tera rule needs the tera STAB). Off elsewhere, as for a default
        network, so every other observation is what such a network reads."""
        return False

    # ------------------------------------------------------------------ poke-env entry points
    def _context(self, battle) -> BattleContext:
        ctx = self.contexts.get(battle.battle_tag)
        if ctx is None:
            ctx = self.contexts[battle.battle_tag] = BattleContext(battle.battle_tag)
        return ctx

    def _decision(self, battle, ctx: BattleContext):
        LeaguePlayer._untimed = (LeaguePlayer._untimed + 1) % LeaguePlayer.TIME_EVERY
        t0 = None if LeaguePlayer._untimed else time.thread_time()
        d = make_decision(
            battle,
            ctx,
            encode=self.encodes(battle),
            threat=self.reads_threat(battle),
            sheets=self.reads_sheets(battle),
            forced=self.answer_forced,
            own_tera=self.reads_own_tera(battle),
        )
        if t0 is not None:
            LeaguePlayer.encode_cpu_s += (time.thread_time() - t0) * LeaguePlayer.TIME_EVERY
        return d

    def teampreview(self, battle):
        ctx = self._context(battle)
        d = self._decision(battle, ctx)
        choice = self.choose_preview(battle, d)
        if isinstance(choice, Awaitable):
            return self._finish_preview_async(choice, d, ctx)
        return self._finish_preview(int(choice), d, ctx)

    def _finish_preview(self, idx: int, d: Decision, ctx: BattleContext) -> str:
        if not d.mask[idx]:
            raise RuntimeError(f"{type(self).__name__} chose illegal team-preview action {idx}")
        self.decisions += 1
        return preview_message(idx)

    async def _finish_preview_async(self, choice, d: Decision, ctx: BattleContext) -> str:
        return self._finish_preview(int(await choice), d, ctx)

    def choose_move(self, battle):
        ctx = self._context(battle)
        d = self._decision(battle, ctx)
        if d is None:
            return ChoiceOrder("")
        if d.only >= 0:  # one legal joint order: no choice to make (answer_forced)
            self.forced += 1
            return self._finish_turn(d.only, d, ctx)
        choice = self.choose_turn(battle, d)
        if isinstance(choice, Awaitable):
            return self._finish_turn_async(choice, d, ctx)
        return self._finish_turn(int(choice), d, ctx)

    def _finish_turn(self, j: int, d: Decision, ctx: BattleContext) -> BattleOrder:
        if not d.mask[j]:
            raise RuntimeError(f"{type(self).__name__} chose illegal joint action {j}")
        self.decisions += 1
        ctx.decisions += 1
        return ChoiceOrder(joint_message(d.view, j))

    async def _finish_turn_async(self, choice, d: Decision, ctx: BattleContext) -> BattleOrder:
        return self._finish_turn(int(await choice), d, ctx)

    async def _create_battle(self, split_message):
        tag = "-".join(split_message)[1:]
        known = tag in self._battles
        battle = await super()._create_battle(split_message)
        if not known and battle.battle_tag in self._battles:
            self.n_started += 1
            if not battle._save_replays:
                battle._replay_data = NoReplayLog()
        return battle

    @property
    def n_in_flight(self) -> int:
        """Battles started and neither finished nor ended by the watchdog."""
        return sum(1 for b in self._battles.values() if not b.finished)

    def retire(self) -> None:
        """league.match stops using this player: its battles not finished are lost."""
        self.retired = True

    def in_play(self, battle) -> bool:
        """Whether this player still plays ``battle``: not retired, the battle not over and,
        on a stream worker, still seated there (a client that stopped listening at the
        run's end, or a dropped battle, is not)."""
        seats = getattr(self.ps_client, "seats", None)
        return not self.retired and not battle.finished and (seats is None or battle.battle_tag in seats)

    def release(self) -> None:
        """league.match is done with this retired player (its connection closed: no message
        comes for it any more): forget its battles, finished or not, and their per-battle
        state (a neural player's trajectories and recurrent states), keeping only the
        counts. A simulator keeps every player it made for its counts; before this, each
        worker restart left the retired players' battles alive, ~180 battle objects a
        kill (experiments/issue29_memory); and its logger."""
        for b in list(self._battles.values()):
            if not b.finished:
                self.on_battle_dropped(b)
        self._battles.clear()
        self.contexts.clear()
        self.activity.clear()
        self._finished_at.clear()
        self.timed_out.clear()
        # poke-env gives each player a logger named after it, with its own handler: logging
        # keeps every logger ever named, one more per player a simulator makes
        lg = self.logger
        for h in list(lg.handlers):
            lg.removeHandler(h)
            h.close()
        logging.Logger.manager.loggerDict.pop(lg.name, None)

    @property
    def lost_at_retire(self) -> int:
        """A retired player's battles that did not finish, whenever they started: one its
        connection created after the retirement (a challenge already under way) is lost
        too, and one that finished after it is a result, not a loss."""
        return self.n_started - self.n_finished - self.n_timed_out if self.retired else 0

    async def _handle_battle_message(self, split_messages):
        if split_messages and split_messages[0]:
            self.activity[split_messages[0][0].lstrip(">")] = time.monotonic()
        sheets = None
        for m in split_messages[1:]:
            if len(m) > 2 and m[1] == "error":
                text = m[2]
                self.errors[text.split("]")[0] + "]" if text.startswith("[") else text] += 1
                if len(self.error_log) < 50:
                    self.error_log.append(f"{split_messages[0][0]} {text}")
            elif len(m) > 3 and m[1] == "showteam":
                sheets = sheets or {}
                sheets[m[2]] = "|".join(m[3:])
            elif len(m) > 4 and m[1] == "move":
                mend(m)
        try:
            if sheets is not None:
                await self._open_team_sheets(split_messages, sheets)
            else:
                await super()._handle_battle_message(split_messages)
        except ConnectionClosed:
            pass  # the player is being dropped (stop, or its server died): nothing to send to

    async def _open_team_sheets(self, split_messages, sheets: dict[str, str]) -> None:
        """Open team sheets (both players accepted): the foe's sheet goes to the battle's
        context, where the observation reads it (as for a replay with open sheets), and
        not to poke-env, whose ``|showteam|`` handling would list all six foes as revealed
        and write their sets over what play reveals. The team-preview decision poke-env
        holds back for the sheets is taken once the second sheet (p2's) is in."""
        rest = [m for m in split_messages if not (len(m) > 3 and m[1] == "showteam")]
        if len(rest) > 1:
            await super()._handle_battle_message(rest)
        battle = await self._get_battle(split_messages[0][0])
        foe = "p2" if battle.player_role == "p1" else "p1"
        if foe in sheets:
            try:
                self._context(battle).foe_sheet = foe_sets(Teambuilder.parse_packed_team(sheets[foe]))
            except ValueError as e:  # a sheet that is no packed team: play on without it
                log.warning("%s: unreadable |showteam| for %s (%s); playing without it", battle.battle_tag, foe, e)
        if "p2" in sheets and self.accept_open_team_sheet and not self.format_is_bestof:
            await self._handle_battle_request(battle)

    def _battle_finished_callback(self, battle) -> None:
        ctx = self.contexts.pop(battle.battle_tag, None)
        self.activity.pop(battle.battle_tag, None)
        if battle.battle_tag in self.timed_out:
            self.n_timed_out += 1
            self.on_battle_dropped(battle)
        else:
            self.turns += battle.turn
            self.n_megas += bool(battle.used_mega_evolve)
            self.n_mega_chances += bool(ctx is not None and ctx.could_mega)
            if battle.won:
                self.n_won += 1
            elif battle.lost:
                self.n_lost += 1
            else:
                self.n_tied += 1
            self.on_battle_end(battle)
        # Forget finished battles after a grace period (Showdown sends nothing for a room
        # after we /leave it), so long runs do not keep every battle object alive.
        now = time.monotonic()
        self._finished_at.append((now, battle.battle_tag))
        while self._finished_at and now - self._finished_at[0][0] > 30.0:
            self._battles.pop(self._finished_at.popleft()[1], None)

    async def drop_battle(self, tag: str, grace_s: float = 10.0) -> None:
        """End a battle that makes no progress: forfeit it and, when Showdown does not
        end it within ``grace_s``, finish it here as poke-env does on ``|win|`` (so its
        concurrency slot is freed). Counted in ``n_timed_out``, not as a result."""
        self.timed_out.add(tag)
        try:
            await self.ps_client.send_message("/forfeit", room=tag)
        except Exception:
            pass
        deadline = time.monotonic() + grace_s
        while time.monotonic() < deadline:
            b = self._battles.get(tag)
            if b is None or b.finished:
                return
            await asyncio.sleep(0.25)
        b = self._battles.get(tag)
        if b is None or b.finished:
            return
        b.tied()
        try:
            self._battle_count_queue.get_nowait()
            self._battle_count_queue.task_done()
        except (asyncio.QueueEmpty, ValueError):
            pass
        self._battle_finished_callback(b)
        async with self._battle_end_condition:
            self._battle_end_condition.notify_all()

    @property
    def n_finished(self) -> int:
        return self.n_won + self.n_lost + self.n_tied

    @property
    def showdown_errors(self) -> int:
        """Choices Showdown refused, and every other ``|error|``; not the unavailable
        choices (:attr:`unavailable_choices`)."""
        return sum(n for kind, n in self.errors.items() if kind != UNAVAILABLE)

    @property
    def unavailable_choices(self) -> int:
        """``[Unavailable choice]``: a choice the request allowed that hidden information
        forbade (a move disabled by the foe's Imprison, say). Showdown sends the request
        again, updated, and the player chooses anew (sim/side.ts ``emitChoiceError``):
        part of the game, not an error of ours, so counted apart."""
        return self.errors[UNAVAILABLE]


def sample_legal(mask: np.ndarray, rng: random.Random) -> int:
    legal = np.flatnonzero(mask)
    return int(legal[int(rng.random() * len(legal))])
