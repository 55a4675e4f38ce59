"""Every command the README shows still runs: each `python -m MODULE [SUBCOMMAND]` of its
code blocks answers `--help` with exit status 0 (all in one process: one import of torch)."""

from __future__ import annotations

import json
import re
import subprocess
import sys

from tests.conftest import ROOT

_PROBE = r"""
import contextlib, io, json, runpy, sys
out = {}
for cmd in json.loads(sys.argv[1]):
    sys.argv = [cmd[0], *cmd[1:], "--help"]
    code = 0
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        try:
            runpy.run_module(cmd[0], run_name="__main__", alter_sys=True)
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
        except BaseException as e:
            code = repr(e)
    out[" ".join(cmd)] = code
print(json.dumps(out))
"""


def readme_commands() -> list[list[str]]:
    text = (ROOT / "README.md").read_text()
    found = []
    for block in re.findall(r"```(?:bash)?\n(.*?)```", text, flags=re.S):
        for line in block.splitlines():
            m = re.match(r"\s*python -m ([\w.]+)(?:\s+([a-z][a-z0-9-]*)(?=\s|$))?", line)
            if m:
                cmd = [m.group(1)] + ([m.group(2)] if m.group(2) else [])
                if cmd not in found:
                    found.append(cmd)
    return found


def test_every_command_in_the_readme_answers_help():
    cmds = readme_commands()
    assert len(cmds) >= 20 and ["league.run"] in cmds and ["tools.bc", "generate"] in cmds, cmds
    res = subprocess.run(
        [sys.executable, "-c", _PROBE, json.dumps(cmds)], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert res.returncode == 0, res.stderr[-3000:]
    codes = json.loads(res.stdout.strip().splitlines()[-1])
    assert {c: v for c, v in codes.items() if v != 0} == {}
