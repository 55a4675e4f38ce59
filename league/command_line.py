"""The run's command line: before Hydra sees it, the old spelling of ``experiment`` and a
run directory already in use (refused before Hydra writes anything into it); at the
end, the exit status (a sweep's failed job lets the sweep go on)."""

from __future__ import annotations

import sys
from pathlib import Path

from hydra.core.hydra_config import HydraConfig
from hydra.types import RunMode

from league import checkpoint as ckpt


def used_run_dir(run_dir: Path) -> str | None:
    """Why ``run_dir`` cannot take a new run (it holds an earlier run's checkpoints), or
    None. A new run there would overwrite some of them and its pruning would keep others,
    so a later resume would mix two runs: it is refused before anything is written."""
    found = ckpt.list_checkpoints(run_dir)
    if not found:
        return None
    return (
        f"{run_dir} holds the checkpoints of an earlier run ({found[-1].name}, {len(found)} in all) and this "
        f"run is not resume=true; nothing there was changed. Continue that run: python -m league.run "
        f"resume=true hydra.run.dir={run_dir} (with its experiment and overrides), or start a new run in a "
        f"new directory (leave hydra.run.dir out, or name an empty one)"
    )


def _overrides(argv: list[str]) -> dict[str, str]:
    return {a.split("=", 1)[0].lstrip("+~"): a.split("=", 1)[1] for a in argv if "=" in a and not a.startswith("-")}


def refuse_used_run_dir(argv: list[str]) -> str | None:
    """The check of :func:`used_run_dir` on the command line, before Hydra writes its
    ``.hydra/`` files into the directory: the message, or None."""
    over = _overrides(argv)
    if "hydra.run.dir" not in over or over.get("resume", "false").lower() in ("true", "yes", "1", "on"):
        return None
    if any(a in ("-m", "--multirun") for a in argv):
        return None  # a sweep's jobs have their own directories; each job checks its own (main)
    return used_run_dir(Path(over["hydra.run.dir"]))


def experiment_args(argv: list[str]) -> list[str]:
    """``experiment`` has a default (reg_c, in league/conf/config.yaml), so Hydra takes
    ``experiment=NAME``; ``+experiment=NAME`` (needed before it had one, and in older
    commands) means the same."""
    return [a[1:] if a.startswith("+experiment=") else a for a in argv]


class JobFailed(RuntimeError):
    """A --multirun job that failed: Hydra records it and runs the next job (sys.exit
    would get past Hydra and end the sweep); the sweep exits non-zero at the end."""


def fail(code: int, text: str) -> None:
    hc = HydraConfig.get()
    if hc.mode == RunMode.MULTIRUN:
        print(f"job {hc.job.num} failed ({text}); the sweep goes on", file=sys.stderr, flush=True)
        raise JobFailed(f"job {hc.job.num} ({hc.runtime.output_dir}): {text}")
    sys.exit(code)
