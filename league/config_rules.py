"""The makers of the config check's rules (league/config.py ``RULES``): a rule is a
function of one key's value that returns what is wrong with it ("" when nothing), said
so that "<dotted key> <what is wrong>" reads as a sentence. These know no setting: the
rules that read a component's constants (a portfolio's size, a team tag) are in
league/config.py beside the table.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

Rule = Callable[[Any], str]


def is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def is_real(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def replaced_by(spelling: str) -> Rule:
    """A setting that is no more: false (its default) passes, anything else names the new one."""
    return lambda v: "" if v is False else f"replaced by {spelling}"


def flag(v: Any) -> str:
    """Any bool."""
    return "" if isinstance(v, bool) else f"must be true or false (got {v!r})"


def integer(lo: int) -> Rule:
    """An int >= lo."""

    def rule(v: Any) -> str:
        return "" if is_int(v) and v >= lo else f"must be an integer >= {lo} (got {v!r})"

    return rule


def real(lo: float, hi: float | None = None, *, lo_open: bool = False, hi_open: bool = False) -> Rule:
    """A number in [lo, hi], ends open as asked; no upper end when ``hi`` is None. NaN fails."""
    if hi is None:
        text = f"must be {'>' if lo_open else '>='} {lo:g}"
    else:
        text = f"must be in {'(' if lo_open else '['}{lo:g}, {hi:g}{')' if hi_open else ']'}"

    def rule(v: Any) -> str:
        ok = is_real(v) and (lo < v if lo_open else lo <= v)
        if ok and hi is not None:
            ok = v < hi if hi_open else v <= hi
        return "" if ok else f"{text} (got {v!r})"

    return rule


def one_of(choices: tuple[str, ...]) -> Rule:
    def rule(v: Any) -> str:
        return "" if v in choices else f"must be one of {', '.join(choices)} (got {v!r})"

    return rule


def optional(rule: Rule) -> Rule:
    """None, or what ``rule`` accepts."""

    def check(v: Any) -> str:
        return "" if v is None else rule(v).replace("must be", "must be null or", 1)

    return check


def format_id(v: Any) -> str:
    """A Showdown format id: lowercase letters and digits. Whether Showdown has it and the
    league can play it is checked at start against Showdown's format list (league/run.py:
    league.showdown.formats.check_format), which needs Node."""
    ok = isinstance(v, str) and re.fullmatch(r"[a-z0-9]+", v) is not None
    return "" if ok else f"must be a Showdown format id, lowercase letters and digits (got {v!r})"


def existing(kind: str) -> Rule:
    """None, or the path of an existing ``file`` or ``dir``."""
    what = {"file": "file", "dir": "directory"}[kind]

    def rule(v: Any) -> str:
        if v is None:
            return ""
        if isinstance(v, str) and (Path(v).is_file() if kind == "file" else Path(v).is_dir()):
            return ""
        return f"must be null or an existing {what} ({what} {v} does not exist)"

    return rule


def ints(lo: int) -> Rule:
    """A non-empty list of ints >= lo."""

    def rule(v: Any) -> str:
        ok = isinstance(v, list) and len(v) > 0 and all(is_int(x) and x >= lo for x in v)
        return "" if ok else f"must be a non-empty list of integers >= {lo} (got {v!r})"

    return rule


def distinct_of(choices: tuple[str, ...]) -> Rule:
    """A list of some of ``choices``, each at most once."""

    def rule(v: Any) -> str:
        ok = isinstance(v, list) and all(x in choices for x in v) and len(set(v)) == len(v)
        return "" if ok else f"must list some of {', '.join(choices)}, each once (got {v!r})"

    return rule


def weights_of(choices: tuple[str, ...]) -> Rule:
    """A mapping from some of ``choices`` to numbers >= 0."""

    def rule(v: Any) -> str:
        ok = isinstance(v, dict) and all(k in choices and is_real(x) and x >= 0 for k, x in v.items())
        return "" if ok else f"must map some of {', '.join(choices)} to weights >= 0 (got {v!r})"

    return rule


def ray_address(v: Any) -> str:
    """Empty, "auto", HOST:PORT or ray://HOST:PORT."""
    ok = isinstance(v, str) and (v in ("", "auto") or re.fullmatch(r"(ray://)?[A-Za-z0-9_.\-]+:\d{1,5}", v))
    return "" if ok else f"must be empty (a local Ray), auto, or HOST:PORT of a Ray head (got {v!r})"


def resources(v: Any) -> str:
    """A mapping of Ray resource names to amounts >= 0."""
    ok = isinstance(v, dict) and all(isinstance(k, str) and k and is_real(x) and x >= 0 for k, x in v.items())
    return "" if ok else f"must map resource names to amounts >= 0 (got {v!r})"


def object_store(v: Any) -> str:
    return "" if is_int(v) and (v == 0 or v >= 100) else f"must be 0 (Ray's default) or >= 100 MB (got {v!r})"


def bind_address(v: Any) -> str:
    """ "" or an IP address (v4 or v6) or a host name the channels can bind on."""
    import ipaddress

    if v == "":
        return ""
    if not isinstance(v, str):
        return f'must be an address, or "" (got {v!r})'
    try:
        ipaddress.ip_address(v)
        return ""
    except ValueError:
        pass
    ok = re.fullmatch(r"[A-Za-z0-9]([A-Za-z0-9-]{0,62})(\.[A-Za-z0-9]([A-Za-z0-9-]{0,62}))*", v)
    return "" if ok else f'must be an IP address or host name, or "" (got {v!r})'
