"""A ``python -m league.run`` under test, driven by events: start it, wait until what the
test checks has happened (files the run writes), then signal it (SIGINT as a user's
Ctrl-C, SIGKILL as a crash) or let it end by itself. A run whose end a test needs to
happen after a timer (the league tick, evaluation rounds, exploiters) stops by that
event, not at an update count or a time that a slower or faster machine would race.

Its stdout and stderr go to files, not pipes: a run that logs more than a pipe holds
while the test waits would otherwise block on its next line."""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tests.conftest import ROOT


def read_json(path: Path):
    """A JSON file the run writes, or None while it is not (completely) written."""
    try:
        return json.loads(Path(path).read_text())
    except (OSError, ValueError):
        return None


def summary(stdout: str) -> dict:
    """A run's final JSON line."""
    return json.loads(stdout.strip().splitlines()[-1])


class LeagueRun:
    def __init__(self, args: list[str], env: dict | None = None):
        self.logs = Path(tempfile.mkdtemp(prefix="league-run-"))
        self._out = open(self.logs / "stdout", "w")
        self._err = open(self.logs / "stderr", "w")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "league.run", *args],
            cwd=ROOT,
            stdout=self._out,
            stderr=self._err,
            text=True,
            env=env,
        )

    def __enter__(self) -> LeagueRun:
        return self

    def __exit__(self, exc_type, *exc) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self._out.close()
        self._err.close()
        if exc_type is None:  # a failed test keeps the run's output for a look
            shutil.rmtree(self.logs, ignore_errors=True)

    def stderr(self) -> str:
        self._err.flush()
        return (self.logs / "stderr").read_text()

    def wait_for(self, what: str, done, limit_s: float = 300.0) -> None:
        """Until ``done()`` holds; fails naming ``what`` if the run ends first or ``limit_s`` passes."""
        deadline = time.monotonic() + limit_s
        while not done():
            assert self.proc.poll() is None, f"the run ended before {what}:\n{self.stderr()[-3000:]}"
            assert time.monotonic() < deadline, f"no {what} within {limit_s:.0f} s"
            time.sleep(0.5)

    def finish(self, timeout: float = 400.0, sig: int | None = None) -> subprocess.CompletedProcess:
        """Send ``sig`` (if any), wait for the end; the run's exit code and output."""
        if sig is not None:
            self.proc.send_signal(sig)
        self.proc.wait(timeout=timeout)
        self._out.flush()
        return subprocess.CompletedProcess(
            self.proc.args, self.proc.returncode, (self.logs / "stdout").read_text(), self.stderr()
        )

    def interrupt(self, timeout: float = 180.0) -> subprocess.CompletedProcess:
        return self.finish(timeout, signal.SIGINT)

    def kill9(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()


def run_until(args: list[str], done, what: str, limit_s: float = 330.0) -> subprocess.CompletedProcess:
    """Start a run, wait until ``done()`` holds, stop it with SIGINT; its output."""
    with LeagueRun(args) as run:
        run.wait_for(what, done, limit_s)
        return run.interrupt()
