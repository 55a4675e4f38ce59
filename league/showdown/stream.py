"""Showdown without a server: battles run in long-lived Node workers (``stream_worker.js``).

Each worker holds many battles, each one Showdown's own ``BattleStream`` (the class the
server's battle processes run), and talks JSON lines over its stdin/stdout. On this side a
:class:`StreamClient` stands in for a poke-env player's websocket client: the player's
``/choose``, ``/team``, ``/forfeit`` become worker commands, and each frame the worker sends
(exactly what a server sends that player for that battle, split per side) goes to the
player's unchanged ``_handle_battle_message``, one battle and side at a time and in order, as
poke-env's own client does. No websocket, login, room or chat.

:class:`StreamFleet` has the surface :func:`league.match.play_matches` uses of a
:class:`~league.showdown.fleet.ShowdownFleet` (``servers``, ``generation``, ``is_alive``,
``wait_healthy``, ``max_restarts``, ``stop``) plus ``player_kwargs`` and ``pair_task``, which
starts the battles itself in place of poke-env's challenge/accept. Supervision is the
fleet's: a health thread restarts a worker that died or stopped answering pings and bumps its
``generation`` (the match watchdog then counts that worker's battles in flight as lost); a
battle the simulator crashed on is ended for both players and counted as timed out; every
worker dies with its fleet, at exit, and with this process (PR_SET_PDEATHSIG).
"""

from __future__ import annotations

import asyncio
import collections
import io
import itertools
import logging
import queue
import random
import subprocess
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import cast

import orjson

from league.showdown.install import ShowdownInstall, locate_showdown
from league.showdown.supervised import ProcessState, SupervisedFleet, set_pdeathsig, tail

log = logging.getLogger(__name__)

WORKER_JS = Path(__file__).resolve().parent / "stream_worker.js"


class StreamStartError(RuntimeError):
    """A stream worker did not start."""


@dataclass
class _Battle:
    tag: str
    loop: asyncio.AbstractEventLoop
    seats: dict  # "p1"/"p2" -> StreamClient
    inbox: dict = field(default_factory=dict)  # side -> frames not yet handled, in order
    drains: dict = field(default_factory=dict)  # side -> the task handling them (while there are any)
    done: asyncio.Event = field(default_factory=asyncio.Event)


class WorkerLink:
    """One worker process (one generation of a fleet slot): its pipes, a reader and a writer
    thread, and the battles it hosts. Frames are handed to each battle's event loop."""

    def __init__(self, proc: subprocess.Popen, url: str, generation: int):
        self.proc, self.url, self.generation = proc, url, generation
        self.alive = True
        self.ready = threading.Event()
        self.battles: dict[str, _Battle] = {}
        self.tags = itertools.count()
        self.crashes: list[str] = []  # battles the simulator threw on, with its words
        self.pings = self.pongs = 0
        self.frames = 0  # protocol frames delivered to players
        self.forks: dict[int, asyncio.Future] = {}  # look-ahead requests waiting for their answer
        self.fork_ids = itertools.count(1)
        self._out: queue.SimpleQueue = queue.SimpleQueue()
        self._batch: list[bytes] = []  # commands of this event-loop iteration
        threading.Thread(target=self._read, name=f"stream-read-{proc.pid}", daemon=True).start()
        threading.Thread(target=self._write, name=f"stream-write-{proc.pid}", daemon=True).start()

    # ------------------------------------------------------------------ pipes
    def send(self, **cmd) -> None:
        """Queue one command. From an event loop, the commands of one loop iteration go to
        the writer thread together (one wake-up, one write); from other threads at once."""
        if not self.alive:
            return
        line = orjson.dumps(cmd) + b"\n"
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            self._out.put(line)
            return
        self._batch.append(line)
        if len(self._batch) == 1:
            loop.call_soon(self._hand_over)

    def _hand_over(self) -> None:
        batch, self._batch = self._batch, []
        if batch:
            self._out.put(b"".join(batch))

    def _write(self) -> None:
        stdin = self.proc.stdin
        assert stdin is not None  # (the worker is started with stdin=PIPE)
        while True:
            chunks = [self._out.get()]
            while True:  # coalesce what queued meanwhile into one write
                try:
                    chunks.append(self._out.get_nowait())
                except queue.Empty:
                    break
            if None in chunks:
                break
            try:
                stdin.write(b"".join(chunks))
                stdin.flush()
            except (BrokenPipeError, OSError, ValueError):
                break

    def _read(self) -> None:
        # the worker is started with stdout=PIPE (binary, buffered): a BufferedReader
        stdout, rest = cast(io.BufferedReader, self.proc.stdout), b""
        while True:
            try:
                chunk = stdout.read1(1 << 16)
            except (OSError, ValueError):
                chunk = b""
            if not chunk:
                break
            lines = (rest + chunk).split(b"\n")
            rest = lines.pop()
            by_loop: dict = {}
            for line in lines:
                f = orjson.loads(line)
                t = f["t"]
                if t == "pong":
                    self.pongs = max(self.pongs, f["n"])
                elif t == "ready":
                    self.ready.set()
                else:
                    b = self.battles.get(f.get("id"))
                    if b is not None:
                        by_loop.setdefault(b.loop, []).append(f)
                    elif t == "crash":
                        log.error("stream worker %s: %s", self.url, f["error"].splitlines()[0])
            for loop, frames in by_loop.items():
                try:
                    loop.call_soon_threadsafe(self._on_frames, frames)
                except RuntimeError:  # that loop is closed: its battles are gone
                    pass
        self.alive = False

    def close(self) -> None:
        self.alive = False
        self._out.put(None)

    # ------------------------------------------------------------------ battles (event-loop side)
    def open(self, tag: str, seats: dict) -> _Battle:
        b = _Battle(tag, asyncio.get_running_loop(), seats, {s: collections.deque() for s in seats})
        self.battles[tag] = b
        for side, client in seats.items():
            client.seats[tag] = side
        return b

    def forget(self, tag: str) -> None:
        b = self.battles.pop(tag, None)
        if b is not None:
            for client in b.seats.values():
                client.seats.pop(tag, None)
            b.done.set()

    def _on_frames(self, frames: list[dict]) -> None:
        for f in frames:
            b = self.battles.get(f["id"])
            if b is None:
                continue
            t = f["t"]
            if t == "msg":
                self.frames += 1
                side = f["side"]
                b.inbox[side].append(f["data"])
                if side not in b.drains:
                    b.drains[side] = asyncio.ensure_future(self._drain(b, side))
            elif t == "forked":
                fut = self.forks.pop(f["rid"], None)
                if fut is not None and not fut.done():
                    fut.set_result(f)
            elif t == "end":
                asyncio.ensure_future(self._after_all(b, None))
            elif t == "crash":
                self.crashes.append(f"{b.tag}: {f['error'].splitlines()[0]}")
                log.error("stream worker %s: battle %s crashed the simulator: %s", self.url, b.tag, f["error"])
                asyncio.ensure_future(self._after_all(b, _end_crashed))

    async def _drain(self, b: _Battle, side: str) -> None:
        """Hand one side's frames to its player one at a time, in arrival order (poke-env's
        own client serialises a battle's messages the same way); one task per battle and
        side while frames wait, not one per frame."""
        player, inbox, head = b.seats[side]._player, b.inbox[side], f">{b.tag}"
        try:
            while inbox:
                split = [[head], *(m.split("|") for m in inbox.popleft().split("\n"))]
                try:
                    await player._handle_battle_message(split)
                except Exception:
                    log.exception("battle %s (%s): the player failed on a message", b.tag, side)
        finally:
            del b.drains[side]

    async def _after_all(self, b: _Battle, then) -> None:
        """Once both players have handled every frame of ``b`` delivered so far, run
        ``then`` and free the battle's slot."""
        while b.drains:
            await asyncio.wait(list(b.drains.values()))
        if then is not None:
            await then(b)
        self.forget(b.tag)


async def _end_crashed(b: _Battle) -> None:
    """The simulator threw on this battle: end it for both players without a result
    (counted in their ``n_timed_out``, hence as unfinished)."""
    for client in b.seats.values():
        if b.tag in client._player.battles:
            await client._player.drop_battle(b.tag, grace_s=0)


class StreamClient:
    """Stands in for poke-env's ``PSClient`` of one player whose battles run on a worker."""

    def __init__(self, player, link: WorkerLink):
        old = player.ps_client  # built with start_listening=False: it never opened a socket
        self.account_configuration = old.account_configuration
        self.logger = old.logger
        self.loop = old.loop
        self.logged_in = asyncio.Event()
        self.logged_in.set()
        self.seats: dict[str, str] = {}  # battle tag -> "p1"/"p2"
        self._link, self._player = link, player
        player.ps_client = self

    @property
    def username(self) -> str:
        return self.account_configuration.username

    @property
    def websocket_url(self) -> str:
        return self._link.url

    async def send_message(self, message: str, room: str = "", message_2: str | None = None) -> None:
        side = self.seats.get(room)
        if side is None:  # /leave (room ""), or a battle already over: nothing to do
            return
        cmd, _, arg = message.partition(" ")
        if cmd == "/choose":
            self._link.send(t="choose", id=room, side=side, choice=arg)
        elif cmd == "/team":
            self._link.send(t="choose", id=room, side=side, choice="team " + arg)
        elif cmd == "/forfeit":
            self._link.send(t="forcelose", id=room, side=side)
        elif cmd == "/undo":
            self._link.send(t="undo", id=room, side=side)
        elif cmd == "/acceptopenteamsheets":
            self._link.send(t="ots_accept", id=room, side=side)
        elif cmd == "/rejectopenteamsheets":
            self._link.send(t="ots_reject", id=room, side=side)
        # /timer and the like mean nothing without a server

    async def stop_listening(self) -> None:
        self.seats.clear()

    async def fork(
        self,
        tag: str,
        choices: list[str],
        samples: int,
        seed: list[int],
        timeout: float = 30.0,
        foe_ev: int | None = None,
        report: bool = False,
    ):
        """One turn ahead of battle ``tag`` at this player's move request, on copies in the
        worker (``stream_worker.js``'s ``fork``): for each of ``choices`` (Showdown choice
        strings, no ``/choose``) the mean over ``samples`` rolls of the value of what follows
        for this side (+1 won, -1 lost, else the material difference), or None for a
        choice Showdown refuses there. None when the battle is not at a move request, is
        gone, or no answer came within ``timeout`` seconds (a worker that died). ``foe_ev``:
        the copies' foes get that many EVs (stat points in Champions) in every stat, a
        neutral nature and the HP share their health line shows, not their own spread and
        exact HP (what a player does not see); None: the copies' foes as they are. With
        ``report``: (values, the foe's Pokémon as the copies see them: species, hp, maxhp,
        stats), or None."""
        side = self.seats.get(tag)
        if side is None or not self._link.alive:
            return None
        rid = next(self._link.fork_ids)
        fut = asyncio.get_running_loop().create_future()
        self._link.forks[rid] = fut
        extra: dict = {} if foe_ev is None else {"foe_ev": int(foe_ev)}
        if report:
            extra["report"] = True
        self._link.send(t="fork", id=tag, side=side, rid=rid, choices=choices, samples=samples, seed=seed, **extra)
        try:
            answer = await asyncio.wait_for(fut, timeout)
        except TimeoutError:
            self._link.forks.pop(rid, None)
            return None
        if report:
            return (answer["values"], answer.get("foes")) if answer["values"] is not None else None
        return answer["values"]

    async def set_team(self, packed_team) -> None:  # the team goes with each battle's start
        return None


@dataclass(kw_only=True)
class WorkerState(ProcessState):
    link: WorkerLink | None = None

    @property
    def url(self) -> str:
        return f"stream://worker-{self.index}/g{self.generation}"


class StreamFleet(SupervisedFleet):
    """N stream workers. Use as a context manager; ``servers`` are its workers."""

    backend = "stream"
    kind = "stream worker"
    start_error = StreamStartError

    def __init__(
        self,
        n_workers: int,
        run_dir: str | Path,
        *,
        start_timeout: float = 60.0,
        health_interval: float = 2.0,
        probe_failures_before_restart: int = 5,
        max_restarts: int = 20,
        install: ShowdownInstall | None = None,
    ):
        if n_workers < 1:
            raise ValueError(f"n_workers must be >= 1, got {n_workers}")
        root = Path(run_dir) / "showdown"
        super().__init__(
            [WorkerState(index=i, log_path=root / f"worker-{i}.log") for i in range(n_workers)],
            run_dir,
            start_timeout=start_timeout,
            health_interval=health_interval,
            probe_failures_before_restart=probe_failures_before_restart,
            max_restarts=max_restarts,
        )
        self.install = install or locate_showdown()

    # ---------------------------------------------------------------- what play_matches reads
    def is_alive(self, i: int) -> bool:
        w = self.servers[i]
        return w.proc is not None and w.proc.poll() is None and w.link is not None and w.link.alive

    def server_configuration(self, i: int):
        from poke_env.ps_client.server_configuration import ServerConfiguration

        return ServerConfiguration(self.servers[i].url, "")

    def player_kwargs(self, i: int) -> dict:
        return {"start_listening": False}

    def wait_healthy(self, i: int, timeout: float = 60.0) -> bool:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and not self._stop_event.is_set():
            w = self.servers[i]
            if self.is_alive(i) and w.link.ready.is_set():
                return True
            time.sleep(0.05)
        return False

    @property
    def crashes(self) -> list[str]:
        return [c for w in self.servers if w.link is not None for c in w.link.crashes]

    async def pair_task(
        self, i: int, p1, p2, n: int, concurrency: int, seed_rng: random.Random, record_log: bool = False
    ) -> None:
        """Play ``n`` battles between ``p1`` and ``p2`` on worker ``i``, ``concurrency`` at a
        time; each gets a seed from ``seed_rng`` and the players' next teams. Returns when they
        are all over (finished, or crashed and ended) or when the worker is gone."""
        w = self.servers[i]
        link = w.link
        c1, c2 = StreamClient(p1, link), StreamClient(p2, link)
        slots = asyncio.Semaphore(concurrency)
        mine: dict[str, _Battle] = {}
        waiters: set[asyncio.Future] = set()
        fmt = p1.format
        try:
            for _ in range(n):
                await slots.acquire()
                if not link.alive:
                    break
                tag = f"battle-{fmt}-{i}x{link.generation}x{next(link.tags)}"
                b = mine[tag] = link.open(tag, {"p1": c1, "p2": c2})
                link.send(
                    t="start",
                    id=tag,
                    format=fmt,
                    seed=f"sodium,{seed_rng.getrandbits(128):032x}",
                    p1={"name": p1.username, "avatar": "", "team": p1.next_team},
                    p2={"name": p2.username, "avatar": "", "team": p2.next_team},
                    log=record_log,
                )
                waiter = asyncio.ensure_future(b.done.wait())
                waiters.add(waiter)

                def finished(t: asyncio.Future, tag: str = tag) -> None:
                    slots.release()
                    mine.pop(tag, None)
                    waiters.discard(t)

                waiter.add_done_callback(finished)
            while waiters and link.alive:
                await asyncio.wait(set(waiters), timeout=0.5)
        finally:  # cancelled (stop, or the worker restarted): free what is still running there
            for tag in list(mine):
                link.send(t="drop", id=tag)
                link.forget(tag)
            for t in waiters:
                t.cancel()

    # ---------------------------------------------------------------- internals
    def _spawn(self, w: WorkerState, reason: str) -> None:
        w.log_path.parent.mkdir(parents=True, exist_ok=True)
        logf = open(w.log_path, "ab")
        logf.write(f"\n==== {time.strftime('%Y-%m-%d %H:%M:%S')} {reason}: generation {w.generation + 1}\n".encode())
        logf.flush()
        try:
            workdir = self.root / f"worker-{w.index}"  # where reap_strays looks for a dead run's workers
            workdir.mkdir(parents=True, exist_ok=True)
            w.proc = subprocess.Popen(
                [self.install.node, str(WORKER_JS), str(self.install.package_dir)],
                cwd=workdir,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=logf,
                start_new_session=True,
                preexec_fn=set_pdeathsig,
            )
        finally:
            logf.close()
        w.generation += 1
        w.failed_probes = 0
        w.link = WorkerLink(w.proc, w.url, w.generation)
        w.history.append(f"{time.time():.0f} {reason} pid={w.proc.pid}")
        log.info("stream worker %d %s (pid %d)", w.index, reason, w.proc.pid)

    def _wait_ready(self, w: WorkerState, timeout: float) -> None:
        assert w.link is not None and w.proc is not None  # (_spawn made them)
        if w.link.ready.wait(timeout):
            return
        code = w.proc.poll()
        raise StreamStartError(
            f"stream worker {w.index} did not start within {timeout:.0f}s"
            + (f" (exited with code {code})" if code is not None else "")
            + f"; last lines of {w.log_path}:\n{tail(w.log_path)}"
        )

    def _release(self, w: WorkerState) -> None:
        if w.link is not None:
            w.link.close()

    def _probe(self, w: WorkerState) -> bool | None:
        """The last ping was answered (the worker's loop is not stuck); sends the next."""
        link = w.link
        if link is None or not link.ready.is_set():
            return None
        ok = link.pongs >= link.pings
        link.pings += 1
        link.send(t="ping", n=link.pings)
        return ok
