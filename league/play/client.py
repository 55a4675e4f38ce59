"""A session on any Pokemon Showdown server: log in, survive reconnects.

:class:`OnlineClient` is poke-env's ``PSClient`` with what a session on a public server
needs and poke-env 0.16.1 lacks:

- **Login** through the login server (``login_url``, Showdown's ``action.php``): with a
  password ``act=login``, without one ``act=getassertion``, so an unregistered name also
  works where the server has login security on. A refusal (wrong password, a registered
  name without its password, ``|nametaken|``) is a :class:`LoginError` that says so. With
  ``login_url=None`` no login server is asked (a server started with ``--no-security``,
  like our local fleet, takes any name); without a password, a login server that cannot
  be reached is not fatal either: the name is sent alone, which such a server accepts.
- **Reconnects**: when the websocket drops, it connects again (backoff 1 s doubling to 5 s)
  for up to ``reconnect_s`` seconds and logs in again as the same user. Showdown then
  rejoins that user to the battles still running (``Rooms.global.rejoinGames``): each
  one's log comes again, then its pending request, followed by ``|sentchoice|`` when our
  choice had reached the server before the drop.

The player side (rejoins, deadlines, n battles) is league/play/online.py.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Callable

import websockets
from poke_env.data import to_id_str
from poke_env.ps_client import PSClient
from websockets.exceptions import WebSocketException

log = logging.getLogger(__name__)

LOGIN_URL = "https://play.pokemonshowdown.com/action.php?"
WEBSOCKET_PATH = "/showdown/websocket"
LOGIN_TIMEOUT_S = 30.0

# frames buffered from the server while the client is busy, and frames being handled: past
# either, the client stops reading the socket (TCP pushes back on the server) instead of
# growing without bound
MAX_QUEUE = 1024


class LoginError(RuntimeError):
    """The server or its login server refused to log us in."""


class ConnectError(RuntimeError):
    """The websocket could not be opened, or was lost and not back in time."""


class LoginServerUnreachable(LoginError):
    pass


def login_assertion(login_url: str, username: str, password: str | None, challstr: str, timeout: float = 15.0) -> str:
    """The assertion that logs ``username`` in (Showdown's PROTOCOL.md, ``|challstr|``).
    Blocking (HTTP): run it in a thread."""
    from urllib.error import HTTPError, URLError
    from urllib.parse import urlencode
    from urllib.request import Request, urlopen

    if password:
        data = {"act": "login", "name": username, "pass": password, "challstr": challstr}
    else:
        data = {"act": "getassertion", "userid": to_id_str(username), "challstr": challstr}
    request = Request(
        login_url,
        data=urlencode(data).encode(),
        method="POST",
        headers={"Content-Type": "application/x-www-form-urlencoded", "User-Agent": "league tools.play"},
    )
    try:
        with urlopen(request, timeout=timeout) as r:
            text = r.read().decode("utf-8", "replace").strip()
    except HTTPError as e:
        raise LoginError(f"the login server {login_url} answered HTTP {e.code}") from None
    except (URLError, OSError) as e:
        raise LoginServerUnreachable(f"the login server {login_url} cannot be reached: {e}") from None
    if password:
        try:
            reply = json.loads(text[1:] if text.startswith("]") else text)
        except ValueError:
            raise LoginError(f"the login server {login_url} did not answer a login: {text[:200]!r}") from None
        assertion = str(reply.get("assertion") or "") if isinstance(reply, dict) else ""
        if not assertion or assertion.startswith(";"):
            why = assertion.lstrip(";") or "no assertion in its reply"
            raise LoginError(f"logging in as {username!r} failed ({why}): check the name and the password file")
        return assertion
    if text.startswith(";;"):
        raise LoginError(f"the login server refused the name {username!r}: {text[2:]}")
    if text.startswith(";"):
        raise LoginError(
            f"{username!r} is a registered name: give its password with --password-file "
            "(or, for a server without login security, --login-server none)"
        )
    if not text:
        raise LoginError(f"the login server {login_url} sent no assertion for {username!r}")
    return text


class OnlineClient(PSClient):
    """poke-env's client with a login that checks its answer and a reconnecting connection
    (:meth:`run`). ``on_event`` is called on every change the play loops wait for; global
    ``|pm|`` lines go to ``on_pm(sender, receiver, text)``, ``|popup|`` texts to ``notices``."""

    def __init__(
        self,
        *args,
        login_url: str | None,
        reconnect_s: float = 120.0,
        on_event: Callable[[], None] = lambda: None,
        on_pm: Callable[[str, str, str], None] = lambda *a: None,
        on_login: Callable[[], None] = lambda: None,
        **kwargs,
    ):
        kwargs["start_listening"] = False
        super().__init__(*args, **kwargs)
        self.login_url = login_url
        self.reconnect_s = reconnect_s
        self.error: Exception | None = None  # fatal: login refused, or the connection lost for good
        self.connects = 0
        self.reconnects = 0  # logged in again after a drop
        self.notices: list[str] = []  # |popup| texts and command errors, in order
        self._on_event, self._on_pm, self._on_login = on_event, on_pm, on_login
        self._closing = False
        self._was_logged_in = False
        self._lost_at: float | None = None

    def _create_logger(self, log_level):
        logger = logging.getLogger(f"{__name__}.{to_id_str(self.username)}")
        if log_level is not None:
            logger.setLevel(log_level)
        return logger

    # ------------------------------------------------------------------ connection
    async def run(self) -> None:
        """Connect, and connect again whenever the connection drops, until :meth:`close` or
        a fatal error (``self.error``)."""
        backoff = 1.0
        while not self._closing and self.error is None:
            reason = "closed by the server"
            try:
                async with websockets.connect(
                    self.websocket_url,
                    max_queue=MAX_QUEUE,
                    open_timeout=self._open_timeout,
                    ping_interval=self._ping_interval,
                    ping_timeout=self._ping_timeout,
                ) as websocket:
                    self.websocket = websocket
                    self.connects += 1
                    watchdog = asyncio.ensure_future(self._login_watchdog(websocket))
                    try:
                        async for message in websocket:
                            while len(self._active_tasks) >= MAX_QUEUE:  # the handlers are behind: wait
                                await asyncio.wait(set(self._active_tasks), return_when=asyncio.FIRST_COMPLETED)
                            self.logger.debug("<<< %s", message)
                            task = asyncio.ensure_future(self._handle_message(str(message)))
                            self._active_tasks.add(task)
                            task.add_done_callback(self._task_done)
                    finally:
                        watchdog.cancel()
            except (TimeoutError, OSError, WebSocketException) as e:
                reason = f"{type(e).__name__}: {e}" if str(e) else type(e).__name__
            was_in = self.logged_in.is_set()
            self.logged_in.clear()
            self._on_event()
            if self._closing or self.error is not None:
                break
            if not self._was_logged_in:  # never got in: nothing to resume
                self.error = ConnectError(f"cannot connect to {self.websocket_url}: {reason}")
                break
            now = time.monotonic()
            if was_in:
                self._lost_at, backoff = now, 1.0
                log.warning("%s: connection to %s lost (%s); reconnecting", self.username, self.websocket_url, reason)
            if self._lost_at is not None and now - self._lost_at > self.reconnect_s:
                self.error = ConnectError(
                    f"connection to {self.websocket_url} lost ({reason}) and not back within {self.reconnect_s:.0f}s"
                )
                break
            await asyncio.sleep(backoff)
            backoff = min(2 * backoff, 5.0)
        self._on_event()

    async def _login_watchdog(self, websocket) -> None:
        await asyncio.sleep(LOGIN_TIMEOUT_S)
        if not self.logged_in.is_set() and self.error is None:
            if not self._was_logged_in:
                self._fail(
                    LoginError(
                        f"not logged in as {self.username!r} on {self.websocket_url} within "
                        f"{LOGIN_TIMEOUT_S:.0f}s{self._last_notice()}"
                    )
                )
            await websocket.close()

    def _task_done(self, task: asyncio.Task) -> None:
        self._active_tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("%s: a message could not be handled: %r", self.username, task.exception())

    def _fail(self, error: Exception) -> None:
        if self.error is None:
            self.error = error
        self._on_event()

    def _last_notice(self) -> str:
        return f" (the server said: {self.notices[-1]})" if self.notices else ""

    async def close(self) -> None:
        self._closing = True
        ws = getattr(self, "websocket", None)
        if ws is not None:
            try:
                await asyncio.wait_for(ws.close(), timeout=3)
            except Exception:
                pass

    # ------------------------------------------------------------------ login
    async def log_in(self, split_message: list[str]) -> None:
        challstr = f"{split_message[2]}|{split_message[3]}"
        password = self.account_configuration.password
        assertion = ""
        if self.login_url is not None:
            try:
                assertion = await asyncio.to_thread(login_assertion, self.login_url, self.username, password, challstr)
            except LoginServerUnreachable as e:
                if password:
                    self._fail(e)
                    return
                log.warning("%s; sending the name alone (a server without login security takes it)", e)
            except LoginError as e:
                self._fail(e)
                return
        await self.send_message(f"/trn {self.username},0,{assertion}")
        if self._avatar:
            await self.change_avatar(self._avatar)

    # ------------------------------------------------------------------ messages
    async def _handle_message(self, message: str) -> None:
        first = message.split("\n", 1)[0]
        if first.startswith(">"):
            if first.startswith((">battle", ">game")):
                await super()._handle_message(message)
            return  # a chat room or page we did not ask for
        for line in message.split("\n"):
            parts = line.split("|")
            if len(parts) < 2:
                continue
            kind = parts[1]
            if kind == "challstr":
                await self.log_in(parts)
            elif kind == "updateuser":
                self._updateuser(parts)
            elif kind == "nametaken":
                await self._nametaken(parts)
            elif kind == "popup":
                self.notices.append("|".join(parts[2:]).replace("||", "\n"))
                log.warning("%s: the server says: %s", self.username, self.notices[-1])
                self._on_event()
            elif kind == "pm" and len(parts) >= 5:
                text = "|".join(parts[4:])
                if text.startswith("/error "):
                    self.notices.append(text[len("/error ") :])
                    log.warning("%s: the server says: %s", self.username, self.notices[-1])
                self._on_pm(parts[2], parts[3], text)
                self._on_event()
            elif kind == "updatechallenges":  # servers before 0.11 tell challenges this way
                await self._update_challenges(parts)
                self._on_event()

    def _updateuser(self, parts: list[str]) -> None:
        name = parts[2].split("@!")[0] if len(parts) > 2 else ""
        named = len(parts) > 3 and parts[3] == "1"
        if named and to_id_str(name) == to_id_str(self.username) and not self.logged_in.is_set():
            first = not self._was_logged_in
            self._was_logged_in = True
            if self._lost_at is not None:
                self.reconnects += 1
                log.warning("%s: logged in again after %.1fs", self.username, time.monotonic() - self._lost_at)
            self._lost_at = None
            self.logged_in.set()
            if not first:
                self._on_login()
            self._on_event()

    async def _nametaken(self, parts: list[str]) -> None:
        why = "|".join(parts[3:]) or "no reason given"
        if not self._was_logged_in:
            name = parts[2] if len(parts) > 2 and parts[2] else self.username
            self._fail(LoginError(f"the server refused the name {name!r}: {why}"))
            await self.close()
        else:  # after a drop: the server may not have seen the old connection go yet
            log.warning("%s: name not taken back yet (%s); trying again", self.username, why)
            await self.websocket.close()
