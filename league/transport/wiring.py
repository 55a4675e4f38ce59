"""Every socket and shared buffer of a run, created in one place, and the sockets each
component process opens on them.

``connect(cfg)`` (coordinator side) makes, with producer -> consumer and message type:

- ``exp``: SharedExperience, simulator -> main learner: whole trajectories in
  preallocated shared-memory slots; each slot's state (free / writing / filled) in
  shared memory is the back-pressure;
- ``weights``: SharedWeights, main learner -> simulator: flat float32 weights, version
  and owner;
- ``addr["experience"]``: PUSH/PULL, simulator -> main learner, ``SlotMessage``
  (bound by the learner);
- ``addr["reports"]``: PUSH/PULL, learners + simulator -> coordinator, the report
  dataclasses of league/transport/messages.py (bound here: ``Wiring.reports``);
- ``addr["commands"]``: PUB/SUB, coordinator -> learners + simulator, the command
  dataclasses (bound here: ``Wiring.commands``);
- ``lanes[k]``: the same three channels for exploiter lane k (simulator -> that lane's
  exploiter learner): ``exp``, ``weights`` and ``addr`` (experience), preallocated so
  the simulator process holds them from birth; main exploiters' lanes first, then one
  per league exploiter.

The endpoints are ipc:// names in a fresh private directory: no TCP port is chosen,
so runs side by side cannot collide. ``connect(cfg, threads=True)`` (run.placement=serial)
makes the same, with a context whose ``Process`` is a :class:`ThreadProcess`: every
component a thread of this process, on the same sockets and buffers. Placing roles on other machines (run.placement=ray,
league/coordinator/ray_placement/) uses ``connect_tcp(host)``: the same two control
channels bound on tcp://HOST with ports the system picks; the experience and the
weights go through that placement's own transport; the messages and the components
stay as they are.
"""

from __future__ import annotations

import logging
import os
import shutil
import tempfile
import threading
import time
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Protocol

import zmq

from league.transport.messages import BadMessage, Error, decode_command, decode_report, encode_command, encode_report

log = logging.getLogger(__name__)
# the run directory, in the environment of every process a run starts (tools.chaos finds
# what a killed run left behind by it)
RUN_DIR_ENV = "LEAGUE_RUN_DIR"


@dataclass
class Wiring:
    ctx: object  # torch.multiprocessing spawn context
    exp: object  # SharedExperience
    weights: object  # SharedWeights
    addr: dict
    zctx: zmq.Context
    reports: zmq.Socket  # PULL: reports from every component
    commands: zmq.Socket  # PUB: commands to every component
    lanes: list
    sock_dir: Path
    bad_messages: int = 0  # reports dropped: bytes that were no message of ours

    def send(self, cmd) -> None:
        self.commands.send(encode_command(cmd))

    def receive(self, timeout_ms: int = 0) -> list:
        """(Envelope, report) pairs waiting now, waiting up to ``timeout_ms`` for the first."""
        out = []
        while self.reports.poll(timeout_ms):
            try:
                out.append(decode_report(self.reports.recv()))
            except BadMessage as e:  # counted and dropped: one bad peer does not end the run
                self.bad_messages += 1
                log.warning("dropped a report that is no message of ours (%s); %d so far", e, self.bad_messages)
            timeout_ms = 0
        return out

    def close(self) -> None:
        self.zctx.destroy(linger=0)
        shutil.rmtree(self.sock_dir, ignore_errors=True)


IN_THIS_PROCESS = 0  # the ``parent`` of a component run as a thread: no parent to watch


class ProcessLike(Protocol):
    """A component's process as a placement handles it: a multiprocessing Process, or a
    :class:`ThreadProcess` (run.placement=serial)."""

    @property
    def name(self) -> str: ...

    @property
    def pid(self) -> int | None: ...

    @property
    def exitcode(self) -> int | None: ...

    def start(self) -> None: ...

    def is_alive(self) -> bool: ...

    def join(self, timeout: float | None = None) -> None: ...

    def terminate(self) -> None: ...

    def kill(self) -> None: ...


class ThreadProcess(threading.Thread):
    """A component as a thread of this process (run.placement=serial), with the calls a
    placement makes of a process: ``start``, ``is_alive``, ``exitcode``, ``pid``, ``join``.
    A thread cannot be killed: ``kill``/``terminate`` only say so (it is a daemon: it ends
    with the process)."""

    def __init__(self, target, name: str, args: tuple = (), kwargs: dict | None = None):
        super().__init__(name=name, daemon=True)
        self.job = (target, args, {**(kwargs or {}), "parent": IN_THIS_PROCESS})
        self.exitcode: int | None = None

    def run(self) -> None:
        target, args, kwargs = self.job
        try:
            target(*args, **kwargs)
            self.exitcode = 0
        except BaseException:  # noqa: BLE001 - its Error report went out (ComponentSockets); the coordinator decides
            log.exception("%s failed", self.name)
            self.exitcode = 1

    @property
    def pid(self) -> int:
        return os.getpid()

    def kill(self) -> None:
        log.warning("%s is a thread of this process (run.placement=serial): it cannot be killed", self.name)

    terminate = kill


class ThreadContext:
    """A multiprocessing context whose processes are threads (shared values and locks as
    the wrapped context makes them)."""

    def __init__(self, ctx):
        self.ctx = ctx

    def Process(self, target, name: str, args: tuple = (), kwargs: dict | None = None) -> ThreadProcess:  # noqa: N802
        return ThreadProcess(target, name, args, kwargs)

    def __getattr__(self, name: str):
        return getattr(self.ctx, name)


def lane_sizes(cfg) -> list[int]:
    """The exploiter lanes' slot counts, lane k at k: main exploiters' lanes first, then
    one per league exploiter (every placement numbers them so)."""
    sizes = []
    if cfg.league.enabled and cfg.league.exploiters.enabled:
        sizes += [cfg.league.exploiters.n_slots] * cfg.league.exploiters.lanes
    if cfg.league.enabled and cfg.league.league_exploiters.enabled:
        sizes += [cfg.league.league_exploiters.n_slots] * cfg.league.league_exploiters.count
    return sizes


def connect(cfg, threads: bool = False) -> Wiring:
    import torch.multiprocessing as mp

    from league.battle.dex import data_of
    from league.model.net import PolicyValueNet
    from league.transport.experience import SharedExperience, SharedWeights

    ctx = ThreadContext(mp.get_context("spawn")) if threads else mp.get_context("spawn")
    if not threads:
        spawn_dying_with_parent()
    # a short /tmp path: unix socket names are limited to ~107 bytes
    sweep_stale_socket_dirs()
    sock_dir = Path(tempfile.mkdtemp(prefix=SOCK_PREFIX))

    def endpoint(name: str) -> str:
        return f"ipc://{sock_dir}/{name}"

    exp = SharedExperience(cfg.sim.n_slots, cfg.sim.t_max)
    net = PolicyValueNet(cfg.model, data=data_of(cfg.showdown.format))  # its size: the weights' shared buffer
    weights = SharedWeights(sum(p.numel() for p in net.parameters()), ctx)
    addr = {"experience": endpoint("experience"), "reports": endpoint("reports"), "commands": endpoint("commands")}
    n_params = weights.flat.numel()
    lanes = [
        {
            "exp": SharedExperience(n, cfg.sim.t_max),
            "weights": SharedWeights(n_params, ctx),
            "addr": endpoint(f"lane-{k}"),
        }
        for k, n in enumerate(lane_sizes(cfg))
    ]
    zctx = zmq.Context()
    reports = zctx.socket(zmq.PULL)
    reports.bind(addr["reports"])
    commands = zctx.socket(zmq.PUB)
    commands.bind(addr["commands"])
    return Wiring(ctx, exp, weights, addr, zctx, reports, commands, lanes, sock_dir)


SOCK_PREFIX = "league-"
STALE_AFTER_S = 60.0  # a folder younger than this may be a run still binding its sockets


def sweep_stale_socket_dirs(root: Path | None = None, now: float | None = None) -> list[Path]:
    """Remove the socket folders (in ``root``: ``league-`` and mkdtemp's eight random
    characters, :func:`connect`'s) that runs killed by SIGKILL left behind: nothing survives such a run to remove its own. A folder
    goes only when all of these hold: it is this user's, unchanged for
    :data:`STALE_AFTER_S`, it holds nothing but unix sockets (at least one), and every one
    of them refuses a connection (no process listens on it any more: a live run's, even
    one stopped by SIGSTOP, accepts). Anything else, or any doubt, is left alone.
    Returns the folders removed."""
    import socket
    import stat

    root = Path(tempfile.gettempdir()) if root is None else root
    now = time.time() if now is None else now
    removed = []
    for d in root.glob(f"{SOCK_PREFIX}*"):
        if len(d.name) != len(SOCK_PREFIX) + 8:  # mkdtemp's 8 characters; not league-pdeathsig-*, ...
            continue
        try:
            st = d.lstat()
            if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.getuid() or now - st.st_mtime < STALE_AFTER_S:
                continue
            entries = list(d.iterdir())
            if not entries or not all(stat.S_ISSOCK(e.lstat().st_mode) for e in entries):
                continue
            for e in entries:
                with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
                    s.settimeout(1.0)
                    try:
                        s.connect(str(e))
                    except ConnectionRefusedError:
                        continue  # nobody listens: stale
                    raise OSError("alive")  # it accepted: a live run's folder
            for e in entries:
                e.unlink()
            d.rmdir()
            removed.append(d)
        except OSError:  # alive, gone meanwhile, not ours to read: leave it
            continue
    if removed:
        log.info("removed %d socket folder(s) that killed runs left in %s", len(removed), root)
    return removed


def spawn_dying_with_parent() -> str | None:
    """From now on, processes this one spawns start with PR_SET_PDEATHSIG(SIGKILL) set
    before Python's first instruction: their interpreter is started through
    ``setpriv --pdeathsig KILL`` (util-linux), so a child stopped (SIGSTOP) or still in its
    imports when the run is killed dies with it; exit_with_parent sets the same only after
    the child's imports, seconds later. Linux with setpriv only (elsewhere: None, nothing
    changes). multiprocessing's resource tracker is started first, with the plain
    interpreter: it must outlive a killed run to free what the run left behind. Returns
    the executable spawn now uses (a shell script in a per-user temporary folder, one per
    interpreter, written once and left for later runs)."""
    import hashlib
    import multiprocessing.spawn as mp_spawn
    import subprocess
    import sys
    from multiprocessing import resource_tracker

    setpriv = shutil.which("setpriv")
    if not sys.platform.startswith("linux") or setpriv is None:
        return None
    python = os.path.abspath(sys.executable)
    folder = Path(tempfile.gettempdir()) / f"league-pdeathsig-{os.getuid()}"
    wrapper = folder / f"python-{hashlib.sha256(f'{python} {setpriv}'.encode()).hexdigest()[:16]}"
    if mp_spawn.get_executable() == str(wrapper):
        return str(wrapper)
    if not wrapper.exists():
        folder.mkdir(mode=0o700, exist_ok=True)
        tmp = folder / f".{wrapper.name}.{os.getpid()}"
        tmp.write_text(f'#!/bin/sh\nexec {setpriv} --pdeathsig KILL -- "{python}" "$@"\n')
        tmp.chmod(0o755)
        os.replace(tmp, wrapper)
    try:  # a folder mounted noexec, a setpriv without --pdeathsig: keep the plain interpreter
        ok = subprocess.run([str(wrapper), "-c", "pass"], timeout=30, capture_output=True).returncode == 0
    except (OSError, subprocess.SubprocessError):
        ok = False
    if not ok:
        log.warning("spawned processes start without PDEATHSIG: %s does not run", wrapper)
        return None
    resource_tracker.ensure_running()
    mp_spawn.set_executable(str(wrapper))
    return str(wrapper)


def _die_with_parent() -> None:
    """PR_SET_PDEATHSIG(SIGKILL) on Linux: the kernel kills this process when the thread
    that started it ends, even while it is stopped, which no watcher thread can do."""
    import ctypes
    import signal
    import sys

    if sys.platform.startswith("linux"):
        try:
            ctypes.CDLL(None, use_errno=True).prctl(1, int(signal.SIGKILL))  # PR_SET_PDEATHSIG = 1
        except (OSError, AttributeError):
            pass


def exit_with_parent(parent: int | None = None) -> None:
    """Leave when the parent disappears (kill -9 of the main process): no orphans.
    ``parent``: the pid the parent passed in. A spawned child runs its first line only
    after its imports (seconds); a parent killed meanwhile has already gone then, and
    the child, adopted by another, would watch that one: it leaves at once instead."""
    if parent == IN_THIS_PROCESS:  # a thread of the run's own process (run.placement=serial)
        return
    _die_with_parent()  # the kernel's watch first: it also ends a stopped (SIGSTOP) child
    if parent is None:
        parent = os.getppid()
    elif os.getppid() != parent:
        os._exit(3)

    def watch():
        while True:
            time.sleep(1.0)
            if os.getppid() != parent:
                os._exit(3)

    threading.Thread(target=watch, daemon=True, name="parent-watch").start()


class ComponentSockets:
    """A component process's side: reports PUSH to the coordinator, commands SUB from it.
    As a context manager it holds a component's life: an exception that ends it goes out
    as an Error report (with its traceback) and is raised on; the sockets close either way."""

    def __init__(self, addr: dict, name: str):
        self.name = name
        self.pid = os.getpid()
        self.ctx = zmq.Context()
        self.reports = self.ctx.socket(zmq.PUSH)
        self.control = self.ctx.socket(zmq.SUB)
        if "curve" in addr:  # the coordinator's channels on a network address: authenticate (TcpWiring)
            keys = addr["curve"]
            for sock in (self.reports, self.control):
                sock.curve_serverkey, sock.curve_publickey, sock.curve_secretkey = (
                    keys["server"],
                    keys["public"],
                    keys["secret"],
                )
        self.reports.connect(addr["reports"])
        self.control.connect(addr["commands"])
        self.control.setsockopt(zmq.SUBSCRIBE, b"")

    def send(self, msg) -> None:
        self.reports.send(encode_report(msg, self.name, self.pid))

    def commands(self):
        """Commands waiting now (non-blocking), decoded."""
        while self.control.poll(0):
            try:
                yield decode_command(self.control.recv())
            except BadMessage as e:
                log.warning("%s: dropped a command that is no message of ours (%s)", self.name, e)

    def __enter__(self) -> ComponentSockets:
        return self

    def __exit__(self, kind, exc, tb) -> Literal[False]:  # the exception is raised on
        if isinstance(exc, Exception):
            self.send(Error("".join(traceback.format_exception(kind, exc, tb))))
        self.close()
        return False

    def close(self) -> None:
        time.sleep(0.2)
        self.ctx.destroy(linger=500)


def is_loopback(host: str) -> bool:
    import ipaddress

    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host == "localhost"


class _OneClient:
    """ZAP's CURVE check: the run's own client key, and no other, may connect."""

    def __init__(self, key: bytes):
        self.key = key

    def callback(self, domain: str, key: bytes) -> bool:
        from zmq.utils.z85 import encode

        return key == self.key or encode(key) == self.key


class TcpWiring:
    """The coordinator's two control channels on TCP (``connect_tcp``): reports PULL,
    commands PUB, bound on ``host`` with ports the system picks; ``addr`` is what the
    components connect to (``ComponentSockets``). On any address but loopback every peer
    authenticates: CURVE (encrypted) with keys made for this run, the server's and the one
    client key the components get in ``addr["curve"]``; a peer without it cannot connect."""

    def __init__(self, host: str):
        self.zctx = zmq.Context()
        self.bad_messages = 0
        self.auth = None
        self.reports = self.zctx.socket(zmq.PULL)
        self.commands = self.zctx.socket(zmq.PUB)
        curve = None
        if not is_loopback(host):
            from zmq.auth.thread import ThreadAuthenticator

            server_public, server_secret = zmq.curve_keypair()
            client_public, client_secret = zmq.curve_keypair()
            self.auth = ThreadAuthenticator(self.zctx)
            self.auth.start()
            self.auth.configure_curve_callback(domain="*", credentials_provider=_OneClient(client_public))
            for sock in (self.reports, self.commands):
                sock.curve_secretkey, sock.curve_publickey, sock.curve_server = server_secret, server_public, True
            curve = {"server": server_public, "public": client_public, "secret": client_secret}
        self.addr: dict[str, Any] = {
            "reports": f"tcp://{host}:{self.reports.bind_to_random_port(f'tcp://{host}')}",
            "commands": f"tcp://{host}:{self.commands.bind_to_random_port(f'tcp://{host}')}",
        }
        if curve is not None:
            self.addr["curve"] = curve

    send = Wiring.send
    receive = Wiring.receive

    def close(self) -> None:
        if self.auth is not None:
            self.auth.stop()
        self.zctx.destroy(linger=0)


def connect_tcp(host: str) -> TcpWiring:
    return TcpWiring(host)
