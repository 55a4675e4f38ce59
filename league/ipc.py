"""Small pieces every component process needs: its control/stats sockets, and leaving
when the main process dies."""

from __future__ import annotations

import os
import threading
import time

import msgpack
import zmq


def exit_with_parent() -> None:
    """Leave when the parent disappears (kill -9 of the main process): no orphans."""
    parent = os.getppid()

    def watch():
        while True:
            time.sleep(1.0)
            if os.getppid() != parent:
                os._exit(3)

    threading.Thread(target=watch, daemon=True, name="parent-watch").start()


class ComponentSockets:
    """stats: PUSH to the main process ({from, pid, kind, ...}); control: SUB from it ({cmd, ...}).
    ``pid`` lets the main process drop what a dead, since restarted, process had queued."""

    def __init__(self, addr: dict, name: str):
        self.name = name
        self.pid = os.getpid()
        self.ctx = zmq.Context()
        self.stats = self.ctx.socket(zmq.PUSH)
        self.stats.connect(addr["stats"])
        self.control = self.ctx.socket(zmq.SUB)
        self.control.connect(addr["control"])
        self.control.setsockopt(zmq.SUBSCRIBE, b"")

    def send(self, kind: str, **payload) -> None:
        self.stats.send(msgpack.packb({"from": self.name, "pid": self.pid, "kind": kind, **payload}))

    def commands(self):
        """Control messages waiting now (non-blocking)."""
        while self.control.poll(0):
            yield msgpack.unpackb(self.control.recv())

    def close(self) -> None:
        time.sleep(0.2)
        self.ctx.destroy(linger=500)
