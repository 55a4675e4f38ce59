"""The online client's reading is bounded: while its handlers are behind, at most
``MAX_QUEUE`` frames are being handled and it stops reading the socket (the server's
sends back up) instead of queueing without bound; nothing is lost once they catch up.
A local websocket server, no Showdown."""

from __future__ import annotations

import asyncio

import websockets
from poke_env import AccountConfiguration
from poke_env.ps_client.server_configuration import ServerConfiguration

import league.play.client as client_mod


def test_a_flood_of_frames_waits_for_the_handlers_and_none_is_lost(monkeypatch):
    monkeypatch.setattr(client_mod, "MAX_QUEUE", 4)
    n = 200

    async def go():
        release = asyncio.Event()
        handled: list[str] = []
        peak = 0

        async def flood(ws):
            for i in range(n):
                await ws.send(f"|frame|{i}")
            await ws.wait_closed()

        async with websockets.serve(flood, "127.0.0.1", 0, max_queue=4) as server:
            port = server.sockets[0].getsockname()[1]
            c = client_mod.OnlineClient(
                AccountConfiguration("bounded", None),
                server_configuration=ServerConfiguration(f"ws://127.0.0.1:{port}/showdown/websocket", ""),
                login_url=None,
            )

            async def slow(message: str) -> None:
                nonlocal peak
                peak = max(peak, len(c._active_tasks))
                await release.wait()
                handled.append(message)

            c._handle_message = slow
            runner = asyncio.ensure_future(c.run())
            while len(c._active_tasks) < 4:  # event-driven: the handlers fill up
                await asyncio.sleep(0.01)
            await asyncio.sleep(0.3)  # the client has had time to read more, were it not bounded
            assert len(c._active_tasks) == 4 and handled == []
            release.set()
            while len(handled) < n:
                await asyncio.sleep(0.01)
            c._closing = True
            await c.websocket.close()
            await asyncio.wait_for(runner, 10)
        return handled, peak

    handled, peak = asyncio.run(asyncio.wait_for(go(), 60))
    assert peak <= 4 and sorted(handled, key=lambda m: int(m.split("|")[2])) == [f"|frame|{i}" for i in range(n)]
