"""The run's console: a ``rich`` live table on a terminal, plain progress lines otherwise.

``run.console``: ``auto`` (the live table when stdout is a terminal), ``rich`` (always),
``plain`` (never). With the live table on, everything the main process prints still
appears (above the table, through rich's redirection) and still goes to ``run.log``; the
progress line itself goes to ``run.log`` only, the table shows the same figures. Child
processes write to the terminal directly (their rare warnings may scroll the table).
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from league.config import CONSOLES

if TYPE_CHECKING:
    from rich.live import Live  # imported where the table starts: rich loads only when shown


class Tee:
    """A stream that also appends what it writes to the run's log file (run.log, where
    Hydra's log handler writes the ``logging`` records too)."""

    def __init__(self, stream, log_file):
        self.stream, self.log_file = stream, log_file

    def write(self, text: str) -> int:
        self.stream.write(text)
        if self.log_file is not None:
            self.log_file.write(text)
        return len(text)

    def flush(self) -> None:
        self.stream.flush()
        if self.log_file is not None:
            self.log_file.flush()

    def __getattr__(self, name):
        return getattr(self.stream, name)


class LiveView:
    """A rich Live table on ``terminal``; :meth:`show` replaces it and logs the plain line."""

    def __init__(self, terminal, log_file=None):
        self.terminal, self.log_file = terminal, log_file
        self.live: Live | None = None

    def start(self) -> LiveView:
        from rich.console import Console
        from rich.live import Live

        self.live = Live(
            console=Console(file=self.terminal, force_terminal=True),
            auto_refresh=False,
            redirect_stdout=True,
            redirect_stderr=True,
            transient=False,
        )
        self.live.start()
        # rich's proxies print above the table; the log file still gets every line
        sys.stdout, sys.stderr = Tee(sys.stdout, self.log_file), Tee(sys.stderr, self.log_file)
        return self

    def show(self, table, line: str) -> None:
        if self.log_file is not None:
            self.log_file.write(line + "\n")
        assert self.live is not None  # (start first)
        self.live.update(table, refresh=True)

    def stop(self) -> None:
        if self.live is not None:
            self.live.stop()  # puts back the streams it replaced
            self.live = None
            if not (hasattr(self.terminal, "isatty") and self.terminal.isatty()):
                self.terminal.write("\n")  # rich ends on a cursor code: the next line stays clean


def make_view(mode: str, terminal, log_file=None) -> LiveView | None:
    if mode not in CONSOLES:
        raise ValueError(f"run.console must be one of {CONSOLES}, got {mode!r}")
    on = mode == "rich" or (mode == "auto" and hasattr(terminal, "isatty") and terminal.isatty())
    return LiveView(terminal, log_file) if on else None


def progress_table(head: str, c: dict, sim: dict, learner: dict, league=None, battles_per_s: float = 0.0):
    """The live table: progress, learning, evaluation, and the league's members by rating."""
    from rich.table import Table

    t = Table(title=f"league  [{head}]", title_justify="left", show_header=False, box=None, pad_edge=False)
    t.add_column(style="bold")
    t.add_column()
    t.add_row(
        "progress",
        f"updates {c['updates']}   battles {c['battles']} ({battles_per_s:.1f}/s)   "
        f"decisions {c['decisions']}   Showdown errors {c['showdown_errors']}",
    )
    t.add_row(
        "learner",
        f"policy {learner.get('loss/policy', 0):+.3f}   value {learner.get('loss/value', 0):.3f}   "
        f"entropy {learner.get('entropy', 0):.2f}   lag {learner.get('policy_lag', 0):.1f}   "
        f"samples/s {learner.get('samples_per_s', 0):.0f}",
    )
    ev = "   ".join(
        f"vs {k} {v:.2f} ({sim.get('eval_games', {}).get(k, 0)} games)" for k, v in sorted(sim.get("eval", {}).items())
    )
    t.add_row("evaluation", ev or "-")
    if league is not None:
        members = sorted(league.registry.active(), key=lambda m: -m.ordinal)
        roles = league.registry.count_by_role()
        t.add_row("members", "   ".join(f"{r} {n}" for r, n in sorted(roles.items())))
        t.add_row("ratings", "   ".join(f"{m.id} {m.ordinal:.1f}" for m in members[:8]) or "-")
    return t
