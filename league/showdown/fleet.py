"""A fleet of local Pokemon Showdown servers: start, health-check, restart, stop.

Each server runs `node pokemon-showdown start --no-security --skip-build PORT` on
127.0.0.1 in a working directory of its own (Showdown writes logs/, config/ and
databases/ relative to its package directory, and two servers sharing one race on
them). The package's code is hard-linked into that directory, so a new server costs
~0.1 s of file-system work and no disk space.

Lifecycle guarantees:
- ready means a websocket handshake succeeded, never a fixed sleep;
- one log file per server under ``<run_dir>/showdown/``;
- a health thread restarts a server whose process died or whose websocket stopped
  answering, on the same port, and bumps its ``generation`` so clients can tell;
- every server is stopped (whole process group) on :meth:`stop`, on leaving the
  ``with`` block, at interpreter exit, and by the kernel if this process dies
  (PR_SET_PDEATHSIG), so no Node process is orphaned.
"""

from __future__ import annotations

import logging
import os
import shutil
import signal
import socket
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from league.showdown.install import ShowdownInstall, locate_showdown
from league.showdown.supervised import ProcessState, SupervisedFleet, set_pdeathsig, tail

log = logging.getLogger(__name__)

HOST = "127.0.0.1"

# config/config.js for every server: the example config, with what a local,
# trusted, high-throughput training server needs.
_CONFIG_JS = """'use strict';
Object.assign(exports, require('./config-example.js'));
exports.bindaddress = '127.0.0.1';
exports.repl = false;
exports.watchconfig = false;
exports.nothrottle = true;
exports.noipchecks = true;
exports.reportbattles = false;
exports.reportjoins = false;
exports.logchallenges = false;
exports.logchat = false;
exports.loguserstats = 0;
exports.crashguardemail = null;
exports.inactiveuserthreshold = 1000 * 60 * 5;
// Off: with it on, every choice ships the battle's whole input log to the parent
// process (quadratic in battle length; measured 3x slower simulation).
exports.debugsimprocesses = false;
exports.debugvalidatorprocesses = false;
exports.debugdexsearchprocesses = false;
"""


class ShowdownStartError(RuntimeError):
    """A server did not become ready."""


PORT_ATTEMPTS = 5


class _PortTaken(Exception):
    pass


def listens_on(pid: int, port: int) -> bool:
    """Whether process ``pid`` or one of its descendants listens on TCP ``port``."""
    import psutil

    try:
        root = psutil.Process(pid)
        procs = [root, *root.children(recursive=True)]
    except psutil.Error:
        return False
    for p in procs:
        try:
            conns = p.net_connections(kind="tcp")
        except psutil.Error:
            continue
        if any(c.status == psutil.CONN_LISTEN and c.laddr and c.laddr.port == port for c in conns):
            return True
    return False


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def websocket_ok(port: int, timeout: float = 5.0) -> bool:
    """True when Showdown's websocket completes a handshake and the server sends the
    login challenge (``|challstr|``), i.e. the main process is serving connections."""
    from websockets.sync.client import connect

    deadline = time.monotonic() + timeout
    try:
        with connect(f"ws://{HOST}:{port}/showdown/websocket", open_timeout=timeout, close_timeout=0.5) as ws:
            while True:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                msg = ws.recv(timeout=left)
                if "|challstr|" in str(msg):
                    return True
    except Exception:
        return False


def _link_or_copy(src: str, dst: str) -> None:
    try:
        os.link(src, dst)
    except OSError:
        shutil.copy2(src, dst)


def prepare_workdir(install: ShowdownInstall, workdir: Path, log_battles: bool = False) -> Path:
    """Make ``workdir/pokemon-showdown`` a private copy of the package (code hard-linked,
    config/ logs/ databases/ real). Returns the directory the server runs in. With
    ``log_battles`` the server writes each finished battle (seed, input log, full log) to
    ``logs/YYYY-MM/FORMAT/YYYY-MM-DD/ROOM.log.json`` there (see :func:`battle_logs`)."""
    pkg = workdir / "pokemon-showdown"
    if not (pkg / "pokemon-showdown").exists():
        workdir.mkdir(parents=True, exist_ok=True)
        private = {"config", "logs", "databases"}
        shutil.copytree(
            install.package_dir,
            pkg,
            copy_function=_link_or_copy,
            ignore=lambda d, names: [n for n in names if Path(d) == install.package_dir and n in private],
            dirs_exist_ok=True,
        )
        for sub in ("config", "databases"):
            src = install.package_dir / sub
            if src.exists():
                shutil.copytree(src, pkg / sub, dirs_exist_ok=True)
        # The package's own dependencies (sockjs, ...) resolve through this link.
        nm = workdir / "node_modules"
        if not nm.exists():
            nm.symlink_to(install.node_modules, target_is_directory=True)
    (pkg / "config" / "chat-plugins").mkdir(parents=True, exist_ok=True)
    (pkg / "logs" / "repl").mkdir(parents=True, exist_ok=True)
    (pkg / "config" / "config.js").write_text(_CONFIG_JS + ("exports.logchallenges = true;\n" if log_battles else ""))
    return pkg


@dataclass(kw_only=True)
class ServerState(ProcessState):
    port: int
    workdir: Path

    @property
    def url(self) -> str:
        return f"ws://{HOST}:{self.port}/showdown/websocket"


class ShowdownFleet(SupervisedFleet):
    """N local Showdown servers. Use as a context manager."""

    backend = "server"
    kind = "showdown server"
    start_error = ShowdownStartError

    def __init__(
        self,
        n_servers: int,
        run_dir: str | Path,
        *,
        start_timeout: float = 60.0,
        health_interval: float = 2.0,
        probe_failures_before_restart: int = 3,
        max_restarts: int = 20,
        install: ShowdownInstall | None = None,
        log_battles: bool = False,
    ):
        if n_servers < 1:
            raise ValueError(f"n_servers must be >= 1, got {n_servers}")
        root = Path(run_dir) / "showdown"
        super().__init__(
            [
                ServerState(index=i, port=0, workdir=root / f"server-{i}", log_path=root / f"server-{i}.log")
                for i in range(n_servers)
            ],
            run_dir,
            start_timeout=start_timeout,
            health_interval=health_interval,
            probe_failures_before_restart=probe_failures_before_restart,
            max_restarts=max_restarts,
        )
        self.install = install or locate_showdown()
        self.log_battles = log_battles

    def _start_all(self) -> None:
        for s in self.servers:
            s.port = free_port()
            prepare_workdir(self.install, s.workdir, self.log_battles)
            self._spawn(s, reason="start")
        for s in self.servers:
            for attempt in range(PORT_ATTEMPTS):
                try:
                    self._wait_ready(s, self.start_timeout)
                    break
                except _PortTaken as e:  # another program bound it between choice and bind
                    if attempt == PORT_ATTEMPTS - 1:
                        raise ShowdownStartError(f"Showdown server {s.index}: {e}, {PORT_ATTEMPTS} times") from None
                    log.warning("showdown server %d: %s; trying another port", s.index, e)
                    self._terminate(s)
                    s.port = free_port()
                    self._spawn(s, reason="start (port taken)")

    # ---------------------------------------------------------------- queries
    @property
    def ports(self) -> list[int]:
        return [s.port for s in self.servers]

    def is_alive(self, i: int) -> bool:
        p = self.servers[i].proc
        return p is not None and p.poll() is None

    def server_configuration(self, i: int):
        from poke_env.ps_client.server_configuration import ServerConfiguration

        return ServerConfiguration(self.servers[i].url, "https://play.pokemonshowdown.com/action.php?")

    def wait_healthy(self, i: int, timeout: float = 60.0) -> bool:
        """Block until server i answers on its websocket (e.g. after a restart)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and not self._stop_event.is_set():
            if self.is_alive(i) and websocket_ok(self.servers[i].port, timeout=3.0):
                return True
            time.sleep(0.2)
        return False

    def battle_logs(self) -> list[dict]:
        """The battles the servers logged (``log_battles=True``): Showdown's own record of
        each, with its ``seed``, ``inputLog`` (every command the simulator got) and ``log``.
        A file Showdown is still writing (it writes them in place) is not one yet."""
        import json

        out = []
        for s in self.servers:
            for f in sorted((s.workdir / "pokemon-showdown" / "logs").glob("*/*/*/*.log.json")):
                try:
                    out.append(json.loads(f.read_text()))
                except ValueError:  # empty or cut short: still being written
                    continue
        return out

    # ---------------------------------------------------------------- internals
    def _spawn(self, s: ServerState, reason: str) -> None:
        s.log_path.parent.mkdir(parents=True, exist_ok=True)
        pkg = s.workdir / "pokemon-showdown"
        logf = open(s.log_path, "ab")
        header = f"\n==== {time.strftime('%Y-%m-%d %H:%M:%S')} {reason}: port {s.port} generation {s.generation + 1}\n"
        logf.write(header.encode())
        logf.flush()
        try:
            s.proc = subprocess.Popen(
                [self.install.node, "pokemon-showdown", "start", "--no-security", "--skip-build", str(s.port)],
                cwd=pkg,
                stdin=subprocess.DEVNULL,
                stdout=logf,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # own process group: stop() kills the whole tree
                preexec_fn=set_pdeathsig,
            )
        finally:
            logf.close()
        s.generation += 1
        s.failed_probes = 0
        s.history.append(f"{time.time():.0f} {reason} pid={s.proc.pid}")
        log.info("showdown server %d %s on port %d (pid %d)", s.index, reason, s.port, s.proc.pid)

    def _wait_ready(self, s: ServerState, timeout: float) -> None:
        """Until server ``s`` answers on its websocket. The port was free when chosen but
        is bound only now: when something else took it meanwhile (the server exits with
        EADDRINUSE, or a server not ours answers there), raise ``_PortTaken``."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if s.proc is None or s.proc.poll() is not None:
                if "EADDRINUSE" in _this_generation(s.log_path):
                    raise _PortTaken(f"port {s.port} in use")
                raise ShowdownStartError(
                    f"Showdown server {s.index} (port {s.port}) exited with code "
                    f"{None if s.proc is None else s.proc.returncode} while starting; "
                    f"last lines of {s.log_path}:\n{tail(s.log_path)}"
                )
            if websocket_ok(s.port, timeout=2.0):
                if not listens_on(s.proc.pid, s.port):
                    raise _PortTaken(f"port {s.port} answered by a process that is not this server")
                return
            if "EADDRINUSE" in _this_generation(s.log_path):  # Showdown may log the bind error and live on
                raise _PortTaken(f"port {s.port} in use")
            time.sleep(0.1)
        raise ShowdownStartError(
            f"Showdown server {s.index} did not accept a websocket on port {s.port} within {timeout:.0f}s; "
            f"see {s.log_path}:\n{tail(s.log_path)}"
        )

    def _probe(self, s: ServerState) -> bool:
        return websocket_ok(s.port, timeout=5.0)


def processes_under(root: str | Path) -> list[int]:
    """Pids of this user's processes whose working directory is inside ``root`` (a
    fleet's servers and their Node workers run in ``<run_dir>/showdown/server-K``)."""
    root = os.path.realpath(root)
    me, found = os.getpid(), []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == me:
            continue
        try:
            cwd = os.readlink(f"/proc/{entry}/cwd")
        except OSError:  # gone, or not ours
            continue
        if cwd == root or cwd.startswith(root + os.sep):
            found.append(int(entry))
    return found


def reap_strays(root: str | Path, grace_s: float = 10.0) -> list[int]:
    """After the process that owned a fleet died (SIGKILL gives it no time to stop its
    servers): wait up to ``grace_s`` for the servers under ``root`` to go by themselves
    (PR_SET_PDEATHSIG), then SIGKILL what is left. Returns the pids killed."""
    deadline = time.monotonic() + grace_s
    while processes_under(root) and time.monotonic() < deadline:
        time.sleep(0.2)
    killed = processes_under(root)
    for pid in killed:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    return killed


def _this_generation(path: Path) -> str:
    """The server log since the last spawn's header line."""
    try:
        text = path.read_text(errors="replace")
    except OSError:
        return ""
    return text[text.rfind("\n==== ") :]
