"""The `league` command: one entry for the run and every tool.

    league run [overrides]          = python -m league.run [overrides]
    league battle --p1 … --p2 …     = python -m tools.battle …
    league COMMAND --help           that command's own help

Installed by ``pip install`` (the console script); each command is its module run as
``python -m`` runs it, with the same arguments, output and exit status.
"""

from __future__ import annotations

import runpy
import sys

COMMANDS = {
    "run": ("league.run", "train: a league run (Hydra overrides; --multirun sweeps)"),
    "battle": ("tools.battle", "play battles between two players"),
    "tournament": ("tools.tournament", "round-robin or sequential tournament of checkpoints"),
    "exploit": ("tools.exploit", "train a best response to a frozen player, then play it"),
    "play": ("tools.play", "connect an agent to a Showdown server"),
    "bc": ("tools.bc", "behaviour cloning: generate, parse replays, train"),
    "export": ("tools.export", "export a checkpoint as a small policy file"),
    "teams": ("tools.teams", "generate a pool of legal teams"),
    "bench": ("tools.bench", "benchmarks that print JSON"),
    "chaos": ("tools.chaos", "a league run under injected faults, then its checks"),
    "nash-report": ("tools.nash_report", "Nash-mixture report of a run's league"),
    "plot-run": ("tools.plot_run", "plot a run's TensorBoard scalars"),
    "sweep-report": ("tools.sweep_report", "summarise a sweep's jobs"),
    "logit-spread": ("tools.logit_spread", "how sharp a checkpoint's policy is"),
}


def usage() -> str:
    width = max(map(len, COMMANDS))
    rows = "\n".join(f"  {name:<{width}}  {what}" for name, (_, what) in COMMANDS.items())
    return f"usage: league COMMAND [ARGS]\n\ncommands:\n{rows}\n\n`league COMMAND --help` for a command's own help."


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] in ("-h", "--help"):
        print(usage())
        return 0
    if argv[0] not in COMMANDS:
        print(f"error: unknown command {argv[0]!r}\n\n{usage()}", file=sys.stderr)
        return 2
    module = COMMANDS[argv[0]][0]
    sys.argv = [f"league {argv[0]}", *argv[1:]]
    try:
        runpy.run_module(module, run_name="__main__", alter_sys=True)
    except SystemExit as e:  # the command's own exit status
        return e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
