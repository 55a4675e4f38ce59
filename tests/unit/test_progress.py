"""The tools' progress bar: on a terminal only (a piped tool prints its JSON alone)."""

from __future__ import annotations

import io
import sys

from tools import cli


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_the_bar_shows_the_count_on_a_terminal_and_nothing_elsewhere(monkeypatch):
    piped = io.StringIO()
    monkeypatch.setattr(sys, "stderr", piped)
    with cli.Progress(10, "battles") as bar:
        bar.advance(7)
    assert bar.bar is None and piped.getvalue() == ""

    term = _Terminal()
    monkeypatch.setattr(sys, "stderr", term)
    with cli.Progress(10, "battles") as bar:
        bar.advance(7)
    assert bar.bar is not None
    shown = term.getvalue()
    assert "battles" in shown and "7/10" in shown, shown
